"""Privacy numbers next to their range on the same table (``calib_raw``, ``calib_none``).

Every privacy row of a trial carries the metric's value, on the same data, split and QI set,
for the raw training data and for new individuals (:mod:`harness.calibration`). The report
uses them three times:

* :func:`with_reference_rows` adds two rows per dataset to the privacy summary table —
  "raw data (reference)" and "new individuals (reference)" — so each column shows the
  metric's range on the user's own table next to the generators;
* :func:`leakage_table` places every generator on that range: the *leakage index*
  L = (risk − risk(new individuals)) / (risk(raw data) − risk(new individuals)), per block,
  where risk is the value oriented so that larger is riskier. L = 0: the release is rated
  like new individuals (no leakage seen); L = 1: like releasing the raw data. Values below 0
  (rated safer than new individuals, e.g. a scrambled table far from every real record) are
  shown as 0; values above 1 are kept;
* :func:`distortion_table` and :func:`mark_distortion` report what the leakage index clips: a
  release beyond new individuals (L < 0) is distorted, not more private
  (:mod:`harness.report.references`, "the floor"), and its privacy cells are marked ‡.

It also marks outputs that cannot order the known-leakage ladder (``details.ladder_exempt``,
:mod:`harness.ladder`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from harness.ladder import RUNGS
from harness.report.formatting import MISSING, format_number
from harness.report.prepare import ordered_rows
from harness.report.references import DISTORTION_MIN, leakage_index
from harness.report.render import DisplayTable
from harness.report.tables import STATS, TRIALS

REFERENCE_LABELS: dict[str, str] = {
    "calib_raw": "raw data (reference)",
    "calib_none": "new individuals (reference)",
}
REFERENCE_GENERATOR = "(reference)"


def _privacy_rows(frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame[(frame["family"] == "privacy") & (frame["status"] == "ok") & (frame["column"] != "")]
    return rows[rows["calib_raw"].notna() | rows["calib_none"].notna()]


def _block_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in ("experiment", "dataset", "qi_set", "split_seed", "fold") if c in frame.columns]


def has_calibration(frame: pd.DataFrame) -> bool:
    """True when any ok privacy row of a prepared frame carries a reference value."""
    return bool(len(_privacy_rows(frame)))


def with_reference_rows(summary: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """The privacy summary with the two reference rows first in each dataset group.

    Parameters
    ----------
    summary : DataFrame
        :func:`harness.report.tables.summary_table` of the privacy family.
    frame : DataFrame
        The prepared results (:func:`harness.report.prepare.prepare`).

    Returns
    -------
    DataFrame
        ``summary`` with rows ``(…, generator="(reference)", label=<reference>)``: mean ± sd
        over the blocks of the reference values (never marked best; no trials of their own).
    """
    rows = _privacy_rows(frame)
    if rows.empty:
        return summary
    keys = list(summary.index.names)
    group_keys = [k for k in keys if k not in ("generator", "label")]
    per_block = rows.drop_duplicates([*_block_columns(rows), "column"])
    columns = [c for c in dict.fromkeys(summary.columns.get_level_values(0)) if c != TRIALS]
    new_rows = []
    for group, part in per_block.groupby(group_keys, sort=False):
        group = group if isinstance(group, tuple) else (group,)
        for source, label in REFERENCE_LABELS.items():
            record: dict[tuple[str, str], object] = {}
            for col in columns:
                values = part.loc[part["column"] == col, source].astype(float)
                values = values[np.isfinite(values)]
                record[(col, "mean")] = float(values.mean()) if len(values) else math.nan
                record[(col, "std")] = float(values.std(ddof=1)) if len(values) > 1 else math.nan
                record[(col, "n")] = int(len(values))
                record[(col, "best")] = False
            for stat in summary[TRIALS].columns:
                record[(TRIALS, stat)] = 0
            index = dict(zip(group_keys, group))
            index.update({"generator": REFERENCE_GENERATOR, "label": label})
            new_rows.append((tuple(index.get(k, "") for k in keys), record))
    if not new_rows:
        return summary
    extra = pd.DataFrame(
        [r for _, r in new_rows], index=pd.MultiIndex.from_tuples([i for i, _ in new_rows], names=keys)
    ).reindex(columns=summary.columns)
    combined = pd.concat([extra, summary])
    order = _reference_first_order(combined, group_keys)
    out = combined.iloc[order]
    for col in columns:
        out[(col, "n")] = out[(col, "n")].fillna(0).astype(int)
        out[(col, "best")] = out[(col, "best")].astype("boolean").fillna(False).astype(bool)
    for stat in summary[TRIALS].columns:
        out[(TRIALS, stat)] = out[(TRIALS, stat)].fillna(0).astype(int)
    return out[[c for c in summary.columns]]


def _reference_first_order(table: pd.DataFrame, group_keys: list[str]) -> list[int]:
    index = table.index.to_frame(index=False)
    groups = list(dict.fromkeys(tuple(r) for r in index[group_keys].itertuples(index=False, name=None)))
    order: list[int] = []
    for group in groups:
        mask = np.ones(len(index), dtype=bool)
        for key, value in zip(group_keys, group):
            mask &= (index[key] == value).to_numpy()
        positions = list(np.flatnonzero(mask))
        refs = [i for i in positions if index.at[i, "generator"] == REFERENCE_GENERATOR]
        order += refs + [i for i in positions if i not in refs]
    return order


def leakage_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Leakage index of every privacy output and generator variant (see the module docstring).

    Returns
    -------
    DataFrame
        Index: ``dataset[, qi_set], column`` (the privacy output); columns: generator variant
        labels in report order; cells: mean over blocks of L clipped below at 0 (NaN where the
        references do not separate — raw data not riskier than new individuals — or the output
        has no direction).
    """
    return _leakage_pivot(frame, lambda index: np.maximum(index, 0.0))


