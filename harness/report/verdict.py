"""The verdict at the top of the report: who wins on each table, and how sure we are.

Per dataset, the methods (references left out, privacy clipped at the floor of new
individuals: :mod:`harness.report.references`) are placed on the two headline axes — the
privacy axis of :mod:`harness.report.power` and the utility axis — by their means over the
blocks (the dataset's evaluation units). The verdict names

* the *Pareto-optimal* methods: those no other method matches on both axes while beating it on
  one (from the means);
* their statistical support: the paired tests the blocks allow (:mod:`harness.report.support`:
  exact Wilcoxon signed-rank, Holm over the verdict's comparisons), or, with too few blocks for
  any test at α, that the front is read from the means, with block-by-block counts;
* what would settle it: the blocks (split seeds, folds or generation seeds) a test needs, and
  the blocks that would detect the differences seen with 80 % power.

Where the privacy axis does not separate the raw data from new individuals on a dataset, the
verdict says so and ranks by utility alone. The references are listed beside the methods for
scale, never compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.report.comparison_base import TableSkipped, column_scores
from harness.report.control import min_attainable_p, min_blocks
from harness.report.document import Block, Bullets, Heading, Paragraph
from harness.report.formatting import format_number
from harness.report.pareto import pareto_front
from harness.report.power import AxisChoice
from harness.report.references import CLIPPED_COLUMN, LEAKAGE_COLUMN, REFERENCE_COLUMN, compared
from harness.report.score import fixed_scores
from harness.report.settings import ReportSettings, default_blocks
from harness.report.support import (
    MAX_PLANNED,
    PairTest,
    blocks_needed,
    oriented_matrix,
    pair_tests,
    plural,
    unit_word,
)

AXES: tuple[str, str] = ("privacy", "utility")


@dataclass(frozen=True)
class Board:
    """One dataset's methods on the headline axes (block matrices oriented: larger is better)."""

    dataset: str
    matrices: dict[str, pd.DataFrame]
    means: pd.DataFrame
    front: list[str]
    blocks: tuple[str, ...]
    unit: str
    powered: bool


def verdict_blocks(frame: pd.DataFrame, settings: ReportSettings, axis: AxisChoice) -> list[Block]:
    """The "Verdict" section: one paragraph group per dataset (module docstring).

    Parameters
    ----------
    frame : DataFrame
        The prepared frame, references marked and privacy floored
        (:func:`harness.report.references.mark_references`, :func:`~harness.report.references.with_floor`).
    settings : ReportSettings
        Resolved settings (privacy and utility axes, α).
    axis : AxisChoice
        The headline privacy axis and its power per dataset.
    """
    out: list[Block] = [Heading("Verdict")]
    if settings.utility is None:
        return [*out, Paragraph("The run has no utility metric with ok values: no verdict on a trade-off.")]
    datasets = sorted(set(frame.loc[frame["dataset"] != "", "dataset"].astype(str)))
    for dataset in datasets:
        own = frame[frame["dataset"] == dataset]
        try:
            board = _board(own, settings, dataset, axis.has_power(dataset) is not False)
        except TableSkipped as exc:
            out.append(Paragraph(f"{dataset}: no verdict ({exc})."))
            continue
        out += _dataset_text(board, own, settings, axis)
    if not datasets:
        out.append(Paragraph("The run has no results."))
    return out


def _board(rows: pd.DataFrame, settings: ReportSettings, dataset: str, powered: bool) -> Board:
    methods = compared(rows)
    blocks = tuple(b for b in default_blocks(methods) if b in methods.columns) or ("dataset",)
    axes = {"utility": settings.utility}
    if powered and settings.privacy is not None:
        axes = {"privacy": settings.privacy, **axes}
    matrices = {}
    for name, column in axes.items():
        scores, goal, target = column_scores(methods, str(column), blocks)
        matrices[name] = oriented_matrix(scores, goal, target)
    labels = sorted(set.intersection(*(set(m.columns) for m in matrices.values())))
    if not labels:
        raise TableSkipped("no method has a value on every headline axis")
    matrices = {k: m[labels] for k, m in matrices.items()}
    means = pd.DataFrame({k: m.mean(axis=0) for k, m in matrices.items()})
    if "privacy" in means:
        front_mask = pareto_front(means["privacy"], means["utility"])
    else:
        front_mask = np.isclose(means["utility"], means["utility"].max(), rtol=1e-9, atol=1e-12)
    front = [str(label) for label, on in zip(means.index, front_mask) if on]
    front.sort(key=lambda label: -float(means.at[label, "utility"]))
    return Board(dataset, matrices, means, front, blocks, unit_word(blocks, methods), "privacy" in means)


