"""``mondrian``: strict multidimensional partitioning (LeFevre et al. 2006; ``spec/generators.md`` §6.3).

Every QI is coded as the rank of its value in a column order (numbers ascending; ordinal
columns in their declared order; categorical columns in hierarchy order when the dataset has
a hierarchy, so that halves follow sub-trees, else alphabetically; missing last). A partition
is split on the QI with the largest normalised span (numeric: value range / global range;
categorical: distinct values / global distinct values) at the median code, left ≤ median
(strict: equal values never straddle the cut); the cut is allowable when both sides keep at
least k rows, else the next QI is tried, and a partition with no allowable cut is final.
``relaxed=True`` splits the sorted partition into two halves instead (equal values may
straddle). Each partition's rows are recoded alike:

* numeric: ``"[min, max]"`` of the partition (the value itself when min = max; ``*`` when the
  partition mixes missing and non-missing values; missing when all are);
* categorical: the lowest common ancestor in the dataset's hierarchy (``categorical:
  hierarchy`` and a hierarchy exists), else the sorted set ``"{a, b}"`` of its values
  (a single value stays itself; missing is written ``<NA>`` inside a set).

Partitions hold >= k rows and equivalence classes are unions of partitions, so the release is
k-anonymous without suppression (n rows out).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from generators.kanon.equivalence import class_sizes, discernibility_loss, entropy_loss
from generators.kanon.hierarchies import (
    TableHierarchy,
    column_hierarchy,
    date_text,
    format_number,
    is_missing,
    value_label,
)
from generators.kanon.lattice import EncodedQI, encode
from generators.kanon.params import choice, validate_k
from generators.kanon.release import GeneralisingGenerator
from harness.errors import ConfigError, InfeasibleConfigError
from harness.spec import DatasetSpec

CATEGORICAL_LABELS: tuple[str, ...] = ("hierarchy", "set")
MISSING_IN_SET = "<NA>"


class Mondrian(GeneralisingGenerator):
    """k-anonymity by Mondrian multidimensional partitioning (§6.3).

    Parameters
    ----------
    k : int
        Minimum partition size, >= 2.
    relaxed : bool
        False (strict): cut at the median value, equal values stay together. True: cut the
        sorted partition in two halves.
    decode : {"lower", "midpoint"}
        Released value of a numeric ``"[min, max]"`` label (§1.2 rule 6).
    categorical : {"hierarchy", "set"}
        Recoding of a categorical QI: the lowest common ancestor in the dataset's hierarchy
        when it has one (else the set), or always the sorted set of values.

    Notes
    -----
    Deterministic and seed-independent. Infeasible (status ``skipped``) when the table has
    fewer than k rows.
    """

    def __init__(
        self, k: int = 5, relaxed: bool = False, decode: str = "lower", categorical: str = "hierarchy"
    ) -> None:
        self.k = k
        self.relaxed = relaxed
        self.decode = decode
        self.categorical = categorical

    def _validate_params(self) -> None:
        validate_k("k", self.k)
        if not isinstance(self.relaxed, bool):
            raise ConfigError(f"`relaxed` must be true or false; got {self.relaxed!r}")
        self._validate_decode()
        choice("categorical", self.categorical, CATEGORICAL_LABELS)

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        qi = list(self.spec_.qi)
        if len(train) < self.k:
            raise InfeasibleConfigError(f"k={self.k} exceeds the {len(train)} training rows")
        labels, partitions, ncp = mondrian_labels(
            train, self.spec_, qi, self.k, relaxed=self.relaxed, categorical=self.categorical
        )
        before = class_sizes([train[c].to_numpy(dtype=object) for c in qi])
        after = class_sizes([labels[c] for c in qi])
        none = np.zeros(len(train), dtype=bool)
        self._publish(
            train,
            qi,
            labels,
            np.ones(len(train), dtype=bool),
            extra={
                "k": self.k,
                "relaxed": self.relaxed,
                "categorical": self.categorical,
                "n_partitions": int(partitions),
                "information_loss": {
                    "entropy": entropy_loss(before, after, none, len(train)),
                    "discernibility": discernibility_loss(after, none, len(train)),
                    "ncp": ncp,
                },
            },
        )


# ====================================================================== partitioning
class _Column:
    """One QI coded for partitioning and recoding."""

    def __init__(self, spec: DatasetSpec, name: str, values: pd.Series, categorical: str) -> None:
        self.name = name
        self.kind = spec.kind(name)
        self.numeric = self.kind in ("continuous", "integer", "datetime")
        self.encoded: EncodedQI | None = None
        if self.numeric:
            numbers = _as_numbers(values, self.kind)
            present = ~np.isnan(numbers)
            self.values = np.unique(numbers[present])  # sorted distinct values
            self.codes = np.full(len(numbers), len(self.values), dtype=np.int64)  # missing: last code
            self.codes[present] = np.searchsorted(self.values, numbers[present])
            self.range = float(self.values[-1] - self.values[0]) if len(self.values) else 0.0
            self.n_distinct = len(self.values) + int((~present).any())
            return
        ordered = _category_order(spec, name, values)
        self.categories = ordered
        # order of the values inside a set label: declared order for ordinal columns, else alphabetical
        declared = bool(spec.column(name).categories)
        alphabetical = np.argsort(np.argsort(np.array(ordered, dtype=str), kind="stable"), kind="stable")
        self.label_rank = np.append(np.arange(len(ordered)) if declared else alphabetical, len(ordered))
        lookup = {v: i for i, v in enumerate(ordered)}
        missing = len(ordered)
        raw, uniques = pd.factorize(values.astype(object), use_na_sentinel=False)
        unique_codes = np.array(
            [lookup.get(value_label(v), missing) if not is_missing(v) else missing for v in uniques],
            dtype=np.int64,
        )
        self.codes = unique_codes[raw] if len(raw) else np.zeros(0, dtype=np.int64)
        self.n_distinct = len(np.unique(self.codes))
        if categorical == "hierarchy" and name in spec.hierarchies:
            hierarchy = column_hierarchy(spec, name, values, source="arx")
            self.encoded = encode(values.to_frame(), {name: hierarchy})

    def span(self, sorted_codes: np.ndarray) -> float:
        """Normalised span of a partition from its sorted codes (0 for a constant column)."""
        if sorted_codes[0] == sorted_codes[-1]:
            return 0.0
        if not self.numeric:
            distinct = 1 + int(np.count_nonzero(np.diff(sorted_codes)))
            return distinct / max(self.n_distinct, 1)
        n_values = len(self.values)
        end = int(np.searchsorted(sorted_codes, n_values))  # first missing
        spread = float(self.values[sorted_codes[end - 1]] - self.values[sorted_codes[0]]) if end else 0.0
        span = spread / self.range if self.range > 0 else 0.0
        if 0 < end < len(sorted_codes):  # mixes missing and values
            span += 1.0 / max(self.n_distinct, 1)
        return span


def partition(codes: np.ndarray, columns: Sequence[_Column], k: int, *, relaxed: bool) -> np.ndarray:
    """Partition id of every row (Mondrian; see the module docstring)."""
    n = codes.shape[0]
    part = np.zeros(n, dtype=np.int64)
    stack = [np.arange(n, dtype=np.int64)]
    next_id = 0
    while stack:
        rows = stack.pop()
        sub = codes[rows]
        size = len(rows)
        split: tuple[np.ndarray, np.ndarray] | None = None
        if size >= 2 * k:
            ordered = np.sort(sub, axis=0)
            spans = np.array([col.span(ordered[:, j]) for j, col in enumerate(columns)])
            for j in np.argsort(-spans, kind="stable"):
                if spans[j] <= 0:
                    break
                split = _cut(rows, sub[:, j], ordered[:, j], k, relaxed)
                if split is not None:
                    break
        if split is None:
            part[rows] = next_id
            next_id += 1
        else:
            stack.extend((split[1], split[0]))
    return part


def _cut(
    rows: np.ndarray, values: np.ndarray, ordered: np.ndarray, k: int, relaxed: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    size = len(rows)
    if relaxed:
        order = np.argsort(values, kind="stable")
        half = size // 2
        return (rows[order[:half]], rows[order[half:]]) if min(half, size - half) >= k else None
    median = ordered[(size - 1) // 2]
    left = values <= median
    n_left = int(left.sum())
    if n_left < k or size - n_left < k:
        return None
    return rows[left], rows[~left]


def mondrian_labels(
    train: pd.DataFrame,
    spec: DatasetSpec,
    qi: Sequence[str],
    k: int,
    *,
    relaxed: bool = False,
    categorical: str = "hierarchy",
) -> tuple[dict[str, np.ndarray], int, float]:
    """Row-aligned Mondrian labels of the QI columns.

    Returns
    -------
    labels : dict of str to ndarray
    n_partitions : int
    ncp : float
        Normalised certainty penalty: mean over rows and QIs of the share of the column's
        domain the released label covers (numeric: range share; categorical: distinct values
        covered − 1 over distinct values − 1; ``*`` = 1).
    """
    columns = [_Column(spec, c, train[c], categorical) for c in qi]
    codes = np.stack([c.codes for c in columns], axis=1) if columns else np.zeros((len(train), 0), np.int64)
    part = partition(codes, columns, k, relaxed=relaxed)
    n_parts = int(part.max()) + 1 if len(part) else 0
    labels: dict[str, np.ndarray] = {}
    penalties = []
    for col in columns:
        part_labels, part_penalty = _recode(col, part, n_parts)
        labels[col.name] = part_labels[part]
        penalties.append(part_penalty[part])
    ncp = float(np.mean(penalties)) if penalties and len(part) else 0.0
    return labels, n_parts, ncp


def _recode(col: _Column, part: np.ndarray, n_parts: int) -> tuple[np.ndarray, np.ndarray]:
    """Label and certainty penalty of every partition for one QI."""
    frame = pd.DataFrame({"part": part, "code": col.codes})
    grouped = frame.groupby("part")["code"]
    lo = grouped.min().to_numpy()
    hi = grouped.max().to_numpy()
    labels = np.empty(n_parts, dtype=object)
    penalty = np.zeros(n_parts, dtype=float)
    if col.numeric:
        missing_code = len(col.values)
        hi_present = frame[frame["code"] < missing_code].groupby("part")["code"].max().reindex(range(n_parts))
        for p in range(n_parts):
            if lo[p] == missing_code:
                labels[p] = np.nan
            elif hi[p] == missing_code:
                labels[p], penalty[p] = "*", 1.0
            else:
                low, high = col.values[lo[p]], col.values[int(hi_present.iloc[p])]
                labels[p] = (
                    _number_text(low, col.kind)
                    if low == high
                    else (f"[{_number_text(low, col.kind)}, {_number_text(high, col.kind)}]")
                )
                penalty[p] = (high - low) / col.range if col.range > 0 else 0.0
        return labels, penalty
    distinct = grouped.nunique().to_numpy()
    denominator = max(col.n_distinct - 1, 1)
    if col.encoded is not None:
        return _recode_lca(col, part, n_parts, col.encoded, denominator)
    # Sorted set labels: one pass over the distinct (partition, code) pairs.
    n_codes = len(col.categories) + 1
    pairs = np.unique(part * n_codes + col.codes)
    pair_part, pair_code = pairs // n_codes, pairs % n_codes
    names = np.array([*col.categories, MISSING_IN_SET], dtype=object)
    bounds = np.flatnonzero(np.diff(pair_part)) + 1
    for p, codes in zip(pair_part[np.r_[0, bounds]], np.split(pair_code, bounds)):
        if len(codes) == 1:
            labels[p] = names[codes[0]] if codes[0] < len(col.categories) else np.nan
        else:
            labels[p] = "{" + ", ".join(names[codes[np.argsort(col.label_rank[codes], kind="stable")]]) + "}"
    penalty[:] = (distinct - 1) / denominator
    return labels, penalty


def _recode_lca(
    col: _Column, part: np.ndarray, n_parts: int, enc: EncodedQI, denominator: int
) -> tuple[np.ndarray, np.ndarray]:
    base = enc.row_codes[:, 0]
    first = np.zeros(n_parts, dtype=np.int64)
    first[part] = np.arange(len(part))
    chosen = np.full(n_parts, -1, dtype=np.int64)
    for level in range(len(enc.level_codes[0])):
        level_codes = enc.level_codes[0][level][base]
        single = pd.Series(level_codes).groupby(part).nunique().to_numpy() == 1
        chosen[(chosen < 0) & single] = level
    labels = np.empty(n_parts, dtype=object)
    penalty = np.zeros(n_parts, dtype=float)
    for level in np.unique(chosen):
        parts = np.flatnonzero(chosen == level)
        codes_at = enc.level_codes[0][level][base[first[parts]]]
        labels[parts] = enc.level_labels[0][level][codes_at]
        leaves = np.bincount(enc.level_codes[0][level], minlength=len(enc.level_labels[0][level]))
        penalty[parts] = (leaves[codes_at] - 1) / denominator
    return labels, np.clip(penalty, 0.0, 1.0)


# ====================================================================== helpers
def _as_numbers(values: pd.Series, kind: str) -> np.ndarray:
    if kind == "datetime":
        stamps = pd.to_datetime(values, errors="coerce")
        numbers = stamps.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)
        numbers[stamps.isna().to_numpy()] = np.nan
        return numbers
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)


def _number_text(value: float, kind: str) -> str:
    if kind == "datetime":
        return date_text(pd.Timestamp(int(value)))
    return format_number(value)


def _category_order(spec: DatasetSpec, name: str, values: pd.Series) -> list[str]:
    """Distinct non-missing labels of a categorical QI in partitioning order."""
    present = sorted({value_label(v) for v in values.dropna().unique()})
    declared = spec.column(name).categories
    if declared:
        rank = {c: i for i, c in enumerate(declared)}
        return sorted(present, key=lambda v: (rank.get(v, len(rank)), v))
    if name in spec.hierarchies:
        hierarchy = column_hierarchy(spec, name, values, source="arx")
        if isinstance(hierarchy, TableHierarchy):
            array = np.array(present, dtype=object)
            paths = [hierarchy.generalise(array, level) for level in range(hierarchy.height - 1, 0, -1)]
            keyed: list[Any] = (
                list(zip(*(list(map(str, p)) for p in paths), present)) if paths else [(v,) for v in present]
            )
            return [key[-1] for key in sorted(keyed)]
    return present
