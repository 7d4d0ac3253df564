"""Bring a results table into the shape every report function works on.

:func:`prepare` conforms the table to the schema and adds derived columns:

``label``
    readable generator-variant label (:mod:`harness.report.labels`);
``column``
    the metric column key, ``metric`` or ``metric/variant``;
``trial_id``
    identity of the trial (the schema's ``TRIAL_COLUMNS``);
``trial_status``
    ``ok`` when any of the trial's rows is ok, else its most severe status
    (oom > timeout > error > skipped).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.report.labels import params_sort_key, variant_labels
from harness.schema import TRIAL_COLUMNS, conform_results

FAMILY_ORDER: tuple[str, ...] = ("privacy", "utility", "fidelity", "cost")
FAILED_STATUSES: tuple[str, ...] = ("error", "timeout", "oom")
# Larger wins when the rows of one trial are combined into the trial's status.
_STATUS_RANK: dict[str, int] = {"skipped": 1, "error": 2, "timeout": 3, "oom": 4, "ok": 5}
_TEXT_COLUMNS: tuple[str, ...] = (
    "experiment",
    "dataset",
    "qi_set",
    "generator",
    "generator_params",
    "metric",
    "variant",
    "family",
    "goal",
    "status",
    "error",
)
_OPTIONAL_KEYS: tuple[str, ...] = ("experiment", "qi_set")
PREPARED_COLUMNS: frozenset[str] = frozenset({"label", "column", "trial_id", "trial_status"})
"""Columns only :func:`prepare` adds: a frame that has them all is returned as it is (copied)."""


def column_key(metric: str, variant: str) -> str:
    """The summary column of a (metric, variant) pair: ``metric`` or ``metric/variant``."""
    if not metric:
        return ""
    if not variant or variant == metric:
        return metric
    return f"{metric}/{variant}"


def prepare(results: pd.DataFrame) -> pd.DataFrame:
    """Conform ``results`` to the schema and add ``label``, ``column``, ``trial_id``, ``trial_status``.

    Parameters
    ----------
    results : DataFrame
        The long results table (``harness.schema.RESULT_COLUMNS``; missing columns are
        filled with NA).

    Returns
    -------
    DataFrame
        A new frame; NA in the text columns is replaced by ``""``. A frame that was already
        prepared (it has every column of ``PREPARED_COLUMNS``) comes back as a copy: the report's
        functions call one another with prepared frames, and preparing 10,000 trials costs
        about a second each time.
    """
    if set(results.columns) >= PREPARED_COLUMNS:
        return results.copy()  # already prepared: report functions call each other with prepared frames
    frame = conform_results(results)
    for col in _TEXT_COLUMNS:
        frame[col] = frame[col].fillna("").astype(str)
    frame["status"] = frame["status"].where(frame["status"] != "", "error")
    if frame.empty:
        frame["label"] = []
        frame["column"] = []
        frame["trial_id"] = _trial_ids(frame)
    else:  # each derived value is computed once per distinct key (8 variants, not 160,000 rows)
        codes, first = _distinct(frame, ["generator", "generator_params"])
        pairs = list(zip(frame["generator"].to_numpy()[first], frame["generator_params"].to_numpy()[first]))
        labels = variant_labels(pairs)
        frame["label"] = _spread([labels[pair] for pair in pairs], codes)
        codes, first = _distinct(frame, ["metric", "variant"])
        metrics, variants = frame["metric"].to_numpy()[first], frame["variant"].to_numpy()[first]
        frame["column"] = _spread([column_key(m, v) for m, v in zip(metrics, variants)], codes)
        codes, first = _distinct(frame, list(TRIAL_COLUMNS))
        frame["trial_id"] = _spread(list(_trial_ids(frame.iloc[first])), codes)
    rank = frame["status"].map(_STATUS_RANK).fillna(_STATUS_RANK["error"])
    best = rank.groupby(frame["trial_id"]).transform("max")
    by_rank = {v: k for k, v in _STATUS_RANK.items()}
    frame["trial_status"] = best.map(by_rank).astype(str)
    return frame


def _distinct(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Group number of every row over ``columns`` (NA a value too) and the first row of each group."""
    codes = frame.groupby(columns, sort=False, dropna=False).ngroup().to_numpy()
    first = np.full(int(codes.max()) + 1, -1, dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes))[::-1]
    return codes, first