def _dataset_text(
    board: Board, rows: pd.DataFrame, settings: ReportSettings, axis: AxisChoice
) -> list[Block]:
    tests = pair_tests(board.matrices, _pairs(board), settings.alpha)
    n = max((t.n for t in tests), default=min(len(m.dropna()) for m in board.matrices.values()))
    blocks: list[Block] = [Paragraph(_header(board, rows, settings, axis))]
    scores = _scores(rows, settings) if board.powered else {}
    blocks.append(Bullets(tuple(_member_line(board, rows, settings, m, scores) for m in board.front)))
    if len(board.front) > 1 and board.powered:
        blocks.append(Paragraph(_choice(board, scores)))
    refs = _reference_line(rows, settings, board.powered)
    if refs:
        blocks.append(Paragraph(refs))
    blocks.append(Paragraph("How sure: " + _how_sure(board, tests, settings.alpha, n)))
    blocks.append(Paragraph("What would settle it: " + _settle(board, tests, settings.alpha, n)))
    return blocks


def _pairs(board: Board) -> list[tuple[str, str]]:
    labels = list(board.means.index)
    pairs: list[tuple[str, str]] = []
    for member in board.front:
        for other in labels:
            if other != member and (other, member) not in pairs:
                pairs.append((member, str(other)))
    return pairs


def _header(board: Board, rows: pd.DataFrame, settings: ReportSettings, axis: AxisChoice) -> str:
    k = len(board.means)
    units = _unit_values(rows, board)
    total = max(len(m) for m in board.matrices.values())
    evidence = f"{plural(total, 'block')}{units}"
    if not board.powered:
        return (
            f"{board.dataset}: {settings.privacy} does not separate the raw data from new individuals beyond its "
            "noise on this table (see 'Headline privacy axis'), so the report cannot say which release leaks less. "
            f"By utility alone ({settings.utility}, {plural(k, 'method')}, {evidence}), the best is:"
        )
    scale = (
        "leakage index: 0 = new individuals, 1 = the raw data"
        if axis.has_power(board.dataset)
        else "its own scale: no calibration rows"
    )
    lead = (
        "the best on both axes"
        if len(board.front) == 1
        else "Pareto-optimal (no other method is as good on both"
    )
    lead += "" if len(board.front) == 1 else " axes and better on one)"
    return (
        f"{board.dataset}: {plural(k, 'method')} compared on {settings.privacy} ({scale}) and {settings.utility}, "
        f"over {evidence}. From the means, {lead}:"
    )


def _unit_values(rows: pd.DataFrame, board: Board) -> str:
    column = {"split seed": "split_seed", "fold": "fold", "generation seed": "gen_seed"}[board.unit]
    values = sorted({int(v) for v in rows[column].dropna().unique()}) if column in rows else []
    if len(values) < 2:
        return ""
    if values == list(range(values[0], values[-1] + 1)):
        return f" ({board.unit}s {values[0]}–{values[-1]})"
    shown = ", ".join(map(str, values[:8])) + (", …" if len(values) > 8 else "")
    return f" ({board.unit}s {shown})"


def _member_line(
    board: Board, rows: pd.DataFrame, settings: ReportSettings, label: str, scores: dict[str, float]
) -> str:
    parts = []
    if board.powered:
        parts.append(_privacy_text(rows, settings, label))
    utility = _raw_mean(rows, settings.utility, label)
    parts.append(f"{settings.utility} {format_number(utility)}")
    if np.isfinite(scores.get(label, np.nan)):
        parts.append(f"trade-off score {scores[label]:.2f}")
    return f"{label}: {', '.join(parts)}"


def _scores(rows: pd.DataFrame, settings: ReportSettings) -> dict[str, float]:
    """Mean fixed-scale trade-off score per label (:mod:`harness.report.score`); empty without one."""
    utility = settings.tradeoff_utility or settings.utility
    if settings.privacy is None or utility is None:
        return {}
    scores = fixed_scores(rows, privacy=settings.privacy, utility=utility)
    if scores.empty:
        return {}
    return {str(k): float(v) for k, v in scores.groupby("label")["score"].mean().items()}


