"""The PrivBayes / DataSynthesizer algorithm on encoded tables (``privbayes``, ``datasynthesizer``).

A vectorised port of DataSynthesizer 0.1.13 (``DataDescriber`` + ``lib/PrivBayes.py`` +
``DataGenerator``): column binning (:class:`Attribute`, from the data as DataSynthesizer does or
from the public domain of the dataset spec in ``strict`` mode), mutual information, the greedy
network search with the exponential mechanism (:func:`greedy_bayes`), the noisy conditional
tables (:func:`noisy_conditionals`) and sampling in network order. The noise scales come from
:mod:`generators.dp_accounting`; the generators are in :mod:`generators.privbayes`, whose
docstring describes the algorithm, its ε accounting and the port's departures from the library.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from generators.dp_accounting import StructureCalibration
from generators.dp_domain import PublicColumn, integer_levels

MODES: tuple[str, ...] = ("random", "independent", "correlated")
BACKENDS: tuple[str, ...] = ("numpy", "datasynthesizer")
MI_DECIMALS = 12
"""Mutual information values are compared after rounding to this many decimals (ties)."""
_DENSE_LIMIT = 1 << 22
"""Largest contingency table counted densely; larger ones use ``numpy.unique``."""


# ====================================================================== attribute encoding
@dataclass(frozen=True)
class Attribute:
    """How one column is binned (DataSynthesizer's ``AbstractAttribute``).

    Attributes
    ----------
    name : str
    categorical : bool
        Categorical columns use their observed values as bins; numeric columns with at
        most ``category_threshold`` distinct values are categorical too.
    values : ndarray
        Sorted categories (categorical) or the left bin edges (numeric).
    low, high : float
        Numeric range of the training values (NaN when not numeric or all missing).
    has_missing : bool
        The column has missing values: code ``len(values)`` stands for them.
    kind : str
        The schema kind (for the output conversion).
    """

    name: str
    categorical: bool
    values: np.ndarray
    low: float
    high: float
    has_missing: bool
    kind: str

    @property
    def n_bins(self) -> int:
        """Bins without the missing-value bin."""
        return len(self.values)

    @property
    def card(self) -> int:
        """Codes in use: bins plus the missing bin when there are missing values."""
        return self.n_bins + int(self.has_missing)

    def encode(self, column: pd.Series) -> np.ndarray:
        """Bin index of every value; missing values get ``n_bins``."""
        missing = column.isna().to_numpy()
        codes = np.full(len(column), self.n_bins, dtype=np.int64)
        present = column[~missing]
        if self.categorical:
            codes[~missing] = np.searchsorted(self.values, raw_values(present, self.kind))
        elif self.n_bins:
            codes[~missing] = np.searchsorted(self.values, raw_values(present, self.kind), side="right") - 1
        return codes

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> pd.Series:
        """Values for bin indices: categories as they are, numbers uniform within their bin."""
        missing = codes >= self.n_bins
        safe = np.where(missing, 0, codes)
        if self.categorical:
            out = self.values[safe] if self.n_bins else np.empty(len(codes), dtype=object)
            result = pd.Series(out, dtype=object if self.values.dtype == object else float)
        else:
            values = np.full(len(codes), np.nan)
            if self.n_bins:
                lower = self.values[safe]
                upper = np.append(self.values[1:], self.high)[safe]
                values = lower + (upper - lower) * rng.random(len(codes))
            result = pd.Series(values)
        result[missing] = np.nan
        return from_raw_values(result, self.kind)

    def to_json(self) -> dict[str, Any]:
        """JSON summary (``details()["bins"]``)."""
        if self.categorical:
            return {"type": "categorical", "n_bins": self.n_bins, "missing_bin": self.has_missing}
        return {
            "type": "histogram",
            "left_edges": [float(v) for v in self.values],
            "max": None if math.isnan(self.high) else float(self.high),
            "missing_bin": self.has_missing,
        }


def raw_values(column: pd.Series, kind: str) -> np.ndarray:
    """Values as DataSynthesizer sees them: strings for categories, floats for numbers."""
    if kind in ("categorical", "ordinal", "identifier"):
        return column.astype(str).to_numpy(dtype=object)
    if kind == "datetime":
        return pd.to_datetime(column).astype("int64").to_numpy(dtype=float)
    return pd.to_numeric(column).to_numpy(dtype=float)


def from_raw_values(values: pd.Series, kind: str) -> pd.Series:
    if kind == "datetime":
        numeric = pd.to_numeric(values)
        return pd.Series(pd.to_datetime(np.rint(numeric.to_numpy(dtype=float)), unit="ns"))
    if kind == "integer":
        numeric = pd.to_numeric(values)
        return pd.Series(np.rint(numeric.to_numpy(dtype=float)))
    return values


def describe_attributes(
    frame: pd.DataFrame, kinds: dict[str, str], histogram_size: int, category_threshold: int
) -> list[Attribute]:
    """Bin every column as DataSynthesizer's describer does, with the kinds given by the schema.

    Parameters
    ----------
    frame : DataFrame
    kinds : dict
        Column name to schema kind.
    histogram_size : int
        Equal-width bins of a numeric column over [min, max] (``numpy.histogram`` edges).
    category_threshold : int
        Numeric columns with at most this many distinct values are categorical.
    """
    out = []
    for name in frame.columns:
        kind = kinds[name]
        column = frame[name]
        present = column.dropna()
        raw = raw_values(present, kind)
        has_missing = bool(len(present) < len(column))
        if kind in ("categorical", "ordinal", "identifier"):
            out.append(Attribute(name, True, np.unique(raw), math.nan, math.nan, has_missing, kind))
            continue
        distinct = np.unique(raw)
        low = float(distinct[0]) if len(distinct) else math.nan
        high = float(distinct[-1]) if len(distinct) else math.nan
        if len(distinct) <= category_threshold:
            out.append(Attribute(name, True, distinct, low, high, has_missing, kind))
            continue
        edges = np.histogram_bin_edges(raw, bins=histogram_size, range=(low, high))
        out.append(Attribute(name, False, edges[:-1], low, high, has_missing, kind))
    return out


def describe_public_attributes(
    domain: Mapping[str, PublicColumn], columns: Sequence[str], histogram_size: int, category_threshold: int
) -> list[Attribute]:
    """Bin every column from its public domain alone (``strict`` mode; no data read).

    Categorical columns use their public levels; integer columns whose bounds hold at most
    ``category_threshold`` integers are categorical over those integers; other numeric columns
    get ``histogram_size`` equal-width bins over [low, high] (``numpy.histogram`` edges). The
    missing bin exists exactly for the columns declared nullable.
    """
    out = []
    for name in columns:
        dom = domain[name]
        if dom.levels is not None:
            levels = np.unique(np.asarray(dom.levels, dtype=object).astype(str)).astype(object)
            out.append(Attribute(name, True, levels, math.nan, math.nan, dom.nullable, dom.kind))
            continue
        assert dom.low is not None and dom.high is not None
        if dom.kind == "integer":
            values = integer_levels(dom.low, dom.high)
            if 0 < len(values) <= category_threshold:
                out.append(Attribute(name, True, values, dom.low, dom.high, dom.nullable, dom.kind))
                continue
        edges = np.linspace(dom.low, dom.high, histogram_size + 1)
        out.append(Attribute(name, False, edges[:-1], dom.low, dom.high, dom.nullable, dom.kind))
    return out


# ====================================================================== PrivBayes core
def mutual_information(child: np.ndarray, child_card: int, parent: np.ndarray, parent_card: int) -> float:
    """Mutual information (nats) of two code vectors, computed as ``sklearn.metrics.mutual_info_score``."""
    if parent_card * child_card <= _DENSE_LIMIT:
        counts = np.bincount(parent * child_card + child, minlength=parent_card * child_card)
        cells = np.flatnonzero(counts)
        nz = counts[cells]
    else:
        cells, nz = np.unique(parent.astype(np.int64) * child_card + child, return_counts=True)
    rows, cols = cells % child_card, cells // child_card  # rows: child classes, cols: parent classes
    pi = np.bincount(rows, weights=nz, minlength=child_card)
    pj = np.bincount(cols, weights=nz, minlength=parent_card)
    if np.count_nonzero(pi) == 1 or np.count_nonzero(pj) == 1:
        return 0.0
    total = float(nz.sum())
    log_nz = np.log(nz)
    share = nz / total
    outer = pi[rows].astype(np.int64) * pj[cols].astype(np.int64)
    log_outer = -np.log(outer) + math.log(total) + math.log(total)
    mi = share * (log_nz - math.log(total)) + share * log_outer
    mi = np.where(np.abs(mi) < np.finfo(mi.dtype).eps, 0.0, mi)
    return float(max(mi.sum(), 0.0))


def joint_codes(codes: np.ndarray, columns: Sequence[int], cards: Sequence[int]) -> tuple[np.ndarray, int]:
    """Mixed-radix code of several columns (first column most significant) and its cardinality."""
    joint = np.zeros(codes.shape[0], dtype=np.int64)
    card = 1
    for col in columns:
        joint = joint * cards[col] + codes[:, col]
        card *= cards[col]
    return joint, card


def auto_k(n_attributes: int, n_rows: int, target_usefulness: float = 4, epsilon: float = 0.1) -> int:
    """DataSynthesizer's ``calculate_k`` (used when ``k = 0``), with its warning filter scoped."""
    from scipy.optimize import fsolve

    def minus_target(k: Any, target: float) -> Any:
        if k == n_attributes:
            return 0.0
        return n_rows * epsilon / ((n_attributes - k) * (2 ** (k + 3))) - target

    default_k = 3
    if minus_target(default_k, 0) > target_usefulness:
        return default_k
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            ans = math.ceil(
                float(fsolve(minus_target, np.array([int(n_attributes / 2)]), args=(target_usefulness,))[0])
            )
        except RuntimeWarning:
            ans = default_k
    if ans < 1 or ans > n_attributes:
        ans = default_k
    return ans


def greedy_bayes(
    codes: np.ndarray,
    cards: Sequence[int],
    k: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    root: int | None = None,
    calibration: StructureCalibration | None = None,
    log: list[dict[str, Any]] | None = None,
) -> list[tuple[int, list[int]]]:
    """Learn the network greedily (DataSynthesizer's ``greedy_bayes``).

    Parameters
    ----------
    codes : ndarray of shape (n, d)
        Encoded table (bin indices).
    cards : sequence of int
        Codes in use per column.
    k : int
        Maximum number of parents (≥ 1).
    epsilon : float
        Budget of the whole structure step (ε₁); 0 = exact greedy choice.
    rng : numpy Generator
    root : int, optional
        Root column; default drawn uniformly.
    calibration : StructureCalibration, optional
        Scaling of the exponential mechanism; default DataSynthesizer's (PrivBayes Lemma 1,
        binary = at most two observed codes, scores rounded).
    log : list, optional
        When given, one entry per draw is appended: the number of candidates and the Δ of
        each (weights exp(I / (2Δ))).

    Returns
    -------
    list of (child, parents)
        Column indices, in the library's order (parents listed as the library lists them).
    """
    calibration = StructureCalibration() if calibration is None else calibration
    n, d = codes.shape
    if root is None:
        root = int(rng.integers(d))
    binary = [len(np.unique(codes[:, j])) <= 2 for j in range(d)]
    done = [root]
    rest = [j for j in range(d) if j != root]
    network: list[tuple[int, list[int]]] = []
    while rest:
        n_parents = min(len(done), k)
        candidates: list[tuple[int, list[int]]] = []
        scores: list[float] = []
        parent_cache: dict[tuple[int, ...], tuple[np.ndarray, int]] = {}
        for child in rest:
            for split in range(len(done) - n_parents + 1):
                for others in combinations(done[split + 1 :], n_parents - 1):
                    parents = [*others, done[split]]
                    key = tuple(parents)
                    if key not in parent_cache:
                        parent_cache[key] = joint_codes(codes, parents, cards)
                    joint, joint_card = parent_cache[key]
                    candidates.append((child, parents))
                    scores.append(mutual_information(codes[:, child], cards[child], joint, joint_card))
        exact = np.asarray(scores)
        mi = np.round(exact, MI_DECIMALS)
        if epsilon:
            delta = calibration.deltas(n, d, epsilon, candidates, cards, binary)
            if log is not None:
                log.append({"candidates": len(candidates), "delta": delta.tolist()})
            logits = (mi if calibration.round_scores else exact) / (2 * delta)
            weights = np.exp(logits - logits.max())
            pick = int(rng.choice(len(candidates), p=weights / weights.sum()))
        else:
            pick = int(np.argmax(mi))
        network.append(candidates[pick])
        done.append(candidates[pick][0])
        rest.remove(candidates[pick][0])
    return network


def normalise_rows(table: np.ndarray) -> np.ndarray:
    """DataSynthesizer's ``normalize_given_distribution`` applied to every row."""
    table = np.clip(table, 0, None)
    sums = table.sum(axis=1, keepdims=True)
    uniform = np.full_like(table, 1.0 / table.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums > 0, table / np.where(sums > 0, sums, 1), uniform)


def noisy_table(
    codes: np.ndarray, columns: Sequence[int], cards: Sequence[int], scale: float, rng: np.random.Generator
) -> np.ndarray:
    """Joint counts over the full domain of ``columns`` (axes in that order) plus Laplace(scale) noise."""
    joint, card = joint_codes(codes, columns, cards)
    counts = np.bincount(joint, minlength=card).astype(float)
    if scale > 0:
        counts = np.clip(counts + rng.laplace(0.0, scale, size=card), 0, None)
    return counts.reshape([cards[c] for c in columns])


@dataclass
class Conditionals:
    """Root distribution and one conditional table per child (rows: parent codes)."""

    root: int
    root_dist: np.ndarray
    tables: list[tuple[int, list[int], np.ndarray]]
    n_marginals: int
    laplace_scale: float


def noisy_conditionals(
    network: list[tuple[int, list[int]]],
    root: int,
    codes: np.ndarray,
    cards: Sequence[int],
    epsilon: float,
    rng: np.random.Generator,
    *,
    count_sensitivity: float = 1.0,
) -> Conditionals:
    """DataSynthesizer's ``construct_noisy_conditional_distributions`` (ε = ε₂, 0 = no noise).

    Each of the d − k joint count tables gets Laplace noise with scale
    ``count_sensitivity``·(d − k)/ε₂ on every cell (DataSynthesizer: sensitivity 1).
    """
    d = codes.shape[1]
    k = len(network[-1][1]) if network else 0
    n_marginals = d - k
    scale = count_sensitivity * n_marginals / epsilon if epsilon else 0.0
    first = [root] + [child for child, _ in network[:k]]
    head = noisy_table(codes, first, cards, scale, rng)
    root_counts = head.reshape(cards[root], -1).sum(axis=1)
    root_dist = normalise_rows(root_counts[None, :])[0]
    tables = []
    for idx, (child, parents) in enumerate(network):
        order = [*parents, child]
        if idx <= k - 1:
            axes = tuple(i for i, col in enumerate(first) if col not in order)
            kept = [col for col in first if col in order]
            table = head.sum(axis=axes).transpose([kept.index(col) for col in order])
        else:
            table = noisy_table(codes, order, cards, scale, rng)
        tables.append((child, parents, normalise_rows(table.reshape(-1, cards[child]))))
    return Conditionals(root, root_dist, tables, n_marginals, scale)


def draw_codes(dist: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of ``dist`` (rows are distributions), by inverse CDF."""
    cdf = np.cumsum(dist, axis=1)
    u = rng.random(dist.shape[0]) * cdf[:, -1]
    return np.minimum((u[:, None] >= cdf).sum(axis=1), dist.shape[1] - 1)


def sample_network(model: Conditionals, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Sample ``n`` encoded rows in network order."""
    out = np.zeros((n, d), dtype=np.int64)
    out[:, model.root] = draw_codes(np.broadcast_to(model.root_dist, (n, len(model.root_dist))), rng)
    cards = {model.root: len(model.root_dist)}
    for child, parents, table in model.tables:
        joint = np.zeros(n, dtype=np.int64)
        for p in parents:
            joint = joint * cards[p] + out[:, p]
        out[:, child] = draw_codes(table[joint], rng)
        cards[child] = table.shape[1]
    return out
