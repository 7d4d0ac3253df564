"""Generalisation hierarchies of the k-anonymity generators (``spec/generators.md`` §6.0).

A hierarchy maps a column's values to labels at levels ``0 … top``: level 0 is the value
itself, each further level is coarser, and the top level is ``*`` (suppressed). Every level
is a function of the level below it (checked by :func:`encode_levels`), so generalising a
column to a higher level only merges equivalence classes.

Hierarchies available here:

* :class:`TableHierarchy`: an ARX hierarchy file named by ``spec.hierarchies``
  (:func:`harness.datasets.load_hierarchy`), e.g. Adult's. Labels are kept as shipped (ARX's
  off-by-one age bands ``15-19`` holding ages 16–20 included).
* :class:`IntervalHierarchy`: the §6.0 numeric default: exact, then equal-width intervals
  ``[a, b)`` of width ``w·2^l`` anchored at 0, then ``*``.
* :class:`FlatHierarchy`: the §6.0 categorical default ``{value, *}``.
* :class:`FrequencyHierarchy`: frequency-based grouping: values rarer than a threshold become
  ``Other`` (thresholds grow with the level), then ``*``.
* :class:`BinHierarchy`: fixed bins (equal-width or quantile edges), then ``*``.
* :class:`DateHierarchy`: date truncation: exact, month ``YYYY-MM``, year ``YYYY``, ``*``.

**Missing values** (NaN, and any value a hierarchy file does not list, such as Adult's ``?``
which the loader turns into NaN) stay themselves at level 0 and map to ``*`` at every level
above 0. This is the "map ``?`` to ``*``" option of §6.0: no rows are dropped.

:func:`decode_numeric` turns released labels into numbers (``spec/generators.md`` §1.2 rule 6):
an interval label to its lower bound (default) or midpoint, a plain number to itself, and
``*`` (or any other label) to NaN.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from harness.datasets import load_hierarchy
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

SUPPRESSED = "*"
"""Label of a fully generalised (suppressed) value."""
OTHER = "Other"
"""Label of grouped rare categories."""
DECODE_MODES: tuple[str, ...] = ("lower", "midpoint")
HIERARCHY_SOURCES: tuple[str, ...] = ("arx", "default")
AGE_WIDTH = 5
"""§6.0: age intervals start at width 5 (5, 10, 20, 40, 80, ``*``)."""
DEFAULT_INTERVAL_STEPS = 32
"""A numeric column without a configured width gets the smallest 1-2-5 width >= range / 32."""

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_INTERVAL_RE = re.compile(rf"^\s*[\[(]\s*({_NUMBER})\s*,\s*({_NUMBER})\s*[\])]\s*$")
_RANGE_RE = re.compile(rf"^\s*({_NUMBER})\s*-\s*({_NUMBER})\s*$")
_PLAIN_RE = re.compile(rf"^\s*{_NUMBER}\s*$")
_YEAR_RE = re.compile(r"^\d{4}$")
_MONTH_RE = re.compile(r"^\d{4}-\d{2}$")


# ====================================================================== labels
def is_missing(value: Any) -> bool:
    """True for None, NaN, NaT and ``pd.NA``."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def format_number(value: float) -> str:
    """Shortest text that reads back as the same float (``20`` not ``20.0``)."""
    value = float(value)
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return np.format_float_positional(value, unique=True, trim="-")


def value_label(value: Any) -> Any:
    """Label of an ungeneralised value: numbers as :func:`format_number`, dates as :func:`date_text`,
    strings unchanged, missing stays NaN."""
    if is_missing(value):
        return np.nan
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return format_number(float(value))
    if isinstance(value, (pd.Timestamp, np.datetime64)):
        return date_text(pd.Timestamp(value))
    return str(value)


def date_text(stamp: pd.Timestamp) -> str:
    """ISO text of a timestamp: ``2020-03-04`` at midnight, else with the time."""
    return stamp.date().isoformat() if stamp == stamp.normalize() else stamp.isoformat()


