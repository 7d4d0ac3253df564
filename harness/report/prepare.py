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
    labels = variant_labels(zip(frame["generator"], frame["generator_params"]))
    frame["label"] = [labels[(g, p)] for g, p in zip(frame["generator"], frame["generator_params"])]
    frame["column"] = [column_key(m, v) for m, v in zip(frame["metric"], frame["variant"])]
    frame["trial_id"] = _trial_ids(frame)
    rank = frame["status"].map(_STATUS_RANK).fillna(_STATUS_RANK["error"])
    best = rank.groupby(frame["trial_id"]).transform("max")
    by_rank = {v: k for k, v in _STATUS_RANK.items()}
    frame["trial_status"] = best.map(by_rank).astype(str)
    return frame


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

    Order: experiment, dataset, qi_set and generator alphabetically; a generator's variants by
    their parameters, numerically where the values are numbers.
    """
    rows = frame[[*keys, "generator_params"]].drop_duplicates(subset=keys)

    def sort_key(row: tuple[object, ...]) -> tuple[object, ...]:
        values = dict(zip([*keys, "generator_params"], row))
        head = tuple(str(values[k]) for k in keys if k not in ("label",))
        return (*head, params_sort_key(str(values["generator_params"])), str(values["label"]))

    records = sorted(rows.itertuples(index=False, name=None), key=sort_key)
    return pd.DataFrame([r[: len(keys)] for r in records], columns=keys)


def column_info(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per metric column: metric, variant, family, goal, target_value, in report order.

    The order is by family (privacy, utility, fidelity, cost, then others) and, within a
    family, by first appearance in the results. The goal and target are taken from ok rows
    where there are any.
    """
    rows = frame[frame["column"] != ""]
    if rows.empty:
        return pd.DataFrame(
            columns=["metric", "variant", "family", "goal", "target_value"], index=pd.Index([], name="column")
        )
    rows = rows.assign(_ok=(rows["status"] != "ok").astype(int), _pos=range(len(rows)))
    first = rows.sort_values(["_ok", "_pos"], kind="stable").groupby("column", sort=False)
    info = pd.DataFrame(
        {
            "metric": first["metric"].first(),
            "variant": first["variant"].first(),
            "family": first["family"].agg(_first_nonempty),
            "goal": first["goal"].agg(_first_nonempty),
            "target_value": first["target_value"].agg(
                lambda s: s.dropna().iloc[0] if s.notna().any() else float("nan")
            ),
        }
    )
    position = rows.groupby("column")["_pos"].min()
    family_rank = info["family"].map({f: i for i, f in enumerate(FAMILY_ORDER)}).fillna(len(FAMILY_ORDER))
    order = pd.DataFrame({"family": family_rank, "pos": position.reindex(info.index)}).sort_values(
        ["family", "pos"]
    )
    info = info.loc[order.index]
    info.index.name = "column"
    return info


def _first_nonempty(values: pd.Series) -> str:
    for value in values:
        if value:
            return str(value)
    return ""
