"""``odds_ratio_preservation``: disparity odds ratios of a fairness attribute, original vs release.

Specification: ``spec/metrics.md`` U5 (``004_…`` *Robin Hood: A De-identification Method to
Preserve Minority Representation for Disparities Research*, §4). A logistic regression of the
binary outcome on the covariates (the QIs plus extras), with fixed reference categories, is
fitted on the training split T and on the release S; for every level g of the fairness
attribute OR_g = exp(β_g) is compared.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.utility import glm
from metrics.utility.generalisation import release_level_map


class OddsRatioPreservation(BaseMetric):
    """Error of the fairness attribute's odds ratios estimated on the release.

    ``spec/metrics.md`` U5. The model is ``outcome ~ covariates`` (binomial GLM, logit link):
    numeric covariates (and those in ``as_numeric``) enter linearly, categorical ones as
    treatment contrasts against ``reference_levels`` (default: T's most frequent level). On the
    release, records whose fairness attribute is ``mask_value`` (Robin Hood's masked records)
    are left out, as are rows with a missing covariate; suppressed records are not in a release. A
    numeric covariate without any value in the release (generalised to ``*`` in every row) is
    left out of the release model (listed in ``details["release_covariates_dropped"]``).

    For each level g of the fairness attribute in T except the reference:

    * OR_g^orig = exp(β_g) on T;
    * OR_g^rel = exp(β_g) on S if S holds g; if g was merged into a generalised level L of S
      (per the dataset's hierarchy, or ``*``), OR_g^rel = OR_L (1 if L holds the reference
      level); if g is absent from S (or S's model has no coefficient for it), OR_g^rel = 1.

    Outputs (``variant``; lower is better):

    ``mean_abs_log_or_error``
        Mean over the levels of |log OR_g^rel − log OR_g^orig| (headline).
    ``abs_log_or_error:<g>``
        The error of level g.
    ``sign_flips``
        Number of levels whose odds ratio lies on the other side of 1 in the release.

    Quantiles over repetitions (the paper's 2.5–97.5 % bands) are a report-time aggregation of
    these rows over seeds.

    Parameters
    ----------
    fairness_attr : str
        Categorical column whose odds ratios are compared (Robin Hood: ``race``).
    covariates : list of str, optional
        Covariates; None = the active QI set. The fairness attribute is always included.
    extra_covariates : list of str
        Added to ``covariates`` (Robin Hood on Adult: ``hours-per-week``).
    as_numeric : list of str
        Covariates treated as continuous although categorical in the schema (Robin Hood:
        ``education-num``).
    reference_levels : dict, optional
        ``{column: level}`` baseline categories (Robin Hood: ``race: White``, ``sex: Male``, ...);
        unlisted categorical covariates use T's most frequent level.
    outcome : str, optional
        Binary outcome column; None = the dataset target.
    mask_value : str
        Released fairness value of a masked record (``robin_hood``: ``?``).

    Raises
    ------
    IncomputableMetricError
        When the outcome is not binary, the fairness attribute is not a column, or the model
        cannot be fitted on T.
    """

    name: ClassVar[str] = "odds_ratio_preservation"
    family: ClassVar[Family] = "utility"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf

    def __init__(
        self,
        fairness_attr: str = "race",
        covariates: list[str] | None = None,
        extra_covariates: list[str] | None = None,
        as_numeric: list[str] | None = None,
        reference_levels: dict[str, str] | None = None,
        outcome: str | None = None,
        mask_value: str = "?",
    ) -> None:
        self.fairness_attr = fairness_attr
        self.covariates = covariates
        self.extra_covariates = extra_covariates
        self.as_numeric = as_numeric
        self.reference_levels = reference_levels
        self.outcome = outcome
        self.mask_value = mask_value

    def _validate_params(self) -> None:
        if not isinstance(self.fairness_attr, str) or not self.fairness_attr:
            raise ConfigError(f"`fairness_attr` must be a column name; got {self.fairness_attr!r}")
        for key in ("covariates", "extra_covariates", "as_numeric"):
            value = getattr(self, key)
            if value is not None and (
                isinstance(value, str)
                or not isinstance(value, (list, tuple))
                or not all(isinstance(c, str) for c in value)
            ):
                raise ConfigError(f"`{key}` must be null or a list of column names; got {value!r}")
        if self.covariates is not None and not self.covariates:
            raise ConfigError("`covariates` must be null or a non-empty list of column names; got []")
        refs = self.reference_levels
        if refs is not None and (
            not isinstance(refs, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in refs.items())
        ):
            raise ConfigError(f"`reference_levels` must be null or a mapping column -> level; got {refs!r}")
        if self.outcome is not None and (not isinstance(self.outcome, str) or not self.outcome):
            raise ConfigError(f"`outcome` must be null or a column name; got {self.outcome!r}")
        if not isinstance(self.mask_value, str):
            raise ConfigError(f"`mask_value` must be a string; got {self.mask_value!r}")

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        outcome, covariates, as_numeric = self._columns(spec, real)
        fair = self.fairness_attr
        orig = self._frame(canonical_row_order(real), spec, outcome, covariates, as_numeric)
        released = synthetic[synthetic[fair].astype(str) != self.mask_value] if len(synthetic) else synthetic
        n_masked = len(synthetic) - len(released)
        rel = self._frame(canonical_row_order(released), spec, outcome, covariates, as_numeric)
        orig = orig.dropna(subset=[outcome, *covariates])
        # a numeric covariate generalised to "*" everywhere in the release carries no information
        # there: the release model leaves it out instead of losing every row
        dropped = [
            c for c in covariates if glm.is_numeric(spec, c, as_numeric) and len(rel) and rel[c].isna().all()
        ]
        rel_covariates = [c for c in covariates if c not in dropped]
        rel = rel.dropna(subset=[outcome, *rel_covariates])

        refs_o = self._references(orig, covariates, as_numeric, spec)
        fair_ref = refs_o[fair]
        levels = sorted(set(orig[fair]) - {fair_ref})
        if not levels:
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation: fairness attribute {fair!r} has a single level in the training split"
            )
        formula_o = self._formula(orig, spec, outcome, covariates, refs_o, as_numeric)
        try:
            fit_o = glm.fit(formula_o, orig, "logit")
        except ValueError as exc:
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation: on the training split, {exc}"
            ) from None

        release_levels = sorted(set(rel[fair])) if len(rel) else []
        level_map = release_level_map(spec, fair, [*levels, fair_ref], release_levels)
        refs_s = self._release_references(spec, rel, rel_covariates, as_numeric, refs_o, release_levels)
        note = ""
        fit_s: glm.Fit | None = None
        if len(rel) == 0:
            note = "no unmasked release rows with complete covariates"
        else:
            try:
                fit_s = glm.fit(
                    self._formula(rel, spec, outcome, rel_covariates, refs_s, as_numeric), rel, "logit"
                )
            except ValueError as exc:
                note = str(exc)

        per: dict[str, dict[str, Any]] = {}
        for g in levels:
            beta_o = fit_o.params.get(glm.level_term(fair, fair_ref, g))
            if beta_o is None or not math.isfinite(beta_o):
                continue  # no estimate on T (e.g. the level only occurs with a missing covariate)
            mapped = level_map.get(g)
            if mapped is None or fit_s is None:
                beta_s, how = 0.0, "absent"
            elif mapped == refs_s.get(fair):
                beta_s, how = 0.0, "reference" if mapped == g else f"merged into reference {mapped!r}"
            else:
                value = fit_s.params.get(glm.level_term(fair, refs_s[fair], mapped))
                ok = value is not None and math.isfinite(value)
                beta_s = float(value) if ok else 0.0
                how = ("exact" if mapped == g else f"merged into {mapped!r}") if ok else "not estimable"
            per[g] = {
                "or_orig": math.exp(beta_o) if beta_o < 700 else math.inf,
                "or_release": math.exp(beta_s) if beta_s < 700 else math.inf,
                "log_or_orig": float(beta_o),
                "log_or_release": beta_s,
                "release_level": how,
                "error": abs(beta_s - float(beta_o)),
                "sign_flip": bool(np.sign(beta_s) * np.sign(beta_o) < 0),
            }
        if not per:
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation: no level of {fair!r} has an odds ratio on the training split"
            )
        details: dict[str, Any] = {
            "fairness_attr": fair,
            "outcome": outcome,
            "covariates": covariates,
            "as_numeric": as_numeric,
            "reference_levels": refs_o,
            "release_reference_levels": refs_s,
            "n_used_real": fit_o.n_used,
            "n_used_release": fit_s.n_used if fit_s is not None else 0,
            "n_masked_excluded": int(n_masked),
            "release_covariates_dropped": dropped,
            "levels": per,
        }
        if note:
            details["release_note"] = note
        out = {
            "mean_abs_log_or_error": MetricResult(
                float(np.mean([e["error"] for e in per.values()])), details=details
            ),
            "sign_flips": MetricResult(float(sum(e["sign_flip"] for e in per.values())), details=details),
        }
        for g, entry in per.items():
            out[f"abs_log_or_error:{g}"] = MetricResult(
                entry["error"], details={**entry, "fairness_attr": fair}
            )
        return out

    # ------------------------------------------------------------------ helpers
    def _columns(self, spec: DatasetSpec, real: pd.DataFrame) -> tuple[str, list[str], list[str]]:
        outcome = self.outcome or spec.target
        if outcome is None:
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation needs a binary outcome; dataset {spec.name!r} has no target"
            )
        fair = self.fairness_attr
        for column, role in ((outcome, "outcome"), (fair, "fairness attribute")):
            if column not in real.columns:
                raise IncomputableMetricError(
                    f"metric odds_ratio_preservation: {role} {column!r} is not a column of dataset {spec.name!r}"
                )
        if glm.is_numeric(spec, fair):
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation: fairness attribute {fair!r} must be categorical"
            )
        base = list(self.covariates) if self.covariates is not None else list(spec.qi)
        wanted = [*base, *(self.extra_covariates or []), fair]
        covariates = [c for c in dict.fromkeys(wanted) if c != outcome]
        missing = [c for c in covariates if c not in real.columns]
        if missing:
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation: covariate(s) {missing} are not columns of dataset {spec.name!r}"
            )
        as_numeric = [c for c in (self.as_numeric or []) if c in covariates and c != fair]
        return outcome, covariates, as_numeric

    def _frame(
        self,
        frame: pd.DataFrame,
        spec: DatasetSpec,
        outcome: str,
        covariates: list[str],
        as_numeric: list[str],
    ) -> pd.DataFrame:
        out = glm.prepare(frame[[*covariates, outcome]], spec, covariates, as_numeric)
        values = frame[outcome]
        out[outcome] = np.where(
            values.isna(), np.nan, (values.astype(str) == self._positive(spec, outcome)).astype(float)
        )
        return out

    def _positive(self, spec: DatasetSpec, outcome: str) -> str:
        declared = next((c.categories for c in spec.columns if c.name == outcome), None)
        if not declared or len(declared) != 2:
            raise IncomputableMetricError(
                f"metric odds_ratio_preservation: outcome {outcome!r} must be a binary column with 2 declared categories"
            )
        return str(declared[-1])

    def _references(
        self, orig: pd.DataFrame, covariates: list[str], as_numeric: list[str], spec: DatasetSpec
    ) -> dict[str, str]:
        refs: dict[str, str] = {}
        for column in covariates:
            if glm.is_numeric(spec, column, as_numeric):
                continue
            configured = (self.reference_levels or {}).get(column)
            present = set(orig[column])
            if configured is not None and configured in present:
                refs[column] = configured
            else:
                refs[column] = glm.modal_level(orig[column]) or ""
        return refs

    def _release_references(
        self,
        spec: DatasetSpec,
        rel: pd.DataFrame,
        covariates: list[str],
        as_numeric: list[str],
        refs_o: dict[str, str],
        release_levels: list[str],
    ) -> dict[str, str]:
        """T's reference level where S holds it, else the level it was generalised to, else S's mode."""
        refs: dict[str, str] = {}
        for column, ref in refs_o.items():
            levels = release_levels if column == self.fairness_attr else sorted(set(rel[column]))
            mapped = release_level_map(spec, column, [ref], levels).get(ref) if levels else None
            refs[column] = mapped if mapped is not None else (glm.modal_level(rel[column]) or "")
        return refs

    def _formula(
        self,
        data: pd.DataFrame,
        spec: DatasetSpec,
        outcome: str,
        covariates: list[str],
        refs: dict[str, str],
        as_numeric: list[str],
    ) -> str:
        terms = glm.default_terms(data, spec, covariates, refs, as_numeric)
        return f"{glm.quote(outcome)} ~ {' + '.join(terms) if terms else '1'}"
