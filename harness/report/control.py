"""The report's Wilcoxon–Holm table: every variant against a control (``spec/metrics.md`` S3).

Paired samples are block means; :func:`harness.report.ranking.wilcoxon_holm` runs the tests.

A comparison must be able to reach p < α to be worth a row. With N paired blocks the smallest
two-sided exact p of the signed-rank test is 2/2^N (every difference on one side), so with
fewer than :func:`min_blocks` blocks (6 at α = 0.05) no outcome could be significant and the p
printed would say nothing. Those comparisons are left out of the table and of the Holm family
(a hypothesis that cannot be rejected does not count towards the multiplicity; Tarone 1990),
and the table's note names them in one line, with N and the smallest attainable p (tracker
issue 16).
"""

from __future__ import annotations

import math

import pandas as pd

from harness.errors import ConfigError
from harness.report.comparison_base import (
    ComparisonTable,
    TableSkipped,
    column_scores,
    format_p,
    main_columns,
)
from harness.report.formatting import MISSING, format_number
from harness.report.ranking import rank_matrix, wilcoxon_holm
from harness.report.render import DisplayTable
from harness.report.settings import ReportSettings


def min_attainable_p(n_blocks: int) -> float:
    """The smallest two-sided exact p of the signed-rank test with ``n_blocks`` pairs: 2/2^N (at most 1)."""
    return min(1.0, 2.0 ** (1 - n_blocks))


def min_blocks(alpha: float) -> int:
    """The fewest paired blocks whose smallest attainable p is below ``alpha`` (6 at α = 0.05)."""
    n = 1
    while min_attainable_p(n) >= alpha:
        n += 1
    return n


def omitted_note(omitted: list[tuple[str, str, int]], alpha: float) -> str:
    """One line naming the comparisons left out for too few blocks: (treatment, column, N) each."""
    return f"Not shown, {_too_few(omitted, alpha)}."


def _too_few(omitted: list[tuple[str, str, int]], alpha: float) -> str:
    by_n: dict[int, list[str]] = {}
    for treatment, column, n in omitted:
        by_n.setdefault(n, []).append(f"{treatment} on {column}")
    groups = [
        f"{', '.join(names)} (N = {n}, smallest attainable p = {min_attainable_p(n):g})"
        for n, names in sorted(by_n.items())
    ]
    return (
        f"too few blocks paired with the control to reach p < {alpha:g} (with N paired blocks the smallest "
        f"two-sided exact p is 2/2^N; N ≥ {min_blocks(alpha)} is needed): {'; '.join(groups)}"
    )


def choose_control(frame: pd.DataFrame, settings: ReportSettings) -> str:
    """The Wilcoxon–Holm control: the configured label, else the best mean rank on the utility (or privacy) column.

    Raises
    ------
    TableSkipped
        If the configured control is not a variant of the run, or nothing can be ranked.
    """
    labels = sorted(set(frame["label"]))
    if settings.control is not None:
        if settings.control not in labels:
            raise TableSkipped(
                f"control {settings.control!r} is not a generator variant of the run ({', '.join(labels)})"
            )
        return settings.control
    for column in (settings.utility, settings.privacy):
        if column is None:
            continue
        try:
            scores, goal, target = column_scores(frame, column, list(settings.blocks or ()))
        except TableSkipped:
            continue
        try:
            ranks = rank_matrix(scores, goal, target).mean(axis=0)
        except ConfigError:
            continue
        return str(ranks.sort_values(kind="stable").index[0])
    raise TableSkipped("no privacy or utility column to choose a control by")


def _paired(scores: pd.DataFrame, control: str, other: str) -> int:
    return int(scores[[control, other]].dropna().shape[0])


def control_table(frame: pd.DataFrame, settings: ReportSettings) -> ComparisonTable:
    """Two-sided Wilcoxon signed-rank tests of the control against every other variant, Holm-adjusted (S3).

    One block of rows for the utility column and one for the privacy column. A comparison with
    fewer paired blocks than :func:`min_blocks` of the settings' α has no row; the note names it.

    Raises
    ------
    TableSkipped
        With fewer than two variants, no control, or no comparison with enough paired blocks.
    """
    if frame["label"].nunique() < 2:
        raise TableSkipped("the run has a single generator variant")
    control = choose_control(frame, settings)
    blocks = list(settings.blocks or ())
    alpha = settings.alpha
    parts = []
    omitted: list[tuple[str, str, int]] = []
    for column in main_columns(settings):
        try:
            scores, goal, target = column_scores(frame, column, blocks)
            if control not in scores.columns or scores.shape[1] < 2:
                continue
            paired = {c: _paired(scores, control, c) for c in scores.columns if c != control}
            omitted += [(c, column, n) for c, n in paired.items() if min_attainable_p(n) >= alpha]
            testable = [c for c in scores.columns if c == control or min_attainable_p(paired[c]) < alpha]
            if len(testable) < 2:
                continue
            table = wilcoxon_holm(scores[testable], control, goal, target, alpha=alpha)
        except (TableSkipped, ConfigError):
            continue
        parts.append(table.assign(column=column))
    if not parts:
        if omitted:
            raise TableSkipped(f"no comparison with the control {control!r}: {_too_few(omitted, alpha)}")
        raise TableSkipped(f"no privacy or utility column has the control {control!r} and another variant")
    numbers = pd.concat(parts, ignore_index=True)
    text = pd.DataFrame(
        {
            "metric": numbers["column"],
            "generator": numbers["treatment"],
            "blocks": numbers["n"].astype(int).astype(str),
            "mean": [format_number(v) for v in numbers["mean"]],
            "control mean": [format_number(v) for v in numbers["control_mean"]],
            "W": [MISSING if math.isnan(float(v)) else f"{float(v):g}" for v in numbers["statistic"]],
            "p": [format_p(v) for v in numbers["p_value"]],
            "p (Holm)": [format_p(v) for v in numbers["p_holm"]],
            "better": numbers["better"].replace({"": MISSING}),
        }
    )
    bold = pd.DataFrame(False, index=text.index, columns=text.columns)
    bold["p (Holm)"] = numbers["significant"].to_numpy(dtype=bool)
    note = (
        f"Control: {control}"
        + ("" if settings.control else " (default: best mean rank)")
        + ". Paired samples are "
        f"block means (blocks: {', '.join(blocks)}); Holm adjustment within each metric; bold: p (Holm) < "
        f"{alpha:g}. With N blocks the smallest two-sided exact p is 2/2^N."
        + (" " + omitted_note(omitted, alpha) if omitted else "")
    )
    display = DisplayTable(
        text=text,
        bold=bold,
        numeric=frozenset({"blocks", "mean", "control mean", "W", "p", "p (Holm)"}),
        group_by=("metric",),
    )
    return ComparisonTable(
        "wilcoxon_holm", f"Wilcoxon signed-rank vs {control} (Holm)", numbers, display, note
    )