def interval_label(low: float, high: float, *, closed: bool = False) -> str:
    """``"[low, high)"`` (``"[low, high]"`` when ``closed``)."""
    return f"[{format_number(low)}, {format_number(high)}{']' if closed else ')'}"


def decode_numeric(labels: Any, how: str = "lower") -> np.ndarray:
    """Numbers for released labels (``spec/generators.md`` §1.2 rule 6).

    Parameters
    ----------
    labels : array-like
        Released labels: plain numbers (``"39"``), intervals (``"[20, 25)"``, ``"[20, 29]"``),
        ARX ranges (``"15-19"``), ``*``, other labels (``Other``), NaN.
    how : {"lower", "midpoint"}
        An interval decodes to its lower bound (the convention of ``000_…`` §4.3) or to the
        mean of its two bounds.

    Returns
    -------
    ndarray of float
        NaN for ``*``, missing values and labels that are neither a number nor an interval.
    """
    if how not in DECODE_MODES:
        raise ConfigError(f"`decode` must be one of {', '.join(map(repr, DECODE_MODES))}; got {how!r}")
    series = pd.Series(np.asarray(labels, dtype=object), dtype=object)
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    decoded = np.array([_decode_one(u, how) for u in uniques], dtype=float)
    return decoded[codes] if len(codes) else np.empty(0, dtype=float)


def _decode_one(label: Any, how: str) -> float:
    if is_missing(label):
        return math.nan
    if isinstance(label, (int, float, np.integer, np.floating)) and not isinstance(label, bool):
        return float(label)
    text = str(label)
    match = _INTERVAL_RE.match(text) or _RANGE_RE.match(text)
    if match:
        low, high = float(match.group(1)), float(match.group(2))
        return low if how == "lower" else (low + high) / 2
    if _PLAIN_RE.match(text):
        return float(text)
    return math.nan


def decode_datetime(labels: Any) -> pd.Series:
    """Timestamps for released date labels: ``YYYY`` → 1 January, ``YYYY-MM`` → the 1st,
    ISO dates → themselves, an interval ``[a, b]`` → ``a``, ``*`` and other labels → NaT."""
    series = pd.Series(np.asarray(labels, dtype=object), dtype=object)
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    decoded = [_decode_date(u) for u in uniques]
    values = pd.DatetimeIndex(decoded, dtype="datetime64[ns]") if decoded else pd.DatetimeIndex([])
    return pd.Series(values[codes] if len(codes) else values[:0])


def _decode_date(label: Any) -> pd.Timestamp:
    if is_missing(label):
        return pd.NaT
    if isinstance(label, (pd.Timestamp, np.datetime64)):
        return pd.Timestamp(label)
    text = str(label).strip()
    if text.startswith(("[", "(")) and "," in text:  # an interval: its lower bound
        text = text[1:].split(",", 1)[0].strip()
    if _YEAR_RE.match(text):
        return pd.Timestamp(year=int(text), month=1, day=1)
    if _MONTH_RE.match(text):
        return pd.Timestamp(year=int(text[:4]), month=int(text[5:]), day=1)
    return pd.to_datetime(text, errors="coerce")


