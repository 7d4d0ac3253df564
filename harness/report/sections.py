"""The report's descriptive sections: overview, results by family, calibration, failures, cost.

Each function returns document blocks (:mod:`harness.report.document`) and writes its tables
through a :class:`~harness.report.tables_io.TableWriter`. The frame they get is prepared with
the references marked and privacy floored (:mod:`harness.report.references`): reference rows
appear marked "(reference)" and are never bold; a privacy cell beyond new individuals is marked
‡ and never bold.
"""

from __future__ import annotations

import pandas as pd

from harness.ladder import LADDER_TEXT, ladder_verdicts, verdict_table
from harness.report.calibration import (
    DISTORTION_NOTE,
    distortion_table,
    exempt_note,
    has_calibration,
    ladder_display,
    ladder_exemptions,
    leakage_display,
    leakage_table,
    mark_distortion,
    mark_exempt,
    with_reference_rows,
)
from harness.report.document import Block, Heading, Paragraph, TableBlock
from harness.report.formatting import (
    cost_display,
    failures_display,
    format_number,
    status_display,
    summary_display,
    throughput_display,
    usual_n,
)
from harness.report.power import MIN_ABSOLUTE, MIN_RELATIVE, NOISE_FACTOR, AxisChoice
from harness.report.prepare import FAMILY_ORDER
from harness.report.render import DisplayTable
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
from harness.report.tables_io import TableWriter

MAX_SHOWN_FAILURES = 200
REFERENCE_NOTE = (
    "Reference rows: the same metric, on the same data, split and QI set, for the raw training data (the most a "
    "release can leak) and for new individuals (a sample of the control split: no record of the training data "
    "leaks). A metric's range on this table lies between them."
)


def overview(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    """Counts of rows, trials, variants and datasets, and the trials by status."""
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


def summaries(frame: pd.DataFrame, writer: TableWriter, roles: dict[str, str] | None = None) -> list[Block]:
    """Summary tables per metric family; the QI set and target named beside privacy and utility."""
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
            "variant, failures included. Rows marked (reference) are references: shown for scale, never bold."
        )
    )
    exempt = ladder_exemptions(frame)
    for family, summary in zip(families, per_family):
        if not summary_columns(summary):
            continue
        note: str | None = None
        if family in ("privacy", "utility") and roles:
            note = " ".join(f"{line}." for line in roles.values())
        display = summary_display(summary, info)
        if family == "privacy" and has_calibration(frame):
            summary = with_reference_rows(summary, frame)
            display = mark_distortion(summary_display(summary, info), summary, frame)
            distorted = any(str(v).endswith("‡") for v in display.text.to_numpy().ravel())
            note = " ".join(t for t in (note, REFERENCE_NOTE, DISTORTION_NOTE if distorted else None) if t)
        if family == "privacy" and exempt:
            display = mark_exempt(display, exempt)
            note = " ".join(t for t in (note, exempt_note(exempt)) if t)
        caption = f"{family.capitalize()} metrics"
        files = writer.write(display, summary, f"summary_{family}", caption)
        blocks.append(TableBlock(display, caption, files, note))
    writer.write(summary_display(everything, info), everything, "summary", "All metrics")
    return blocks


def calibration(frame: pd.DataFrame, writer: TableWriter, axis: AxisChoice | None = None) -> list[Block]:
    """Leakage index (outputs without power marked), distortion beyond new individuals, the known-leakage ladder."""
    blocks: list[Block] = []
    if has_calibration(frame):
        table = leakage_table(frame)
        exempt = ladder_exemptions(frame)
        display = _mark_no_power(leakage_display(table, exempt), table, axis)
        caption = "Leakage index: each release placed between new individuals (0) and the raw data (1)"
        files = writer.write(display, table, "leakage_index", caption)
        note = (
            "L = (risk − risk of new individuals) / (risk of the raw data − risk of new individuals), per block, "
            "averaged; risk is the metric value oriented so that larger is riskier. 0: the metric sees no more "
            "than it sees in new individuals (values below 0 are shown as 0: beyond new individuals is distortion, "
            "not privacy, and the 'Distortion' table says how far); 1: as much as in the raw data. – : the raw data "
            "is not riskier than new individuals (the metric cannot tell them apart on this table) or the output has "
            "no direction. (no power): the output does not separate the raw data from new individuals beyond its "
            "noise on this dataset ('Headline privacy axis'), so its index says little."
        )
        if exempt:
            note += " " + exempt_note(exempt)
        blocks += [Heading("Privacy calibration"), TableBlock(display, caption, files, note)]
        blocks += _distortion(frame, writer, exempt)
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


