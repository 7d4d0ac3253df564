"""R-UMAP check helpers: the Table 4 ordering chain, Wilcoxon–Holm sign patterns, p-value text.

Shared by the checks of :mod:`experiments.reproductions.umap_smotenc_2024` (``002_…`` Tables
2-6); each function builds one :class:`~harness.reproduction.Check` or its reason text from
our tables (:mod:`~experiments.reproductions.umap_smotenc_2024_tables`). No departures of
their own: they compare, the checks module says what with.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.reproductions.umap_smotenc_2024_paper import GENERATORS, TABLE4
from experiments.reproductions.umap_smotenc_2024_tables import Tables, fmt_p
from harness.reproduction import Check, trend
from harness.reproduction.checks import fmt

GC, CTGAN, TVAE, SMOTE, UMAP = GENERATORS.values()
EVIDENCE_TABLE4, EVIDENCE_TABLE5, EVIDENCE_TABLE6 = (
    "tables/table4_ml_utility.md",
    "tables/table5_wilcoxon_holm.md",
    "tables/table6_privacy.md",
)


def _with(reason: str, extra: str) -> str:
    return f"{reason}; {extra}" if extra else reason


def utility_order(t: Tables, table: str, clf: str, check_id: str, reason: str) -> Check:
    values = {label: t.cell(table, clf, label) for label in GENERATORS.values()}
    gan = (
        max(values[CTGAN], values[TVAE])
        if not (math.isnan(values[CTGAN]) or math.isnan(values[TVAE]))
        else math.nan
    )
    chain = [
        ("GC", values[GC]),
        ("max(CTGAN, TVAE)", gan),
        ("UMAP-SMOTENC", values[UMAP]),
        ("SMOTE-NC", values[SMOTE]),
    ]
    numbers = [v for _, v in chain]
    complete = not any(math.isnan(v) for v in numbers)
    passed = complete and numbers[0] < numbers[1] < numbers[2] <= numbers[3]
    paper = ", ".join(f"{label} {TABLE4[label][clf][0]:.2f}" for label in GENERATORS.values())
    observed = (
        " < ".join(f"{name} {fmt(v, 3)}" for name, v in chain[:3]) + f" ≤ SMOTE-NC {fmt(chain[3][1], 3)}"
    )
    why = reason
    if not passed:
        broken = [
            f"{a[0]} vs {b[0]}"
            for a, b in zip(chain, chain[1:])
            if not (a[1] < b[1] or (b[0] == "SMOTE-NC" and a[1] <= b[1]))
        ]
        why = _with(
            reason, ("order broken at " + ", ".join(broken)) if complete else "a generator has no value"
        )
    return trend(
        check_id,
        f"Table 4 {clf}: SMOTE-NC ≥ UMAP-SMOTENC > max(CTGAN, TVAE) > GC (mean F1)",
        paper,
        observed,
        passed,
        value=values,
        expected={"order": ["GC", "max(CTGAN, TVAE)", "UMAP-SMOTENC", "SMOTE-NC"]},
        reason=why,
        evidence=[EVIDENCE_TABLE4],
    )


def sign_pattern(
    check_id: str,
    claim: str,
    paper: str,
    groups: dict[str, tuple[pd.DataFrame | None, dict[str, str]]],
    context: str,
) -> Check:
    """Compare the ``better`` column of Wilcoxon–Holm tables with the expected winners."""
    matched, total, misses = 0, 0, []
    for name, (table, expected) in groups.items():
        better = {} if table is None else dict(zip(table["treatment"], table["better"]))
        for label, want in expected.items():
            total += 1
            got = better.get(label, "")
            if got == want:
                matched += 1
            else:
                misses.append(f"{name}/{label}: {got or 'no value'}")
    passed = total > 0 and matched == total
    reason = context if passed else _with(context, "differs at " + ", ".join(misses))
    return trend(
        check_id, claim, paper, f"{matched}/{total} directions as published", passed, value=matched,
        expected=total, reason=reason, evidence=[EVIDENCE_TABLE5 if check_id.startswith("table5") else EVIDENCE_TABLE6],
    )  # fmt: skip


def p_list(table: pd.DataFrame | None) -> str:
    if table is None or table.empty:
        return "no test"
    return ", ".join(
        f"{row.treatment} {fmt_p(row.p_holm, row.significant)} ({row.better} better)"
        for row in table.itertuples(index=False)
    )


def friedman_note(n_datasets: int) -> str:
    """Whether the Friedman test can reach α = 0.05 with this many datasets (5 generators)."""
    if n_datasets >= 3:
        return (
            f"with {n_datasets} datasets and 5 generators significance is reachable (the smallest "
            "attainable p with 6 datasets is 8e-05); the paper has 8"
        )
    return f"with {n_datasets} datasets the Friedman test cannot reach α = 0.05 (p ≥ 0.09 with 2); the paper has 8"


def holm_reason(n_datasets: int) -> str:
    return (
        f"with {n_datasets} datasets the smallest exact two-sided Wilcoxon p is 2/2^{n_datasets}; Holm over "
        "4 comparisons makes it 0.125 for 6 datasets (spec/metrics.md S3), above α = 0.05, so the paper's "
        "3.1e-02 (8 datasets) cannot be reached; the directions are checked by the sign-pattern checks"
    )
