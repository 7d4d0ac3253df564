"""The k-minimal nodes of a full-domain lattice by divide and conquer on anonymity thresholds.

Anonymity (k-anonymous within the suppression limit) is monotone upward in the lattice
(:mod:`generators.kanon.lattice`). Fix one QI, the *searched* one ``d`` (the one with most
levels); for every combination ``x`` of the other QIs' levels the anonymous levels of ``d``
form a suffix, starting at the *threshold* ``t(x)`` (``t(x) = shape[d]`` when none is), and
``t`` is monotone non-increasing in ``x``. The k-minimal nodes are exactly the nodes
``(x, t(x))`` with ``t(x) < shape[d]`` and ``t(x − e_j) > t(x)`` for every other QI ``j``
with ``x_j > 0`` (a lower level of ``d`` is not anonymous by definition of ``t``; a lower level
of ``j`` is not anonymous iff its threshold is higher).

``t`` is found box by box: the thresholds at a box's lowest and highest corners bound every
threshold inside it (monotonicity), so a box whose two corners agree is filled without
evaluating anything inside it; otherwise it is halved along its longest side and both halves
are solved with the bounds narrowed to the corners' values. Each corner's threshold is a
bisection over the levels of ``d`` within those bounds. The evaluations grow with the size of
the anonymity boundary, not with the lattice: on ds43's QI set ``qi1`` (129,024 nodes once
equal levels are collapsed) OLA as implemented here did not finish in five minutes, whereas
this search evaluates a few thousand nodes. The result equals :func:`exhaustive_search`'s
(``tests/unit/test_kanon_threshold_search.py``).
"""

from __future__ import annotations

import numpy as np

from generators.kanon.lattice import Lattice, Node, require_feasible


def threshold_search(lattice: Lattice) -> list[Node]:
    """The k-minimal nodes of ``lattice``, sorted (the same set as OLA's and the exhaustive search's).

    Raises
    ------
    InfeasibleConfigError
        If even the top node (everything ``*``) is not anonymous within the limit.
    """
    require_feasible(lattice)
    shape = lattice.shape
    searched = int(np.argmax(shape))
    others = [j for j in range(len(shape)) if j != searched]
    thresholds = _thresholds(lattice, searched, others)
    return _minimal_nodes(thresholds, searched, shape[searched])


def _thresholds(lattice: Lattice, searched: int, others: list[int]) -> np.ndarray:
    """``t(x)`` for every combination ``x`` of the other QIs' levels."""
    levels = lattice.shape[searched]
    grid = tuple(lattice.shape[j] for j in others)
    thresholds = np.full(grid, -1, dtype=np.int64)

    def node(x: tuple[int, ...], level: int) -> Node:
        full = list(x)
        full.insert(searched, level)
        return tuple(full)

    def threshold(x: tuple[int, ...], low: int, high: int) -> int:
        # smallest level in [low, high] that is anonymous, ``levels`` standing for none;
        # the caller guarantees t(x) lies in [low, high]
        while low < high:
            middle = (low + high) // 2
            if lattice.is_anonymous(node(x, middle)):
                high = middle
            else:
                low = middle + 1
        return low

    stack: list[tuple[tuple[int, ...], tuple[int, ...], int, int]] = [
        (tuple(0 for _ in grid), tuple(s - 1 for s in grid), 0, levels)
    ]
    while stack:
        lowest, highest, floor, ceiling = stack.pop()
        at_lowest = threshold(lowest, floor, ceiling)  # the box's largest threshold
        at_highest = threshold(highest, floor, at_lowest)  # its smallest
        box = tuple(slice(a, b + 1) for a, b in zip(lowest, highest))
        if at_lowest == at_highest:
            thresholds[box] = at_lowest
            continue
        sides = np.subtract(highest, lowest)
        axis = int(np.argmax(sides))  # > 0: a one-node box has equal corners
        split = lowest[axis] + int(sides[axis]) // 2
        upper_of_first = highest[:axis] + (split,) + highest[axis + 1 :]
        lower_of_second = lowest[:axis] + (split + 1,) + lowest[axis + 1 :]
        stack.append((lowest, upper_of_first, at_highest, at_lowest))
        stack.append((lower_of_second, highest, at_highest, at_lowest))
    return thresholds


def _minimal_nodes(thresholds: np.ndarray, searched: int, levels: int) -> list[Node]:
    """The nodes ``(x, t(x))`` no other QI's lower level keeps anonymous, sorted."""
    minimal = thresholds < levels
    for axis in range(thresholds.ndim):
        below = np.take(thresholds, np.arange(thresholds.shape[axis] - 1), axis=axis)
        above = np.take(thresholds, np.arange(1, thresholds.shape[axis]), axis=axis)
        blocked = np.zeros_like(minimal)
        index = [slice(None)] * thresholds.ndim
        index[axis] = slice(1, None)
        blocked[tuple(index)] = below <= above  # x - e_axis is anonymous at level t(x)
        minimal &= ~blocked
    positions = np.argwhere(minimal)
    nodes = np.insert(positions, searched, thresholds[minimal], axis=1)
    return sorted(tuple(int(v) for v in row) for row in nodes)
