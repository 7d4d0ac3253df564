"""Report figures: pure functions of the results table that write PNG and PDF files.

* :func:`privacy_utility_scatter` — one point per trial (privacy metric on x, utility
  metric on y) and the mean ± sd of every generator variant, one panel per dataset;
* :func:`metric_boxplots` — for one metric family and one dataset, a panel per metric
  column with a box and the individual values of every generator variant;
* :func:`cost_bars` — mean fit time, sample time and peak memory per variant (± sd).

Colour always encodes the generator (the same colour in every figure); in the scatter,
marker shape tells a generator's variants apart. A function raises :class:`FigureSkipped`
with the reason when the results hold nothing to draw (a metric missing, every trial
failed); :func:`make_figures` records the reason for the report index.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from harness.report.boxes import SAMPLED_NOTE, STRIP_MAX, box_panel
from harness.report.goals import direction_phrase
from harness.report.prepare import block_keys, column_info, ordered_rows, prepare, row_keys
from harness.report.style import MARKERS, PALETTE_SIZE, figure_style, new_figure, palette, save_figure
from harness.report.tables import trial_costs

# Preferred (metric, variants) for the default axes of the privacy-utility scatter.
PRIVACY_DEFAULTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("anonymeter_linkability", ("risk",)),
    ("anonymeter_singling_out", ("risk", "multivariate", "univariate")),
    ("anonymeter_inference", ("risk", "max")),
    ("dcr_share", ("share",)),
    ("dcr_nndr", ("dcr_mean", "nndr_mean")),
)
UTILITY_DEFAULTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ml_efficacy", ("roc_auc", "f1_macro", "f1", "balanced_accuracy", "accuracy", "r2")),
    ("pct_diff", ()),
)
PANEL_FAMILIES: tuple[str, ...] = ("privacy", "utility", "fidelity")
MAX_PANELS = 12
LEGEND_ROWS = 18
PANEL_WIDTH = 2.7


class FigureSkipped(Exception):
    """Nothing to draw; ``str(exc)`` says why."""


@dataclass
class FigureOutcome:
    """A figure of the report: its files, or why it was skipped."""

    name: str
    caption: str
    paths: list[Path] = field(default_factory=list)
    skipped: str | None = None


def slug(text: str) -> str:
    """A file-name-safe version of ``text``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "all"


def _available(frame: pd.DataFrame, family: str) -> list[str]:
    """Metric columns of ``family`` with at least one finite ok value, in report order."""
    ok = frame[(frame["status"] == "ok") & np.isfinite(frame["value"]) & (frame["family"] == family)]
    present = set(ok["column"])
    return [c for c in column_info(frame).index if c in present]


def default_column(frame: pd.DataFrame, family: str, preferences: Sequence[tuple[str, Sequence[str]]]) -> str:
    """Pick the column of ``family`` to plot: the first preference present, else the first ranked column.

    Raises
    ------
    FigureSkipped
        If the family has no column with an ok value.
    """
    candidates = _available(frame, family)
    if not candidates:
        raise FigureSkipped(f"no {family} metric has an ok value")
    info = column_info(frame)
    for metric, variants in preferences:
        own = [c for c in candidates if info.at[c, "metric"] == metric]
        for variant in variants:
            exact = [c for c in own if info.at[c, "variant"] == variant]
            partial = [c for c in own if variant in str(info.at[c, "variant"]) and "trtr" not in c]
            if exact or partial:
                return (exact or partial)[0]
        if own:
            return own[0]
    ranked = [c for c in candidates if info.at[c, "goal"] in ("maximise", "minimise", "target")]
    return (ranked or candidates)[0]


def _block_title(values: Sequence[object]) -> str:
    return " · ".join(str(v) for v in values if str(v))


def _axis_label(column: str, info: pd.DataFrame) -> str:
    goal, target = str(info.at[column, "goal"]), float(info.at[column, "target_value"])
    phrase = direction_phrase(goal, target)
    return f"{column}\n({phrase})" if phrase else column


