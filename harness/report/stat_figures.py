"""Figures of the comparison statistics: critical-difference diagram and sign-test bars.

* :func:`cd_figure` — Demšar's critical-difference diagram drawn from
  :func:`harness.report.ranking.cd_diagram`: a rank axis (1 = best, on the left), every
  treatment joined to its mean rank, the CD as a bar above the axis and each clique (mean
  ranks closer than the CD) as a thick line;
* :func:`sign_test_bars` — stacked horizontal bars of P(lose), P(draw), P(win) per technique
  (``000_…`` Fig. 5).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import seaborn as sns

from harness.report.figures import FigureSkipped
from harness.report.ranking import CDResult
from harness.report.style import PALETTE_NAME, figure_style, new_figure, save_figure


def cd_figure(result: CDResult, out_dir: Path, *, title: str, stem: str) -> list[Path]:
    """Draw a critical-difference diagram.

    Parameters
    ----------
    result : CDResult
        Output of :func:`harness.report.ranking.cd_diagram`.
    out_dir : Path
        Directory of the figure files.
    title : str
        Figure title (e.g. the metric column).
    stem : str
        File name without extension.

    Returns
    -------
    list of Path
        The PNG and the PDF.

    Raises
    ------
    FigureSkipped
        If there are fewer than two treatments.
    """
    ranks = result.ranks
    k = len(ranks)
    if k < 2:
        raise FigureSkipped("fewer than two treatments")
    names = [str(n) for n in ranks["treatment"]]
    values = [float(v) for v in ranks["mean_rank"]]
    half = math.ceil(k / 2)
    n_rows = max(half, k - half)
    line_gap = 0.32
    height = 1.5 + line_gap * n_rows + 0.22 * len(result.cliques)
    longest = max(len(n) for n in names)
    side = min(3.2, 0.065 * longest + 0.4)
    with figure_style():
        fig = new_figure(4.6 + 2 * side, height)
        ax = fig.add_subplot()
        ax.set_xlim(1 - 0.02 * k, max(k, 1 + result.cd) + 0.02 * k)
        top = 0.0
        bottom = -(line_gap * (n_rows + 1) + 0.25 * len(result.cliques) + 0.2)
        ax.set_ylim(bottom, 0.9)
        ax.axis("off")
        ax.plot([1, k], [top, top], color="black", lw=1.0)
        for r in range(1, k + 1):
            ax.plot([r, r], [top, top + 0.1], color="black", lw=0.8)
            ax.text(r, top + 0.16, str(r), ha="center", va="bottom", fontsize=9)
        ax.text(
            1 - 0.06 * k,
            top + 0.16,
            "mean rank (1 = best)",
            ha="right",
            va="bottom",
            fontsize=8.5,
            color="0.3",
        )
        # cliques: thick bars just below the axis, one row each
        for i, clique in enumerate(result.cliques):
            lo = min(values[names.index(c)] for c in clique)
            hi = max(values[names.index(c)] for c in clique)
            yy = top - 0.15 - 0.22 * i
            ax.plot([lo - 0.03, hi + 0.03], [yy, yy], color="black", lw=3.0, solid_capstyle="round")
        start = top - 0.15 - 0.22 * len(result.cliques) - 0.1
        for i, (name, value) in enumerate(zip(names, values)):
            left = i < half
            row = i if left else k - 1 - i
            yy = start - line_gap * (row + 1)
            end_x = 1 - 0.02 * k if left else k + 0.02 * k
            ax.plot([value, value, end_x], [top, yy, yy], color="0.25", lw=0.9)
            ax.text(
                end_x + (-0.04 if left else 0.04),
                yy,
                f"{name} ({value:.2f})",
                ha="right" if left else "left",
                va="center",
                fontsize=9,
                clip_on=False,
            )
        # CD bar above the axis, at the left
        ax.plot([1, 1 + result.cd], [0.62, 0.62], color="#D55E00", lw=2.0)
        for xx in (1, 1 + result.cd):
            ax.plot([xx, xx], [0.56, 0.68], color="#D55E00", lw=1.2)
        ax.text(
            1 + result.cd / 2,
            0.72,
            f"CD = {result.cd:.2f}",
            ha="center",
            va="bottom",
            fontsize=9,
            color="#D55E00",
        )
        omnibus = result.friedman
        verdict = "significant" if omnibus.significant else "not significant"
        fig.suptitle(
            f"{title}: Friedman p = {omnibus.pvalue:.3g} ({verdict} at α = {result.alpha:g}), N = {result.n_blocks}",
            fontsize=10,
        )
        return save_figure(fig, out_dir, stem)


def sign_test_bars(
    table: pd.DataFrame, out_dir: Path, *, stem: str = "bayes_sign_test", by: str = "generator"
) -> list[Path]:
    """Stacked bars of the sign-test probabilities per technique (``000_…`` Fig. 5).

    Parameters
    ----------
    table : DataFrame
        Output of :func:`harness.report.bayes.bayes_sign_tests` (``p_lose``, ``p_draw``,
        ``p_win`` and the ``by`` column).
    out_dir : Path
        Directory of the figure files.
    stem : str
        File name without extension.
    by : str
        The technique column.

    Returns
    -------
    list of Path

    Raises
    ------
    FigureSkipped
        If the table is empty.
    """
    if table.empty:
        raise FigureSkipped("no sign test was computed")
    colours = sns.color_palette(PALETTE_NAME, n_colors=10)
    parts = (
        ("p_lose", "lose", colours[3]),
        ("p_draw", "draw (ROPE)", (0.75, 0.75, 0.75)),
        ("p_win", "win", colours[0]),
    )
    names = [str(n) for n in table[by]]
    width = min(2.6, 0.065 * max(len(n) for n in names) + 0.4)
    with figure_style():
        fig = new_figure(5.2 + width, 0.42 * len(names) + 1.3)
        ax = fig.add_subplot()
        left = [0.0] * len(names)
        for column, label, colour in parts:
            values = [float(v) for v in table[column]]
            ax.barh(
                names,
                values,
                left=left,
                color=colour,
                edgecolor="white",
                linewidth=0.6,
                label=label,
                height=0.6,
            )
            for i, (v, l0) in enumerate(zip(values, left)):
                if v >= 0.08:
                    dark = column == "p_lose" or column == "p_win"
                    ax.text(
                        l0 + v / 2,
                        i,
                        f"{v:.2f}",
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="white" if dark else "black",
                    )
            left = [a + b for a, b in zip(left, values)]
        ax.set_xlim(0, 1)
        ax.invert_yaxis()
        ax.set_xlabel("posterior probability")
        ax.grid(axis="y", visible=False)
        fig.legend(loc="outside upper center", ncols=3, frameon=False)
        return save_figure(fig, out_dir, stem)
