"""The headline privacy axis: a privacy output that can see leakage on this table.

A privacy metric only says something about a release when it rates the raw data (what
``identity`` releases) clearly riskier than new individuals (what ``real_holdout`` releases)
on the same table: the calibration rows (``calib_raw``, ``calib_none``) hold both. On a table of
few, low-cardinality columns Anonymeter's linkability may rate the raw data 0.002 and new
individuals 0.000: it cannot see leakage there, and comparisons built on it have no power.

:func:`separation_table` measures, per dataset and privacy output with calibration,

* the *separation* d = mean over blocks of risk(raw data) − risk(new individuals) (risk: the
  value oriented so that larger is riskier);
* its *noise*: the largest of the references' standard deviations over blocks and the median
  half-width of the output's own confidence intervals in the dataset (where it reports them);

and calls the output *separating* when d > 0 and d > :data:`NOISE_FACTOR` · noise; with no
measure of noise (one block, no intervals), when d is at least :data:`MIN_ABSOLUTE` and
:data:`MIN_RELATIVE` of the larger reference.

:func:`choose_privacy_axis` picks the headline: a column the user set (kept, with a warning
where it does not separate); else the first of :data:`harness.report.defaults.PRIVACY_PREFERENCES`
that separates on every dataset; else the output separating on the most datasets, with the
largest separation-to-noise ratio (outputs documented not to order the known-leakage ladder
last); when none separates, the preferred output stays the axis and the report says at the top
that it has no power (:attr:`AxisChoice.powered`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from harness.report.calibration import ladder_exemptions
from harness.report.formatting import format_number
from harness.report.references import risk

NOISE_FACTOR = 2.0
MIN_ABSOLUTE = 0.01
MIN_RELATIVE = 0.10
_BLOCK_COLUMNS: tuple[str, ...] = ("experiment", "dataset", "qi_set", "split_seed", "fold")
TABLE_COLUMNS: tuple[str, ...] = (
    "dataset",
    "column",
    "blocks",
    "raw",
    "none",
    "separation",
    "noise",
    "ratio",
    "separates",
)


@dataclass(frozen=True)
class AxisChoice:
    """The headline privacy axis and why.

    Attributes
    ----------
    column : str, optional
        The privacy column of the comparisons (None: the run has no privacy column).
    reason : str
        One or two sentences for the report: why this column.
    powered : dict of str to bool
        Per dataset: whether the column separates the raw data from new individuals there
        (datasets without calibration rows for it are absent: unknown).
    explicit : bool
        The column was set by the user.
    table : DataFrame
        :func:`separation_table` of the run.
    """

    column: str | None
    reason: str
    powered: dict[str, bool] = field(default_factory=dict)
    explicit: bool = False
    table: pd.DataFrame = field(default_factory=pd.DataFrame, compare=False)

    def has_power(self, dataset: str) -> bool | None:
        """True/False where the calibration says; None where it cannot (no calibration rows)."""
        return self.powered.get(dataset)

    @property
    def unpowered(self) -> list[str]:
        """Datasets on which the axis does not separate the references."""
        return [d for d, ok in self.powered.items() if not ok]


def separation_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Separation of the references and its noise, per dataset and privacy output (module docstring).

    Parameters
    ----------
    frame : DataFrame
        A prepared results table.

    Returns
    -------
    DataFrame
        Columns :data:`TABLE_COLUMNS`: ``raw``/``none`` are the references' mean values,
        ``separation``/``noise`` in risk units, ``ratio`` = separation / noise (inf without
        noise), ``separates`` the verdict. Empty without calibration rows.
    """
    need = {"calib_raw", "calib_none"}
    if not need <= set(frame.columns):
        return pd.DataFrame(columns=list(TABLE_COLUMNS))
    rows = frame[(frame["family"] == "privacy") & (frame["status"] == "ok") & (frame["column"] != "")]
    rows = rows[rows["goal"].isin(["minimise", "maximise", "target"])]
    rows = rows[rows["calib_raw"].notna() & rows["calib_none"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=list(TABLE_COLUMNS))
    records = [_separation(dataset, column, part) for (dataset, column), part in rows.groupby(
        ["dataset", "column"], sort=False
    )]  # fmt: skip
    return pd.DataFrame.from_records(records, columns=list(TABLE_COLUMNS))


def _separation(dataset: object, column: object, part: pd.DataFrame) -> dict[str, object]:
    blocks = part.drop_duplicates([c for c in _BLOCK_COLUMNS if c in part.columns])
    goals, targets = blocks["goal"].to_numpy(dtype=object), blocks["target_value"].to_numpy(dtype=float)
    raw = risk(blocks["calib_raw"].to_numpy(dtype=float), goals, targets)
    none = risk(blocks["calib_none"].to_numpy(dtype=float), goals, targets)
    separation = float(np.mean(raw - none))
    spreads = [float(np.std(v, ddof=1)) for v in (raw, none) if len(v) > 1]
    half = ((part["ci_high"] - part["ci_low"]) / 2.0).astype(float) if "ci_high" in part else pd.Series()
    half = half[np.isfinite(half)]
    noise = max([*spreads, float(half.median()) if len(half) else 0.0, 0.0])
    if noise > 0:
        separates = separation > 0 and separation > NOISE_FACTOR * noise
    else:
        scale = max(abs(float(np.mean(raw))), abs(float(np.mean(none))))
        separates = separation >= MIN_ABSOLUTE and separation >= MIN_RELATIVE * scale
    return {
        "dataset": str(dataset),
        "column": str(column),
        "blocks": len(blocks),
        "raw": float(blocks["calib_raw"].astype(float).mean()),
        "none": float(blocks["calib_none"].astype(float).mean()),
        "separation": separation,
        "noise": noise,
        "ratio": separation / noise if noise > 0 else (math.inf if separation > 0 else 0.0),
        "separates": bool(separates),
    }


def choose_privacy_axis(
    frame: pd.DataFrame,
    requested: str | None,
    *,
    preferences: Sequence[str],
    resolve: Callable[[str], str | None],
    fallback: str | None,
) -> AxisChoice:
    """The headline privacy column of a run (see the module docstring).

    Parameters
    ----------
    frame : DataFrame
        A prepared results table.
    requested : str, optional
        The column the user set (already checked to have ok values).
    preferences : sequence of str
        Preferred outputs (metric or ``metric/variant``), first to last.
    resolve : callable
        Maps a preference to a column of the run (None when absent).
    fallback : str, optional
        The column used when the run has no calibration rows or nothing separates.
    """
    table = separation_table(frame)
    datasets = sorted(set(frame.loc[frame["dataset"] != "", "dataset"].astype(str)))
    if requested is not None:
        return _explained(table, requested, datasets, "set in the report settings", explicit=True)
    if table.empty:
        reason = (
            "no privacy row carries calibration values (the raw data and new individuals), so whether it "
            "can see leakage on this table is not known"
        )
        if fallback is None:
            return AxisChoice(None, "The run has no privacy metric with ok values.", {}, table=table)
        return AxisChoice(fallback, f"{fallback}: the default; {reason}.", {}, table=table)
    sets = {c: set(part.loc[part["separates"], "dataset"]) for c, part in table.groupby("column", sort=False)}
    passed: list[str] = []
    for preference in preferences:
        column = resolve(preference)
        if column is None or column not in sets:
            continue
        if sets[column] and sets[column] >= set(table.loc[table["column"] == column, "dataset"]):
            return _explained(table, column, datasets, "the preferred headline output" + _passed(passed))
        passed.append(column)
    best = _best_separating(table, sets, ladder_exemptions(frame))
    if best is not None:
        why = "the output that separates the references most clearly" + _passed(passed)
        return _explained(table, best, datasets, why)
    choice = _explained(table, fallback, datasets, "the default") if fallback else None
    reason = (
        "No privacy output of this run separates the raw data from new individuals beyond its noise on any "
        "dataset: the comparisons, the Pareto front and the trade-off score have no privacy axis with power."
    )
    return AxisChoice(
        fallback, reason, choice.powered if choice else {d: False for d in datasets}, table=table
    )


def _passed(columns: list[str]) -> str:
    if not columns:
        return ""
    verb = "does" if len(columns) == 1 else "do"
    return f", since {', '.join(columns)} (preferred) {verb} not separate them on every dataset"


def _best_separating(table: pd.DataFrame, sets: dict[str, set[str]], exempt: dict[str, str]) -> str | None:
    scored = []
    for column, part in table.groupby("column", sort=False):
        separated = part[part["separates"]]
        if separated.empty:
            continue
        scored.append((-len(separated), str(column) in exempt, -float(separated["ratio"].min()), str(column)))
    return sorted(scored, key=lambda t: t[:3])[0][3] if scored else None


def _explained(
    table: pd.DataFrame, column: str, datasets: list[str], why: str, *, explicit: bool = False
) -> AxisChoice:
    own = table[table["column"] == column] if len(table) else table
    powered = {str(r.dataset): bool(r.separates) for r in own.itertuples(index=False)}
    parts = [
        f"on {r.dataset} it rates the raw data {format_number(r.raw)} and new individuals {format_number(r.none)} "
        f"(noise {format_number(r.noise)}): it {'separates them' if r.separates else 'does NOT separate them'}"
        for r in own.itertuples(index=False)
    ]
    evidence = f". {'; '.join(parts)}" if parts else " (no calibration rows: its power is not known)"
    evidence = evidence[:2] + evidence[2:3].upper() + evidence[3:] if parts else evidence
    reason = f"Headline privacy axis: {column}, {why}{evidence}."
    unpowered = [d for d, ok in powered.items() if not ok]
    if unpowered:
        reason += (
            f" Warning: it does not tell the raw data from new individuals beyond its noise on "
            f"{', '.join(unpowered)}: comparisons on it there have no power."
        )
    return AxisChoice(column, reason, powered, explicit=explicit, table=table)


__all__ = [
    "AxisChoice",
    "MIN_ABSOLUTE",
    "MIN_RELATIVE",
    "NOISE_FACTOR",
    "choose_privacy_axis",
    "separation_table",
]