def _markers(frame: pd.DataFrame, keys: list[str]) -> dict[str, str]:
    """Marker per label: the variants of one generator get different shapes.

    Generators that share a colour (more than 10 generators) start at different shapes.
    """
    rows = ordered_rows(frame, keys).drop_duplicates("label")
    generators = sorted(set(rows["generator"]))
    out: dict[str, str] = {}
    for generator, group in rows.groupby("generator", sort=False):
        start = generators.index(str(generator)) // PALETTE_SIZE
        for i, label in enumerate(group["label"]):
            out[str(label)] = MARKERS[(start + i) % len(MARKERS)]
    return out


def privacy_utility_scatter(
    results: pd.DataFrame,
    out_dir: Path,
    *,
    x: str | None = None,
    y: str | None = None,
    stem: str = "privacy_utility",
) -> list[Path]:
    """Scatter of a privacy metric (x) against a utility metric (y), one point per trial.

    Parameters
    ----------
    results : DataFrame
        The long results table.
    out_dir : Path
        Directory of the figure files.
    x, y : str, optional
        Metric columns (``metric`` or ``metric/variant``). Defaults: Anonymeter linkability
        risk and ML-efficacy ROC AUC where present, else the first privacy and the first
        utility metric with ok values.
    stem : str
        File name without extension.

    Returns
    -------
    list of Path
        The PNG and the PDF.

    Raises
    ------
    FigureSkipped
        If a metric is missing or no trial has ok values for both.
    """
    frame = prepare(results)
    keys = row_keys(frame)
    x = x or default_column(frame, "privacy", PRIVACY_DEFAULTS)
    y = y or default_column(frame, "utility", UTILITY_DEFAULTS)
    info = column_info(frame)
    for col in (x, y):
        if col not in info.index:
            raise FigureSkipped(f"metric column {col!r} is not in the results")
    ok = frame[(frame["status"] == "ok") & frame["column"].isin([x, y]) & np.isfinite(frame["value"])]
    if ok.empty:
        raise FigureSkipped(f"no ok values for {x} or {y}")
    wide = ok.pivot_table(index=[*keys, "trial_id"], columns="column", values="value", aggfunc="mean")
    wide = wide.reindex(columns=[x, y]).dropna().reset_index()
    if wide.empty:
        raise FigureSkipped(f"no trial has ok values for both {x} and {y}")
    blocks = block_keys(keys)
    groups = list(wide.groupby(blocks, sort=True))
    colours = palette(frame["generator"])
    markers = _markers(frame, keys)
    ncols = min(len(groups), 3)
    nrows = math.ceil(len(groups) / ncols)
    labels = [lab for lab in dict.fromkeys(ordered_rows(frame, keys)["label"]) if lab in set(wide["label"])]
    legend_cols = math.ceil(len(labels) / LEGEND_ROWS)
    legend_width = min(2.6, 0.065 * max(len(lab) for lab in labels) + 0.6) * legend_cols
    height = max(3.2 * nrows, 0.24 * min(len(labels), LEGEND_ROWS) + 0.8)
    with figure_style():
        fig = new_figure(3.6 * ncols + legend_width, height)
        axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
        for ax, (block, sub) in zip(axes, groups):
            _scatter_panel(ax, sub, colours, markers)
            ax.set_title(_block_title(block if isinstance(block, tuple) else (block,)))
            ax.set_xlabel(_axis_label(x, info))
            ax.set_ylabel(_axis_label(y, info))
        for ax in axes[len(groups) :]:
            ax.set_visible(False)
        generator_of = dict(zip(frame["label"], frame["generator"]))
        handles = [
            Line2D(
                [],
                [],
                ls="",
                marker=markers[lab],
                color=colours[generator_of[lab]],
                mec="black",
                mew=0.5,
                ms=7,
            )
            for lab in labels
        ]
        fig.legend(
            handles,
            labels,
            loc="outside right upper",
            ncols=legend_cols,
            title="generator (mean ± sd)",
            frameon=False,
        )
        return save_figure(fig, out_dir, stem)


def _scatter_panel(
    ax: Axes, data: pd.DataFrame, colours: dict[str, tuple[float, float, float]], markers: dict[str, str]
) -> None:
    x, y = data.columns[-2], data.columns[-1]
    for label, sub in data.groupby("label", sort=False):
        colour = colours[str(sub["generator"].iloc[0])]
        marker = markers[str(label)]
        ax.scatter(sub[x], sub[y], color=colour, marker=marker, s=16, alpha=0.35, linewidths=0)
        sx, sy = sub[x].std(), sub[y].std()
        ax.errorbar(
            sub[x].mean(),
            sub[y].mean(),
            xerr=None if math.isnan(sx) else sx,
            yerr=None if math.isnan(sy) else sy,
            fmt=marker,
            color=colour,
            ms=7,
            mec="black",
            mew=0.5,
            elinewidth=0.9,
            capsize=2,
            zorder=3,
        )


