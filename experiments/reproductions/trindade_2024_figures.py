"""R-TRINDADE tables and figures (``spec/reproductions.md`` §8 step 4; 004_… *Synthetic Data Outliers*).

* ``tables/variants``: every synthetic variant with its grid parameters and measures;
* ``tables/table4_outliers``: Table 4 (average synthetic outliers per model) next to ours;
* ``figures/per_model`` (Figs 2, 3 and 5): BoundaryAdherence (the statement of §4.1),
  AttributeCoverage, StatisticSimilarity and the all-QI possible matches per model;
* ``figures/vs_epochs`` (Figs 6 and 7): outliers with one possible match and
  StatisticSimilarity against the epochs, per SDV model.

Two multi-panel figures rather than one per paper figure: every figure is written as PNG and
PDF, and the PDF font embedding dominates the quick profile's evaluation time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from experiments.reproductions.trindade_2024_claims import (
    MODELS,
    PAPER_OUTLIERS,
    PAPER_TABLE4,
    PAPER_TABLE4_DPART,
    STAND_IN,
)
from harness.report.style import MARKERS, figure_style, new_figure, palette
from harness.reproduction import ReproductionRun

LABELS = {
    "sdv_tvae": "TVAE",
    "sdv_ctgan": "CTGAN",
    "sdv_copulagan": "CopulaGAN",
    STAND_IN: "PrivBayes\n(stand-in)",
}


def write_artifacts(run: ReproductionRun, frame: pd.DataFrame) -> None:
    """Write every table and figure of this module for the variants ``frame`` (``trindade_2024.variants``)."""
    label = " (quick profile)" if run.quick else ""
    run.write_table(
        "variants", frame.sort_values(["generator", "epochs", "batch_size", "embedding_dim", "epsilon", "gen_seed"]),
        caption=f"Every synthetic variant: grid parameters, outlier linkage and SDMetrics measures{label}",
    )  # fmt: skip
    run.write_table(
        "table4_outliers",
        table4(frame),
        caption=f"Table 4: average outliers per model, paper vs ours{label}",
        digits=2,
    )
    models = [g for g in (*MODELS, STAND_IN) if g in set(frame["generator"])]
    if not models:
        return
    colours = palette(LABELS[g] for g in models)
    sdv = [g for g in models if g in MODELS]
    with figure_style():
        run.save_figure(_per_model_figure(frame, models, colours, label), "per_model")
        if sdv:
            run.save_figure(_epochs_figure(frame, sdv, colours, label), "vs_epochs")


def table4(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 4 (paper) next to our average synthetic outliers and T's outliers."""
    t_values = frame["outliers_T"].dropna().unique()
    t_out = float(t_values[0]) if len(t_values) == 1 else np.nan
    rows = []
    for model in MODELS:
        sub = frame[frame["generator"] == model]["outliers_synthetic"].dropna()
        ours = float(sub.mean()) if len(sub) else np.nan
        rows.append(_table4_row("SDV", LABELS[model], PAPER_TABLE4[model], ours, len(sub), t_out))
    for model, value in PAPER_TABLE4_DPART.items():
        rows.append(_table4_row("DPART", model, value, np.nan, 0, t_out))
    sub = frame[frame["generator"] == STAND_IN]["outliers_synthetic"].dropna()
    if len(sub):
        rows.append(
            _table4_row("privbench", "PrivBayes (stand-in)", np.nan, float(sub.mean()), len(sub), t_out)
        )
    return pd.DataFrame(rows).astype({"paper outliers": "Int64", "T's outliers": "Int64"})


def _table4_row(tool: str, model: str, paper: float, ours: float, n: int, t_out: float) -> dict[str, object]:
    return {
        "tool": tool,
        "model": model,
        "paper outliers": paper,
        "paper / 617": paper / PAPER_OUTLIERS,
        "ours outliers": ours,
        "ours / T's outliers": ours / t_out if t_out else np.nan,
        "T's outliers": t_out,
        "variants": n,
    }


def _per_model_figure(frame: pd.DataFrame, models: list[str], colours: dict, label: str) -> Figure:
    fig = new_figure(13.0, 3.4)
    axes = fig.subplots(1, 4)
    panels = (
        ("boundary_adherence", "BoundaryAdherence (§4.1)", (-0.02, 1.02)),
        ("attribute_coverage", "AttributeCoverage (Fig. 2)", (-0.02, 1.02)),
        ("statistic_similarity", "StatisticSimilarity, median (Fig. 3)", (-0.02, 1.02)),
        ("possible_matches", "possible matches, all QIs (Fig. 5)", None),
    )
    for ax, (column, title, limits) in zip(axes, panels):
        _strip(ax, frame, models, colours, column)
        ax.set_title(title)
        if limits is not None:
            ax.set_ylim(*limits)
    fig.suptitle(f"Synthetic variants per model{label}")
    return fig


def _strip(ax: Axes, frame: pd.DataFrame, models: list[str], colours: dict, column: str) -> None:
    """Box plot of ``column`` per model with the variants as jittered points."""
    data = [frame[frame["generator"] == g][column].dropna().to_numpy(dtype=float) for g in models]
    positions = np.arange(len(models))
    ax.boxplot([d if len(d) else [np.nan] for d in data], positions=positions, widths=0.5, showfliers=False)
    rng = np.random.default_rng(0)
    for x, values, g in zip(positions, data, models):
        ax.scatter(
            x + rng.uniform(-0.15, 0.15, len(values)), values, s=12, color=colours[LABELS[g]], alpha=0.8
        )
    ax.set_xticks(positions, [LABELS[g] for g in models])


def _epochs_figure(frame: pd.DataFrame, models: list[str], colours: dict, label: str) -> Figure:
    fig = new_figure(10.0, 3.6)
    axes = fig.subplots(1, 2)
    panels = (
        ("unique_matches", "outliers with one possible match", "Fig. 6: unique matches vs epochs"),
        ("statistic_similarity", "StatisticSimilarity (median)", "Fig. 7: StatisticSimilarity vs epochs"),
    )
    for ax, (column, ylabel, title) in zip(axes, panels):
        for i, model in enumerate(models):
            sub = frame[frame["generator"] == model].dropna(subset=[column, "epochs"])
            if sub.empty:
                continue
            colour = colours[LABELS[model]]
            ax.scatter(sub["epochs"], sub[column], s=10, color=colour, alpha=0.45)
            means = sub.groupby("epochs")[column].mean()
            ax.plot(
                means.index,
                means.to_numpy(),
                marker=MARKERS[i % len(MARKERS)],
                color=colour,
                label=LABELS[model],
            )
        ax.set_xticks(sorted(frame["epochs"].dropna().unique()))
        ax.set_xlabel("epochs")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
    axes[0].legend(title="line: mean over variants")
    fig.suptitle(f"SDV variants against the epochs{label}")
    return fig
