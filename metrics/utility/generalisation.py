"""Map original category values to the levels of a generalised release.

A k-anonymous release replaces values by coarser labels of the column's generalisation
hierarchy (``spec.hierarchies``; e.g. Adult's ``race`` → ``*``). The estimand-based utility
metrics need to know which released level an original value went to:
``odds_ratio_preservation`` (``spec/metrics.md`` U5: "if g was merged into a generalised level,
OR_g := that level's OR") and ``relative_accuracy`` (U3: the release's generalisation applied to
the test features).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from harness.errors import PrivbenchError
from harness.spec import DatasetSpec

SUPPRESSED = "*"
"""The top label of every hierarchy (a fully generalised value)."""


def hierarchy_table(spec: DatasetSpec, column: str) -> pd.DataFrame | None:
    """The column's hierarchy (columns ``level0`` … ``levelN``, strings), or None if it has none."""
    if column not in spec.hierarchies:
        return None
    from harness.datasets import load_hierarchy

    try:
        return load_hierarchy(spec, column)
    except (PrivbenchError, OSError):
        return None


def release_level_map(
    spec: DatasetSpec, column: str, values: Iterable[str], released: Iterable[str]
) -> dict[str, str | None]:
    """The released level each original value of ``column`` appears as.

    Parameters
    ----------
    spec : DatasetSpec
        Its hierarchy for ``column`` (if any) gives the generalisation chain of each value.
    column : str
    values : iterable of str
        Original values.
    released : iterable of str
        Levels present in the release.

    Returns
    -------
    dict of str to str or None
        ``value`` itself when the release holds it; else the lowest hierarchy label of the value
        that the release holds; else ``*`` when the release holds ``*``; else None (the value
        vanished from the release).
    """
    present = {str(v) for v in released}
    table = hierarchy_table(spec, column)
    chains: dict[str, list[str]] = {}
    if table is not None:
        for row in table.itertuples(index=False):
            labels = [str(x) for x in row]
            chains[labels[0]] = labels[1:]
    out: dict[str, str | None] = {}
    for value in (str(v) for v in values):
        if value in present:
            out[value] = value
            continue
        found = next((label for label in chains.get(value, []) if label in present), None)
        if found is None and SUPPRESSED in present:
            found = SUPPRESSED
        out[value] = found
    return out


def generalise_like(
    spec: DatasetSpec, frame: pd.DataFrame, release: pd.DataFrame, columns: Iterable[str]
) -> pd.DataFrame:
    """``frame`` with the categorical ``columns`` recoded to the release's levels where they differ.

    A value the release does not hold becomes its released level per :func:`release_level_map`;
    values without one stay as they are (they then encode as an unseen category). Missing values
    are left alone.

    Parameters
    ----------
    spec : DatasetSpec
    frame : DataFrame
        Real rows (e.g. the test split).
    release : DataFrame
        The released table S.
    columns : iterable of str
        Categorical columns to recode.

    Returns
    -------
    DataFrame
        A copy of ``frame``.
    """
    out = frame.copy()
    for column in columns:
        col = out[column].astype(object)
        known = col.notna()
        values = col[known].astype(str)
        mapping = release_level_map(
            spec, column, values.unique(), release[column].dropna().astype(str).unique()
        )
        recoded = values.map(lambda v, m=mapping: m.get(v) or v)
        out[column] = col.where(~known, recoded).astype(object)
    return out