def metric_boxplots(
    results: pd.DataFrame,
    out_dir: Path,
    family: str,
    *,
    block: Sequence[str] | None = None,
    stem: str | None = None,
) -> list[Path]:
    """Box and strip plots of every metric column of ``family``, one panel per column.

    Parameters
    ----------
    results : DataFrame
        The long results table.
    out_dir : Path
        Directory of the figure files.
    family : str
        ``privacy``, ``utility`` or ``fidelity``.
    block : sequence of str, optional
        Values of the block keys (dataset, and experiment/QI set where the run has several)
        to plot; default the first block. Different datasets are never pooled.
    stem : str, optional
        File name stem; default ``box_<family>_<block>``. More than 12 columns are split
        into several figures (``_2``, ``_3``... appended).

    Returns
    -------
    list of Path
        PNG and PDF of every figure written.

    Raises
    ------
    FigureSkipped
        If no metric of the family has an ok value in the block.
    """
    frame = prepare(results)
    keys = row_keys(frame)
    blocks = block_keys(keys)
    if frame.empty:
        raise FigureSkipped("the results are empty")
    chosen = (
        tuple(block) if block is not None else tuple(ordered_rows(frame, keys)[blocks].iloc[0].astype(str))
    )
    in_block = frame[(frame[blocks].astype(str) == list(chosen)).all(axis=1)]
    columns = _available(in_block, family)
    title = _block_title(chosen)
    if not columns:
        raise FigureSkipped(f"no {family} metric has an ok value for {title}")
    info = column_info(frame)
    labels = list(dict.fromkeys(ordered_rows(in_block, keys)["label"]))
    colours = palette(frame["generator"])
    ok = in_block.loc[
        (in_block["status"] == "ok") & np.isfinite(in_block["value"]),
        ["column", "label", "generator", "value"],
    ]
    by_column = dict(list(ok.groupby("column", sort=False)))
    stem = stem or f"box_{family}_{slug(title)}"
    paths: list[Path] = []
    chunks = [columns[i : i + MAX_PANELS] for i in range(0, len(columns), MAX_PANELS)]
    for part, chunk in enumerate(chunks, start=1):
        ncols = min(len(chunk), 3)
        nrows = math.ceil(len(chunk) / ncols)
        label_width = min(2.6, 0.065 * max(len(lab) for lab in labels) + 0.3)
        panel_height = 0.3 * len(labels) + 1.0
        with figure_style():
            fig = new_figure(PANEL_WIDTH * ncols + label_width, panel_height * nrows + 0.4)
            axes = fig.subplots(nrows, ncols, squeeze=False)
            sampled = False
            for i, col in enumerate(chunk):
                ax = axes.ravel()[i]
                sampled |= box_panel(ax, by_column[col], col, labels, colours, info)
                ax.tick_params(axis="y", labelleft=i % ncols == 0)
            for ax in axes.ravel()[len(chunk) :]:
                ax.set_visible(False)
            suffix = f" ({part}/{len(chunks)})" if len(chunks) > 1 else ""
            note = f"\n({SAMPLED_NOTE})" if sampled else ""
            fig.suptitle(f"{family.capitalize()} metrics — {title}{suffix}{note}")
            paths += save_figure(fig, out_dir, stem if part == 1 else f"{stem}_{part}")
    return paths


