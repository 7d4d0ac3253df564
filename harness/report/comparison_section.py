"""The report's "Comparisons" section and its figures: methods only, privacy read against the floor.

Every table and figure here is built on :func:`harness.report.references.compared`: the
reference generators are left out (they are shown in the summary tables, marked) and each
privacy value with calibration is clipped at the new-individuals value, so distance beyond new
individuals (distortion) never counts as privacy. Where the headline privacy axis has no power
on any dataset (:mod:`harness.report.power`), the comparisons are built on the utility axis
alone and say so. Critical-difference diagrams are drawn only after a significant Friedman
test; otherwise a sentence says why not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import pandas as pd

from harness.errors import ConfigError
from harness.report.comparisons import (
    ComparisonTable,
    TableSkipped,
    check_attainable,
    control_table,
    friedman_p,
    paths_table,
    rank_table,
    sign_test_table,
    stringify_blocks,
    win_draw_lose_table,
)
from harness.report.document import Block, Heading, Paragraph, TableBlock
from harness.report.figures import FigureOutcome, FigureSkipped, slug
from harness.report.pareto import pareto_scatter
from harness.report.power import AxisChoice
from harness.report.ranking import cd_diagram, metric_blocks, rows_goal, select_metric
from harness.report.references import marked_name, reference_labels
from harness.report.score import score_table
from harness.report.settings import ReportSettings, split_column
from harness.report.stat_figures import cd_figure, sign_test_bars
from harness.report.tables_io import TableWriter

NO_POWER_NOTE = (
    "No power: {privacy} does not separate the raw data from new individuals beyond its noise on {where}, so "
    "comparisons on it say nothing about leakage there"
)

Builder = Callable[[pd.DataFrame, ReportSettings], ComparisonTable]
COMPARISONS: tuple[tuple[str, Builder], ...] = (
    ("Mean ranks (Friedman)", rank_table),
    ("Wilcoxon–Holm against a control", control_table),
    ("Win/draw/lose against the baseline", win_draw_lose_table),
    ("Optimisation paths", paths_table),
    ("Bayesian sign test against the oracle", sign_test_table),
)


def comparison_settings(settings: ReportSettings, axis: AxisChoice) -> ReportSettings:
    """The settings of the comparisons: without a privacy axis when it has power on no dataset."""
    if axis.powered and not any(axis.powered.values()):
        ranks = tuple(c for c in settings.rank_metrics or () if c != settings.privacy) or None
        return replace(settings, privacy=None, rank_metrics=ranks)
    return settings


def comparisons(
    frame: pd.DataFrame,
    methods: pd.DataFrame,
    settings: ReportSettings,
    axis: AxisChoice,
    writer: TableWriter,
) -> tuple[list[Block], dict[str, ComparisonTable]]:
    """The "Comparisons" blocks and the tables computed (by file stem).

    Parameters
    ----------
    frame : DataFrame
        Prepared, references marked and privacy floored (the trade-off score shows the references).
    methods : DataFrame
        :func:`harness.report.references.compared` of ``frame`` (plus a reference named as the
        win/draw/lose baseline).
    settings : ReportSettings
        Resolved settings, control included.
    axis : AxisChoice
        The headline privacy axis.
    writer : TableWriter
    """
    blocks: list[Block] = [Heading("Comparisons"), Paragraph(_intro(settings, axis, frame))]
    if settings.blocks and "dataset" not in settings.blocks[1:] and settings.blocks != ("dataset",):
        blocks.append(
            Paragraph(
                "The run has one dataset, so the blocks are its evaluation units (seeds × folds): they share data, "
                "so p-values and posterior probabilities describe these units, not a population of datasets."
            )
        )
    used = comparison_settings(settings, axis)
    computed: dict[str, ComparisonTable] = {}
    builders: list[tuple[str, Callable[[], ComparisonTable]]] = [
        (heading, partial(build, methods, used)) for heading, build in COMPARISONS
    ]
    builders.append(("Trade-off score", partial(score_table, frame, settings, axis)))
    for heading, build in builders:
        blocks.append(Heading(heading, level=3))
        try:
            table = build()
        except TableSkipped as exc:
            blocks.append(Paragraph(f"Table omitted: {_reason(exc, used, axis)}."))
            continue
        note = table.note
        if axis.unpowered and used.privacy and table.stem in ("wilcoxon_holm", "optimisation_paths", "ranks"):
            note = (
                f"{NO_POWER_NOTE.format(privacy=used.privacy, where=', '.join(axis.unpowered))}. {note or ''}"
            )
        files = writer.write(table.display, table.numbers, table.stem, table.caption)
        blocks.append(TableBlock(table.display, table.caption, files, note))
        computed[table.stem] = table
    return blocks, computed


def _intro(settings: ReportSettings, axis: AxisChoice, frame: pd.DataFrame) -> str:
    refs = reference_labels(frame)
    text = (
        f"Privacy axis: {settings.privacy or '(none)'} (why: 'Headline privacy axis' above); utility axis: "
        f"{settings.utility or '(none)'}; blocks: {', '.join(settings.blocks or ())}; control: "
        f"{settings.control or '(none)'}. Methods only: "
        + (f"the references ({', '.join(refs)}) are left out of ranks, tests and fronts, " if refs else "")
        + "and privacy values beyond new individuals count as the new-individuals value (distortion is not "
        "privacy). Settings are listed under 'Report settings' below."
    )
    if axis.powered and not any(axis.powered.values()):
        text += (
            " "
            + NO_POWER_NOTE.format(privacy=settings.privacy, where="any dataset")
            + ": they use utility alone."
        )
    return text


def _reason(exc: TableSkipped, used: ReportSettings, axis: AxisChoice) -> str:
    if used.privacy is None and axis.column is not None and "privacy" in str(exc):
        return (
            f"no privacy axis with power ({axis.column} does not separate the raw data from new individuals)"
        )
    return str(exc)


def resolve_control(methods: pd.DataFrame, frame: pd.DataFrame, settings: ReportSettings) -> ReportSettings:
    """Settings with the control named: the configured one, else the best mean rank among the methods.

    A control that names a reference is dropped with a note (references are never tested).
    """
    from harness.report.control import choose_control

    if settings.control is not None and marked_name(frame, settings.control):
        note = (
            f"control {settings.control!r} is a reference: references are never tested; the default is used"
        )
        settings = replace(settings, control=None, notes=(*settings.notes, note))
    if settings.control is not None:
        return settings
    try:
        control = choose_control(methods, settings)
    except TableSkipped:
        return settings
    note = f"control: {control}, the best mean rank on {settings.utility or settings.privacy} (none was set)"
    return replace(settings, control=control, notes=(*settings.notes, note))


def comparison_figures(
    methods: pd.DataFrame,
    frame: pd.DataFrame,
    settings: ReportSettings,
    axis: AxisChoice,
    figures_dir: Path,
    computed: dict[str, ComparisonTable],
) -> list[FigureOutcome]:
    """Pareto scatter (methods and references, front over the methods), CD diagrams, sign-test bars."""
    used = comparison_settings(settings, axis)
    out: list[FigureOutcome] = []

    def attempt(name: str, caption: str, draw: Callable[[], list[Path]]) -> None:
        outcome = FigureOutcome(name=name, caption=caption)
        try:
            outcome.paths = draw()
        except FigureSkipped as exc:
            outcome.skipped = str(exc)
        out.append(outcome)

    def pareto() -> list[Path]:
        if used.privacy is None or used.utility is None:
            raise FigureSkipped(_reason(TableSkipped("no privacy axis"), used, axis))
        return pareto_scatter(
            frame, figures_dir, x=used.privacy, y=used.utility, colour_by=used.colour_by, methods_only=True
        )

    attempt(
        "pareto",
        f"Privacy vs utility per generator variant (mean over seeds and folds; privacy clipped at new individuals), "
        f"coloured by {used.colour_by or 'its most varied parameter (else the generator)'}; the dashed line is the "
        "Pareto front of the methods (points with a thick black edge: no other method is better on both axes); "
        "references are hollow grey circles, never on the front."
        + (f" No power on {', '.join(axis.unpowered)}." if axis.unpowered and used.privacy else ""),
        pareto,
    )
    for column in dict.fromkeys(c for c in (used.utility, used.privacy) if c):
        attempt(
            f"cd_{slug(column)}",
            f"Critical-difference diagram of {column}: mean rank (1 = best) over blocks; variants joined by a thick "
            "line are not significantly different (Nemenyi). Drawn only after a significant Friedman test.",
            partial(_cd, methods, used, column, figures_dir),
        )

    def sign_bars() -> list[Path]:
        table = computed.get("bayes_sign_test")
        if table is None:
            raise FigureSkipped("the sign test table was omitted")
        return sign_test_bars(table.numbers, figures_dir)

    attempt(
        "bayes_sign_test",
        "Bayesian sign test against the oracle: posterior probability that a generator loses to, draws with (ROPE) "
        "or wins against the oracle's utility.",
        sign_bars,
    )
    return out


def _cd(frame: pd.DataFrame, settings: ReportSettings, column: str, figures_dir: Path) -> list[Path]:
    metric, variant = split_column(column)
    blocks = tuple(settings.blocks or ("dataset",))
    try:
        goal, target = rows_goal(select_metric(frame, metric, variant))
        scores = metric_blocks(stringify_blocks(frame, blocks), metric, variant, blocks=blocks)
        result = cd_diagram(scores, goal, target, alpha=settings.alpha)
    except ConfigError as exc:
        raise FigureSkipped(str(exc)) from None
    try:
        check_attainable(result.n_blocks, len(result.ranks), settings.alpha)
    except TableSkipped as exc:
        raise FigureSkipped(f"{exc}: no Friedman test, no diagram") from None
    p_value, method = friedman_p(scores, goal, target, result.friedman, settings.seed)
    if not p_value < settings.alpha:
        raise FigureSkipped(
            f"the Friedman test is not significant ({method} p = {p_value:.3g}, N = {result.n_blocks}, "
            f"α = {settings.alpha:g}), so no pair can be called different: no diagram"
        )
    ranks = result.ranks["mean_rank"]
    if float(ranks.max() - ranks.min()) < result.cd:
        raise FigureSkipped(
            f"no two variants' mean ranks differ by the critical difference (CD = {result.cd:.2f} with N = "
            f"{result.n_blocks}): every pair is within noise, no diagram"
        )
    return cd_figure(result, figures_dir, title=column, stem=f"cd_{slug(column)}")


__all__ = ["comparison_figures", "comparison_settings", "comparisons", "resolve_control"]
