"""Privacy figures drawn from metric details: k-threshold curves and distances against the holdout.

* :func:`k_threshold_curve` — the share of records in equivalence classes of size ≥ k for
  k = 1…k_max, from the ``k_threshold_curve`` details of ``reid_score``'s ``reid_mean`` rows
  (mean over a variant's trials), with the training table's curve for comparison;
* :func:`dcr_distribution` — per generator variant, the distribution over trials of the
  ``dcr_nndr`` distance statistics next to the holdout baseline (the same statistic with the
  control split as the query set: a release below it is closer to the training rows than
  unseen real records are).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from harness.report.boxes import SAMPLED_NOTE, draw_boxes, draw_strip
from harness.report.figures import PANEL_WIDTH, FigureSkipped, _block_title
from harness.report.prepare import block_keys, ordered_rows, row_keys
from harness.report.style import MARKERS, figure_style, new_figure, palette, save_figure

CURVE_KEY = "k_threshold_curve"
DCR_VARIANTS: tuple[str, ...] = ("dcr_mean", "nndr_mean", "dcr_p10")
HOLDOUT = "holdout (baseline)"


def curve_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The k-threshold curves of the ok ``reid_score/reid_mean`` rows, long.

    Returns
    -------
    DataFrame
        Row keys, ``trial_id``, ``k``, ``release``, ``train`` (NaN where not recorded).
    """
    keys = row_keys(frame)
    rows = frame[
        (frame["metric"] == "reid_score") & (frame["variant"] == "reid_mean") & (frame["status"] == "ok")
    ]
    records = []
    for row in rows.itertuples(index=False):
        values = row._asdict()
        try:
            details = json.loads(str(values["details"]))
        except (TypeError, ValueError):
            continue
        curve = details.get(CURVE_KEY) if isinstance(details, dict) else None
        if not isinstance(curve, dict) or not curve.get("k") or not curve.get("release"):
            continue
        train = curve.get("train") or [math.nan] * len(curve["k"])
        for k, rel, tr in zip(curve["k"], curve["release"], train):
            records.append(
                {
                    **{c: values[c] for c in keys},
                    "trial_id": values["trial_id"],
                    "k": int(k),
                    "release": float(rel),
                    "train": math.nan if tr is None else float(tr),
                }  # fmt: skip
            )
    return pd.DataFrame.from_records(records, columns=[*keys, "trial_id", "k", "release", "train"])