def distortion_table(frame: pd.DataFrame) -> pd.DataFrame:
    """How far beyond new individuals each release lies, in spans of the references (max(0, −L)).

    A release farther from the training rows than new individuals are (L < 0) is distorted, not
    more private: this is the part of its value the leakage index clips. Same shape as
    :func:`leakage_table`; only outputs where some variant's mean exceeds
    :data:`harness.report.references.DISTORTION_MIN` are kept.
    """
    table = _leakage_pivot(frame, lambda index: np.maximum(-index, 0.0))
    if table.empty:
        return table
    return table[(table.fillna(0.0) > DISTORTION_MIN).any(axis=1)]


def _leakage_pivot(frame: pd.DataFrame, transform: Callable[[np.ndarray], np.ndarray]) -> pd.DataFrame:
    rows = _privacy_rows(frame)
    rows = rows[rows["goal"].isin(["minimise", "maximise", "target"])]  # diagnostics have no leakage index
    if rows.empty:
        return pd.DataFrame()
    rows = rows.assign(leakage=transform(leakage_index(rows)))
    keys = [k for k in ("experiment", "dataset", "qi_set") if k == "dataset" or frame[k].nunique() > 1]
    table = rows.pivot_table(
        index=[*keys, "column"], columns="label", values="leakage", aggfunc="mean", sort=False, dropna=False
    )
    labels = list(dict.fromkeys(ordered_rows(frame, [*keys, "generator", "label"])["label"]))
    outputs = list(dict.fromkeys(rows["column"]))
    order = sorted(table.index, key=lambda ix: (tuple(str(v) for v in ix[:-1]), outputs.index(ix[-1])))
    table = table.reindex(index=order, columns=[c for c in labels if c in table.columns])
    table.columns.name = None
    return table


def ladder_exemptions(frame: pd.DataFrame) -> dict[str, str]:
    """Output column → the documented reason why it cannot order the known-leakage ladder."""
    out: dict[str, str] = {}
    rows = frame[(frame["family"] == "privacy") & (frame["column"] != "")]
    for column, details in zip(rows["column"], rows["details"]):
        if column in out or not isinstance(details, str) or "ladder_exempt" not in details:
            continue
        try:
            reason = json.loads(details).get("ladder_exempt")
        except ValueError:
            continue
        if reason:
            out[column] = str(reason)
    return out


def leakage_display(table: pd.DataFrame, exempt: dict[str, str]) -> DisplayTable:
    """Display table of :func:`leakage_table` (two decimals; † marks outputs exempt from the ladder)."""
    keys = (
        table.index.to_frame(index=False).astype(str).rename(columns={"qi_set": "QI set", "column": "metric"})
    )
    keys["metric"] = [f"{m} †" if m in exempt else m for m in keys["metric"]]
    text = keys.copy()
    for col in table.columns:
        text[str(col)] = [MISSING if pd.isna(v) else f"{float(v):.2f}" for v in table[col]]
    return DisplayTable(
        text=text.reset_index(drop=True),
        numeric=frozenset(str(c) for c in table.columns),
        group_by=tuple(c for c in keys.columns if c != "metric"),
    )