# ====================================================================== hierarchies
class Hierarchy(ABC):
    """Value → label maps for levels ``0 … n_levels - 1`` (level 0 = the value itself)."""

    @property
    @abstractmethod
    def n_levels(self) -> int:
        """Number of levels including level 0 (the height is ``n_levels - 1``)."""

    @property
    def height(self) -> int:
        """Highest level."""
        return self.n_levels - 1

    def generalise(self, values: np.ndarray, level: int) -> np.ndarray:
        """Labels of ``values`` (distinct values, NaN allowed) at ``level``, as an object array.

        Level 0 returns the values; a missing value is ``*`` at every level above 0.
        """
        if not 0 <= level < self.n_levels:
            raise ValueError(f"`level` must be in 0..{self.height}; got {level!r}")
        values = np.asarray(values, dtype=object)
        if level == 0:
            return values.copy()
        out = np.full(len(values), SUPPRESSED, dtype=object)
        if level == self.height:
            return out
        present = np.array([not is_missing(v) for v in values], dtype=bool)
        if present.any():
            out[present] = self._labels(values[present], level)
        return out

    @abstractmethod
    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:
        """Labels of non-missing ``values`` at an intermediate level (``0 < level < height``)."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """JSON-able description (for ``details()``)."""


class FlatHierarchy(Hierarchy):
    """``{value, *}``: the §6.0 default of a categorical column without a hierarchy file."""

    @property
    def n_levels(self) -> int:
        return 2

    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:  # pragma: no cover - no middle level
        raise AssertionError("a flat hierarchy has no intermediate level")

    def describe(self) -> dict[str, Any]:
        return {"kind": "flat", "levels": 2}


class TableHierarchy(Hierarchy):
    """A hierarchy table: one row per original value, one column per level (ARX format).

    Values are looked up by their label text (``value_label``: the integer 39 matches the
    row ``39``). A value the table does not list is ``*`` above level 0. When the table's
    last level is not all ``*``, a ``*`` level is appended.

    Parameters
    ----------
    table : DataFrame
        Columns ``level0 … levelN`` of strings (:func:`harness.datasets.load_hierarchy`).
    source : str
        Where the table came from (recorded by :meth:`describe`).
    """

    def __init__(self, table: pd.DataFrame, *, source: str = "table") -> None:
        if table.shape[1] < 2 or table.empty:
            raise DataError(f"hierarchy {source}: expected at least one row and two levels")
        keys = table.iloc[:, 0].astype(str).to_numpy()
        levels = [table.iloc[:, i].astype(str).to_numpy() for i in range(1, table.shape[1])]
        if not (levels[-1] == SUPPRESSED).all():
            levels.append(np.full(len(keys), SUPPRESSED, dtype=object))
        self._maps = [dict(zip(keys, level, strict=True)) for level in levels]
        self.source = source

    @property
    def n_levels(self) -> int:
        return len(self._maps) + 1

    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:
        mapping = self._maps[level - 1]
        return np.array([mapping.get(value_label(v), SUPPRESSED) for v in values], dtype=object)

    def describe(self) -> dict[str, Any]:
        return {"kind": "table", "source": self.source, "levels": self.n_levels}


class IntervalHierarchy(Hierarchy):
    """Exact value, then intervals ``[a, a + W_l)`` with ``a`` a multiple of ``W_l``, then ``*``.

    Parameters
    ----------
    widths : sequence of float
        Interval width of levels ``1 … len(widths)``; each must be a positive multiple of the
        previous one so that the levels nest.
    """

    def __init__(self, widths: Sequence[float]) -> None:
        widths = [float(w) for w in widths]
        if any(not math.isfinite(w) or w <= 0 for w in widths):
            raise ConfigError(f"interval widths must be positive numbers; got {widths!r}")
        for small, big in zip(widths, widths[1:]):
            ratio = big / small
            if ratio < 1 or abs(ratio - round(ratio)) > 1e-9:
                raise ConfigError(
                    f"interval widths must nest (each a multiple of the previous one); got {widths!r}"
                )
        self.widths = tuple(widths)

    @classmethod
    def doubling(cls, width: float, low: float, high: float) -> IntervalHierarchy:
        """§6.0: widths ``w, 2w, 4w, …`` up to the first one at least as wide as ``high - low``.

        Age (w = 5, 17–90) gets 5, 10, 20, 40, 80: seven levels with exact and ``*``.
        """
        if not (math.isfinite(width) and width > 0):
            raise ConfigError(f"interval width must be a positive number; got {width!r}")
        span = max(float(high) - float(low), 0.0) if math.isfinite(high - low) else 0.0
        widths = [float(width)]
        while widths[-1] < span and len(widths) < 64:
            widths.append(widths[-1] * 2)
        return cls(widths)

    @property
    def n_levels(self) -> int:
        return len(self.widths) + 2

    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:
        width = self.widths[level - 1]
        numbers = values.astype(float)
        lows = np.floor(numbers / width) * width
        return np.array([interval_label(a, a + width) for a in lows], dtype=object)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "intervals",
            "widths": [format_number(w) for w in self.widths],
            "levels": self.n_levels,
        }


class BinHierarchy(Hierarchy):
    """Fixed bins ``[e_i, e_{i+1})`` (the last bin closed), then ``*``.

    Parameters
    ----------
    edges : sequence of float
        Increasing bin edges; values outside ``[edges[0], edges[-1]]`` fall into the end bins.
    integer : bool
        Integer data: edges are rounded up to integers (same bins for integer values) and all
        labels are half-open, the last one ending at ``max + 1``.
    """

    def __init__(self, edges: Sequence[float], *, integer: bool = False) -> None:
        edges_arr = np.unique(np.asarray(edges, dtype=float))
        if integer:
            inner = np.unique(np.ceil(edges_arr[:-1])) if len(edges_arr) > 1 else np.ceil(edges_arr)
            edges_arr = np.append(inner, np.floor(edges_arr[-1]) + 1)
        if len(edges_arr) < 2:
            edges_arr = np.array([edges_arr[0], edges_arr[0] + (1 if integer else 0)], dtype=float)
        self.edges = edges_arr
        self.integer = integer

    @classmethod
    def from_values(cls, values: np.ndarray, n_bins: int, method: str, *, integer: bool) -> BinHierarchy:
        """Equal-width (``method="equal_width"``) or quantile edges over the non-missing values."""
        numbers = np.asarray(values, dtype=float)
        numbers = numbers[~np.isnan(numbers)]
        if len(numbers) == 0:
            return cls([0.0, 1.0], integer=integer)
        if method == "quantile":
            edges = np.quantile(numbers, np.linspace(0, 1, n_bins + 1))
        else:
            edges = np.linspace(numbers.min(), numbers.max(), n_bins + 1)
        return cls(edges, integer=integer)

    @property
    def n_levels(self) -> int:
        return 3

    @property
    def n_bins(self) -> int:
        """Number of bins."""
        return len(self.edges) - 1

    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:
        numbers = values.astype(float)
        index = np.clip(np.searchsorted(self.edges, numbers, side="right") - 1, 0, self.n_bins - 1)
        labels = [
            interval_label(self.edges[i], self.edges[i + 1], closed=not self.integer and i == self.n_bins - 1)
            for i in range(self.n_bins)
        ]
        return np.array(labels, dtype=object)[index]

    def describe(self) -> dict[str, Any]:
        return {"kind": "bins", "edges": [format_number(e) for e in self.edges], "levels": 3}


class FrequencyHierarchy(Hierarchy):
    """Frequency-based grouping: at level ``l`` values seen fewer than ``thresholds[l-1]``
    times become ``Other``; then ``*``.

    Parameters
    ----------
    counts : mapping
        Value label (:func:`value_label`) → frequency in the training data.
    thresholds : sequence of int
        Non-decreasing minimum frequencies of levels ``1 … len(thresholds)``.
    """

    def __init__(self, counts: Mapping[Any, int], thresholds: Sequence[int]) -> None:
        if list(thresholds) != sorted(thresholds) or not thresholds:
            raise ConfigError(
                f"frequency thresholds must be non-empty and non-decreasing; got {thresholds!r}"
            )
        self.counts = dict(counts)
        self.thresholds = tuple(int(t) for t in thresholds)

    @classmethod
    def from_values(cls, values: pd.Series, thresholds: Sequence[int]) -> FrequencyHierarchy:
        """Count the non-missing values of ``values``."""
        counts: dict[Any, int] = {}
        for value, count in values.value_counts(dropna=True, sort=False).items():
            label = value_label(value)
            counts[label] = counts.get(label, 0) + int(count)
        return cls(counts, thresholds)

    @property
    def n_levels(self) -> int:
        return len(self.thresholds) + 2

    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:
        threshold = self.thresholds[level - 1]
        labels = [value_label(v) for v in values]
        return np.array(
            [lab if self.counts.get(lab, 0) >= threshold else OTHER for lab in labels], dtype=object
        )

    def describe(self) -> dict[str, Any]:
        return {"kind": "frequency", "thresholds": list(self.thresholds), "levels": self.n_levels}


class DateHierarchy(Hierarchy):
    """Exact date, month ``YYYY-MM``, year ``YYYY``, ``*`` (date truncation)."""

    GRANULARITY_LEVEL: Mapping[str, int] = {"day": 0, "month": 1, "year": 2, "*": 3}

    @property
    def n_levels(self) -> int:
        return 4

    def _labels(self, values: np.ndarray, level: int) -> np.ndarray:
        stamps = pd.to_datetime(pd.Series(values, dtype=object), errors="coerce", format="mixed")
        text = stamps.dt.strftime("%Y-%m" if level == 1 else "%Y").astype(object)
        return text.where(stamps.notna(), SUPPRESSED).to_numpy(dtype=object)

    def describe(self) -> dict[str, Any]:
        return {"kind": "dates", "levels": ["exact", "month", "year", SUPPRESSED]}


# ====================================================================== building
def default_width(column: str, values: pd.Series) -> float:
    """§6.0 base width of a numeric column: 5 for age, else the smallest 1-2-5 width that
    is at least the column's range / 32."""
    if column.lower() == "age":
        return float(AGE_WIDTH)
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    span = float(numbers.max() - numbers.min()) if len(numbers) else 0.0
    if span <= 0:
        return 1.0
    target = span / DEFAULT_INTERVAL_STEPS
    base = 10.0 ** math.floor(math.log10(target))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * base >= target:
            return step * base
    return 10.0 * base  # pragma: no cover - the loop always returns