def _spread(values: list[str], codes: np.ndarray) -> np.ndarray:
    """The value of each row's group, as an object array."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out[codes]


def _trial_ids(frame: pd.DataFrame) -> pd.Series:
    parts = [frame[c].astype("string").fillna("<NA>") for c in TRIAL_COLUMNS]
    ids = parts[0]
    for part in parts[1:]:
        ids = ids + "\x1f" + part
    return ids.astype(str)


def row_keys(frame: pd.DataFrame) -> list[str]:
    """Columns that identify a summary row: dataset (+ experiment, qi_set where they vary), generator, label."""
    keys = ["dataset", "generator", "label"]
    for col in reversed(_OPTIONAL_KEYS):
        if frame[col].nunique(dropna=False) > 1:
            keys.insert(0 if col == "experiment" else 1, col)
    return keys


def block_keys(keys: list[str]) -> list[str]:
    """The part of the row keys within which generator variants are compared (all but generator, label)."""
    return [k for k in keys if k not in ("generator", "label")]


def ordered_rows(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The distinct row keys of ``frame`` in report order.

    Order: experiment, dataset, qi_set and generator alphabetically, the reference generators
    (a ``reference`` column, :mod:`harness.report.references`) before the methods; a
    generator's variants by their parameters, numerically where the values are numbers.
    """
    extra = ["generator_params", *(["reference"] if "reference" in frame.columns else [])]
    rows = frame[[*keys, *extra]].drop_duplicates(subset=keys)

    def sort_key(row: tuple[object, ...]) -> tuple[object, ...]:
        values = dict(zip([*keys, *extra], row))
        method = 0 if bool(values.get("reference", False)) else 1
        head = tuple((method if k == "generator" else 0, str(values[k])) for k in keys if k != "label")
        return (*head, params_sort_key(str(values["generator_params"])), str(values["label"]))

    records = sorted(rows.itertuples(index=False, name=None), key=sort_key)
    return pd.DataFrame([r[: len(keys)] for r in records], columns=keys)


def column_info(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per metric column: metric, variant, family, goal, target_value, in report order.

    The order is by family (privacy, utility, fidelity, cost, then others) and, within a
    family, by first appearance in the results. The goal and target are taken from ok rows
    where there are any: each field is the first non-empty value of the column's ok rows, else
    of its other rows. Computed with one factorisation and array reductions (the report asks
    for it a few dozen times; a grouped pandas version cost a second at 10,000 trials).
    """
    names = frame["column"].to_numpy(dtype=object)
    rows = np.flatnonzero((names != "") & pd.notna(names))
    if not len(rows):
        return pd.DataFrame(
            columns=["metric", "variant", "family", "goal", "target_value"], index=pd.Index([], name="column")
        )
    codes, uniques = pd.factorize(names[rows])
    ok = frame["status"].to_numpy(dtype=object)[rows] == "ok"

    def first_of(values: np.ndarray, present: np.ndarray) -> list[object]:
        at = _first_positions(codes, len(uniques), present & ok)
        fallback = _first_positions(codes, len(uniques), present & ~ok)
        at = np.where(at >= 0, at, fallback)
        return [values[i] if i >= 0 else None for i in at]

    def field(name: str) -> np.ndarray:
        return frame[name].to_numpy(dtype=object)[rows]

    metric, variant, family, goal = (field(c) for c in ("metric", "variant", "family", "goal"))
    target = frame["target_value"].to_numpy(dtype=float)[rows]
    truthy = np.frompyfunc(bool, 1, 1)
    info = pd.DataFrame(
        {
            "metric": first_of(metric, pd.notna(metric)),
            "variant": first_of(variant, pd.notna(variant)),
            "family": [_text(v) for v in first_of(family, truthy(family).astype(bool))],
            "goal": [_text(v) for v in first_of(goal, truthy(goal).astype(bool))],
            "target_value": np.array(
                [np.nan if v is None else v for v in first_of(target, ~np.isnan(target))], dtype=float
            ),
        },
        index=pd.Index(uniques, dtype=object, name="column"),
    )
    position = _first_positions(codes, len(uniques), np.ones(len(codes), dtype=bool))
    family_rank = info["family"].map({f: i for i, f in enumerate(FAMILY_ORDER)}).fillna(len(FAMILY_ORDER))
    order = np.lexsort((position, family_rank.to_numpy(dtype=float)))
    return info.iloc[order]


def _first_positions(codes: np.ndarray, n_groups: int, mask: np.ndarray) -> np.ndarray:
    """Per group code, the first position where ``mask`` holds (-1 where it never does)."""
    out = np.full(n_groups, len(codes), dtype=np.int64)
    np.minimum.at(out, codes[mask], np.flatnonzero(mask))
    return np.where(out == len(codes), -1, out)


def _text(value: object) -> str:
    return "" if value is None else str(value)
