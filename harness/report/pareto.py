"""Pareto front of the privacy–utility trade-off and its scatter (``000_…`` Fig. 2).

:func:`pareto_front` marks the generator variants no other variant beats on both axes;
:func:`pareto_scatter` draws one point per variant (its mean over seeds and folds) coloured by
a generator parameter (e.g. ε), with the front as a dashed step line, one panel per dataset.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D

from harness.report.figures import FigureSkipped, _axis_label, _block_title
from harness.report.goals import oriented_scores
from harness.report.labels import format_value, parse_params
from harness.report.prepare import block_keys, column_info, row_keys
from harness.report.references import is_reference_label
from harness.report.style import MARKERS, figure_style, new_figure, palette, save_figure

MAX_ANNOTATED = 12
UNSET = "(not set)"


def pareto_front(x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Which points are Pareto-optimal when larger is better on both axes.

    A point is on the front when no other point is at least as good on both axes and
    strictly better on one. NaN points are never on the front.

    Parameters
    ----------
    x, y : array-like of float
        Oriented scores (larger is better).

    Returns
    -------
    ndarray of bool
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    finite = np.isfinite(xs) & np.isfinite(ys)
    out = np.zeros(xs.shape, dtype=bool)
    for i in np.flatnonzero(finite):
        others = finite.copy()
        others[i] = False
        dominated = (
            (xs[others] >= xs[i]) & (ys[others] >= ys[i]) & ((xs[others] > xs[i]) | (ys[others] > ys[i]))
        )
        out[i] = not dominated.any()
    return out


def colour_parameter(params: pd.Series) -> str | None:
    """The generator parameter with the most distinct values among the variants (None if none varies)."""
    counts: dict[str, set[str]] = {}
    for text in params.dropna().unique():
        parsed = parse_params(text) or {}
        for key, value in parsed.items():
            counts.setdefault(key, set()).add(json.dumps(value, sort_keys=True))
    varying = {k: len(v) for k, v in counts.items() if len(v) > 1}
    if not varying:
        return None
    return sorted(varying, key=lambda k: (-varying[k], k))[0]


def pareto_scatter(
    frame: pd.DataFrame,
    out_dir: Path,
    *,
    x: str,
    y: str,
    colour_by: str | None = None,
    stem: str = "pareto",
    methods_only: bool = False,
) -> list[Path]:
    """Mean privacy (x) against mean utility (y) per generator variant, Pareto front drawn.

    Parameters
    ----------
    frame : DataFrame
        The prepared results table.
    out_dir : Path
        Directory of the figure files.
    x, y : str
        Privacy and utility metric columns.
    colour_by : str, optional
        A generator parameter: numeric values get an ordered (cividis) scale, others the
        colour-blind palette; variants without it are grey. Default
        :func:`colour_parameter`; the generator when no parameter varies. Marker shape is
        the generator.
    stem : str
        File name without extension.
    methods_only : bool
        The front is over the methods only: references (labels marked "(reference)",
        :mod:`harness.report.references`) are drawn as grey crosses and never on the front.

    Returns
    -------
    list of Path
        The PNG and the PDF.

    Raises
    ------
    FigureSkipped
        If fewer than two variants have both values.
    """
    info = column_info(frame)
    for col in (x, y):
        if col not in info.index:
            raise FigureSkipped(f"metric column {col!r} is not in the results")
    keys = row_keys(frame)
    blocks = block_keys(keys)
    ok = frame[(frame["status"] == "ok") & frame["column"].isin([x, y]) & np.isfinite(frame["value"])]
    means = ok.pivot_table(
        index=[*keys, "generator_params"], columns="column", values="value", aggfunc="mean"
    )
    means = means.reindex(columns=[x, y]).dropna().reset_index()
    if means.empty or means.groupby(blocks).size().max() < 2:
        raise FigureSkipped(f"no dataset has two generator variants with ok values for both {x} and {y}")
    colour_by = colour_by or colour_parameter(means["generator_params"])
    if colour_by is None:
        means["colour"] = means["generator"]
        legend_title = "generator"
    else:
        means["colour"] = [(parse_params(p) or {}).get(colour_by) for p in means["generator_params"]]
        legend_title = colour_by
    colours = _colours(means["colour"], generator=colour_by is None)
    generators = sorted(set(means["generator"]))
    markers = {g: MARKERS[i % len(MARKERS)] for i, g in enumerate(generators)}
    if methods_only:  # references are drawn alike (hollow circles) and left out of the shape legend
        generators = sorted(set(means.loc[~means["label"].map(is_reference_label), "generator"]))
    goals = {c: (str(info.at[c, "goal"]), float(info.at[c, "target_value"])) for c in (x, y)}
    groups = list(means.groupby(blocks, sort=True))
    ncols = min(len(groups), 3)
    nrows = math.ceil(len(groups) / ncols)
    with figure_style():
        fig = new_figure(4.0 * ncols + 2.2, 3.6 * nrows)
        axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
        for ax, (block, sub) in zip(axes, groups):
            ox = oriented_scores(sub[x], goals[x][0], goals[x][1] if goals[x][0] == "target" else None)
            oy = oriented_scores(sub[y], goals[y][0], goals[y][1] if goals[y][0] == "target" else None)
            refs = (
                sub["label"].map(is_reference_label).to_numpy(dtype=bool)
                if methods_only
                else np.zeros(len(sub), bool)
            )
            front = np.zeros(len(sub), dtype=bool)
            front[~refs] = pareto_front(ox[~refs], oy[~refs])
            on = sub[front].assign(_ox=ox[front]).sort_values("_ox")
            ax.plot(
                on[x],
                on[y],
                ls="--",
                color="0.3",
                lw=1.0,
                drawstyle="steps-post" if len(on) > 1 else "default",
                zorder=1,
            )
            for px, py, colour, generator, is_front, is_ref in zip(
                sub[x], sub[y], sub["colour"], sub["generator"], front, refs
            ):
                if is_ref:
                    ax.scatter(
                        px, py, facecolors="none", edgecolors="0.35", marker="o", s=80, lw=1.3, zorder=2
                    )
                    continue
                ax.scatter(
                    px,
                    py,
                    color=colours.get(_key(colour), (0.6, 0.6, 0.6)),
                    marker=markers[str(generator)],
                    s=60 if is_front else 36,
                    edgecolors="black" if is_front else "0.4",
                    linewidths=1.2 if is_front else 0.5,
                    zorder=3,
                )
            if len(sub) <= MAX_ANNOTATED:
                for label, px, py in zip(sub["label"], sub[x], sub[y]):
                    ax.annotate(
                        str(label),
                        (px, py),
                        fontsize=7,
                        xytext=(4, 3),
                        textcoords="offset points",
                        color="0.25",
                    )
            ax.set_title(_block_title(block if isinstance(block, tuple) else (block,)))
            ax.set_xlabel(_axis_label(x, info))
            ax.set_ylabel(_axis_label(y, info))
        for ax in axes[len(groups) :]:
            ax.set_visible(False)
        if colour_by is None:
            handles = [
                Line2D([], [], ls="", marker=markers[g], color=colours[g], mec="black", mew=0.5, ms=7)
                for g in generators
            ]
            labels = list(generators)
            title = "generator"
        else:
            handles = [
                Line2D([], [], ls="", marker="o", color=c, mec="black", mew=0.5, ms=7)
                for c in colours.values()
            ]
            labels = [str(k) for k in colours]
            handles += [
                Line2D([], [], ls="", marker=markers[g], color="0.55", mec="black", mew=0.5, ms=7)
                for g in generators
            ]
            labels += generators
            title = f"colour: {legend_title}\nshape: generator"
        handles.append(Line2D([], [], ls="--", color="0.3"))
        labels.append("Pareto front")
        if methods_only and means["label"].map(is_reference_label).any():
            handles.append(Line2D([], [], ls="", marker="o", mfc="none", mec="0.35", mew=1.3, ms=8))
            labels.append("reference")
        fig.legend(handles, labels, loc="outside right upper", title=title, frameon=False)
        return save_figure(fig, out_dir, stem)


def _key(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return UNSET
    return format_value(value)


def _colours(values: pd.Series, *, generator: bool) -> dict[str, tuple[float, float, float]]:
    keys = [_key(v) for v in values]
    if generator:
        return palette(keys)
    numbers = [
        v for v in values if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    ]
    present = [k for k in dict.fromkeys(keys) if k != UNSET]
    if numbers and len(numbers) == len([v for v in values if _key(v) != UNSET]):
        ordered = sorted(dict.fromkeys(numbers))
        cmap = sns.color_palette("cividis", n_colors=max(len(ordered), 2))
        out = {format_value(v): tuple(cmap[i]) for i, v in enumerate(ordered)}
    else:
        out = {k: c for k, c in palette(present).items()}
    if UNSET in keys:
        out[UNSET] = (0.6, 0.6, 0.6)
    return {k: (float(c[0]), float(c[1]), float(c[2])) for k, c in out.items()}
