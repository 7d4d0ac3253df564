"""Privacy numbers next to their range on the same table (``calib_raw``, ``calib_none``).

Every privacy row of a trial carries the metric's value, on the same data, split and QI set,
for the raw training data and for new individuals (:mod:`harness.calibration`). The report
uses them twice:

* :func:`with_reference_rows` adds two rows per dataset to the privacy summary table —
  "raw data (reference)" and "new individuals (reference)" — so each column shows the
  metric's range on the user's own table next to the generators;
* :func:`leakage_table` places every generator on that range: the *leakage index*
  L = (risk − risk(new individuals)) / (risk(raw data) − risk(new individuals)), per block,
  where risk is the value oriented so that larger is riskier. L = 0: the release is rated
  like new individuals (no leakage seen); L = 1: like releasing the raw data. Values below 0
  (rated safer than new individuals, e.g. a scrambled table far from every real record) are
  shown as 0; values above 1 are kept.

It also marks outputs that cannot order the known-leakage ladder (``details.ladder_exempt``,
:mod:`harness.ladder`).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from harness.ladder import RUNGS, risk_of
from harness.report.formatting import MISSING, format_number
from harness.report.prepare import ordered_rows
from harness.report.render import DisplayTable
from harness.report.tables import STATS, TRIALS

REFERENCE_LABELS: dict[str, str] = {
    "calib_raw": "raw data (reference)",
    "calib_none": "new individuals (reference)",
}
REFERENCE_GENERATOR = "(reference)"
MIN_SPAN = 1e-12


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
        labels in report order; cells: mean over blocks of L (NaN where the references do not
        separate, |raw − none| ≈ 0, or the output has no direction).
    """
    rows = _privacy_rows(frame)
    rows = rows[rows["goal"].isin(["minimise", "maximise", "target"])]  # diagnostics have no leakage index
    if rows.empty:
        return pd.DataFrame()
    target = rows["target_value"].astype(float)
    risk = [risk_of(v, g, t) for v, g, t in zip(rows["value"], rows["goal"], target)]
    raw = [risk_of(v, g, t) for v, g, t in zip(rows["calib_raw"], rows["goal"], target)]
    none = [risk_of(v, g, t) for v, g, t in zip(rows["calib_none"], rows["goal"], target)]
    span = np.asarray(raw, dtype=float) - np.asarray(none, dtype=float)
    index = (np.asarray(risk, dtype=float) - np.asarray(none, dtype=float)) / np.where(
        np.abs(span) > MIN_SPAN, span, np.nan
    )
    rows = rows.assign(leakage=np.maximum(index, 0.0))
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
    "has_calibration",
    "exempt_note",
    "ladder_display",
    "ladder_exemptions",
    "leakage_display",
    "leakage_table",
    "mark_exempt",
    "with_reference_rows",
]