def cost_bars(results: pd.DataFrame, out_dir: Path, *, stem: str = "cost") -> list[Path]:
    """Bar chart of mean fit time, sample time and peak memory per generator variant (± sd, ok trials).

    One row of three panels per dataset block; an axis spanning more than two orders of
    magnitude is logarithmic.

    Returns
    -------
    list of Path
        The PNG and the PDF.

    Raises
    ------
    FigureSkipped
        If no ok trial has a recorded cost.
    """
    frame = prepare(results)
    keys = row_keys(frame)
    costs = trial_costs(frame)
    measures = {"fit_s": "fit time (s)", "sample_s": "sample time (s)", "peak_rss_mb": "peak RSS (MB)"}
    ok = costs[costs["trial_status"] == "ok"]
    if ok[list(measures)].notna().to_numpy().sum() == 0:
        raise FigureSkipped("no ok trial has a recorded cost")
    blocks = block_keys(keys)
    colours = palette(frame["generator"])
    groups = [(b, g) for b, g in ok.groupby(blocks, sort=True)]
    labels_all = list(dict.fromkeys(ordered_rows(frame, keys)["label"]))
    label_width = min(2.6, 0.065 * max(len(lab) for lab in labels_all) + 0.3)
    block_labels = [[lab for lab in labels_all if lab in set(sub["label"])] for _, sub in groups]
    heights = [0.3 * len(labels) + 1.2 for labels in block_labels]
    with figure_style():
        fig = new_figure(PANEL_WIDTH * 3 + label_width, sum(heights) + 0.4)
        axes = fig.subplots(len(groups), 3, squeeze=False, gridspec_kw={"height_ratios": heights})
        for r, (block, sub) in enumerate(groups):
            labels = block_labels[r]
            for c, (col, title) in enumerate(measures.items()):
                ax = axes[r, c]
                data = sub.dropna(subset=[col])
                if data.empty:
                    ax.text(0.5, 0.5, "not recorded", ha="center", va="center", transform=ax.transAxes)
                    ax.set_yticks([])
                else:
                    sns.barplot(
                        data=data,
                        x=col,
                        y="label",
                        order=labels,
                        hue="generator",
                        palette=colours,
                        dodge=False,
                        legend=False,
                        errorbar="sd",
                        saturation=1,
                        capsize=0.2,
                        err_kws={"linewidth": 0.9, "color": "0.2"},
                        ax=ax,
                    )
                    positive = data[col][data[col] > 0]
                    if len(positive) and positive.max() / positive.min() > 100:
                        ax.set_xscale("log")
                ax.set_xlabel(title)
                ax.set_ylabel("")
                ax.tick_params(axis="y", labelleft=c == 0)
                if c == 1:
                    ax.set_title(_block_title(block if isinstance(block, tuple) else (block,)))
        fig.suptitle("Cost per generator variant (mean ± sd over ok trials)")
        return save_figure(fig, out_dir, stem)


def make_figures(
    results: pd.DataFrame, out_dir: Path, *, privacy: str | None = None, utility: str | None = None
) -> list[FigureOutcome]:
    """Draw every report figure; a figure with nothing to draw is recorded as skipped.

    ``privacy`` and ``utility`` are the scatter's axes (default: :func:`default_column`).

    Returns
    -------
    list of FigureOutcome
        In report order: the privacy-utility scatter, box plots per family and dataset,
        the cost chart.
    """
    out: list[FigureOutcome] = []
    frame = prepare(results)

    def attempt(name: str, caption: str, draw: Callable[[], list[Path]]) -> None:
        outcome = FigureOutcome(name=name, caption=caption)
        try:
            outcome.paths = draw()
        except FigureSkipped as exc:
            outcome.skipped = str(exc)
        out.append(outcome)

    attempt(
        "privacy_utility",
        "Privacy vs utility: one faint point per trial, mean ± sd per generator variant.",
        lambda: privacy_utility_scatter(frame, out_dir, x=privacy, y=utility),
    )
    keys = row_keys(frame)
    blocks = block_keys(keys)
    block_values = (
        ordered_rows(frame, keys)[blocks].astype(str).drop_duplicates() if len(frame) else pd.DataFrame()
    )
    for family in PANEL_FAMILIES:
        if block_values.empty:
            out.append(
                FigureOutcome(
                    f"box_{family}", f"{family.capitalize()} metrics", skipped="the results are empty"
                )
            )
        for values in block_values.itertuples(index=False, name=None):
            title = _block_title(values)
            attempt(
                f"box_{family}_{slug(title)}",
                f"{family.capitalize()} metrics for {title}: box per generator variant over all its trials; dots are "
                f"its trials (a random {STRIP_MAX} of them where it has more).",
                partial(metric_boxplots, frame, out_dir, family, block=values),
            )
    attempt(
        "cost",
        "Cost per generator variant: mean ± sd over ok trials.",
        lambda: cost_bars(frame, out_dir),
    )
    return out
