"""R-SAFEPUB: the regenerated Table 1 (a–c, paper and ours side by side), the hierarchies used
and Fig. 3 (relative accuracy against β)."""

from __future__ import annotations

import json
import math

import pandas as pd

from experiments.reproductions.safepub_2024_paper import TABLE_1, Panel, beta_label
from experiments.reproductions.safepub_2024_trials import GENERATOR, cell, rate, trials
from harness.reproduction import ReproductionRun

ROWS: tuple[tuple[str, str, str], ...] = (
    ("#Sampled records", "sampled", "n_sampled"),
    ("#Equivalence classes", "classes", "n_classes"),
    ("#Suppressed records", "suppressed", "n_suppressed"),
    ("Anonymization parameter k", "k", "k"),
    ("Ratio of suppressed records (%)", "suppressed_pct", "suppressed_pct"),
    ("Relative accuracy for marital status (%)", "ra_marital", "ra_marital"),
    ("Relative accuracy for income (%)", "ra_income", "ra_income"),
)


def table_1(frame: pd.DataFrame, item: Panel) -> pd.DataFrame:
    """One panel of Table 1: each quantity as printed and ours (mean over runs), β in columns.

    Cells are text: the paper's values as printed, ours with one decimal (k as an integer),
    empty where a cell was not run.
    """
    frame = frame.assign(suppressed_pct=100.0 * frame["suppressed_share"].astype(float))
    columns = [beta_label(b, item.epsilon) for b in item.betas]
    records = []
    for label, paper_field, ours_field in ROWS:
        printed = [f"{v:g}" for v in getattr(item, paper_field)]
        means = [cell(frame, item.epsilon, b)[ours_field].astype(float).mean() for b in item.betas]
        shape = "{:.0f}" if ours_field == "k" else "{:.1f}"
        ours = ["" if math.isnan(v) else shape.format(v) for v in means]
        records.append({"quantity": f"{label}: paper", **dict(zip(columns, printed))})
        records.append({"quantity": f"{label}: ours", **dict(zip(columns, ours))})
    runs = [str(len(cell(frame, item.epsilon, b))) for b in item.betas]
    records.append({"quantity": "runs (ours)", **dict(zip(columns, runs))})
    return pd.DataFrame.from_records(records, columns=["quantity", *columns])


def hierarchies(run: ReproductionRun) -> pd.DataFrame:
    """The generalisation hierarchies of the first trial (reproductions.md §5.1.3)."""
    fit = run.rows("fit_seconds", generator=GENERATOR)
    if fit.empty:
        return pd.DataFrame(columns=["column", "kind", "levels", "source or widths"])
    described = json.loads(fit["details"].iloc[0]).get("generator", {}).get("hierarchies", {})
    return pd.DataFrame(
        [
            {
                "column": column,
                "kind": spec.get("kind", ""),
                "levels": spec.get("levels"),
                "source or widths": spec.get("source") or ", ".join(map(str, spec.get("widths", []))),
            }
            for column, spec in described.items()
        ]
    )


def artifacts(run: ReproductionRun) -> None:
    """Table 1 (a–c) with the paper's and our values, the hierarchies used and Fig. 3."""
    frame = trials(run)
    scope = (
        " (quick profile: single runs on ≈1,330 training rows; empty cells were not run)" if run.quick else ""
    )
    for item in TABLE_1:
        run.write_table(
            f"table{item.label}",
            table_1(frame, item),
            caption=f"Table {item.label}: privacy budget ε = {item.epsilon:g}, paper vs ours{scope}",
            digits=1,
        )
    run.write_table("hierarchies", hierarchies(run), caption="Generalisation hierarchies of the QIs")
    _figure(run, frame)


def _figure(run: ReproductionRun, frame: pd.DataFrame) -> None:
    from harness.report.style import figure_style, new_figure, palette

    colours = palette([f"ε = {item.epsilon:g}" for item in TABLE_1])
    with figure_style():
        fig = new_figure(7.0, 3.0)
        axes = fig.subplots(1, 2, sharey=True)
        for ax, (target, title) in zip(axes, (("marital", "(a) marital status"), ("income", "(b) income"))):
            for item in TABLE_1:
                name = f"ε = {item.epsilon:g}"
                rates = [rate(item.epsilon, b) for b in item.betas]
                ax.plot(
                    rates,
                    getattr(item, f"ra_{target}"),
                    "--",
                    marker="o",
                    mfc="none",
                    color=colours[name],
                    label=f"{name} (paper)",
                )
                ours = [cell(frame, item.epsilon, b)[f"ra_{target}"].mean() for b in item.betas]
                shown = [(r, v) for r, v in zip(rates, ours) if not math.isnan(v)]
                if shown:
                    xs, ys = zip(*shown)
                    ax.plot(xs, ys, "-", marker="s", color=colours[name], label=f"{name} (ours)")
            ax.set_title(title)
            ax.set_xlabel("sampling rate β")
        axes[0].set_ylabel("relative accuracy (%)")
        axes[1].legend(loc="best", ncols=2, fontsize=7)
        run.save_figure(fig, "relative_accuracy")


__all__ = ["ROWS", "artifacts", "hierarchies", "table_1"]
