"""``ci_overlap``: confidence-interval overlap of regression coefficients (Karr et al. 2006).

Specification: ``spec/metrics.md`` U4 (``004_…`` *An Evaluation of Synthetic Data Generators
Implemented in the Python Library Synthcity*, §3). The same ``statsmodels`` model is fitted on
the training split T and on the release S; each coefficient of T's fit is an estimand whose
95 % intervals are compared.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_bool, check_choice, check_column_list
from harness.spec import DatasetSpec
from metrics.utility import glm


def interval_overlap(orig: tuple[float, float], release: tuple[float, float]) -> float:
    """Karr et al.'s interval overlap I of two confidence intervals.

    With (L_o, U_o) the original interval, (L_s, U_s) the release's, L_i = max(L_o, L_s) and
    U_i = min(U_o, U_s): I = (U_i − L_i)/(2(U_o − L_o)) + (U_i − L_i)/(2(U_s − L_s)), and I = 0
    when the intervals do not intersect (U_i < L_i). A zero-width interval contributes 1/2 when
    it lies inside the other one.

    Parameters
    ----------
    orig, release : tuple of float
        (low, high) of each interval.

    Returns
    -------
    float
        In [0, 1]; 1 for identical intervals.
    """
    (lo, uo), (ls, us) = orig, release
    li, ui = max(lo, ls), min(uo, us)
    if ui < li:
        return 0.0

    def half(width: float) -> float:
        return 0.5 if width <= 0 else (ui - li) / (2.0 * width)

    return float(min(1.0, half(uo - lo) + half(us - ls)))


class CiOverlap(BaseMetric):
    """Mean CI overlap of a regression model's coefficients, original vs release.

    ``spec/metrics.md`` U4. Outputs (``variant``):

    ``mean``
        Mean overlap I over the coefficients of T's model (headline; 1 = every interval
        reproduced).
    ``coef:<name>``
        I of one coefficient (``per_coefficient``); names read ``Intercept``, ``age``,
        ``race=Black`` (treatment dummy against the reference level).

    A coefficient that the release's model lacks (its level is absent from S, or S's reference
    level differs because T's is absent) or whose interval is not finite scores 0; a coefficient
    of T's own fit without a finite interval is not an estimand and is left out (listed in
    ``details``). A release on which the model cannot be fitted scores 0 everywhere.

    Parameters
    ----------
    formula : str, optional
        Patsy formula (``Q("marital-status")`` quotes awkward names). For ``logit`` the
        left-hand side may name the binary target column: it is recoded 0/1 (1 = the positive,
        last declared or sorted, class). None = the dataset target on ``covariates``.
    covariates : list of str, optional
        Right-hand side of the default formula; None = the active QI set (numeric columns as
        they are, categorical ones as treatment contrasts against T's most frequent level).
    model : {"auto", "logit", "ols"}
        ``auto``: ``logit`` for a binary outcome, ``ols`` for a numeric one.
    level : float
        Confidence level of the intervals (0.95).
    per_coefficient : bool
        Also report one output per coefficient.

    Raises
    ------
    IncomputableMetricError
        Without a target (default formula), for a multiclass target with the default formula,
        or when the model cannot be fitted on T.
    """

    name: ClassVar[str] = "ci_overlap"
    family: ClassVar[Family] = "utility"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(
        self,
        formula: str | None = None,
        covariates: list[str] | None = None,
        model: str = "auto",
        level: float = 0.95,
        per_coefficient: bool = True,
    ) -> None:
        self.formula = formula
        self.covariates = covariates
        self.model = model
        self.level = level
        self.per_coefficient = per_coefficient

    def _validate_params(self) -> None:
        if self.formula is not None and (not isinstance(self.formula, str) or "~" not in self.formula):
            raise ConfigError(
                f"`formula` must be null or a patsy formula 'y ~ x1 + x2'; got {self.formula!r}"
            )
        check_column_list("covariates", self.covariates)
        check_choice("model", self.model, glm.MODELS)
        lv = self.level
        if isinstance(lv, bool) or not isinstance(lv, (int, float)) or not 0 < lv < 1:
            raise ConfigError(f"`level` must be a number in (0, 1); got {lv!r}")
        check_bool("per_coefficient", self.per_coefficient)

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
        outcome, model = self._outcome(spec, real)
        columns = [c for c in real.columns if c in spec.table_columns]
        orig = self._frame(canonical_row_order(real), spec, outcome, model, columns)
        rel = self._frame(canonical_row_order(synthetic), spec, outcome, model, columns)
        formula_o, formula_s, references = self._formulas(orig, rel, spec, outcome)
        try:
            fit_o = glm.fit(formula_o, orig, model, level=float(self.level))
        except ValueError as exc:
            raise IncomputableMetricError(f"metric ci_overlap: on the training split, {exc}") from None
        release_note = ""
        try:
            fit_s: glm.Fit | None = glm.fit(formula_s, rel, model, level=float(self.level))
        except ValueError as exc:
            fit_s, release_note = None, str(exc)

        estimands = [t for t in fit_o.params.index if glm.finite(fit_o.ci_low[t], fit_o.ci_high[t])]
        excluded = [glm.pretty(t) for t in fit_o.params.index if t not in estimands]
        if not estimands:
            raise IncomputableMetricError(
                "metric ci_overlap: no coefficient of the training-split fit has a finite CI"
            )
        per: dict[str, dict[str, Any]] = {}
        for term in estimands:
            lo, hi = float(fit_o.ci_low[term]), float(fit_o.ci_high[term])
            entry: dict[str, Any] = {"estimate": float(fit_o.params[term]), "ci": [lo, hi]}
            overlap = 0.0
            if fit_s is not None and term in fit_s.params.index:
                ls, hs = float(fit_s.ci_low[term]), float(fit_s.ci_high[term])
                entry["release_estimate"] = float(fit_s.params[term])
                entry["release_ci"] = [ls, hs]
                if glm.finite(ls, hs):
                    overlap = interval_overlap((lo, hi), (ls, hs))
            entry["overlap"] = overlap
            per[glm.pretty(term)] = entry
        mean = float(np.mean([e["overlap"] for e in per.values()]))
        details: dict[str, Any] = {
            "formula": glm.pretty(formula_o),
            "model": model,
            "level": float(self.level),
            "n_used_real": fit_o.n_used,
            "n_used_release": fit_s.n_used if fit_s is not None else 0,
            "references": references,
            "n_coefficients": len(per),
        }
        if formula_s != formula_o:
            details["release_formula"] = glm.pretty(formula_s)
        if excluded:
            details["excluded_coefficients"] = excluded
        if release_note:
            details["release_note"] = release_note
        out = {"mean": MetricResult(mean, details={**details, "coefficients": per})}
        if self.per_coefficient:
            for name, entry in per.items():
                out[f"coef:{name}"] = MetricResult(entry["overlap"], details={**details, **entry})
        return out

    # ------------------------------------------------------------------ helpers
    def _outcome(self, spec: DatasetSpec, real: pd.DataFrame) -> tuple[str | None, str]:
        """(the outcome column to recode, or None; the model)."""
        if self.formula is None:
            if spec.target is None:
                raise IncomputableMetricError(
                    f"metric ci_overlap: the default formula needs a target; dataset {spec.name!r} has none"
                )
            if spec.task == "multiclass":
                raise IncomputableMetricError(
                    "metric ci_overlap: the default formula needs a binary or numeric target; "
                    f"{spec.target!r} is multiclass (configure `formula`)"
                )
            lhs: str | None = spec.target
        else:
            lhs = self.formula.split("~", 1)[0].strip()
            lhs = glm.pretty(lhs)
            if lhs not in real.columns:
                lhs = None  # an expression: used as written
        model = self.model
        if model == "auto":
            numeric = lhs is not None and glm.is_numeric(spec, lhs)
            model = "ols" if (numeric or lhs is None) else "logit"
        return lhs, model

    def _frame(
        self, frame: pd.DataFrame, spec: DatasetSpec, outcome: str | None, model: str, columns: list[str]
    ) -> pd.DataFrame:
        out = glm.prepare(frame, spec, [c for c in columns if c != outcome])
        if outcome is None:
            return out
        if model == "logit":
            positive = _positive_class(spec, outcome, frame)
            values = frame[outcome]
            out[outcome] = np.where(values.isna(), np.nan, (values.astype(str) == positive).astype(float))
        else:
            out[outcome] = pd.to_numeric(frame[outcome], errors="coerce").astype("float64")
        return out

    def _formulas(
        self, orig: pd.DataFrame, rel: pd.DataFrame, spec: DatasetSpec, outcome: str | None
    ) -> tuple[str, str, dict[str, str]]:
        """(formula on T, formula on S, reference levels on T)."""
        if self.formula is not None:
            return self.formula, self.formula, {}
        assert outcome is not None
        covariates = [c for c in (self.covariates or list(spec.qi)) if c != outcome]
        missing = [c for c in covariates if c not in orig.columns]
        if missing:
            raise IncomputableMetricError(
                f"metric ci_overlap: covariate(s) {missing} are not columns of {spec.name!r}"
            )
        if not covariates:
            raise IncomputableMetricError(
                f"metric ci_overlap: no covariates (dataset {spec.name!r} has no active QI set; configure `covariates`)"
            )
        categorical = [c for c in covariates if not glm.is_numeric(spec, c)]
        refs_o = {c: glm.modal_level(orig[c]) or "" for c in categorical}
        refs_s = {}
        for c in categorical:
            present = set(rel[c].dropna().astype(str))
            refs_s[c] = refs_o[c] if refs_o[c] in present else (glm.modal_level(rel[c]) or "")
        lhs = glm.quote(outcome)
        terms_o = glm.default_terms(orig, spec, covariates, refs_o)
        terms_s = glm.default_terms(rel, spec, covariates, refs_s)
        return _formula(lhs, terms_o), _formula(lhs, terms_s), refs_o


def _formula(lhs: str, terms: list[str]) -> str:
    return f"{lhs} ~ {' + '.join(terms) if terms else '1'}"


def _positive_class(spec: DatasetSpec, column: str, frame: pd.DataFrame) -> str:
    """The positive class of a binary column: the last declared category present, else the last sorted."""
    present = sorted(frame[column].dropna().astype(str).unique())
    declared = next((c.categories for c in spec.columns if c.name == column), None) or ()
    ordered = [c for c in declared if c in set(present)] + [c for c in present if c not in set(declared)]
    if len(ordered) != 2:
        raise IncomputableMetricError(
            f"metric ci_overlap: a logit outcome needs 2 classes; {column!r} has {len(ordered)} in the training split"
        )
    return ordered[-1]
