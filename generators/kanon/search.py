"""Choosing and memoising the k-minimal-node search of a full-domain lattice (§6.2).

Three searches find the same set of k-minimal nodes (tests check it): ``threshold``
(:mod:`generators.kanon.threshold_search`, the default: evaluations grow with the anonymity
boundary), ``ola`` (El Emam et al.'s OLA, :func:`generators.kanon.lattice.ola_search`) and
``exhaustive`` (every node; small lattices). The set depends only on the lattice's classes, k
and the suppression limit, so trials that differ in what they do with it (``top_n``: the
n-th best node, ``loss``: the ranking) share one search through the cross-trial memo
(:mod:`harness.memo`, namespace ``kanon_lattice``), keyed by the digest of the encoded QI
combinations and level codes, k, the limit, the search and the lattice's coordinates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from generators.kanon.lattice import Lattice, Node, exhaustive_search, ola_search
from generators.kanon.threshold_search import threshold_search
from harness.memo import memo

SEARCH_FUNCTIONS: dict[str, Callable[[Lattice], list[Node]]] = {
    "threshold": threshold_search,
    "ola": ola_search,
    "exhaustive": exhaustive_search,
}
SEARCHES: tuple[str, ...] = tuple(SEARCH_FUNCTIONS)
MEMO_NAMESPACE = "kanon_lattice"
"""Namespace of the k-minimal node sets in the cross-trial memo."""
SEARCH_CODE_VERSION = "k-minimal-v1"
"""Part of every memo key: bump it when the lattice's coordinates or the searches change."""


def lattice_digest(lattice: Lattice) -> str:
    """SHA-256 over everything anonymity depends on: the distinct QI combinations, their row
    counts and every QI's level codes (the hierarchies as they act on the data)."""
    enc = lattice.encoded
    digest = hashlib.sha256()
    for array in (enc.combos, enc.weights, *(codes for column in enc.level_codes for codes in column)):
        contiguous = np.ascontiguousarray(array, dtype=np.int64)
        digest.update(str(contiguous.shape).encode())
        digest.update(contiguous.tobytes())
    return digest.hexdigest()


def find_k_minimal(lattice: Lattice, search: str) -> tuple[list[Node], str]:
    """The k-minimal nodes of ``lattice`` (its coordinates), sorted, and where they came from.

    Returns
    -------
    (list of Node, str)
        The nodes and ``computed`` (searched now; stored when the memo is enabled) or ``memo``
        (an earlier trial's search of the same lattice).

    Raises
    ------
    InfeasibleConfigError
        If even the top node is not anonymous within the limit (never memoised).
    """
    store = memo(MEMO_NAMESPACE)
    payload = {
        "code": SEARCH_CODE_VERSION,
        "lattice": lattice_digest(lattice) if store.enabled else "",
        "shape": list(lattice.shape),
        "collapse": lattice.collapse,
        "k": int(lattice.k),
        "max_suppressed": int(lattice.max_suppressed),
        "search": search,
    }
    hit = store.get_json(payload)  # None when the memo is disabled
    if isinstance(hit, dict) and _valid(hit.get("k_minimal"), lattice.shape):
        return [tuple(int(v) for v in node) for node in hit["k_minimal"]], "memo"
    found = SEARCH_FUNCTIONS[search](lattice)
    store.put_json(payload, {"k_minimal": [list(node) for node in found]})
    return found, "computed"


def _valid(nodes: object, shape: tuple[int, ...]) -> bool:
    """A memo entry is a non-empty list of in-range nodes (a guard: the key implies it)."""
    return (
        isinstance(nodes, list)
        and len(nodes) > 0
        and all(
            isinstance(node, list)
            and len(node) == len(shape)
            and all(isinstance(v, int) and 0 <= v < s for v, s in zip(node, shape))
            for node in nodes
        )
    )
