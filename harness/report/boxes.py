"""Box-and-strip panels: a box per generator variant over all its trials, its trials as dots.

Used by the per-family box plots (:func:`harness.report.figures.metric_boxplots`) and the
distance figure (:func:`harness.report.privacy_figures.dcr_distribution`).

The boxes (quartiles, whiskers) are always computed from every trial. The dots are every
trial too, up to :data:`STRIP_MAX` per variant in a panel; a variant with more trials shows a
random sample of :data:`STRIP_MAX` of them (seeded, so a figure is reproducible), and the
figure says so (:data:`SAMPLED_NOTE`). Ten thousand dots add nothing a reader can see over
two hundred, and cost minutes of drawing. Tables and statistics never sample.
"""

from __future__ import annotations

import colorsys
import math
import textwrap
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import cbook
from matplotlib.axes import Axes

from harness.report.goals import direction_phrase, direction_text

STRIP_MAX = 200
"""Most dots (trials) drawn per generator variant in one panel; boxes use every trial."""
STRIP_SEED = 0
SAMPLED_NOTE = f"dots: a random {STRIP_MAX} trials of each variant that has more; boxes: every trial"

Colours = dict[str, tuple[float, float, float]]


def strip_sample(
    data: pd.DataFrame, by: str = "label", limit: int = STRIP_MAX, seed: int = STRIP_SEED
) -> tuple[pd.DataFrame, bool]:
    """The rows to draw as dots: every row, or a random ``limit`` of each group of ``by`` that has more.

    Parameters
    ----------
    data : DataFrame
        One row per dot.
    by : str
        The column of the groups (a box each).
    limit : int
        Most rows kept per group.
    seed : int
        Seed of the sample.

    Returns
    -------
    (DataFrame, bool)
        The kept rows in their original order, and whether any group was sampled.
    """
    sizes = data.groupby(by, sort=False).size()
    if sizes.empty or int(sizes.max()) <= limit:
        return data, False
    rng = np.random.default_rng(seed)
    positions = pd.Series(np.arange(len(data)), index=data.index).groupby(data[by].to_numpy(), sort=True)
    keep = []
    for _, rows in positions:
        values = rows.to_numpy()
        keep.append(values if len(values) <= limit else rng.choice(values, size=limit, replace=False))
    return data.iloc[np.sort(np.concatenate(keep))], True


def draw_boxes(ax: Axes, data: pd.DataFrame, labels: list[str], colours: Colours) -> None:
    """One horizontal box per label (``value`` on x), coloured by ``generator``, fliers hidden.

    Drawn with matplotlib's ``Axes.bxp`` from :func:`matplotlib.cbook.boxplot_stats` (quartiles,
    whiskers at 1.5 IQR), the statistics and look of seaborn's ``boxplot`` (box faces in the
    generator's colour at alpha 0.55, lines in the grey seaborn derives from the palette), at a
    fraction of its cost: seaborn spent about 0.5 s per panel at 10,000 trials
    (``benchmarks/bench_collect_scale.py``). The first label is on top, as in seaborn.
    """
    values = data["value"].to_numpy(dtype=float)
    groups = pd.Series(np.arange(len(data))).groupby(data["label"].to_numpy(), sort=False).indices
    generator_of = data.groupby("label", sort=False)["generator"].first()
    stats, positions, faces = [], [], []
    for position, label in enumerate(labels):
        picked = values[groups[label]] if label in groups else values[:0]
        finite = picked[np.isfinite(picked)]
        if finite.size == 0:
            continue
        stats.extend(cbook.boxplot_stats(finite, whis=1.5))
        positions.append(position)
        faces.append(colours[str(generator_of[label])])
    line = _line_grey(colours.values())
    if stats:
        lines = {"color": line, "linewidth": 0.8}
        artists = ax.bxp(
            stats,
            positions=positions,
            widths=0.6,
            capwidths=0.3,
            orientation="horizontal",
            patch_artist=True,
            showfliers=False,
            manage_ticks=False,
            boxprops={"edgecolor": line, "linewidth": 0.8, "alpha": 0.55},
            medianprops={**lines, "solid_capstyle": "butt"},
            whiskerprops={**lines, "solid_capstyle": "butt"},
            capprops=lines,
        )
        for box, face in zip(artists["boxes"], faces):
            box.set_facecolor(face)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.yaxis.grid(False)


def _line_grey(colours: Iterable[tuple[float, float, float]]) -> tuple[float, float, float]:
    """The grey of the box lines: 0.6 x the lowest lightness of the palette (seaborn's choice)."""
    lightness = [colorsys.rgb_to_hls(*colour[:3])[1] for colour in colours]
    grey = 0.6 * min(lightness) if lightness else 0.3
    return (grey, grey, grey)


def draw_strip(ax: Axes, data: pd.DataFrame, labels: list[str], **style: Any) -> bool:
    """The trials as jittered dots (sampled above :data:`STRIP_MAX` per label); return whether sampled."""
    shown, sampled = strip_sample(data)
    sns.stripplot(data=shown, x="value", y="label", order=labels, jitter=0.12, ax=ax, **style)
    return sampled


def box_panel(
    ax: Axes, data: pd.DataFrame, column: str, labels: list[str], colours: Colours, info: pd.DataFrame
) -> bool:
    """Boxes and dots of one metric column; return whether the dots were sampled."""
    goal, target = str(info.at[column, "goal"]), float(info.at[column, "target_value"])
    draw_boxes(ax, data, labels, colours)
    sampled = draw_strip(ax, data, labels, color="0.15", size=3)
    if goal == "target" and not math.isnan(target):
        ax.axvline(target, color="0.35", ls="--", lw=0.9)
    arrow = direction_text(goal, target)
    ax.set_title(textwrap.fill(f"{column} {arrow}".strip(), 30), fontsize=9.5)
    ax.set_xlabel(direction_phrase(goal, target))
    ax.set_ylabel("")
    ax.grid(axis="x", visible=True)
    return sampled
