"""Full-domain generalisation lattice and its search (``spec/generators.md`` §6.2, OLA).

A node ``(l_1, …, l_q)`` generalises QI j to level ``l_j`` of its hierarchy. The data is
first collapsed to its distinct level-0 QI combinations with their counts (the bottom node's
equivalence classes), so evaluating a node is one gather per QI, one factorisation and one
weighted ``bincount`` over those combinations, never a per-row Python loop.

A node is *anonymous* (k-anonymous within the suppression limit) when the rows in classes
smaller than k are at most ``suppression_limit · n``; this property is monotone upward.

* :func:`ola_search`: Optimal Lattice Anonymisation (El Emam et al. 2009): binary search on
  the height of ever smaller sub-lattices with predictive tagging (an anonymous node tags all
  its successors anonymous, a non-anonymous one all its predecessors), collecting the
  k-minimal nodes.
* :func:`exhaustive_search`: evaluates every node; the k-minimal nodes are the anonymous
  nodes with no anonymous direct predecessor. For small lattices and as a check of OLA.
* :func:`rank_nodes`: orders nodes by information loss, ties by lower total height, then by
  the node itself (deterministic).

With ``collapse=True`` the lattice has one level per *distinct partition* of each QI: a level
whose labels partition the data's values exactly as the level below does (equal cardinality,
since hierarchies nest) is left out, its node being equivalent to the one below it in every
property but the level number (a numeric QI with 5 distinct values keeps about 4 of its 8
default levels). No such node is k-minimal (its predecessor is as anonymous), so the k-minimal
nodes and their ranking are exactly those of the full lattice; ds43's 9-QI set ``qi1`` shrinks
from 2,097,152 to 129,024 nodes. :class:`NodeStats` carries both coordinates: ``node`` in the
lattice searched and ``levels`` in the hierarchies. Methods that choose among *all* nodes
(SafePub's exponential mechanism) keep the full lattice (the default).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from generators.kanon.equivalence import LOSSES
from generators.kanon.hierarchies import Hierarchy, value_label
from harness.errors import DataError, InfeasibleConfigError

MAX_LATTICE_NODES = 5_000_000
"""Largest lattice the search accepts (the tag array holds every node)."""

Node = tuple[int, ...]


# ====================================================================== encoding
@dataclass(frozen=True)
class EncodedQI:
    """The QI columns of a table coded once for every level of their hierarchies.

    Attributes
    ----------
    columns : tuple of str
    hierarchies : tuple of Hierarchy
    row_codes : ndarray (n, q)
        Level-0 code of every row and QI.
    level_codes : list of list of ndarray
        ``level_codes[j][l][c]``: the level-``l`` code of level-0 code ``c`` of QI j.
    level_labels : list of list of ndarray
        ``level_labels[j][l][c]``: the label of level-``l`` code ``c`` (level 0: value text).
    combos : ndarray (m, q)
        Distinct level-0 code combinations (the bottom node's classes).
    weights : ndarray (m,)
        Rows per combination.
    row_combo : ndarray (n,)
        Combination of every row.
    """

    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    row_codes: np.ndarray
    level_codes: list[list[np.ndarray]]
    level_labels: list[list[np.ndarray]]
    combos: np.ndarray
    weights: np.ndarray
    row_combo: np.ndarray

    @property
    def n(self) -> int:
        """Rows."""
        return int(self.row_codes.shape[0])

    @property
    def heights(self) -> tuple[int, ...]:
        """Height of every QI's hierarchy."""
        return tuple(h.height for h in self.hierarchies)

    def cardinality(self, j: int, level: int) -> int:
        """Number of labels of QI j at ``level``."""
        return len(self.level_labels[j][level])

    def row_labels(self, node: Sequence[int]) -> dict[str, np.ndarray]:
        """Row-aligned labels of every QI under ``node``."""
        return {
            col: self.level_labels[j][level][self.level_codes[j][level][self.row_codes[:, j]]]
            for j, (col, level) in enumerate(zip(self.columns, node))
        }


def encode(frame: pd.DataFrame, hierarchies: Mapping[str, Hierarchy]) -> EncodedQI:
    """Code the columns ``hierarchies`` names at every level.

    Raises
    ------
    DataError
        If a hierarchy does not nest (a label at some level maps to two labels one level up).
    """
    columns = tuple(hierarchies)
    n = len(frame)
    row_codes = np.zeros((n, len(columns)), dtype=np.int64)
    level_codes: list[list[np.ndarray]] = []
    level_labels: list[list[np.ndarray]] = []
    for j, col in enumerate(columns):
        codes, uniques = pd.factorize(frame[col].astype(object), use_na_sentinel=False)
        row_codes[:, j] = codes
        uniques = np.asarray(uniques, dtype=object)
        hierarchy = hierarchies[col]
        col_codes = [np.arange(len(uniques), dtype=np.int64)]
        col_labels = [np.array([value_label(v) for v in uniques], dtype=object)]
        for level in range(1, hierarchy.n_levels):
            lab_codes, labs = pd.factorize(
                pd.Series(hierarchy.generalise(uniques, level), dtype=object), use_na_sentinel=False
            )
            _check_nested(col, level, col_codes[-1], lab_codes)
            col_codes.append(lab_codes.astype(np.int64))
            col_labels.append(np.asarray(labs, dtype=object))
        level_codes.append(col_codes)
        level_labels.append(col_labels)
    key = _combine(row_codes, [len(c[0]) for c in level_labels])
    row_combo, _ = pd.factorize(key)
    row_combo = row_combo.astype(np.int64)
    weights = np.bincount(row_combo) if n else np.zeros(0, dtype=np.int64)
    first = np.zeros(len(weights), dtype=np.int64)
    first[row_combo] = np.arange(n)  # any row of a combination: they share their codes
    return EncodedQI(
        columns, tuple(hierarchies[c] for c in columns), row_codes, level_codes, level_labels,
        row_codes[first], weights.astype(np.int64), row_combo,
    )  # fmt: skip


def distinct_levels(cardinalities: Sequence[int]) -> np.ndarray:
    """The levels whose partition differs from the level below (level 0 always kept).

    Hierarchies nest (:func:`encode` checks it), so a level with as many labels as the one
    below partitions the values identically.
    """
    keep = [0] + [lvl for lvl in range(1, len(cardinalities)) if cardinalities[lvl] != cardinalities[lvl - 1]]
    return np.asarray(keep, dtype=np.int64)


def _check_nested(col: str, level: int, below: np.ndarray, above: np.ndarray) -> None:
    pairs = np.unique(np.stack([below, above], axis=1), axis=0) if len(below) else np.zeros((0, 2))
    if len(pairs) != len(np.unique(below)):
        raise DataError(
            f"hierarchy of column {col!r} does not nest: a level-{level - 1} label maps to several "
            f"level-{level} labels"
        )


def _combine(codes: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """One int64 key per row of ``codes`` (mixed radix; re-factorised before it could overflow)."""
    key = np.zeros(codes.shape[0], dtype=np.int64)
    radix = 1
    for j, card in enumerate(cards):
        card = max(int(card), 1)
        if radix * card >= 2**62:
            key = pd.factorize(key)[0].astype(np.int64)
            radix = int(key.max()) + 1 if len(key) else 1
        key = key + codes[:, j] * radix
        radix *= card
    return key


# ====================================================================== nodes
@dataclass(frozen=True)
class NodeStats:
    """Evaluation of one lattice node.

    Attributes
    ----------
    node : tuple of int
        The node in the coordinates of the lattice that evaluated it.
    levels : tuple of int
        Its hierarchy level per QI (equal to ``node`` unless the lattice collapses levels).
    n_suppressed : int
        Rows in classes smaller than k.
    anonymous : bool
        ``n_suppressed <= suppression_limit · n``.
    n_classes : int
        Classes of size >= k (the released ones).
    achieved_k : int or None
        Smallest released class (None when every row is suppressed).
    entropy, discernibility, precision : float
        Information loss (:mod:`generators.kanon.equivalence`).
    """

    node: Node
    levels: Node
    n_suppressed: int
    anonymous: bool
    n_classes: int
    achieved_k: int | None
    entropy: float
    discernibility: float
    precision: float

    @property
    def height(self) -> int:
        """Total generalisation level (in the hierarchies)."""
        return int(sum(self.levels))

    def loss(self, measure: str) -> float:
        """The information loss ``measure`` (one of ``LOSSES``)."""
        return float(getattr(self, measure))

    def to_dict(self, columns: Sequence[str]) -> dict[str, Any]:
        """JSON-able summary."""
        return {
            "levels": dict(zip(columns, map(int, self.levels))),
            "height": self.height,
            "n_suppressed": self.n_suppressed,
            "n_classes": self.n_classes,
            "achieved_k": self.achieved_k,
            "entropy": self.entropy,
            "discernibility": self.discernibility,
            "precision": self.precision,
        }


@dataclass
class Lattice:
    """The generalisation lattice of an :class:`EncodedQI` for a given k and suppression limit.

    Node evaluations are cached; ``n_evaluated`` counts them. With ``collapse`` a node indexes
    each QI's distinct partitions (module docstring); :meth:`levels_of` gives its hierarchy
    levels.
    """

    encoded: EncodedQI
    k: int
    suppression_limit: float
    collapse: bool = False
    n_evaluated: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        enc = self.encoded
        self.level_map: list[np.ndarray] = [
            distinct_levels([enc.cardinality(j, lvl) for lvl in range(h + 1)])
            if self.collapse
            else np.arange(h + 1, dtype=np.int64)
            for j, h in enumerate(enc.heights)
        ]
        self.full_size = int(np.prod([h + 1 for h in enc.heights], dtype=np.float64))
        shape = tuple(len(levels) for levels in self.level_map)
        size = int(np.prod(shape, dtype=np.float64))
        if size > MAX_LATTICE_NODES:
            raise InfeasibleConfigError(
                f"the generalisation lattice has {size} nodes (levels {shape}); at most "
                f"{MAX_LATTICE_NODES} are supported: use fewer QIs or coarser hierarchies, or mondrian"
            )
        self.shape = shape
        self.strides = np.array([int(np.prod(shape[j + 1 :])) for j in range(len(shape))], dtype=np.int64)
        self.max_suppressed = int(np.floor(self.suppression_limit * self.encoded.n + 1e-9))
        self._cache: dict[Node, NodeStats] = {}
        self._anonymous: dict[Node, bool] = {}
        # level-l code of every distinct combination, per QI (gathered once)
        self._combo_codes = [
            [np.ascontiguousarray(codes[enc.combos[:, j]]) for codes in enc.level_codes[j]]
            for j in range(len(shape))
        ]

    @functools.cached_property
    def nodes(self) -> np.ndarray:
        """Every node (rows, in :meth:`index` order); built on first use."""
        return np.indices(self.shape).reshape(len(self.shape), -1).T.astype(np.int64)

    @functools.cached_property
    def level_sum(self) -> np.ndarray:
        """Total level of every row of :attr:`nodes`."""
        return self.nodes.sum(axis=1)

    @property
    def size(self) -> int:
        """Number of nodes."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def bottom(self) -> Node:
        """The least generalised node."""
        return tuple(0 for _ in self.shape)

    @property
    def top(self) -> Node:
        """The most generalised node."""
        return tuple(s - 1 for s in self.shape)

    def levels_of(self, node: Sequence[int]) -> Node:
        """The hierarchy level of every QI at ``node``."""
        return tuple(int(self.level_map[j][v]) for j, v in enumerate(node))

    def index(self, node: Sequence[int]) -> int:
        """Position of ``node`` in :attr:`nodes`."""
        return int(np.dot(np.asarray(node, dtype=np.int64), self.strides))

    def classes(self, node: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Class id of every distinct combination under ``node`` and the size of every class id
        (ids may be unused, with size 0)."""
        enc = self.encoded
        m = len(enc.weights)
        key = np.zeros(m, dtype=np.int64)
        radix = 1
        for j, lvl in enumerate(self.levels_of(node)):
            card = max(enc.cardinality(j, lvl), 1)
            if radix * card >= 2**62:
                key = pd.factorize(key)[0].astype(np.int64)
                radix = int(key.max()) + 1 if m else 1
            key += self._combo_codes[j][lvl] * radix
            radix *= card
        if radix > max(4 * m, 1 << 16):  # sparse key space: hash the keys first
            key = pd.factorize(key)[0].astype(np.int64)
            radix = int(key.max()) + 1 if m else 0
        sizes = np.bincount(key, weights=enc.weights, minlength=radix).astype(np.int64)
        return key, sizes

    def stats(self, node: Sequence[int]) -> NodeStats:
        """Evaluate ``node`` (cached)."""
        key = tuple(int(v) for v in node)
        if key in self._cache:
            return self._cache[key]
        if key not in self._anonymous:
            self.n_evaluated += 1
        enc = self.encoded
        n = enc.n
        cls, sizes = self.classes(key)
        combo_size = sizes[cls]
        small = combo_size < self.k
        n_sup = int(enc.weights[small].sum())
        released = sizes[sizes >= self.k]
        after = np.where(small, n, combo_size).astype(float)
        weights = enc.weights.astype(float)
        entropy = float(np.sum(weights * np.log2(after / weights)) / n) if n else 0.0
        discern = float((np.sum(released.astype(float) ** 2) + n_sup * float(n)) / n) if n else 0.0
        share = n_sup / n if n else 0.0
        heights = np.array(enc.heights, dtype=float)
        hierarchy_levels = self.levels_of(key)
        levels = np.array(hierarchy_levels, dtype=float)
        fractions = np.divide(levels, heights, out=np.zeros_like(levels), where=heights > 0)
        precision = float((1 - share) * fractions.mean() + share) if len(key) else share
        result = NodeStats(
            key, hierarchy_levels, n_sup, n_sup <= self.max_suppressed, int(len(released)),
            int(released.min()) if len(released) else None, entropy, discern, precision,
        )  # fmt: skip
        self._cache[key] = result
        return result

    def is_anonymous(self, node: Sequence[int]) -> bool:
        """k-anonymous within the suppression limit (cached; only the suppressed rows are
        counted, the information losses wait for :meth:`stats`)."""
        key = tuple(int(v) for v in node)
        known = self._cache.get(key)
        if known is not None:
            return known.anonymous
        anonymous = self._anonymous.get(key)
        if anonymous is None:
            self.n_evaluated += 1
            cls, sizes = self.classes(key)
            small = sizes[cls] < self.k
            anonymous = int(self.encoded.weights[small].sum()) <= self.max_suppressed
            self._anonymous[key] = anonymous
        return anonymous

    def successors_mask(self, node: Sequence[int]) -> np.ndarray:
        """Nodes at least as general as ``node`` in every QI."""
        return np.all(self.nodes >= np.asarray(node), axis=1)

    def predecessors_mask(self, node: Sequence[int]) -> np.ndarray:
        """Nodes at most as general as ``node`` in every QI."""
        return np.all(self.nodes <= np.asarray(node), axis=1)


# ====================================================================== search
def ola_search(lattice: Lattice) -> list[Node]:
    """The k-minimal nodes found by OLA (El Emam et al. 2009), sorted.

    Raises
    ------
    InfeasibleConfigError
        If even the top node (everything ``*``) is not anonymous within the limit.
    """
    require_feasible(lattice)
    tags = np.zeros(len(lattice.nodes), dtype=np.int8)  # 1 anonymous, -1 not, 0 unknown
    k_minimal: list[Node] = []
    strides = [int(s) for s in lattice.strides]
    by_level = [np.flatnonzero(lattice.level_sum == h) for h in range(int(lattice.level_sum.max()) + 1)]

    def tag_of(node: Node) -> int:
        return int(tags[sum(v * s for v, s in zip(node, strides))])

    def anonymous(node: Node) -> bool:
        tag = tag_of(node)
        if tag != 0:
            return bool(tag > 0)
        if lattice.is_anonymous(node):
            tags[lattice.successors_mask(node)] = 1
            return True
        tags[lattice.predecessors_mask(node)] = -1
        return False

    def add(node: Node) -> None:
        if any(all(a <= b for a, b in zip(m, node)) for m in k_minimal):
            return
        k_minimal[:] = [m for m in k_minimal if not all(a <= b for a, b in zip(node, m))]
        k_minimal.append(node)

    visited: set[tuple[Node, Node]] = set()

    def kmin(bottom: Node, top: Node) -> None:
        # The recursion branches only on (truthful) anonymity, so a sub-lattice searched once
        # yields nothing new a second time; skipping repeats keeps OLA from going exponential.
        if (bottom, top) in visited:
            return
        visited.add((bottom, top))
        if tag_of(bottom) > 0:  # an anonymous bottom is the sub-lattice's only k-minimal node
            add(bottom)
            return
        height = sum(top) - sum(bottom)
        if height > 1:
            at_level = by_level[sum(bottom) + height // 2]
            nodes = lattice.nodes[at_level]
            inside = np.all(nodes >= np.asarray(bottom), axis=1) & np.all(nodes <= np.asarray(top), axis=1)
            for row in nodes[inside].tolist():
                node = tuple(row)
                if anonymous(node):
                    kmin(bottom, node)
                else:
                    kmin(node, top)
        else:  # bottom and top are equal or adjacent; top is anonymous
            add(bottom if anonymous(bottom) else top)

    if lattice.is_anonymous(lattice.bottom):
        return [lattice.bottom]
    kmin(lattice.bottom, lattice.top)
    return sorted(k_minimal)


def minimal_anonymous(lattice: Lattice, members: np.ndarray, anonymous: np.ndarray) -> list[Node]:
    """The anonymous nodes among ``members`` (indices) with no anonymous direct predecessor
    among ``members``; ``anonymous`` is a mask over all nodes."""
    inside = np.zeros(len(lattice.nodes), dtype=bool)
    inside[members] = True
    candidate = inside & anonymous
    minimal = candidate.copy()
    for j, stride in enumerate(lattice.strides):
        has_pred = lattice.nodes[:, j] > 0
        pred = np.zeros_like(minimal)
        pred[has_pred] = candidate[np.flatnonzero(has_pred) - stride]
        minimal &= ~pred
    return [tuple(int(v) for v in lattice.nodes[i]) for i in np.flatnonzero(minimal)]


def exhaustive_search(lattice: Lattice) -> list[Node]:
    """The k-minimal nodes by evaluating every node, sorted.

    Raises
    ------
    InfeasibleConfigError
        If no node is anonymous within the limit.
    """
    require_feasible(lattice)
    anonymous = np.array([lattice.is_anonymous(tuple(map(int, node))) for node in lattice.nodes], dtype=bool)
    return sorted(minimal_anonymous(lattice, np.arange(len(lattice.nodes)), anonymous))


def rank_nodes(lattice: Lattice, nodes: Sequence[Node], loss: str) -> list[NodeStats]:
    """``nodes`` evaluated and sorted by ``loss``, then lower total height, then the hierarchy levels."""
    if loss not in LOSSES:
        raise ValueError(f"`loss` must be one of {', '.join(LOSSES)}; got {loss!r}")
    stats = [lattice.stats(node) for node in nodes]
    return sorted(stats, key=lambda s: (s.loss(loss), s.height, s.levels))


def require_feasible(lattice: Lattice) -> None:
    top = lattice.stats(lattice.top)
    if not top.anonymous:
        raise InfeasibleConfigError(
            f"no generalisation is {lattice.k}-anonymous within suppression_limit="
            f"{lattice.suppression_limit}: even the fully generalised table has {top.n_suppressed} of "
            f"{lattice.encoded.n} rows in classes smaller than k"
        )
