"""Figures of the privacy audit (``mia_audit`` rows): ROC curves and ε lower bounds.

* :func:`roc_curves` — the ROC curve of the headline attack per generator variant on
  log–log axes with the diagonal (chance), one panel per dataset. A variant's curve is the
  mean over its trials of the trials' curves, each interpolated linearly onto a common
  log-spaced FPR grid; the grid starts at ``max(1e-3, smallest positive FPR recorded)``
  (about 1/n_out), below which the audit cannot resolve a TPR;
* :func:`epsilon_figure` — per trial of a formally DP generator, the empirical ε lower
  bound against the configured ε, with the diagonal y = x; points above it (an audit
  failure) are red and annotated.

:func:`audit_figures` runs both and records why one was skipped, like
:func:`harness.report.figures.make_figures`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from harness.audit.epsilon import epsilon_at_threshold
from harness.report.audit import as_float, audit_rows, configured_epsilon, has_audit, parse_details
from harness.report.figures import FigureOutcome, FigureSkipped
from harness.report.prepare import ordered_rows, row_keys
from harness.report.style import MARKERS, figure_style, new_figure, palette, save_figure

MIN_FPR = 1e-3
GRID_POINTS = 60
EXCEEDS_COLOUR = "#d62728"
ROC_CAPTION = (
    "ROC curves of the headline membership-inference attack per generator variant (mean over trials of "
    "curves interpolated on a common FPR grid), log–log axes; the dashed diagonal is chance. Curves high at "
    "low FPR mean members can be singled out with few false accusations."
)
EPSILON_CAPTION = (
    "Empirical ε lower bound (one point per trial) against the configured ε of the formally DP generators; "
    "the dashed line is y = x. Red, annotated points lie above it: the audit contradicts the generator's "
    "privacy guarantee."
)


def roc_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The headline attack's ROC curve of every ok ``mia_audit/auc`` row.

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``label``, ``generator``, ``trial_id``, ``fpr`` and ``tpr``
        (arrays, sorted by FPR).
    """
    columns = ["dataset", "label", "generator", "trial_id", "fpr", "tpr"]
    found = []
    for row in audit_rows(frame, "auc").itertuples(index=False):
        details = parse_details(row.details)
        roc = details.get("roc")
        curve = roc.get(str(details.get("attack", ""))) if isinstance(roc, dict) else None
        if not isinstance(curve, dict):
            continue
        try:
            fpr = np.asarray(curve.get("fpr", []), dtype=float)
            tpr = np.asarray(curve.get("tpr", []), dtype=float)
        except (TypeError, ValueError):
            continue
        if fpr.size < 2 or fpr.shape != tpr.shape or not np.isfinite(fpr).all() or not np.isfinite(tpr).all():
            continue
        order = np.argsort(fpr, kind="stable")
        found.append(
            {
                "dataset": row.dataset,
                "label": row.label,
                "generator": row.generator,
                "trial_id": row.trial_id,
                "fpr": fpr[order],
                "tpr": np.maximum.accumulate(tpr[order]),
            }
        )
    return pd.DataFrame.from_records(found, columns=columns)


def fpr_grid(curves: pd.DataFrame) -> np.ndarray:
    """Log-spaced FPR grid from ``max(MIN_FPR, smallest positive FPR)`` to 1."""
    positive = [float(f[f > 0].min()) for f in curves["fpr"] if (f > 0).any()]
    low = max(MIN_FPR, min(positive, default=MIN_FPR))
    low = min(low, 0.5)
    return np.logspace(math.log10(low), 0.0, GRID_POINTS)


