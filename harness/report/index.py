"""Assemble the report: tables, figures, ``report.md`` and ``report.html``.

:func:`build_report` is the entry point of ``privbench report``. It writes::

    out_dir/
      tables/   status, summary_<family>, summary (all families), failures, cost, throughput,
                ranks, wilcoxon_holm, win_draw_lose, optimisation_paths, bayes_sign_test,
                tradeoff                                                        (.md, .csv, .tex)
      figures/  privacy_utility, pareto, box_<family>_<dataset>, cd_<metric>, bayes_sign_test,
                k_threshold, dcr_holdout, cost                                  (.png, .pdf)
      report.md     GitHub-friendly: tables inline, figures linked
      report.html   static page: inline CSS, no script, relative links only

What is compared (axes, control, baseline, blocks) is chosen by
:class:`harness.report.settings.ReportSettings`; a table or figure the run lacks data for is
replaced by a one-line note.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd

from harness.errors import ConfigError
from harness.ladder import LADDER_TEXT, ladder_verdicts, verdict_table
from harness.report import render
from harness.report.audit import audit_blocks, audit_warning_blocks
from harness.report.audit_figures import audit_figures
from harness.report.boxes import STRIP_MAX
from harness.report.calibration import (
    exempt_note,
    has_calibration,
    ladder_display,
    ladder_exemptions,
    leakage_display,
    leakage_table,
    mark_exempt,
    with_reference_rows,
)
from harness.report.comparisons import (
    ComparisonTable,
    TableSkipped,
    control_table,
    paths_table,
    rank_table,
    sign_test_table,
    stringify_blocks,
    tradeoff_table,
    win_draw_lose_table,
)
from harness.report.document import (
    Block,
    Bullets,
    FigureBlock,
    Heading,
    Paragraph,
    Preformatted,
    TableBlock,
    to_html,
    to_markdown,
)
from harness.report.figures import FigureOutcome, FigureSkipped, make_figures, slug
from harness.report.formatting import (
    cost_display,
    failures_display,
    status_display,
    summary_display,
    throughput_display,
    usual_n,
)
from harness.report.pareto import pareto_scatter
from harness.report.prepare import FAMILY_ORDER, prepare
from harness.report.privacy_figures import dcr_distribution, k_threshold_curve
from harness.report.ranking import cd_diagram, metric_blocks, rows_goal, select_metric
from harness.report.render import DisplayTable
from harness.report.settings import ReportSettings, resolve_settings, split_column
from harness.report.stat_figures import cd_figure, sign_test_bars
from harness.report.style import background_saving
from harness.report.tables import (
    cost_table,
    failures_table,
    status_totals,
    summary_columns,
    summary_goals,
    summary_table,
    summary_tables,
    throughput_table,
)

MAX_SHOWN_FAILURES = 200


@dataclass
class TableWriter:
    """Writes one table as ``.md``, ``.csv`` and ``.tex`` under ``directory`` and remembers the files."""

    directory: Path
    written: dict[str, Path] = field(default_factory=dict)

    def write(self, display: DisplayTable, numbers: pd.DataFrame, stem: str, caption: str) -> dict[str, str]:
        """Write the three files of a table; return format name → path relative to the report."""
        files = {
            "Markdown": (f"{stem}.md", render.to_markdown(display)),
            "CSV": (f"{stem}.csv", render.to_csv(numbers)),
            "LaTeX": (f"{stem}.tex", render.to_latex(display, caption=caption, label=f"tab:{stem}")),
        }
        links = {}
        for name, (filename, text) in files.items():
            path = self.directory / filename
            path.write_text(text, encoding="utf-8")
            relative = f"{self.directory.name}/{filename}"
            self.written[relative] = path
            links[name] = relative
        return links


def build_report(
    results: pd.DataFrame,
    out_dir: Path,
    *,
    title: str,
    config_text: str | None = None,
    versions: dict[str, str] | None = None,
    settings: ReportSettings | None = None,
) -> dict[str, Path]:
    """Write the tables, figures and report pages of one run.

    Parameters
    ----------
    results : DataFrame
        The long results table of the run (``harness.schema.RESULT_COLUMNS``).
    out_dir : Path
        Output directory (created; existing files of the same names are replaced).
    title : str
        Title of the report.
    config_text : str, optional
        The experiment configuration (e.g. the composed Hydra YAML), shown verbatim.
    versions : dict, optional
        Package → version. Default: merged from the results' ``versions`` column.
    settings : ReportSettings, optional
        What to compare; unset fields are chosen from the results
        (:func:`harness.report.settings.resolve_settings`).

    Returns
    -------
    dict of str to Path
        ``report_md``, ``report_html``, ``tables_dir``, ``figures_dir`` and one entry per
        written file keyed by its path relative to ``out_dir`` (e.g. ``"tables/cost.csv"``).
    """
    out_dir = Path(out_dir)
    tables_dir = out_dir / "tables"
    figures_dir = out_dir / "figures"
    tables_dir.mkdir(parents=True, exist_ok=True)
    figures_dir.mkdir(parents=True, exist_ok=True)
    frame = prepare(results)
    resolved = resolve_settings(frame, settings)
    writer = TableWriter(tables_dir)

    blocks: list[Block] = [Heading(title, level=1)]
    with background_saving():
        # Figures first: their rendering (most of a report's time) runs in child processes
        # while the tables are built here (harness.report.style.background_saving).
        outcomes = make_figures(frame, figures_dir, privacy=resolved.privacy, utility=resolved.utility)
        blocks += _overview(frame, writer)
        blocks += audit_warning_blocks(frame)
        blocks += _summaries(frame, writer)
        blocks += _calibration(frame, writer)
        blocks += audit_blocks(frame, writer)
        comparison_blocks, computed = _comparisons(frame, resolved, writer)
        blocks += comparison_blocks
        blocks += _failures(frame, writer)
        blocks += _costs(frame, writer)
        written = dict(writer.written)
        outcomes[1:1] = _comparison_figures(frame, resolved, figures_dir, computed)
        outcomes += audit_figures(frame, figures_dir)
    blocks += _figures(outcomes, out_dir, written)
    blocks += _provenance(frame, config_text, versions, resolved)

    report_md = out_dir / "report.md"
    report_md.write_text(to_markdown(blocks), encoding="utf-8")
    report_html = out_dir / "report.html"
    report_html.write_text(to_html(title, blocks), encoding="utf-8")
    return {
        "report_md": report_md,
        "report_html": report_html,
        "tables_dir": tables_dir,
        "figures_dir": figures_dir,
        **written,
    }


def _overview(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    totals = status_totals(frame)
    n_variants = frame[["generator", "generator_params"]].drop_duplicates().shape[0] if len(frame) else 0
    datasets = sorted(set(frame["dataset"])) if len(frame) else []
    text = (
        f"{len(frame)} result rows from {int(totals['total'])} trials: {n_variants} generator variant(s) "
        f"on {len(datasets)} dataset(s) ({', '.join(datasets) or 'none'})."
    )
    caption = "Trials by status"
    files = writer.write(status_display(totals), totals.rename("trials").to_frame().T, "status", caption)
    note = (
        "A trial is ok when at least one of its metrics was computed; otherwise it takes its most severe "
        "status (oom > timeout > error > skipped)."
    )
    return [Heading("Overview"), Paragraph(text), TableBlock(status_display(totals), caption, files, note)]


def _summaries(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    blocks: list[Block] = [Heading("Results by metric family")]
    info = summary_goals(frame)
    families = [f for f in dict.fromkeys(info["family"]) if f != "cost"]
    families.sort(key=lambda f: FAMILY_ORDER.index(f) if f in FAMILY_ORDER else len(FAMILY_ORDER))
    if not families:
        summary = summary_table(frame)
        display = summary_display(summary, info)
        caption = "Trials per generator variant"
        files = writer.write(display, summary, "summary", caption)
        blocks.append(Paragraph("The results hold no privacy, utility or fidelity metric."))
        blocks.append(TableBlock(display, caption, files))
        return blocks
    everything, *per_family = summary_tables(frame, [None, *([f] for f in families)])
    n = usual_n(everything)
    blocks.append(
        Paragraph(
            f"Cells are mean ± sd over seeds and folds of the ok trials (n = {n} unless marked). Bold is the best "
            "generator variant of a column within a dataset: ↑ highest, ↓ lowest, →t closest to t; columns without "
            "a direction are not marked. – means no ok value. 'trials' and 'failed' count every trial of the "
            "variant, failures included."
        )
    )
    exempt = ladder_exemptions(frame)
    for family, summary in zip(families, per_family):
        if not summary_columns(summary):
            continue
        note = None
        if family == "privacy" and has_calibration(frame):
            summary = with_reference_rows(summary, frame)
            note = (
                "Reference rows: the same metric, on the same data, split and QI set, for the raw training data "
                "(the most a release can leak) and for new individuals (a sample of the control split: no record "
                "of the training data leaks). A metric's range on this table lies between them."
            )
        display = summary_display(summary, info)
        if family == "privacy" and exempt:
            display = mark_exempt(display, exempt)
            note = " ".join(t for t in (note, exempt_note(exempt)) if t)
        caption = f"{family.capitalize()} metrics"
        files = writer.write(display, summary, f"summary_{family}", caption)
        blocks.append(TableBlock(display, caption, files, note))
    writer.write(summary_display(everything, info), everything, "summary", "All metrics")
    return blocks


def _calibration(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    blocks: list[Block] = []
    if has_calibration(frame):
        table = leakage_table(frame)
        exempt = ladder_exemptions(frame)
        display = leakage_display(table, exempt)
        caption = "Leakage index: each release placed between new individuals (0) and the raw data (1)"
        files = writer.write(display, table, "leakage_index", caption)
        note = (
            "L = (risk − risk of new individuals) / (risk of the raw data − risk of new individuals), per block, "
            "averaged; risk is the metric value oriented so that larger is riskier. 0: the metric sees no more "
            "than it sees in new individuals (values below 0 are shown as 0); 1: as much as in the raw data. – : "
            "the two references do not differ (the metric cannot tell raw data from new individuals on this table) "
            "or the output has no direction."
        )
        if exempt:
            note += " " + exempt_note(exempt)
        blocks += [Heading("Privacy calibration"), TableBlock(display, caption, files, note)]
    verdicts = ladder_verdicts(frame)
    if verdicts:
        table = verdict_table(verdicts)
        display = ladder_display(table)
        caption = "Known-leakage ladder: does each privacy metric rate releases of known leakage in order?"
        files = writer.write(display, table, "leakage_ladder", caption)
        blocks += [
            Heading("Known-leakage ladder"),
            Paragraph(LADDER_TEXT),
            TableBlock(display, caption, files),
        ]
    return blocks


def _failures(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    failures = failures_table(frame)
    blocks: list[Block] = [Heading("Failures")]
    if failures.empty:
        blocks.append(Paragraph("No trial or metric failed or was skipped."))
        return blocks
    display = failures_display(failures)
    caption = "Failed and skipped trials and metrics"
    files = writer.write(display, failures, "failures", caption)
    note = None
    if len(failures) > MAX_SHOWN_FAILURES:
        shown = display.text.head(MAX_SHOWN_FAILURES)
        display = DisplayTable(text=shown, numeric=display.numeric, group_by=display.group_by)
        note = f"First {MAX_SHOWN_FAILURES} of {len(failures)} rows; the CSV has all of them."
    blocks.append(TableBlock(display, caption, files, note))
    return blocks


def _costs(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    costs = cost_table(frame)
    display = cost_display(costs)
    caption = "Cost per generator variant (mean ± sd over ok trials)"
    files = writer.write(display, costs, "cost", caption)
    note = "Times are wall-clock seconds; costs are only comparable between trials run on the same machine."
    blocks: list[Block] = [Heading("Cost"), TableBlock(display, caption, files, note)]
    throughput = throughput_table(frame)
    if len(throughput):
        display = throughput_display(throughput)
        caption = "Variants per minute per generator"
        files = writer.write(display, throughput, "throughput", caption)
        note = "Ok trials divided by their total fit + sample minutes (metrics excluded)."
        blocks.append(TableBlock(display, caption, files, note))
    return blocks


COMPARISONS = (
    ("Mean ranks (Friedman)", rank_table),
    ("Wilcoxon–Holm against a control", control_table),
    ("Win/draw/lose against the baseline", win_draw_lose_table),
    ("Optimisation paths", paths_table),
    ("Bayesian sign test against the oracle", sign_test_table),
    ("Trade-off score", tradeoff_table),
)


def _comparisons(
    frame: pd.DataFrame, settings: ReportSettings, writer: TableWriter
) -> tuple[list[Block], dict[str, ComparisonTable]]:
    blocks: list[Block] = [Heading("Comparisons")]
    blocks.append(
        Paragraph(
            f"Privacy axis: {settings.privacy or '(none)'}; utility axis: {settings.utility or '(none)'}; blocks: "
            f"{', '.join(settings.blocks or ())}. Settings are listed under 'Report settings' below."
        )
    )
    if settings.blocks and "dataset" not in settings.blocks[1:] and settings.blocks != ("dataset",):
        blocks.append(
            Paragraph(
                "The run has one dataset, so the blocks are its evaluation units (seeds × folds): they share data, "
                "so p-values and posterior probabilities describe these units, not a population of datasets."
            )
        )
    computed: dict[str, ComparisonTable] = {}
    for heading, build in COMPARISONS:
        blocks.append(Heading(heading, level=3))
        try:
            table = build(frame, settings)
        except TableSkipped as exc:
            blocks.append(Paragraph(f"Table omitted: {exc}."))
            continue
        files = writer.write(table.display, table.numbers, table.stem, table.caption)
        blocks.append(TableBlock(table.display, table.caption, files, table.note))
        computed[table.stem] = table
    return blocks, computed


def _comparison_figures(
    frame: pd.DataFrame, settings: ReportSettings, figures_dir: Path, computed: dict[str, ComparisonTable]
) -> list[FigureOutcome]:
    out: list[FigureOutcome] = []

    def attempt(name: str, caption: str, draw: Callable[[], list[Path]]) -> None:
        outcome = FigureOutcome(name=name, caption=caption)
        try:
            outcome.paths = draw()
        except FigureSkipped as exc:
            outcome.skipped = str(exc)
        out.append(outcome)

    def pareto() -> list[Path]:
        if settings.privacy is None or settings.utility is None:
            raise FigureSkipped("the results need both a privacy and a utility metric with ok values")
        return pareto_scatter(
            frame, figures_dir, x=settings.privacy, y=settings.utility, colour_by=settings.colour_by
        )

    attempt(
        "pareto",
        "Privacy vs utility per generator variant (mean over seeds and folds), coloured by "
        f"{settings.colour_by or 'its most varied parameter (else the generator)'}; the dashed line is the Pareto "
        "front (circled points: no other variant is better on both axes).",
        pareto,
    )
    for column in dict.fromkeys(c for c in (settings.utility, settings.privacy) if c):
        attempt(
            f"cd_{slug(column)}",
            f"Critical-difference diagram of {column}: mean rank (1 = best) over blocks; variants joined by a thick "
            "line are not significantly different (Nemenyi); interpret only after a significant Friedman test.",
            partial(_cd, frame, settings, column, figures_dir),
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
    attempt(
        "k_threshold",
        "k-threshold curves: share of records in equivalence classes of size ≥ k on the QI set, per release (mean "
        "over trials) and for the training table.",
        lambda: k_threshold_curve(frame, figures_dir),
    )
    attempt(
        "dcr_holdout",
        "Distances to the closest training records: every release against the holdout baseline; boxes over all "
        f"trials, dots are trials (a random {STRIP_MAX} per variant where it has more).",
        lambda: dcr_distribution(frame, figures_dir),
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
    return cd_figure(result, figures_dir, title=column, stem=f"cd_{slug(column)}")


def _figures(outcomes: list[FigureOutcome], out_dir: Path, written: dict[str, Path]) -> list[Block]:
    blocks: list[Block] = [Heading("Figures")]
    for outcome in outcomes:
        if outcome.skipped is not None:
            blocks.append(FigureBlock(outcome.caption, skipped=outcome.skipped))
            continue
        pngs = [p for p in outcome.paths if p.suffix == ".png"]
        for png in pngs:
            pdf = png.with_suffix(".pdf")
            for path in (png, pdf):
                if path.exists():
                    written[path.relative_to(out_dir).as_posix()] = path
            blocks.append(
                FigureBlock(
                    outcome.caption,
                    png=png.relative_to(out_dir).as_posix(),
                    pdf=pdf.relative_to(out_dir).as_posix() if pdf.exists() else None,
                )
            )
    return blocks


def _provenance(
    frame: pd.DataFrame, config_text: str | None, versions: dict[str, str] | None, settings: ReportSettings
) -> list[Block]:
    blocks: list[Block] = [Heading("Report settings")]
    blocks.append(Bullets(tuple(settings.describe())))
    if settings.notes:
        blocks.append(Paragraph("Notes: " + " ".join(settings.notes)))
    blocks.append(Heading("Configuration"))
    if config_text:
        blocks.append(Preformatted(config_text))
    else:
        blocks.append(Paragraph("No configuration was given."))
    blocks.append(Heading("Versions"))
    resolved = versions if versions is not None else versions_from_results(frame)
    if resolved:
        blocks.append(Bullets(tuple(f"{name}: {value}" for name, value in sorted(resolved.items()))))
    else:
        blocks.append(Paragraph("No version information was recorded."))
    return blocks


def versions_from_results(results: pd.DataFrame) -> dict[str, str]:
    """Merge the JSON objects of the ``versions`` column; conflicting values are joined with ``", "``.

    Parameters
    ----------
    results : DataFrame
        The results table (or a prepared one).

    Returns
    -------
    dict of str to str
    """
    if "versions" not in results.columns:
        return {}
    found: dict[str, list[str]] = {}
    for text in results["versions"].dropna().unique():
        try:
            parsed = json.loads(str(text))
        except ValueError:
            continue
        if not isinstance(parsed, dict):
            continue
        for name, value in parsed.items():
            values = found.setdefault(str(name), [])
            if str(value) not in values:
                values.append(str(value))
    return {name: ", ".join(values) for name, values in found.items()}