def k_threshold_curve(frame: pd.DataFrame, out_dir: Path, *, stem: str = "k_threshold") -> list[Path]:
    """Proportion of records at or above k per generator variant, one panel per dataset.

    Raises
    ------
    FigureSkipped
        If no ``reid_score`` row carries a curve.
    """
    curves = curve_rows(frame)
    if curves.empty:
        raise FigureSkipped("no reid_score/reid_mean row with a k-threshold curve in its details")
    keys = row_keys(frame)
    blocks = block_keys(keys)
    colours = palette(frame["generator"])
    labels = [lab for lab in dict.fromkeys(ordered_rows(frame, keys)["label"]) if lab in set(curves["label"])]
    generator_of = dict(zip(frame["label"], frame["generator"]))
    groups = list(curves.groupby(blocks, sort=True))
    ncols = min(len(groups), 2)
    nrows = math.ceil(len(groups) / ncols)
    with figure_style():
        fig = new_figure(4.4 * ncols + 2.4, 3.3 * nrows)
        axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
        for ax, (block, sub) in zip(axes, groups):
            train = sub.groupby("k")["train"].mean()
            if train.notna().any():
                ax.plot(
                    train.index,
                    train.to_numpy(),
                    color="black",
                    ls="--",
                    lw=1.4,
                    label="training table",
                    zorder=4,
                )
            for i, label in enumerate(labels):
                own = sub[sub["label"] == label]
                if own.empty:
                    continue
                mean = own.groupby("k")["release"].mean()
                ax.plot(
                    mean.index,
                    mean.to_numpy(),
                    color=colours[generator_of[label]],
                    marker=MARKERS[i % len(MARKERS)],
                    markevery=max(1, len(mean) // 8),
                    ms=4,
                    lw=1.3,
                    label=label,
                )
            ax.set_xscale("log")
            ax.set_ylim(-0.02, 1.02)
            ax.set_xlabel("k (equivalence-class size, log scale)")
            ax.set_ylabel("share of records in classes ≥ k")
            ax.set_title(_block_title(block if isinstance(block, tuple) else (block,)))
        for ax in axes[len(groups) :]:
            ax.set_visible(False)
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(
            handles, names, loc="outside right upper", frameon=False, title="release (mean over trials)"
        )
        return save_figure(fig, out_dir, stem)


def dcr_distribution(frame: pd.DataFrame, out_dir: Path, *, stem: str = "dcr_holdout") -> list[Path]:
    """Distance statistics of every variant's releases against the holdout baseline, one row per dataset.

    Raises
    ------
    FigureSkipped
        If there is no ok ``dcr_nndr`` row.
    """
    keys = row_keys(frame)
    blocks = block_keys(keys)
    rows = frame[
        (frame["metric"] == "dcr_nndr")
        & frame["variant"].isin(DCR_VARIANTS)
        & (frame["status"] == "ok")
        & np.isfinite(frame["value"])
    ]
    if rows.empty:
        raise FigureSkipped("no ok dcr_nndr distance row")
    variants = [v for v in DCR_VARIANTS if v in set(rows["variant"])]
    released = rows[[*blocks, "label", "generator", "variant", "value"]]
    base = rows[rows["baseline"].notna()].drop_duplicates([*blocks, "split_seed", "fold", "variant"])
    holdout = base.assign(label=HOLDOUT, generator=HOLDOUT, value=base["baseline"])[list(released.columns)]
    data = pd.concat([released, holdout], ignore_index=True)
    colours = {**palette(frame["generator"]), HOLDOUT: (0.55, 0.55, 0.55)}
    labels_all = [
        lab for lab in dict.fromkeys(ordered_rows(frame, keys)["label"]) if lab in set(released["label"])
    ]
    groups = list(data.groupby(blocks, sort=True))
    width = min(2.6, 0.065 * max(len(lab) for lab in [*labels_all, HOLDOUT]) + 0.3)
    n_labels = len(labels_all) + (1 if len(holdout) else 0)
    row_height = 0.3 * n_labels + 1.1
    with figure_style():
        fig = new_figure(PANEL_WIDTH * len(variants) + width, row_height * len(groups) + 0.5)
        axes = fig.subplots(len(groups), len(variants), squeeze=False)
        sampled = False
        for r, (block, sub) in enumerate(groups):
            order = [lab for lab in labels_all if lab in set(sub["label"])]
            if (sub["label"] == HOLDOUT).any():
                order.append(HOLDOUT)
            for c, variant in enumerate(variants):
                ax = axes[r, c]
                part = sub[sub["variant"] == variant]
                draw_boxes(ax, part, order, colours)
                sampled |= draw_strip(
                    ax, part, order, hue="generator", palette=colours, legend=False, size=4.5, linewidth=0.5,
                    edgecolor="black",
                )  # fmt: skip
                hold = part.loc[part["label"] == HOLDOUT, "value"]
                if len(hold):
                    ax.axvline(float(hold.mean()), color="0.35", ls="--", lw=0.9)
                ax.set_xlabel(f"{variant} (higher = farther from T)")
                ax.set_ylabel("")
                ax.tick_params(axis="y", labelleft=c == 0)
                ax.grid(axis="x", visible=True)
                if c == len(variants) // 2:
                    ax.set_title(_block_title(block if isinstance(block, tuple) else (block,)))
        note = f"\n({SAMPLED_NOTE})" if sampled else ""
        fig.suptitle(
            f"Distance to the training rows: releases vs the holdout baseline (dashed: holdout mean){note}"
        )
        return save_figure(fig, out_dir, stem)