def _choice(board: Board, scores: dict[str, float]) -> str:
    """Which member wins what, and which the fixed-scale trade-off score favours."""
    means = board.means.loc[board.front]
    top_u = str(means["utility"].idxmax())
    top_p = [str(m) for m in means.index if np.isclose(means.at[m, "privacy"], means["privacy"].max())]
    text = (
        f"The choice between them is a matter of priority: {top_u} has the highest utility, "
        f"{' and '.join(top_p)} the least leakage"
    )
    ranked = {m: scores[m] for m in board.front if np.isfinite(scores.get(m, np.nan))}
    if ranked:
        best = max(ranked, key=lambda m: ranked[m])
        text += f"; the trade-off score (fixed scale, equal weight) favours {best} ({ranked[best]:.2f})"
    return text + "."


def _privacy_text(rows: pd.DataFrame, settings: ReportSettings, label: str) -> str:
    own = rows[(rows["column"] == settings.privacy) & (rows["label"] == label) & (rows["status"] == "ok")]
    value = float(own[CLIPPED_COLUMN].mean()) if CLIPPED_COLUMN in own else float(own["value"].mean())
    if LEAKAGE_COLUMN in own and own[LEAKAGE_COLUMN].notna().any():
        leak = float(np.clip(own[LEAKAGE_COLUMN], 0, None).mean())
        return f"leakage index {leak:.2f} ({settings.privacy} {format_number(value)})"
    return f"{settings.privacy} {format_number(value)}"


def _raw_mean(rows: pd.DataFrame, column: str | None, label: str) -> float:
    own = rows[(rows["column"] == column) & (rows["label"] == label) & (rows["status"] == "ok")]
    return float(own["value"].mean()) if len(own) else float("nan")


def _reference_line(rows: pd.DataFrame, settings: ReportSettings, powered: bool) -> str:
    if REFERENCE_COLUMN not in rows.columns:
        return ""
    labels = sorted(set(rows.loc[rows[REFERENCE_COLUMN].astype(bool), "label"].astype(str)))
    parts = []
    for label in labels:
        values = [_privacy_text(rows, settings, label)] if settings.privacy and powered else []
        values.append(f"{settings.utility} {format_number(_raw_mean(rows, settings.utility, label))}")
        parts.append(f"{label}: {', '.join(values)}")
    return "For scale, not compared — " + "; ".join(parts) + "." if parts else ""


def _how_sure(board: Board, tests: list[PairTest], alpha: float, n: int) -> str:
    if min_attainable_p(n) >= alpha:
        counts = _block_counts(board, tests)
        return (
            f"{plural(n, 'block')} {'is' if n == 1 else 'are'} too few for a paired test between two methods at "
            f"α = {alpha:g} (with N blocks the smallest two-sided exact Wilcoxon p is 2/2^N = {min_attainable_p(n):g}; "
            "the Friedman test below asks only whether the methods differ at all, not which is ahead): the verdict "
            "above is read from the means" + (f". Block by block: {counts}." if counts else ".")
        )
    lines = [_member_support(board, tests, m) for m in board.front]
    behind = _open_challengers(board, tests)
    text = " ".join(lines)
    if behind:
        text += f" Not separated from the front yet (no member is significantly ahead of them): {', '.join(behind)}."
    family = sum(1 for t in tests if np.isfinite(t.p))
    return text + (
        f" Tests: two-sided exact Wilcoxon signed-rank over {plural(n, 'block')}, Holm over {family} comparisons, "
        f"α = {alpha:g}."
    )


def _block_counts(board: Board, tests: list[PairTest]) -> str:
    wanted = _focus_pairs(board)
    parts = []
    for test in tests:
        if (test.a, test.b) not in wanted:
            continue
        if test.a_better == test.b_better == 0:
            parts.append(f"{test.a} and {test.b} tie on {test.axis} in all {test.n}")
            continue
        leader, count = (test.a, test.a_better) if test.a_better >= test.b_better else (test.b, test.b_better)
        other = test.b if leader == test.a else test.a
        what = "leaks less than" if test.axis == "privacy" else "has higher utility than"
        parts.append(f"{leader} {what} {other} in {count} of {test.n}")
    return "; ".join(parts)


def _focus_pairs(board: Board) -> set[tuple[str, str]]:
    """The front's members against each other, or the single winner against its runner-up."""
    if len(board.front) > 1:
        return {(a, b) for a in board.front for b in board.front if a != b}
    others = [str(o) for o in board.means.index if o not in board.front]
    if not others:
        return set()
    runner = max(
        others, key=lambda o: tuple(float(board.means.at[o, a]) for a in reversed(board.means.columns))
    )
    return {(board.front[0], runner)}


