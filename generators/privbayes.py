"""DataSynthesizer and PrivBayes (``spec/generators.md`` §7.1, §7.2).

Two configs share this module:

* ``datasynthesizer`` (:class:`DataSynthesizerGenerator`): DataSynthesizer's three modes
  (``random``, ``independent``, ``correlated``), ε = 0 (no noise) by default, k = 2.
* ``privbayes`` (:class:`PrivBayes`): the correlated mode with ε > 0 (default ε = 1,
  k = 1), i.e. PrivBayes (Zhang et al. 2017) as DataSynthesizer implements it.

Backends
--------
``backend="numpy"`` (default) is a vectorised port of DataSynthesizer 0.1.13's algorithm
(``DataDescriber`` + ``lib/PrivBayes.py`` + ``DataGenerator``) that draws only from
``self.rng_``. ``backend="datasynthesizer"`` runs the library itself on files in a private
temporary directory, with the global ``random`` / ``numpy.random`` seeded from the
generator's seed right before describing and before generating.

Why a port is the default (fit + sample on full Adult, 48,842 rows x 15 columns, ε = 1,
one core): the library takes 136 s at k = 1 and 1,195 s (20 min) at k = 2, the port 1.6 s
and 2.8 s. The library computes each candidate's mutual information on string-joined
parent labels (a row-wise Python ``apply``) and forks ``os.cpu_count()`` worker processes
at every network step, which oversubscribes the CPUs under the parallel launchers. For
ε = 0 the port and the library learn the same network and the same conditional tables
from the same root (``tests/unit/test_privbayes.py``). The library backend replaces the worker pool by an in-process ``map`` (the workers are pure,
so the results are unchanged) and silences the library's progress prints.

How ε is spent (correlated mode, ε > 0; as in DataSynthesizer's code)
---------------------------------------------------------------------
* ε₁ = ε/2 — structure learning (``greedy_bayes``): the root is drawn uniformly (no data
  used); each of the d − 1 further attributes is chosen with the exponential mechanism
  with ε₁/(d − 1), i.e. the (child, parents) candidate with mutual information I is drawn
  with probability ∝ exp(I / (2Δ)), Δ = (d − 1)·S / ε₁, where S is the sensitivity of
  mutual information of PrivBayes Lemma 1 (S = log(n)/n + (n−1)/n·log(n/(n−1)) when the
  child, or the single parent, is binary; S = 2/n·log((n+1)/2) + (1 − 1/n)·log(1 + 2/(n−1))
  otherwise).
* ε₂ = ε/2 — conditional distributions (``construct_noisy_conditional_distributions``):
  d − k noisy joint count tables (one (k+1)-way table over the root and the first k
  children, then one per further child over child + parents) each get Laplace noise with
  scale (d − k)/ε₂ on every cell of the full (binned) domain; negative counts are set to
  0, then each conditional is normalised (uniform when all its cells are 0).
* Independent mode, ε > 0: each attribute's histogram (probabilities) gets Laplace noise
  with scale (2/n)/(ε/d) (sensitivity 2/n, ε/d per attribute).
* Random mode uses no records beyond the domain and no ε.

Caveats of the guarantee (inherited from DataSynthesizer, not fixed here):

* The domain is read from the data without noise: categories, numeric min/max (hence the
  bin edges), whether a column has missing values, and whether a numeric column has at
  most ``category_threshold`` distinct values (then it is modelled as categorical). The
  guarantee holds when these are public.
* The exponential mechanism uses the replace-one sensitivity of PrivBayes Lemma 1 while
  the Laplace scale (d − k)/ε₂ on counts corresponds to count sensitivity 1 (add/remove
  one record). Under replace-one neighbours (count L1 sensitivity 2, as in PrivBayes'
  Algorithm 1, which uses 2(d − k)/(n·ε₂) on probabilities) the conditional step costs 2·ε₂.
* In correlated mode the library also perturbs each attribute's marginal with the full ε
  (its correlated describer calls the independent-mode describer). Those marginals enter
  the output only as a fallback for parent configurations outside the table, which the
  full-domain tables never leave; the description file holding them is not released.
  The port skips that step.

``info().formal_dp`` reports ``{"epsilon": ε, "delta": 0, "unit": "original_records"}``
when ε > 0 (independent or correlated mode), the budget as DataSynthesizer defines it.

Deviations of the port from the library (each a fix of library behaviour)
-------------------------------------------------------------------------
* Exponential mechanism: the library computes ``exp(score)`` without subtracting the
  maximum; for large n·ε (e.g. n ≈ 50,000, ε = 50) the scores overflow to ``inf`` and the
  library then draws uniformly among the overflowed candidates instead of favouring the
  best one. The port uses the stable form exp(score − max score).
* Independent mode models missing values with an extra bin (like correlated mode); the
  library's independent-mode generator never emits missing values.
* Random mode draws numeric values uniformly within the column's training range (integers
  inclusive); the library uses the fixed range [0, 100] for every numeric column. Both
  backends use the port's random mode.
* ``k = 0`` selects k automatically as the library does (``calculate_k``, which uses
  ε = 0.1 whatever ε is); the library's solver permanently turns every later Python warning
  into an error (``warnings.filterwarnings("error")``), the port scopes that filter.
* Ties in mutual information (ε = 0) go to the first candidate in the library's
  enumeration order after rounding to 12 decimals, so float summation order cannot flip
  them (the library takes the exact maximum).
* Columns whose training values are all missing are released as all missing (the library
  fails on them).

Numeric values are drawn uniformly within their sampled bin (DataSynthesizer's behaviour,
``spec/generators.md`` §7.1 pitfalls); integer columns are then rounded half to even.
Schema kinds map explicitly to DataSynthesizer's attribute types: categorical / ordinal →
categorical String, integer → Integer, continuous → Float (datetime → Float on the epoch
in nanoseconds, converted back); no column is a candidate key (identifier columns are
dropped by the loader).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, DataError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_int
from harness.seeding import derive_seed

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
            codes[~missing] = np.searchsorted(self.values, _raw(present, self.kind))
        elif self.n_bins:
            codes[~missing] = np.searchsorted(self.values, _raw(present, self.kind), side="right") - 1
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
        return _from_raw(result, self.kind)

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


def _raw(column: pd.Series, kind: str) -> np.ndarray:
    """Values as DataSynthesizer sees them: strings for categories, floats for numbers."""
    if kind in ("categorical", "ordinal", "identifier"):
        return column.astype(str).to_numpy(dtype=object)
    if kind == "datetime":
        return pd.to_datetime(column).astype("int64").to_numpy(dtype=float)
    return pd.to_numeric(column).to_numpy(dtype=float)


def _from_raw(values: pd.Series, kind: str) -> pd.Series:
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
        raw = _raw(present, kind)
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


def mi_sensitivity(n: int, binary: bool) -> float:
    """Sensitivity of mutual information under replacing one of ``n`` records (PrivBayes Lemma 1)."""
    if binary:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return (2 / n) * math.log((n + 1) / 2) + (1 - 1 / n) * math.log(1 + 2 / (n - 1))


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

    Returns
    -------
    list of (child, parents)
        Column indices, in the library's order (parents listed as the library lists them).
    """
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
        mi = np.round(np.asarray(scores), MI_DECIMALS)
        if epsilon:
            delta = np.array(
                [
                    (d - 1) * mi_sensitivity(n, binary[c] or (len(p) == 1 and binary[p[0]])) / epsilon
                    for c, p in candidates
                ]
            )
            logits = mi / (2 * delta)
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
) -> Conditionals:
    """DataSynthesizer's ``construct_noisy_conditional_distributions`` (ε = ε₂, 0 = no noise)."""
    d = codes.shape[1]
    k = len(network[-1][1]) if network else 0
    n_marginals = d - k
    scale = n_marginals / epsilon if epsilon else 0.0
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


