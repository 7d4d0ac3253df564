"""``consistency``: share of released rows that break the table's derivation rules.

Specification: ``spec/metrics.md`` F9 (``004_…`` *Generating Synthetic Data is Complicated*,
§3 "Generated Variables", Fig. 2: DataSynthesizer's synthetic ``agegr`` disagrees with the
age group of its synthetic ``age`` in 7.88 % of the rows). The rules are those of
:mod:`harness.derived` (``cut``, ``product``, ``lookup``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.derived import Rule, check_rules, declared_rules, parse_rules
from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec

OVERALL = "any"
"""Output name of the share of rows breaking at least one rule."""
MAX_LISTED = 100
"""Mismatch cells (observed, expected, count) listed per categorical rule in ``details``."""


class Consistency(BaseMetric):
    """Share of released rows whose derived columns disagree with their sources.

    ``spec/metrics.md`` F9. For every rule, a row is *checked* when its derived value and the
    value the rule computes from the row's sources are both present, and *violates* the rule
    when they differ (``product`` rules: beyond ``atol + rtol·|expected|``). Missing values
    are never violations; shares are over all released rows, as Latner et al. count the
    misclassified share of all observations (Fig. 2: mismatching non-missing age groups over
    every row).

    Outputs (result ``variant``; lower is better, 0 = every row consistent):

    ``any``
        Share of rows violating at least one rule.
    ``<column>``
        Share of rows violating the rule of that derived column.

    ``baseline`` is the same share on the training table (real data can be inconsistent).
    ``details`` holds per rule ``n_checked``, ``n_violations`` and, for ``cut`` and
    ``lookup`` rules, the mismatching cells ``{observed, expected, n}`` (most frequent
    first, at most ``MAX_LISTED``): the counts of Latner et al.'s Fig. 2.

    Parameters
    ----------
    rules : mapping or None
        ``{derived column: rule}`` as in :mod:`harness.derived`; None = the rules the dataset
        declares under ``preprocess.derived_columns``. Without rules the metric is
        incomputable.
    """

    name: ClassVar[str] = "consistency"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(self, rules: Mapping[str, Any] | None = None) -> None:
        self.rules = rules

    def _validate_params(self) -> None:
        parse_rules(self.rules, where="`rules`")

    def _rules(self, spec: DatasetSpec) -> tuple[Rule, ...]:
        if self.rules is None:
            rules = declared_rules(spec)
        else:
            rules = parse_rules(self.rules, where="`rules`")
            check_rules(rules, spec, where="`rules`")
        if not rules:
            raise IncomputableMetricError(
                f"metric {self.name}: no derivation rules (set `rules` or the dataset's "
                f"preprocess.derived_columns; dataset {spec.name!r} declares none)"
            )
        return rules

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
        rules = self._rules(spec)
        released = _violations(synthetic, rules, real)
        training = _violations(real, rules, real)
        details: dict[str, Any] = {
            "n_rows": len(synthetic),
            "rules": {r.column: {"kind": r.kind, "sources": list(r.sources)} for r in rules},
            "per_rule": released["details"],
        }
        out = {
            OVERALL: MetricResult(
                value=float(released["any"].mean()), baseline=float(training["any"].mean()), details=details
            )
        }
        for rule in rules:
            out[rule.column] = MetricResult(
                value=float(released["rules"][rule.column].mean()),
                baseline=float(training["rules"][rule.column].mean()),
                details={"n_rows": len(synthetic), **released["details"][rule.column]},
            )
        return out


def _violations(frame: pd.DataFrame, rules: tuple[Rule, ...], reference: pd.DataFrame) -> dict[str, Any]:
    """Per rule the boolean violation vector of ``frame``, their union and the details."""
    per_rule: dict[str, np.ndarray] = {}
    details: dict[str, dict[str, Any]] = {}
    for rule in rules:
        expected = rule.expected(frame, reference)
        observed = frame[rule.column]
        checked, agrees = rule.agreement(observed, expected)
        broken = checked & ~agrees
        per_rule[rule.column] = broken
        entry: dict[str, Any] = {"n_checked": int(checked.sum()), "n_violations": int(broken.sum())}
        if rule.kind != "product":
            entry["mismatches"] = _mismatch_cells(observed[broken], expected[broken])
        details[rule.column] = entry
    union = np.logical_or.reduce(list(per_rule.values())) if per_rule else np.zeros(len(frame), bool)
    return {"rules": per_rule, "any": union, "details": details}


def _mismatch_cells(observed: pd.Series, expected: pd.Series) -> list[dict[str, Any]]:
    """Counts of each (observed, expected) pair of the violating rows, most frequent first."""
    if observed.empty:
        return []
    pairs = pd.DataFrame(
        {"observed": observed.astype(str).to_numpy(), "expected": expected.astype(str).to_numpy()}
    )
    counts = pairs.value_counts().reset_index(name="n")
    counts = counts.sort_values(
        ["n", "observed", "expected"], ascending=[False, True, True], kind="mergesort"
    )
    return [
        {"observed": o, "expected": e, "n": int(n)}
        for o, e, n in counts.head(MAX_LISTED).itertuples(index=False, name=None)
    ]
