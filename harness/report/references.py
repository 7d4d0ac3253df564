"""References and the privacy floor: what the methods are compared against, never with.

Two kinds of reference rows reach a report:

* the *calibration rows* (:mod:`harness.report.calibration`): every privacy output measured, on
  the same data, split and QI set, for the raw training data and for new individuals
  (``calib_raw``, ``calib_none``);
* the *reference generators* (:data:`harness.report.defaults.DEFAULT_REFERENCES`, or the
  ``references`` report setting): releases run beside the methods to show the two ends of the
  scale, e.g. the raw data released as is and new individuals.

:func:`mark_references` flags the rows of the reference generators (column ``reference``) and
appends " (reference)" to their labels, so every table and figure shows them marked. They are
never bolded, ranked, tested, put on a Pareto front or used to scale a score:
:func:`compared` is the frame the comparisons work on, without them.

**The floor.** No release can be more private than new individuals: they share nothing with the
training rows. A privacy value beyond theirs (a release farther from the training rows than new
people are) is distortion, not privacy. :func:`with_floor` adds, per privacy row with
calibration, the *leakage index* L = (risk − risk(new individuals)) / (risk(raw data) −
risk(new individuals)) — risk being the value oriented so that larger is riskier — unclipped in
``leakage`` (L < 0: beyond new individuals, by −L spans), and the value clipped at the floor in
``clipped`` (the new-individuals value where L < 0; the value itself elsewhere). Comparisons use
``clipped``; tables show the measured value and mark what lies beyond the floor.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

REFERENCE_SUFFIX = " (reference)"
REFERENCE_COLUMN = "reference"
LEAKAGE_COLUMN = "leakage"
CLIPPED_COLUMN = "clipped"
MIN_SPAN = 1e-12
"""References closer than this (in risk units) do not separate: no leakage index."""
DISTORTION_MIN = 0.05
"""A release is flagged as beyond new individuals when its mean L is below −DISTORTION_MIN."""


def reference_mask(frame: pd.DataFrame, references: Iterable[str]) -> np.ndarray:
    """Rows of the reference generators: ``generator`` or unmarked ``label`` in ``references``."""
    names = set(references)
    if REFERENCE_COLUMN in frame.columns:
        return frame[REFERENCE_COLUMN].to_numpy(dtype=bool) | frame["generator"].isin(names).to_numpy()
    return (frame["generator"].isin(names) | frame["label"].isin(names)).to_numpy(dtype=bool)


def mark_references(frame: pd.DataFrame, references: Iterable[str]) -> pd.DataFrame:
    """A copy of a prepared frame with ``reference`` set and the references' labels marked.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`harness.report.prepare.prepare`.
    references : iterable of str
        Generator names (every variant of the generator) or variant labels.

    Returns
    -------
    DataFrame
        With a boolean ``reference`` column; a reference's label ends with " (reference)".
        Marking twice changes nothing.
    """
    out = frame.copy()
    mask = reference_mask(out, references)
    labels = out["label"].astype(str)
    needs = mask & ~labels.str.endswith(REFERENCE_SUFFIX).to_numpy()
    out.loc[needs, "label"] = labels[needs] + REFERENCE_SUFFIX
    out[REFERENCE_COLUMN] = mask
    return out


def is_reference_label(label: str) -> bool:
    """Whether a (marked) label is a reference's."""
    return str(label).endswith(REFERENCE_SUFFIX)


def reference_labels(frame: pd.DataFrame) -> list[str]:
    """The marked labels of the reference generators in a frame (first-seen order)."""
    if REFERENCE_COLUMN not in frame.columns:
        return []
    return list(dict.fromkeys(frame.loc[frame[REFERENCE_COLUMN].astype(bool), "label"].astype(str)))


def marked_name(frame: pd.DataFrame, name: str | None) -> str | None:
    """The marked label of a reference named by its generator, label or marked label; else None."""
    if name is None:
        return None
    for label in reference_labels(frame):
        base = label[: -len(REFERENCE_SUFFIX)]
        generators = set(frame.loc[frame["label"] == label, "generator"].astype(str))
        if name in (label, base) or name in generators:
            return label
    return None


