"""Assemble the report: tables, figures, ``report.md`` and ``report.html``.

:func:`build_report` is the entry point of ``privbench report``. It writes::

    out_dir/
      tables/   status, summary_<family>, summary (all families), privacy_axis, leakage_index,
                distortion, failures, cost, throughput, ranks, wilcoxon_holm, win_draw_lose,
                optimisation_paths, bayes_sign_test, tradeoff                   (.md, .csv, .tex)
      figures/  privacy_utility, pareto, box_<family>_<dataset>, cd_<metric>, bayes_sign_test,
                k_threshold, dcr_holdout, cost                                  (.png, .pdf)
      config.yaml   the run's full configuration (linked from the pages)
      report.md     GitHub-friendly: tables inline, figures linked
      report.html   one self-contained page: inline CSS, figures embedded, no script

The page opens with the verdict (:mod:`harness.report.verdict`: who wins on each table and how
sure we are) and the headline privacy axis (:mod:`harness.report.power`: which privacy output
can see leakage on the table, and why it was chosen). The reference generators
(:mod:`harness.report.references`) are marked in every table and left out of every ranking,
test, front and score scale; privacy is read against the floor of new individuals.

What is compared (axes, control, baseline, blocks, references) is chosen by
:class:`harness.report.settings.ReportSettings`; a table or figure the run lacks data for is
replaced by a one-line note.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

from harness.report.audit import audit_blocks, audit_warning_blocks
from harness.report.audit_figures import audit_figures
from harness.report.boxes import STRIP_MAX
from harness.report.comparison_section import comparison_figures, comparisons, resolve_control
from harness.report.document import (
    Block,
    Bullets,
    FigureBlock,
    Heading,
    Link,
    Paragraph,
    to_html,
    to_markdown,
)
from harness.report.figures import FigureOutcome, FigureSkipped, make_figures
from harness.report.prepare import prepare
from harness.report.privacy_figures import dcr_distribution, k_threshold_curve
from harness.report.provenance import CONFIG_FILE, report_title, roles_text, run_context, write_config
from harness.report.references import compared, floored, mark_references, marked_name, with_floor
from harness.report.sections import axis_blocks, calibration, costs, failures, overview, summaries
from harness.report.settings import ReportSettings, privacy_axis, resolve_settings
from harness.report.style import background_saving
from harness.report.tables_io import TableWriter
from harness.report.verdict import verdict_blocks

__all__ = ["TableWriter", "build_report", "versions_from_results"]


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
        Title of the report: the experiment's name (Hydra's unnamed ``default`` is replaced
        by the run's description or its datasets, :func:`harness.report.provenance.report_title`).
    config_text : str, optional
        The experiment configuration (e.g. the composed Hydra YAML), written to
        ``config.yaml`` and linked.
    versions : dict, optional
        Package → version. Default: merged from the results' ``versions`` column.
    settings : ReportSettings, optional
        What to compare; unset fields are chosen from the results
        (:func:`harness.report.settings.resolve_settings`).

    Returns
    -------
    dict of str to Path
        ``report_md``, ``report_html``, ``tables_dir``, ``figures_dir`` and one entry per
        written file keyed by its path relative to ``out_dir`` (e.g. ``"tables/cost.csv"``,
        ``"config.yaml"``).
    """
    out_dir = Path(out_dir)
    tables_dir = out_dir / "tables"
    figures_dir = out_dir / "figures"
    tables_dir.mkdir(parents=True, exist_ok=True)
    figures_dir.mkdir(parents=True, exist_ok=True)
    requested = settings or ReportSettings()
    frame = with_floor(mark_references(prepare(results), requested.reference_names))
    resolved = resolve_settings(frame, requested)
    axis = privacy_axis(frame, resolved.privacy if requested.privacy else None)
    keep = [k for k in [marked_name(frame, resolved.baseline)] if k]
    if keep:
        resolved = replace(resolved, baseline=keep[0])
    methods = compared(frame, keep=keep)
    resolved = resolve_control(compared(frame), frame, resolved)
    context = run_context(config_text)
    writer = TableWriter(tables_dir)

    blocks: list[Block] = [Heading(report_title(title, context, results), level=1)]
    if context.description and context.description != blocks[0].text:  # type: ignore[union-attr]
        blocks.append(Paragraph(context.description))
    with background_saving():
        # Figures first: their rendering (most of a report's time) runs in child processes
        # while the tables are built here (harness.report.style.background_saving).
        outcomes = make_figures(frame, figures_dir, privacy=resolved.privacy, utility=resolved.utility)
        blocks += audit_warning_blocks(frame)  # a failed DP claim opens the report
        blocks += verdict_blocks(frame, resolved, axis)
        blocks += axis_blocks(axis, writer)
        blocks += overview(frame, writer)
        blocks += summaries(frame, writer, roles_text(frame, context))
        blocks += calibration(frame, writer, axis)
        blocks += audit_blocks(frame, writer)
        comparison_blocks, computed = comparisons(frame, methods, resolved, axis, writer)
        blocks += comparison_blocks
        blocks += failures(frame, writer)
        blocks += costs(frame, writer)
        written = dict(writer.written)
        outcomes[1:1] = [
            *comparison_figures(compared(frame), floored(frame), resolved, axis, figures_dir, computed),
            *_privacy_figures(frame, figures_dir),
        ]
        outcomes += audit_figures(frame, figures_dir)
    blocks += _figures(outcomes, out_dir, written)
    config = write_config(out_dir, config_text)
    if config is not None:
        written[CONFIG_FILE] = config
    blocks += _provenance(frame, config_text if config is not None else None, versions, resolved)

    report_md = out_dir / "report.md"
    report_md.write_text(to_markdown(blocks), encoding="utf-8")
    report_html = out_dir / "report.html"
    report_html.write_text(to_html(str(blocks[0].text), blocks, base_dir=out_dir), encoding="utf-8")  # type: ignore[union-attr]
    return {
        "report_md": report_md,
        "report_html": report_html,
        "tables_dir": tables_dir,
        "figures_dir": figures_dir,
        **written,
    }


def _privacy_figures(frame: pd.DataFrame, figures_dir: Path) -> list[FigureOutcome]:
    out = []
    for name, caption, draw in (
        (
            "k_threshold",
            "k-threshold curves: share of records in equivalence classes of size ≥ k on the QI set, per release (mean "
            "over trials) and for the training table.",
            lambda: k_threshold_curve(frame, figures_dir),
        ),
        (
            "dcr_holdout",
            "Distances to the closest training records: every release against the holdout baseline; boxes over all "
            f"trials, dots are trials (a random {STRIP_MAX} per variant where it has more).",
            lambda: dcr_distribution(frame, figures_dir),
        ),
    ):
        out.append(_attempt(name, caption, draw))
    return out


def _attempt(name: str, caption: str, draw: Callable[[], list[Path]]) -> FigureOutcome:
    outcome = FigureOutcome(name=name, caption=caption)
    try:
        outcome.paths = draw()
    except FigureSkipped as exc:
        outcome.skipped = str(exc)
    return outcome


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
        lines = len(config_text.rstrip().splitlines())
        blocks.append(
            Link(
                f"The run's full configuration ({lines} lines of YAML) is in a file next to this report",
                CONFIG_FILE,
            )
        )
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
