"""``raab_disclosure``: Raab's identity (repU) and attribute (DiSCO) disclosure measures.

Specification: ``spec/metrics.md`` P10 (Raab, *Privacy Risk from Synthetic Data: Practical
Proposals*, PSD 2024, Appendix 1). The formulas live in :mod:`metrics.privacy.raab_measures`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import Family, Goal, MetricResult
from harness.params import check_choice, check_column_list
from harness.spec import DatasetSpec
from metrics.privacy.key_target import KeyTargetMetric
from metrics.privacy.raab_measures import DEFAULT_ONE_WAY_THRESHOLD, check_options, disclosure_measures

GROUND_TRUTHS: tuple[str, ...] = ("train", "control")
"""Whose records the intruder looks up: the training split T (the paper) or the control split."""


class RaabDisclosure(KeyTargetMetric):
    """Replicated uniques and DiSCO of a release against the data synthesised (``spec/metrics.md`` P10).

    An intruder knows the key columns (composite q) of a person in the ground truth GT = T
    and looks q up in the release S. Identity disclosure: ``repU`` = % of GT records unique
    on q in GT and in S. Attribute disclosure for a target t: ``DiSCO`` = % of GT records
    whose q has a single target level in S that equals their own (Disclosive in Synthetic,
    Correct in Original). Both are % of |T|; lower is better.

    Outputs
    -------
    ``repU``
        Replicated uniques (once per key set); ``baseline`` = UiO (uniques in GT); details:
        UiO, UiS, UiOiS, the numbers of q levels.
    ``DiSCO:<target>``
        One per target; ``baseline`` = Dorig (what the GT itself discloses, the paper's
        comparator); details: every measure of P10 (iS, DiS, DiSDiO, DCAP, CAPd, TCAP,
        baseCAPd, max/mean denominators, the one-way check).

    Parameters
    ----------
    keys : list of str, optional
        Key columns; None = the active QI set.
    targets : list of str, optional
        Target columns; None = the dataset's ``sensitive`` columns, or its target when it
        declares none (columns that are keys are skipped).
    not_targetslev : dict, optional
        Target column -> levels excluded from every measure for that target (Raab's
        one-way exclusions, e.g. ``{capital-gain: [0]}``).
    use_targets_na : bool
        False excludes records whose target is missing.
    use_keys_na : bool
        False excludes records with a missing key value (``synthpop``'s ``usekeysNA``).
    denom_lim : int, optional
        Count a disclosive record only when its cell count is at most this limit.
    denom_source : {"synthetic", "original"}
        Cell count used by ``denom_lim`` for the SD measures: s_{tq} (paper) or d_{tq}
        (what ``synthpop`` 1.8 computes).
    ngroups_target, ngroups_keys : int, optional
        Quantile-group numeric targets / keys into that many groups (``ngroups_keys`` may be a
        mapping per key); None = every distinct value is a level.
    one_way_threshold : float
        Flag a target when one level holds at least this share of its DiSCO records.
    ground_truth : {"train", "control"}
        The GT whose records are looked up in S: the training split T (the paper's measures)
        or the control split, records S was not made from (the Anonymeter-style comparison
        of Raab §5, Table 3: "Ctrl"); ``control`` needs a non-empty control split.

    Notes
    -----
    Missing values are a level of their own; levels are aligned on T ∪ S. Exclusions remove
    records from numerators only (denominators stay |T|), as ``synthpop`` does; this
    reproduces the original-data columns of the paper's Table 2 exactly.
    """

    name: ClassVar[str] = "raab_disclosure"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 100.0

    def __init__(
        self,
        keys: list[str] | None = None,
        targets: list[str] | None = None,
        not_targetslev: dict[str, list[Any]] | None = None,
        use_targets_na: bool = True,
        use_keys_na: bool = True,
        denom_lim: int | None = None,
        denom_source: str = "synthetic",
        ngroups_target: int | None = None,
        ngroups_keys: int | dict[str, int] | None = None,
        one_way_threshold: float = DEFAULT_ONE_WAY_THRESHOLD,
        ground_truth: str = "train",
    ) -> None:
        self.keys = keys
        self.targets = targets
        self.not_targetslev = not_targetslev
        self.use_targets_na = use_targets_na
        self.use_keys_na = use_keys_na
        self.denom_lim = denom_lim
        self.denom_source = denom_source
        self.ngroups_target = ngroups_target
        self.ngroups_keys = ngroups_keys
        self.one_way_threshold = one_way_threshold
        self.ground_truth = ground_truth

    def _validate_params(self) -> None:
        check_column_list("keys", self.keys)
        check_column_list("targets", self.targets)
        if self.keys is not None and len(set(self.keys)) != len(self.keys):
            raise ConfigError(f"`keys` must not repeat a column; got {self.keys!r}")
        if self.not_targetslev is not None:
            if not isinstance(self.not_targetslev, Mapping) or not all(
                isinstance(k, str) for k in self.not_targetslev
            ):
                raise ConfigError(
                    "`not_targetslev` must be null or a mapping of target column to a list of levels; "
                    f"got {self.not_targetslev!r}"
                )
            for column, levels in self.not_targetslev.items():
                if isinstance(levels, (str, bytes)) or not isinstance(levels, (list, tuple)):
                    raise ConfigError(
                        f"`not_targetslev.{column}` must be a list of target levels; got {levels!r}"
                    )
        check_options(
            use_targets_na=self.use_targets_na,
            use_keys_na=self.use_keys_na,
            denom_lim=self.denom_lim,
            denom_source=self.denom_source,
            ngroups_target=self.ngroups_target,
            ngroups_keys=self.ngroups_keys,
            one_way_threshold=self.one_way_threshold,
        )
        check_choice("ground_truth", self.ground_truth, GROUND_TRUTHS)

    # ------------------------------------------------------------------ compute
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
        keys = self.key_columns(spec)
        targets = self.target_columns(spec, keys)
        if self.not_targetslev:
            self._check_known("not_targetslev", list(self.not_targetslev), spec)
        gt = real
        if self.ground_truth == "control":
            if control is None or len(control) == 0:
                raise IncomputableMetricError(
                    f"metric {self.name}: ground_truth: control needs a non-empty control split"
                )
            gt = control
        ident, attributes = disclosure_measures(
            gt,
            synthetic,
            keys,
            targets,
            not_targetslev=self.not_targetslev,
            use_targets_na=self.use_targets_na,
            use_keys_na=self.use_keys_na,
            denom_lim=self.denom_lim,
            denom_source=self.denom_source,
            ngroups_target=self.ngroups_target,
            ngroups_keys=self.ngroups_keys,
            one_way_threshold=self.one_way_threshold,
        )
        out: dict[str, MetricResult] = {
            "repU": MetricResult(
                value=ident.repU,
                baseline=ident.UiO,
                details={
                    "keys": keys,
                    "unit": "percent of |T|",
                    "ground_truth": self.ground_truth,
                    **ident.as_dict(),
                },
            )
        }
        for target, measures in attributes.items():
            out[f"DiSCO:{target}"] = MetricResult(
                value=measures.DiSCO,
                baseline=measures.Dorig,
                details={
                    "target": target,
                    "keys": keys,
                    "unit": "percent of |T|",
                    "excluded_levels": list((self.not_targetslev or {}).get(target, [])),
                    **measures.as_dict(),
                },
            )
        return out