def floored(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose ``value`` is ``clipped`` (privacy at the floor), references kept."""
    if CLIPPED_COLUMN not in frame.columns:
        return frame.copy()
    return frame.assign(value=frame[CLIPPED_COLUMN].to_numpy(dtype=float))


def compared(frame: pd.DataFrame, keep: Iterable[str] = ()) -> pd.DataFrame:
    """The rows of the methods under comparison, privacy values clipped at the floor.

    Parameters
    ----------
    frame : DataFrame
        A prepared frame, marked (:func:`mark_references`) and floored (:func:`with_floor`);
        without those columns every row is kept as it is.
    keep : iterable of str
        Reference labels to keep anyway (e.g. a win/draw/lose baseline).

    Returns
    -------
    DataFrame
        Reference rows dropped (except ``keep``); ``value`` replaced by ``clipped``.
    """
    out = frame
    if REFERENCE_COLUMN in frame.columns:
        drop = frame[REFERENCE_COLUMN].to_numpy(dtype=bool) & ~frame["label"].isin(set(keep)).to_numpy()
        out = frame[~drop]
    if CLIPPED_COLUMN in out.columns:
        out = out.assign(value=out[CLIPPED_COLUMN].to_numpy(dtype=float))
    return out.copy()


def risk(values: np.ndarray, goals: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Values oriented so that larger is riskier (``harness.ladder.risk_of``, vectorised); NaN without a direction."""
    values = np.asarray(values, dtype=float)
    out = np.full(values.shape, np.nan)
    goals = np.asarray(goals, dtype=object)
    targets = np.asarray(targets, dtype=float)
    out = np.where(goals == "minimise", values, out)
    out = np.where(goals == "maximise", -values, out)
    with_target = (goals == "target") & np.isfinite(targets)
    return np.where(with_target, values - np.where(with_target, targets, 0.0), out)


def leakage_index(rows: pd.DataFrame) -> np.ndarray:
    """Unclipped leakage index L of every row (NaN: no calibration, no direction, or no separation).

    Only blocks whose raw data is riskier than new individuals (by more than :data:`MIN_SPAN`)
    get an index: where the references do not separate, or are inverted, a value cannot be
    placed between them.
    """
    goals = rows["goal"].to_numpy(dtype=object)
    targets = rows["target_value"].to_numpy(dtype=float)
    value = risk(rows["value"].to_numpy(dtype=float), goals, targets)
    raw = risk(rows["calib_raw"].to_numpy(dtype=float), goals, targets)
    none = risk(rows["calib_none"].to_numpy(dtype=float), goals, targets)
    span = raw - none
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(span > MIN_SPAN, (value - none) / span, np.nan)


def with_floor(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy with ``leakage`` (unclipped L) and ``clipped`` (value clipped at new individuals) per row.

    Rows that are not ok privacy rows with both calibration values keep ``clipped`` = ``value``
    and get NaN ``leakage``.
    """
    out = frame.copy()
    leak = np.full(len(out), np.nan)
    if {"calib_raw", "calib_none"} <= set(out.columns) and len(out):
        privacy = (out["family"] == "privacy").to_numpy() & (out["status"] == "ok").to_numpy()
        if privacy.any():
            leak[privacy] = leakage_index(out[privacy])
    out[LEAKAGE_COLUMN] = leak
    beyond = leak < 0
    values = out["value"].to_numpy(dtype=float)
    floor = out["calib_none"].to_numpy(dtype=float) if "calib_none" in out.columns else values
    out[CLIPPED_COLUMN] = np.where(beyond, floor, values)
    return out


__all__ = [
    "CLIPPED_COLUMN",
    "DISTORTION_MIN",
    "LEAKAGE_COLUMN",
    "REFERENCE_COLUMN",
    "REFERENCE_SUFFIX",
    "compared",
    "floored",
    "is_reference_label",
    "leakage_index",
    "mark_references",
    "marked_name",
    "reference_labels",
    "reference_mask",
    "risk",
    "with_floor",
]