def failures(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    """Failed and skipped trials and metrics (the first 200 rows; the CSV has all)."""
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


def costs(frame: pd.DataFrame, writer: TableWriter) -> list[Block]:
    """Cost per generator variant and variants per minute."""
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


def _mark_no_power(display: DisplayTable, table: pd.DataFrame, axis: AxisChoice | None) -> DisplayTable:
    if axis is None or axis.table.empty or "dataset" not in table.index.names:
        return display
    blind = {(str(r.dataset), str(r.column)) for r in axis.table.itertuples(index=False) if not r.separates}
    keys = table.index.to_frame(index=False)
    text = display.text.copy()
    for i, (dataset, column) in enumerate(zip(keys["dataset"].astype(str), keys["column"].astype(str))):
        if (dataset, column) in blind:
            text.at[i, "metric"] = f"{text.at[i, 'metric']} (no power)"
    return DisplayTable(text=text, bold=display.bold, numeric=display.numeric, group_by=display.group_by)


def _distortion(frame: pd.DataFrame, writer: TableWriter, exempt: dict[str, str]) -> list[Block]:
    table = distortion_table(frame)
    if table.empty:
        return []
    display = leakage_display(table, exempt)
    caption = (
        "Distortion beyond new individuals: how far past them each release lies (spans of the references)"
    )
    files = writer.write(display, table, "distortion", caption)
    note = (
        "max(0, −L) per block, averaged: a release whose values lie beyond those of new individuals (e.g. farther "
        "from the training rows than new people are) by this many raw-data-to-new-individuals spans. That is "
        "distortion, not privacy: the leakage index, the comparisons and the trade-off score count it as 0 (the "
        "new-individuals value). Outputs where no release exceeds 0.05 are left out."
    )
    return [TableBlock(display, caption, files, note)]


def axis_blocks(axis: AxisChoice, writer: TableWriter) -> list[Block]:
    """The "Headline privacy axis" section: the chosen output, why, and every candidate's separation."""
    blocks: list[Block] = [Heading("Headline privacy axis"), Paragraph(axis.reason)]
    table = axis.table
    if table.empty:
        return blocks
    text = pd.DataFrame(
        {
            "dataset": table["dataset"].astype(str),
            "privacy output": table["column"].astype(str),
            "blocks": table["blocks"].astype(int).astype(str),
            "raw data": [format_number(v) for v in table["raw"]],
            "new individuals": [format_number(v) for v in table["none"]],
            "separation": [format_number(v) for v in table["separation"]],
            "noise": [format_number(v) for v in table["noise"]],
            "separates": ["yes" if v else "no" for v in table["separates"]],
        }
    )
    display = DisplayTable(
        text=text,
        numeric=frozenset({"blocks", "raw data", "new individuals", "separation", "noise"}),
        group_by=("dataset",),
    )
    caption = "Which privacy outputs tell the raw data from new individuals on this table"
    files = writer.write(display, table, "privacy_axis", caption)
    note = (
        "Separation: mean over blocks of risk(raw data) − risk(new individuals), risk being the value oriented so that "
        "larger is riskier. Noise: the larger of the references' sd over blocks and the median half-width of the "
        f"output's confidence intervals. Separates: separation > {NOISE_FACTOR:g} × noise (without any measure of "
        f"noise: at least {MIN_ABSOLUTE:g} and {MIN_RELATIVE:.0%} of the larger reference). An output that does not "
        "separate cannot see leakage on this table."
    )
    blocks.append(TableBlock(display, caption, files, note))
    return blocks