def _verdicts(tests: list[PairTest], member: str) -> dict[str, list[str]]:
    by_other: dict[str, list[PairTest]] = {}
    for test in tests:
        if member in (test.a, test.b):
            by_other.setdefault(test.b if test.a == member else test.a, []).append(test)
    out: dict[str, list[str]] = {"ahead": [], "trade": [], "open": []}
    for other, own in by_other.items():
        wins = [t for t in own if t.winner() == member]
        losses = [t for t in own if t.winner() == other]
        key = "trade" if wins and losses else "ahead" if wins else "open"
        out[key].append(other)
    return out


def _member_support(board: Board, tests: list[PairTest], member: str) -> str:
    found = _verdicts(tests, member)
    parts = []
    if found["ahead"]:
        parts.append(f"significantly ahead of {', '.join(found['ahead'])} on at least one axis")
    if found["trade"]:
        parts.append(f"a significant trade-off with {', '.join(found['trade'])}")
    if found["open"]:
        parts.append(f"not separated from {', '.join(found['open'])} on either axis")
    sure = not found["open"]
    verdict = "on the front at this α" if sure else "on the front by its means only"
    return f"{member} is {verdict}: {'; '.join(parts) or 'no other method'}."


def _open_challengers(board: Board, tests: list[PairTest]) -> list[str]:
    others = [str(o) for o in board.means.index if o not in board.front]
    beaten = {o for m in board.front for o in _verdicts(tests, m)["ahead"]}
    return [o for o in others if o not in beaten]


def _settle(board: Board, tests: list[PairTest], alpha: float, n: int) -> str:
    need = min_blocks(alpha)
    plan = _plan(board, tests, alpha)
    unit = board.unit
    if min_attainable_p(n) >= alpha:
        text = f"{_more(need - n, unit)} ({need} blocks) would allow a test at α = {alpha:g}"
        return text + (f"; {plan}." if plan else ".")
    if plan:
        return plan[0].upper() + plan[1:] + "."
    return (
        f"nothing more at α = {alpha:g}: every comparison that decides the front is significant (more blocks would "
        "only narrow the estimates)."
    )


def _plan(board: Board, tests: list[PairTest], alpha: float) -> str:
    candidates = []
    opened = _open_pairs(board, tests)
    for test in tests:
        if test.significant or (test.a, test.b) not in opened:
            continue
        needed = blocks_needed(test.mean_diff, test.sd_diff, alpha)
        if needed is not None:
            candidates.append((needed, test))
    if not candidates:
        return ""
    feasible = [(k, t) for k, t in candidates if k <= MAX_PLANNED]
    small = [t for k, t in candidates if k > MAX_PLANNED]
    text = ""
    if feasible:
        k, test = max(feasible, key=lambda kt: kt[0])
        more = max(k - test.n, 0)
        text = (
            f"about {k} blocks ({_more(more, board.unit)}) would detect the {test.axis} difference between "
            f"{test.a} and {test.b} ({_diff_text(test)}) with 80 % power"
        )
        if len(feasible) > 1:
            m = len(feasible) - 1
            text += f", enough for the {m} other open difference{'s' if m > 1 else ''} of the front too"
    if small:
        pairs = ", ".join(f"{t.a} and {t.b} on {t.axis}" for t in small[:3])
        text += (
            "; " if text else ""
        ) + f"the differences between {pairs} are too small to settle with more seeds"
    return text


def _open_pairs(board: Board, tests: list[PairTest]) -> set[tuple[str, str]]:
    """The comparisons that decide the front and no test has settled.

    Without any test: the front's members against each other (or the winner against its
    runner-up). With tests: each member against the other members and the challengers no member
    is significantly ahead of, where no axis is significant.
    """
    if not any(np.isfinite(t.p) for t in tests):
        return _focus_pairs(board)
    relevant = set(board.front) | set(_open_challengers(board, tests))
    opened = set()
    for member in board.front:
        for other in _verdicts(tests, member)["open"]:
            if other in relevant:
                opened.add((member, other))
    return opened


def _more(n: int, unit: str) -> str:
    """``3 more split seeds``."""
    return f"{n} more {unit}" + ("" if n == 1 else "s")


def _diff_text(test: PairTest) -> str:
    mean = abs(test.mean_diff)
    if not np.isfinite(test.sd_diff):
        return f"{format_number(mean)} in the one block both have"
    sd = test.sd_diff if test.sd_diff > 1e-9 * max(1.0, mean) else 0.0
    return f"{format_number(mean)} ± {format_number(sd)} per block"


def front_of(
    frame: pd.DataFrame, settings: ReportSettings, dataset: str, powered: bool = True
) -> Sequence[str]:
    """The Pareto-optimal methods of one dataset (for tests and other sections)."""
    return _board(frame[frame["dataset"] == dataset], settings, dataset, powered).front


__all__ = ["front_of", "verdict_blocks"]