def column_hierarchy(
    spec: DatasetSpec,
    column: str,
    values: pd.Series,
    *,
    source: str = "arx",
    width: float | Sequence[float] | None = None,
) -> Hierarchy:
    """The hierarchy of one QI column.

    Parameters
    ----------
    spec : DatasetSpec
    column : str
    values : Series
        The column's training values (for the default numeric widths).
    source : {"arx", "default"}
        ``arx``: the dataset's hierarchy file when it has one; ``default``: §6.0 defaults only.
    width : float or sequence of float, optional
        Numeric columns: the base width (doubled per level) or the explicit widths of the
        interval levels.

    Returns
    -------
    Hierarchy
    """
    if source not in HIERARCHY_SOURCES:
        raise ConfigError(
            f"`hierarchy` must be one of {', '.join(map(repr, HIERARCHY_SOURCES))}; got {source!r}"
        )
    kind = spec.kind(column)
    if source == "arx" and column in spec.hierarchies and width is None:
        return TableHierarchy(load_hierarchy(spec, column), source=spec.hierarchies[column])
    if kind in ("continuous", "integer"):
        if width is not None and not isinstance(width, (int, float)):
            return IntervalHierarchy(list(width))
        numbers = pd.to_numeric(values, errors="coerce")
        low, high = (float(numbers.min()), float(numbers.max())) if numbers.notna().any() else (0.0, 0.0)
        base = float(width) if width is not None else default_width(column, values)
        return IntervalHierarchy.doubling(base, low, high)
    if kind == "datetime":
        return DateHierarchy()
    return FlatHierarchy()


def apply_level(hierarchy: Hierarchy, values: pd.Series | np.ndarray, level: int) -> np.ndarray:
    """Row-aligned labels of ``values`` at ``level`` (one hierarchy call per distinct value);
    level 0 gives :func:`value_label` text."""
    codes, uniques = pd.factorize(
        pd.Series(np.asarray(values, dtype=object), dtype=object), use_na_sentinel=False
    )
    labels = hierarchy.generalise(np.asarray(uniques, dtype=object), level)
    if level == 0:
        labels = np.array([value_label(v) for v in labels], dtype=object)
    return labels[codes] if len(codes) else np.empty(0, dtype=object)
