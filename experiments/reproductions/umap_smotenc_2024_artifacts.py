"""R-UMAP artifacts: the UMAP-SMOTENC paper's Tables 2-6 regenerated, ours next to the paper's.

Written into the run's ``reproduction/tables/`` (Markdown and CSV) by
:func:`experiments.reproductions.umap_smotenc_2024.artifacts`. Our cells read ``mean±sd``
(sd over the runs of the across-dataset mean, :mod:`~experiments.reproductions.umap_smotenc_2024_tables`);
the paper's are verbatim.
"""

from __future__ import annotations

import pandas as pd

from experiments.reproductions.umap_smotenc_2024_budget import budget_table
from experiments.reproductions.umap_smotenc_2024_paper import (
    CLASSIFIERS,
    GENERATORS,
    ORIGINAL,
    PRIVACY,
    TABLE2,
    TABLE2_FRIEDMAN_P,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE6,
    TABLE6_P,
    TEST_BASELINE,
)
from experiments.reproductions.umap_smotenc_2024_tables import Tables, fmt_p, fmt_pm
from harness.reproduction import ReproductionRun


def write_tables(run: ReproductionRun, t: Tables) -> None:
    """Write Tables 2-6 (and the inner-CV Table 4 and the per-dataset means when available)."""
    scope = f"ours: {len(t.datasets)} datasets ({', '.join(t.datasets)}) × {t.n_runs} runs" + (
        " — quick profile" if run.quick else ""
    )
    run.write_table(
        "table2_mean_rank", table2(t), caption=f"Table 2 — mean rank of the trade-off score ({scope})"
    )
    run.write_table("table3_tradeoff", table3(t), caption=f"Table 3 — mean trade-off score ({scope})")
    run.write_table("table4_ml_utility", table4(t, "utility"),
                    caption=f"Table 4 — mean F1 per classifier, reference tuning ({scope})")  # fmt: skip
    if t.utility_inner_cv:
        run.write_table(
            "table4_ml_utility_inner_cv",
            table4(t, "utility_inner_cv"),
            caption=f"Table 4 with inner-CV tuning (spec/metrics.md U1; not in the paper) ({scope})",
        )
    run.write_table("table5_wilcoxon_holm", table5(t),
                    caption=f"Table 5 — Wilcoxon–Holm vs UMAP-SMOTENC, mean F1 ({scope})")  # fmt: skip
    run.write_table("table6_privacy", table6(t), caption=f"Table 6 — mean privacy scores ({scope})")
    if not t.per_dataset.empty:
        run.write_table("per_dataset", t.per_dataset, caption=f"Per-dataset means ({scope})")
    budget = budget_table(run)
    if not budget.empty:
        run.write_table(
            "budget_stability",
            budget,
            caption="CTGAN/TVAE training budget: the profile's epochs vs the budget sweep's, same dataset and runs",
        )


def table2(t: Tables) -> pd.DataFrame:
    """Mean rank ± sd (paper, ours) and the Friedman test."""
    rows = [
        {
            "generator": label,
            "paper": fmt_pm(*TABLE2[label], digits=2),
            "ours": fmt_pm(t.summary("rank", label), t.summary("rank", label, "sd"), digits=2),
        }
        for label in GENERATORS.values()
    ]
    result = t.friedman
    ours = "N/A" if result is None else fmt_p(result.pvalue, result.significant)
    rows.append({"generator": "p-Value / Significance (Friedman)", "paper": f"{TABLE2_FRIEDMAN_P:.1e} / True",
                 "ours": ours})  # fmt: skip
    return pd.DataFrame(rows)


def table3(t: Tables) -> pd.DataFrame:
    """Mean trade-off ± sd and the Holm p-value vs UMAP-SMOTENC (paper, ours)."""
    tests = {} if t.tradeoff_tests is None else {r.treatment: r for r in t.tradeoff_tests.itertuples()}
    rows = []
    for label in GENERATORS.values():
        mean, sd, p = TABLE3[label]
        test = tests.get(label)
        rows.append(
            {
                "generator": label,
                "paper": f"{mean:.2f}±{sd:.2f}",
                "ours": fmt_pm(t.summary("tradeoff", label), t.summary("tradeoff", label, "sd")),
                "paper p": "N/A" if p is None else f"{p:.1e} / True",
                "ours p (Holm)": "N/A" if test is None else fmt_p(test.p_holm, test.significant),
                "better": "" if test is None else str(test.better),
            }
        )
    return pd.DataFrame(rows)


def table4(t: Tables, which: str) -> pd.DataFrame:
    """Mean F1 ± sd per classifier: a paper and an ours column per classifier."""
    rows = []
    for label in [*GENERATORS.values(), ORIGINAL]:
        row = {"generator": label}
        for clf in CLASSIFIERS.values():
            row[f"{clf} paper"] = fmt_pm(*TABLE4[label][clf], digits=2)
            row[f"{clf} ours"] = fmt_pm(t.cell(which, clf, label), t.cell(which, clf, label, "sd"))
        rows.append(row)
    return pd.DataFrame(rows)


def table5(t: Tables) -> pd.DataFrame:
    """Holm p-values vs UMAP-SMOTENC per classifier (paper, ours with the better side)."""
    rows = []
    for label, row in TABLE5.items():
        out = {"generator": label}
        for clf in CLASSIFIERS.values():
            table = t.utility_tests.get(clf)
            test = (
                None if table is None else next((r for r in table.itertuples() if r.treatment == label), None)
            )
            out[f"{clf} paper"] = fmt_p(*row[clf])
            out[f"{clf} ours"] = (
                "N/A" if test is None else f"{fmt_p(test.p_holm, test.significant)} ({test.better})"
            )
        rows.append(out)
    return pd.DataFrame(rows)


def table6(t: Tables) -> pd.DataFrame:
    """Mean privacy scores ± sd per column (paper, ours) with the Holm p-value vs the test baseline."""
    rows = []
    for label in [*GENERATORS.values(), TEST_BASELINE]:
        out = {"generator": label}
        for variant, column in PRIVACY.items():
            out[f"{column} paper"] = fmt_pm(*TABLE6[label][variant], digits=2)
            out[f"{column} ours"] = fmt_pm(
                t.cell("privacy", variant, label), t.cell("privacy", variant, label, "sd")
            )
            table = t.privacy_tests.get(variant)
            test = (
                None if table is None else next((r for r in table.itertuples() if r.treatment == label), None)
            )
            out[f"{column} p paper"] = "N/A" if label == TEST_BASELINE else f"{TABLE6_P:.1e} / True"
            out[f"{column} p ours"] = "N/A" if test is None else fmt_p(test.p_holm, test.significant)
        rows.append(out)
    return pd.DataFrame(rows)