def mean_curve(curves: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """Mean over the rows of ``curves`` of their TPR interpolated onto ``grid``."""
    stacked = np.vstack([np.interp(grid, f, t) for f, t in zip(curves["fpr"], curves["tpr"])])
    return np.asarray(stacked.mean(axis=0))


def roc_curves(frame: pd.DataFrame, out_dir: Path, *, stem: str = "mia_roc") -> list[Path]:
    """ROC curves (log–log) of the headline attack per generator variant, one panel per dataset.

    Raises
    ------
    FigureSkipped
        If no ok ``mia_audit/auc`` row carries a ROC curve of its headline attack.
    """
    curves = roc_rows(frame)
    if curves.empty:
        raise FigureSkipped("no ok mia_audit/auc row carries a ROC curve of its headline attack")
    colours = palette(frame["generator"])
    labels = list(dict.fromkeys(ordered_rows(frame, row_keys(frame))["label"]))
    datasets = sorted(set(curves["dataset"]))
    ncols = min(len(datasets), 2)
    nrows = math.ceil(len(datasets) / ncols)
    with figure_style():
        fig = new_figure(4.0 * ncols + 2.6, 3.5 * nrows)
        axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
        for ax, dataset in zip(axes, datasets):
            sub = curves[curves["dataset"] == dataset]
            grid = fpr_grid(sub)
            ax.plot(grid, grid, color="0.4", ls="--", lw=1.0, label="chance")
            for i, label in enumerate(lab for lab in labels if lab in set(sub["label"])):
                own = sub[sub["label"] == label]
                tpr = np.clip(mean_curve(own, grid), grid[0], 1.0)
                ax.plot(
                    grid,
                    tpr,
                    color=colours[str(own["generator"].iloc[0])],
                    marker=MARKERS[i % len(MARKERS)],
                    markevery=max(1, GRID_POINTS // 8),
                    ms=4,
                    lw=1.3,
                    label=f"{label} (n={own['trial_id'].nunique()})",
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(grid[0], 1.0)
            ax.set_ylim(grid[0], 1.05)
            ax.set_xlabel("false positive rate (log)")
            ax.set_ylabel("true positive rate (log)")
            ax.set_title(str(dataset))
            ax.legend(loc="lower right", frameon=False, fontsize=8)
        for ax in axes[len(datasets) :]:
            ax.set_visible(False)
        fig.suptitle("Membership-inference ROC (headline attack, mean over trials)")
        return save_figure(fig, out_dir, stem)


def epsilon_points(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per ok ``mia_audit/epsilon_lb`` row of a formally DP generator (a finite configured ε).

    Returns
    -------
    DataFrame
        Columns ``dataset``, ``label``, ``generator``, ``gen_seed``, ``bound``,
        ``configured`` and ``exceeds`` (``details.exceeds_configured``).
    """
    columns = ["dataset", "label", "generator", "gen_seed", "bound", "configured", "exceeds", "ceiling"]
    found = []
    for row in audit_rows(frame, "epsilon_lb").itertuples(index=False):
        configured = configured_epsilon(row)
        bound = as_float(row.value)
        if not (math.isfinite(configured) and math.isfinite(bound)):
            continue
        details = parse_details(row.details)
        found.append(
            {
                "dataset": row.dataset,
                "label": row.label,
                "generator": row.generator,
                "gen_seed": row.gen_seed,
                "bound": bound,
                "configured": configured,
                "exceeds": details.get("exceeds_configured") is True,
                "ceiling": perfect_attack_bound(details),
            }
        )
    return pd.DataFrame.from_records(found, columns=columns)


def perfect_attack_bound(details: dict[str, object]) -> float:
    """The largest bound the audit could show with its games: that of an attack that never errs."""
    n_in, n_out = as_float(details.get("n_in")), as_float(details.get("n_out"))
    confidence = as_float(details.get("confidence"))
    delta = as_float(details.get("delta"))
    if not all(math.isfinite(v) for v in (n_in, n_out, confidence)) or min(n_in, n_out) < 1:
        return math.nan
    bound = epsilon_at_threshold(
        np.ones(int(n_in)), np.zeros(int(n_out)), 0.5, delta if math.isfinite(delta) else 0.0, confidence
    )
    return float(bound.epsilon_lb)


def epsilon_figure(frame: pd.DataFrame, out_dir: Path, *, stem: str = "mia_epsilon") -> list[Path]:
    """Empirical ε lower bound against the configured ε of the formally DP generators.

    Raises
    ------
    FigureSkipped
        If no DP generator (one with a configured ε) was audited.
    """
    points = epsilon_points(frame)
    if points.empty:
        raise FigureSkipped("no formally DP generator (with a configured ε) was audited")
    colours = palette(frame["generator"])
    datasets = sorted(set(points["dataset"]))
    low = float(min(points["configured"].min(), 1.0)) / 2
    top = (
        float(
            max(points["bound"].max(), points["configured"].max(), points["ceiling"].max(skipna=True) or 0.1)
        )
        * 1.5
    )
    with figure_style():
        fig = new_figure(7.2, 5.2)
        ax = fig.subplots()
        diagonal = np.geomspace(low / 10, top, 200)
        ax.plot(diagonal, diagonal, color="0.4", ls="--", lw=1.0, label="y = x (bound = configured ε)")
        ceiling = points["ceiling"].max(skipna=True)
        if math.isfinite(ceiling):
            ax.axhline(ceiling, color="0.55", ls=":", lw=1.0,
                       label=f"{ceiling:.3g}: the bound of a perfect attack with these games")  # fmt: skip
        for label in dict.fromkeys(points["label"]):
            own = points[points["label"] == label]
            for d, dataset in enumerate(datasets):
                part = own[own["dataset"] == dataset]
                if part.empty:
                    continue
                ax.scatter(
                    part["configured"],
                    part["bound"],
                    color=[
                        EXCEEDS_COLOUR if e else colours[str(g)]
                        for e, g in zip(part["exceeds"], part["generator"])
                    ],
                    marker=MARKERS[d % len(MARKERS)],
                    s=36,
                    edgecolor="black",
                    linewidth=0.5,
                    label=f"{label} · {dataset}",
                    zorder=3,
                )
        for row in points[points["exceeds"]].itertuples(index=False):
            ax.annotate(
                f"{row.label} ({row.dataset}, seed {row.gen_seed}): {row.bound:.3g} > {row.configured:.3g}",
                (row.configured, row.bound),
                xytext=(-6, 6),
                textcoords="offset points",
                ha="right",
                color=EXCEEDS_COLOUR,
                fontsize=8,
            )
        # Configured ε spans decades (0.1 to 50): log-like axes, linear near 0 where bounds of 0 sit.
        ax.set_xscale("symlog", linthresh=low)
        ax.set_yscale("symlog", linthresh=low)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_xlabel("configured ε")
        ax.set_ylabel("empirical ε lower bound")
        ax.set_title("ε lower bound vs configured ε (red: above y = x)")
        fig.legend(loc="outside lower center", ncols=2, frameon=False, fontsize=7)
        return save_figure(fig, out_dir, stem)


def audit_figures(frame: pd.DataFrame, figures_dir: Path) -> list[FigureOutcome]:
    """The audit figures of the report, or why each was skipped.

    Parameters
    ----------
    frame : DataFrame
        A prepared results table.
    figures_dir : Path
        Where the PNG and PDF files go.

    Returns
    -------
    list of FigureOutcome
        Empty when the results hold no ok ``mia_audit`` row (the report then has no audit
        section); else the ROC figure and the ε figure.
    """
    if not has_audit(frame):
        return []
    drawers: tuple[tuple[str, str, Callable[[], list[Path]]], ...] = (
        ("mia_roc", ROC_CAPTION, lambda: roc_curves(frame, figures_dir)),
        ("mia_epsilon", EPSILON_CAPTION, lambda: epsilon_figure(frame, figures_dir)),
    )
    outcomes = []
    for name, caption, draw in drawers:
        outcome = FigureOutcome(name=name, caption=caption)
        try:
            outcome.paths = draw()
        except FigureSkipped as exc:
            outcome.skipped = str(exc)
        outcomes.append(outcome)
    return outcomes