# ====================================================================== generators
class DataSynthesizerGenerator(BaseGenerator):
    """DataSynthesizer (``spec/generators.md`` §7.1): random, independent or correlated mode.

    Parameters
    ----------
    mode : {"random", "independent", "correlated"}
        ``correlated``: Bayesian network with at most ``k`` parents (PrivBayes when ε > 0);
        ``independent``: every column from its own histogram; ``random``: uniform over
        each column's categories or training range.
    k : int
        Maximum number of parents (correlated mode). 0 = DataSynthesizer's automatic choice.
    epsilon : float or None
        Privacy budget; 0 or None = no noise (DataSynthesizer's convention).
    histogram_size : int
        Equal-width bins of numeric columns (≥ 2).
    category_threshold : int
        Numeric columns with at most this many distinct values are modelled as categorical;
        categorical schema columns always are.
    backend : {"numpy", "datasynthesizer"}
        The vectorised port (default) or the library itself (see the module docstring).

    Notes
    -----
    The module docstring states how ε is spent and how the port differs from the library.
    ``details()`` records the learned network, the ε split, the Laplace scale and the bins.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(
        self,
        mode: str = "correlated",
        k: int = 2,
        epsilon: float | None = 0.0,
        histogram_size: int = 20,
        category_threshold: int = 20,
        backend: str = "numpy",
    ) -> None:
        self.mode = mode
        self.k = k
        self.epsilon = epsilon
        self.histogram_size = histogram_size
        self.category_threshold = category_threshold
        self.backend = backend

    # ------------------------------------------------------------------ parameters
    def _mode(self) -> str:
        return self.mode

    @property
    def epsilon_(self) -> float:
        """ε as a float (None → 0)."""
        return 0.0 if self.epsilon is None else float(self.epsilon)

    def info(self) -> GeneratorInfo:
        """Capability flags; ``formal_dp`` is set when ε > 0 outside random mode."""
        if self.epsilon_ > 0 and self._mode() != "random":
            dp = {"epsilon": self.epsilon_, "delta": 0.0, "unit": "original_records"}
            return GeneratorInfo(output_kind="synthetic", formal_dp=dp)
        return self.capabilities

    def _validate_params(self) -> None:
        if self._mode() not in MODES:
            raise ConfigError(f"`mode` must be one of {', '.join(MODES)}; got {self._mode()!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(
                f"`backend` must be one of {', '.join(BACKENDS)} (dpart and synthcity are not "
                f"available in this build); got {self.backend!r}"
            )
        eps = self.epsilon
        if eps is not None and (
            isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps < 0
        ):
            raise ConfigError(f"`epsilon` must be a finite number >= 0 (0 or null = no noise); got {eps!r}")
        check_int("k", self.k, 0)
        check_int("histogram_size", self.histogram_size, 2)
        check_int("category_threshold", self.category_threshold, 0)

    # ------------------------------------------------------------------ fit / sample
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        mode = self._mode()
        eps = self.epsilon_
        n, d = train.shape
        if eps > 0 and mode != "random" and n < 2:
            raise DataError(f"{type(self).__name__} with epsilon > 0 needs at least 2 training rows; got {n}")
        kinds = {c: self.spec_.kind(c) for c in train.columns}
        self.attributes_ = describe_attributes(train, kinds, self.histogram_size, self.category_threshold)
        self.network_: list[tuple[str, list[str]]] = []
        self.k_used_: int | None = None
        self.epsilon_split_: dict[str, float] = {}
        self.laplace_scale_: float | None = None
        self.model_: Any = None
        self.n_samples_ = 0
        if mode == "random":
            return
        if self.backend == "datasynthesizer":
            self._fit_library(train)
            return
        codes = np.column_stack([a.encode(train[a.name]) for a in self.attributes_])
        cards = [a.card for a in self.attributes_]
        if mode == "independent":
            self.model_ = [self._noisy_marginal(codes[:, j], cards[j], n, d) for j in range(d)]
            if eps:
                self.epsilon_split_ = {"marginals": eps}
                self.laplace_scale_ = (2 / n) / (eps / d)
            return
        k = self.k or auto_k(d, n)
        self.k_used_ = k
        root = int(self.rng_.integers(d))
        network = greedy_bayes(codes, cards, k, eps / 2, self.rng_, root=root) if d > 1 else []
        self.model_ = noisy_conditionals(network, root, codes, cards, eps / 2, self.rng_)
        names = [a.name for a in self.attributes_]
        self.root_ = names[root]
        self.network_ = [(names[c], [names[p] for p in ps]) for c, ps in network]
        if eps:
            self.epsilon_split_ = {"structure": eps / 2, "conditionals": eps / 2}
            self.laplace_scale_ = self.model_.laplace_scale

    def _noisy_marginal(self, codes: np.ndarray, card: int, n: int, d: int) -> np.ndarray:
        dist = np.bincount(codes, minlength=card) / n
        if self.epsilon_:
            dist = dist + self.rng_.laplace(0.0, (2 / n) / (self.epsilon_ / d), size=card)
        return normalise_rows(dist[None, :])[0]

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        mode = self._mode()
        if mode == "random":
            return self._sample_random(n)
        if self.backend == "datasynthesizer":
            return self._sample_library(n)
        d = len(self.attributes_)
        if mode == "independent":
            codes = np.column_stack(
                [draw_codes(np.broadcast_to(p, (n, len(p))), self.rng_) for p in self.model_]
            )
        else:
            codes = sample_network(self.model_, n, d, self.rng_)
        return pd.DataFrame(
            {a.name: a.decode(codes[:, j], self.rng_) for j, a in enumerate(self.attributes_)}
        )

    def _sample_random(self, n: int) -> pd.DataFrame:
        out = {}
        for a in self.attributes_:
            if a.n_bins == 0:
                out[a.name] = pd.Series(np.full(n, np.nan))
            elif a.categorical:
                out[a.name] = pd.Series(a.values[self.rng_.integers(0, a.n_bins, size=n)])
            elif a.kind == "integer":
                out[a.name] = pd.Series(self.rng_.integers(int(a.low), int(a.high) + 1, size=n).astype(float))
            else:
                out[a.name] = _from_raw(pd.Series(self.rng_.uniform(a.low, a.high, size=n)), a.kind)
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ library backend
    def _fit_library(self, train: pd.DataFrame) -> None:
        """Describe ``train`` with DataSynthesizer in a private temporary directory."""
        from DataSynthesizer.DataDescriber import DataDescriber

        frame, types = self._library_frame(train)
        kinds = {a.name: a.categorical for a in self.attributes_}
        mode = self._mode()
        eps = self.epsilon_
        n, d = frame.shape
        describe_seed = derive_seed(self.seed_, "datasynthesizer", "describe")
        with tempfile.TemporaryDirectory(prefix="privbench-ds-") as tmp:
            path = Path(tmp) / "train.csv"
            frame.to_csv(path, index=False)
            describer = DataDescriber(
                histogram_bins=self.histogram_size, category_threshold=self.category_threshold
            )
            common: dict[str, Any] = {
                "attribute_to_datatype": types,
                "attribute_to_is_categorical": {name: kinds[name] for name in frame.columns},
                "attribute_to_is_candidate_key": {name: False for name in frame.columns},
                "seed": describe_seed,
            }
            with _library_quiet():
                if mode == "independent":
                    describer.describe_dataset_in_independent_attribute_mode(str(path), epsilon=eps, **common)
                else:
                    k = self.k or auto_k(d, n)
                    self.k_used_ = k
                    describer.describe_dataset_in_correlated_attribute_mode(
                        str(path), k=k, epsilon=eps, **common
                    )
            describer.save_dataset_description_to_file(str(Path(tmp) / "description.json"))
            self.model_ = json.loads((Path(tmp) / "description.json").read_text())
        if mode == "correlated":
            network = self.model_["bayesian_network"]
            self.root_ = network[0][1][0]
            self.network_ = [(str(c), [str(p) for p in ps]) for c, ps in network]
            if eps:
                self.epsilon_split_ = {"structure": eps / 2, "conditionals": eps / 2}
                self.laplace_scale_ = (d - len(network[-1][1])) / (eps / 2)
        elif eps:
            self.epsilon_split_ = {"marginals": eps}
            self.laplace_scale_ = (2 / n) / (eps / d)

    def _library_frame(self, train: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
        """The table as written for the library: categories as tokens ``c0, c1, …``.

        Tokens keep the library's CSV reader from turning categories into numbers or missing
        values ("NA", "None", "1", " x"). Columns without any value are left out (the library
        fails on them) and released as all missing.
        """
        frame = {}
        types = {}
        for a in self.attributes_:
            if a.n_bins == 0:
                continue
            column = train[a.name]
            if a.kind in ("categorical", "ordinal", "identifier"):
                codes = a.encode(column)
                frame[a.name] = pd.Series([f"c{c}" if c < a.n_bins else None for c in codes], dtype=object)
                types[a.name] = "String"
            else:
                frame[a.name] = pd.Series(_raw(column, a.kind) if a.kind == "datetime" else column.to_numpy())
                types[a.name] = "Integer" if a.kind == "integer" else "Float"
        return pd.DataFrame(frame), types

    def _sample_library(self, n: int) -> pd.DataFrame:
        from DataSynthesizer.DataGenerator import DataGenerator

        seed = derive_seed(self.seed_, "datasynthesizer", "generate", self.n_samples_)
        self.n_samples_ += 1
        with tempfile.TemporaryDirectory(prefix="privbench-ds-") as tmp:
            path = Path(tmp) / "description.json"
            path.write_text(json.dumps(self.model_))
            generator = DataGenerator()
            with _library_quiet():
                if self._mode() == "independent":
                    generator.generate_dataset_in_independent_mode(n, str(path), seed=seed)
                else:
                    generator.generate_dataset_in_correlated_attribute_mode(n, str(path), seed=seed)
            synthetic = generator.synthetic_dataset
        out = {}
        for a in self.attributes_:
            if a.name not in synthetic.columns:
                out[a.name] = pd.Series(np.full(n, np.nan))
                continue
            values = synthetic[a.name].reset_index(drop=True)
            if a.kind in ("categorical", "ordinal", "identifier"):
                lookup = {f"c{i}": v for i, v in enumerate(a.values)}
                out[a.name] = values.map(lookup).astype(object)
            else:
                out[a.name] = _from_raw(pd.to_numeric(values), a.kind)
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ diagnostics
    def details(self) -> dict[str, Any]:
        """The learned network, ε split, Laplace scale and bins of the last fit."""
        if not getattr(self, "fitted_", False):
            return {}
        return {
            "mode": self._mode(),
            "backend": self.backend,
            "epsilon": self.epsilon_,
            "epsilon_split": dict(self.epsilon_split_),
            "laplace_scale": self.laplace_scale_,
            "k": self.k_used_,
            "root": getattr(self, "root_", None),
            "bayesian_network": [[child, list(parents)] for child, parents in self.network_],
            "bins": {a.name: a.to_json() for a in self.attributes_},
        }


class PrivBayes(DataSynthesizerGenerator):
    """PrivBayes (``spec/generators.md`` §7.2): DataSynthesizer's correlated mode with ε > 0.

    Parameters
    ----------
    epsilon : float or None
        Privacy budget, spent half on the structure (exponential mechanism) and half on the
        conditionals (Laplace); 0 or None = noise off (GreedyBayes, the "BayesianNet" of
        ``001_…`` §4.2.1), as PrivBayes / DataSynthesizer define it.
    k : int
        Maximum number of parents (``001_…`` reproductions: 1 with 25 bins).
    histogram_size, category_threshold, backend
        As :class:`DataSynthesizerGenerator`.
    """

    def __init__(
        self,
        epsilon: float | None = 1.0,
        k: int = 1,
        histogram_size: int = 20,
        category_threshold: int = 20,
        backend: str = "numpy",
    ) -> None:
        self.epsilon = epsilon
        self.k = k
        self.histogram_size = histogram_size
        self.category_threshold = category_threshold
        self.backend = backend

    def _mode(self) -> str:
        return "correlated"


class _SerialPool:
    """Stand-in for ``multiprocessing.Pool`` inside DataSynthesizer: ``map`` in process."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> _SerialPool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Any, items: Any) -> list[Any]:
        return list(map(fn, items))


@contextlib.contextmanager
def _library_quiet() -> Iterator[None]:
    """Run DataSynthesizer without its worker pool, its prints and its global warning filter."""
    import DataSynthesizer.lib.PrivBayes as library

    original = library.Pool
    library.Pool = _SerialPool
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        library.Pool = original
