"""R-SYNDIFFIX selections and artifacts: our Tables 2-4 next to the paper's, and the PI figure (Fig. 2).

:func:`observed` reads one generator's numbers (means over its seeds), :func:`per_seed` one
measure per seed, :func:`artifacts` writes ``tables/table2_privacy.md``,
``tables/table3_accuracy.md``, ``tables/table4_pmse.md`` and ``figures/precision_improvement.png``.
Pure functions of the results table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.reproductions.syndiffix_2024_paper import GENERATORS, LABELS, PAPER, PAPER_MULTI, TRIVIAL
from harness.reproduction import ReproductionRun

MEASURES: dict[str, tuple[str, str]] = {
    "fm_pct": ("exact_match", "unique_copy_rate"),
    "pi_median": ("precision_improvement", "pi_median"),
    "pi_max": ("precision_improvement", "pi_max"),
    "coverage": ("precision_improvement", "coverage"),
    "uni_median": ("univariate_error", "composite_median"),
    "corr_median": ("kendall_tau_error", "median_abs_diff"),
    "km_score": ("sdnist_kmarginal", "score"),
    "pmse": ("pmse", "pmse"),
}
"""Field -> (metric, variant) of the harness row that holds it (fm_pct is the rate × 100)."""


@dataclass(frozen=True)
class Observed:
    """Our Table 2–4 numbers of one generator: means over its seeds (NaN where the run has none)."""

    seeds: int
    n_rows: float
    fm_count: float
    fm_pct: float
    pi_median: float
    pi_max: float
    coverage: float
    qi_count: float
    uni_n: float
    uni_median: float
    corr_n: float
    corr_median: float
    km_score: float
    pmse: float

    def ok(self, *names: str) -> bool:
        return all(math.isfinite(getattr(self, n)) for n in names)


def per_seed(run: ReproductionRun, generator: str, field: str) -> pd.Series:
    """One measure of one generator, per seed (indexed by gen_seed; fm_pct in %)."""
    metric, variant = MEASURES[field]
    rows = run.rows(metric, variant, generator=generator)
    values = rows["value"].astype(float) * (100.0 if field == "fm_pct" else 1.0)
    return pd.Series(
        values.to_numpy(), index=rows["gen_seed"].astype(int).to_numpy(), dtype=float
    ).sort_index()


def details(run: ReproductionRun, generator: str, metric: str, variant: str) -> dict[int, dict[str, Any]]:
    """Parsed details of one generator's rows, by seed."""
    rows = run.rows(metric, variant, generator=generator)
    return dict(zip(rows["gen_seed"].astype(int), run.details(metric, variant, generator=generator)))


def _detail(run: ReproductionRun, metric: str, variant: str, generator: str, key: str) -> float:
    values = [float(d[key]) for d in details(run, generator, metric, variant).values() if key in d]
    return float(sum(values) / len(values)) if values else math.nan


def observed(run: ReproductionRun, generator: str) -> Observed:
    """One generator's numbers (means over its seeds; the paper reports one release)."""
    means = {
        field: float(v.mean()) if len(v := per_seed(run, generator, field)) else math.nan
        for field in MEASURES
    }
    return Observed(
        seeds=len(per_seed(run, generator, "km_score")),
        n_rows=_detail(run, "exact_match", "unique_copy_rate", generator, "n_train"),
        fm_count=_detail(run, "exact_match", "unique_copy_rate", generator, "n_unique_copies"),
        qi_count=_detail(run, "precision_improvement", "coverage", generator, "qi_matches"),
        uni_n=_detail(run, "univariate_error", "composite_median", generator, "n_values"),
        corr_n=_detail(run, "kendall_tau_error", "median_abs_diff", generator, "n_pairs"),
        **means,
    )


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """Tables 2–4 (paper next to ours) and the PI figure (paper Fig. 2)."""
    rows = {g: observed(run, g) for g in (*GENERATORS, TRIVIAL)}
    quick = " (quick profile)" if run.quick else ""
    run.write_table(
        "table2_privacy",
        _side_by_side(
            rows,
            [
                ("fm_count", "FM count"),
                ("fm_pct", "FM %"),
                ("pi_median", "med PI"),
                ("pi_max", "max PI"),
                ("coverage", "cov"),
                ("qi_count", "QI count"),
            ],
        ),  # fmt: skip
        caption="Table 2 (privacy measures): paper vs ours (means over seeds)" + quick,
    )
    run.write_table(
        "table3_accuracy",
        _side_by_side(
            rows,
            [
                ("uni_n", "uni N"),
                ("uni_median", "uni med"),
                ("corr_n", "corr N"),
                ("corr_median", "corr med"),
                ("km_score", "3m score"),
            ],
        ),  # fmt: skip
        caption="Table 3 (low-dimensional accuracy): paper vs ours (means over seeds)" + quick,
        digits=4,
    )
    run.write_table(
        "table4_pmse",
        _side_by_side(rows, [("pmse", "pmse")]),
        caption="Table 4 (pMSE; PCA and inconsistencies not ported): paper vs ours" + quick,
        digits=4,
    )
    _pi_figure(run, rows)


def _side_by_side(rows: dict[str, Observed], fields: list[tuple[str, str]]) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for g, o in rows.items():
        if g in PAPER:
            records.append({"technique": LABELS[g], "source": "paper", "seeds": 1,
                            **{lab: float(getattr(PAPER[g], f)) for f, lab in fields}})  # fmt: skip
        if o.seeds or g in PAPER:
            records.append({"technique": LABELS[g], "source": "ours", "seeds": o.seeds,
                            **{lab: float(getattr(o, f)) for f, lab in fields}})  # fmt: skip
    records.append({"technique": "SynDiffix (multi-table)", "source": "paper", "seeds": 1,
                    **{lab: float(getattr(PAPER_MULTI, f)) for f, lab in fields}})  # fmt: skip
    return pd.DataFrame.from_records(records)


def _pi_figure(run: ReproductionRun, rows: dict[str, Observed]) -> None:
    from harness.report.style import figure_style, new_figure, palette

    labels = [LABELS[g] for g in GENERATORS]
    colours = palette(["paper", "ours"])
    with figure_style():
        fig = new_figure(6.0, 3.0)
        axes = fig.subplots(1, 2, sharey=True)
        for ax, field, title in zip(axes, ("pi_median", "pi_max"), ("median PI", "max PI")):
            x = range(len(labels))
            ax.bar([i - 0.2 for i in x], [getattr(PAPER[g], field) for g in GENERATORS], 0.4, label="paper",
                   color=colours["paper"])  # fmt: skip
            ax.bar([i + 0.2 for i in x], [getattr(rows[g], field) for g in GENERATORS], 0.4,
                   label="ours" + (" (quick)" if run.quick else ""), color=colours["ours"])  # fmt: skip
            ax.axhline(0.5, color="0.3", linestyle="--", linewidth=0.8)
            ax.axhline(0.0, color="0.3", linewidth=0.6)
            ax.set_xticks(list(x), labels)
            ax.set_title(title)
        axes[0].set_ylabel("precision improvement")
        axes[0].legend(loc="lower left")
        run.save_figure(fig, "precision_improvement")