def ladder_display(table: pd.DataFrame) -> DisplayTable:
    """Display table of :func:`harness.ladder.verdict_table`: each rung's value, the verdict and why."""
    rungs = [name for name, _ in RUNGS]
    text = table[["dataset", "metric"]].astype(str).copy()
    for name in rungs:
        text[name] = [format_number(v) for v in table[name]]
    text["orders"] = ["yes" if bool(v) else "no" for v in table["orders"]]
    text["resolution p"] = [MISSING if pd.isna(v) else f"{float(v):g}" for v in table["resolution"]]
    text["why not"] = table["problems"].astype(str)
    return DisplayTable(
        text=text.reset_index(drop=True),
        numeric=frozenset([*rungs, "resolution p"]),
        group_by=("dataset",),
    )


def mark_exempt(display: DisplayTable, exempt: dict[str, str]) -> DisplayTable:
    """Append † to the headers of outputs documented not to order the known-leakage ladder."""
    if not exempt:
        return display
    renames = {}
    for header in display.text.columns:
        column = str(header).split(" ", 1)[0]  # headers are "column" or "column <direction>"
        if column in exempt:
            renames[header] = f"{header} †"
    if not renames:
        return display
    text = display.text.rename(columns=renames)
    bold = None if display.bold is None else display.bold.rename(columns=renames)
    numeric = frozenset(renames.get(c, c) for c in display.numeric)
    return DisplayTable(text=text, bold=bold, numeric=numeric, group_by=display.group_by)


def mark_distortion(display: DisplayTable, summary: pd.DataFrame, frame: pd.DataFrame) -> DisplayTable:
    """Append ‡ to the privacy cells of releases beyond new individuals (never bold: distortion, not privacy).

    Parameters
    ----------
    display : DisplayTable
        :func:`harness.report.formatting.summary_display` of ``summary``.
    summary : DataFrame
        The privacy summary (with or without the reference rows).
    frame : DataFrame
        The prepared results.
    """
    table = distortion_table(frame)
    if table.empty or display.bold is None:
        return display
    text, bold = display.text.copy(), display.bold.copy()
    headers = {str(h).split(" ", 1)[0]: h for h in text.columns}
    keys = list(summary.index.names)
    for i, index in enumerate(summary.index):
        values = dict(zip(keys, index if isinstance(index, tuple) else (index,)))
        group = tuple(values[k] for k in table.index.names[:-1])
        for column in table.index.get_level_values(-1).unique():
            cell = (
                table.at[(*group, column), values["label"]]
                if ((*group, column) in table.index and values["label"] in table.columns)
                else np.nan
            )
            if column in headers and np.isfinite(cell) and cell > DISTORTION_MIN:
                text.iat[i, text.columns.get_loc(headers[column])] += " ‡"
                bold.iat[i, bold.columns.get_loc(headers[column])] = False
    return DisplayTable(text=text, bold=bold, numeric=display.numeric, group_by=display.group_by)


DISTORTION_NOTE = (
    "‡ beyond new individuals: the release lies farther from the training rows than new people do (the "
    "'Distortion beyond new individuals' table says by how much). That is distortion, not privacy: the "
    "comparisons count it as the new-individuals value (leakage index 0) and it is never marked best."
)


def exempt_note(exempt: dict[str, str]) -> str:
    """† with the documented reason, once per reason (the outputs sharing it listed together)."""
    by_reason: dict[str, list[str]] = {}
    for column, reason in exempt.items():
        by_reason.setdefault(reason, []).append(column)
    parts = [
        f"† {', '.join(columns)}: does not order the known-leakage ladder ({reason})."
        for reason, columns in by_reason.items()
    ]
    return " ".join(parts)


__all__ = [
    "REFERENCE_GENERATOR",
    "REFERENCE_LABELS",
    "STATS",
    "distortion_table",
    "has_calibration",
    "exempt_note",
    "ladder_display",
    "ladder_exemptions",
    "leakage_display",
    "leakage_table",
    "mark_distortion",
    "DISTORTION_NOTE",
    "mark_exempt",
    "with_reference_rows",
]
