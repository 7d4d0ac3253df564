"""The threshold search and the collapsed lattice (``generators.kanon.threshold_search``,
``Lattice(collapse=True)``) find exactly what the exhaustive search of the full lattice finds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from generators.kanon.fulldomain import KAnonFullDomain
from generators.kanon.hierarchies import Hierarchy, IntervalHierarchy, column_hierarchy
from generators.kanon.lattice import (
    Lattice,
    distinct_levels,
    encode,
    exhaustive_search,
    ola_search,
    rank_nodes,
)
from generators.kanon.search import MEMO_NAMESPACE, find_k_minimal
from generators.kanon.threshold_search import threshold_search
from harness import memo
from harness.datasets import load_dataset, load_spec
from harness.errors import InfeasibleConfigError
from tests.unit.test_kanon_lattice import random_table, toy_lattice


def redundant_table(seed: int, n: int = 300) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """``random_table`` plus two numeric QIs with few values under deep doubling hierarchies,
    so several of their levels partition the data like the level below."""
    frame, hierarchies = random_table(seed, n)
    rng = np.random.default_rng(100 + seed)
    frame["e"] = rng.integers(0, 5, size=n)  # widths 1, 2, 4, ...: level 1 repeats level 0
    frame["f"] = rng.choice([0, 1, 40, 41], size=n)  # widths 2..32 keep {0,1} {40,41} apart
    hierarchies["e"] = IntervalHierarchy.doubling(1, 0, 15)
    hierarchies["f"] = IntervalHierarchy([2, 4, 8, 16, 32, 64])
    return frame, hierarchies


def test_distinct_levels_keeps_the_first_of_each_partition() -> None:
    assert distinct_levels([5, 5, 3, 3, 3, 1]).tolist() == [0, 2, 5]
    assert distinct_levels([1]).tolist() == [0]


def test_toy_lattice_matches_the_hand_checked_nodes() -> None:
    """The 10-row table of ``test_kanon_lattice``: k = 2 without suppression gives (0,1) and (1,0)."""
    assert threshold_search(toy_lattice(k=2, limit=0.0)) == [(0, 1), (1, 0)]
    assert threshold_search(toy_lattice(k=10, limit=0.0)) == [(2, 2)]
    with pytest.raises(InfeasibleConfigError, match="even the fully generalised table"):
        threshold_search(toy_lattice(k=11, limit=0.0))


@pytest.mark.parametrize(("seed", "k", "limit"), [(0, 2, 0.0), (0, 5, 0.1), (1, 3, 0.02), (1, 10, 0.0)])
def test_collapsed_threshold_search_equals_exhaustive_search_of_the_full_lattice(
    seed: int, k: int, limit: float
) -> None:
    frame, hierarchies = redundant_table(seed)
    encoded = encode(frame, hierarchies)
    full = Lattice(encoded, k, limit)
    collapsed = Lattice(encoded, k, limit, collapse=True)
    assert collapsed.size < full.size == collapsed.full_size
    expected = exhaustive_search(full)
    found = threshold_search(collapsed)
    assert sorted(collapsed.levels_of(node) for node in found) == expected
    assert threshold_search(Lattice(encoded, k, limit)) == expected  # uncollapsed too
    assert (
        sorted(collapsed.levels_of(n) for n in ola_search(Lattice(encoded, k, limit, collapse=True)))
        == expected
    )
    assert collapsed.n_evaluated < collapsed.size
    for loss in ("entropy", "discernibility", "precision"):
        ranked = rank_nodes(collapsed, found, loss)
        reference = rank_nodes(full, expected, loss)
        assert [s.levels for s in ranked] == [s.node for s in reference]
        assert [s.loss(loss) for s in ranked] == pytest.approx([s.loss(loss) for s in reference])
        assert [s.to_dict(list(hierarchies)) for s in ranked] == [
            s.to_dict(list(hierarchies)) for s in reference
        ]


def test_threshold_search_equals_exhaustive_on_adult() -> None:
    spec = load_spec("adult")
    frame = load_dataset(spec).frame
    sample = frame.iloc[np.random.default_rng(1).choice(len(frame), 3000, replace=False)].reset_index(
        drop=True
    )
    encoded = encode(sample, {c: column_hierarchy(spec, c, sample[c]) for c in spec.qi})
    for k, limit in ((5, 0.01), (10, 0.0), (50, 0.05)):
        lattice = Lattice(encoded, k, limit, collapse=True)
        found = [lattice.levels_of(node) for node in threshold_search(lattice)]
        assert found == exhaustive_search(Lattice(encoded, k, limit))


def test_a_nine_qi_census_lattice_certificate() -> None:
    """ds43 (7,970 census rows) with its 9-QI set qi1, k = 3 within 5 % suppression, as in the
    PrivateSMOTE protocol: 2,097,152 nodes in full, 129,024 collapsed (too many for the
    exhaustive search in a test). Certificate: every node found is anonymous and none of its
    direct predecessors is; 400 random nodes are anonymous exactly when one found node is
    below them."""
    spec = load_spec("ds43")
    frame = load_dataset(spec).frame
    qi = list(spec.qi_sets["qi1"])
    encoded = encode(frame, {c: column_hierarchy(spec, c, frame[c]) for c in qi})
    lattice = Lattice(encoded, 3, 0.05, collapse=True)
    assert (lattice.full_size, lattice.size) == (2_097_152, 129_024)
    found = threshold_search(lattice)
    assert len(found) > 100
    for node in found:
        assert lattice.is_anonymous(node)
        for j in range(len(node)):
            if node[j] > 0:
                assert not lattice.is_anonymous(node[:j] + (node[j] - 1,) + node[j + 1 :])
    minimal = np.array(found)
    rng = np.random.default_rng(0)
    for _ in range(400):
        node = tuple(int(rng.integers(0, s)) for s in lattice.shape)
        assert lattice.is_anonymous(node) == bool(np.all(minimal <= np.array(node), axis=1).any())


def test_release_equals_the_exhaustive_search_release(tmp_path: Path) -> None:
    """kanon_fulldomain with the default search releases what the exhaustive search releases,
    top_n 1..3, on an Adult sample; the second and third trials take the search from the memo."""
    spec = load_spec("adult")
    frame = load_dataset(spec).frame.iloc[:4000].reset_index(drop=True)
    memo.configure(tmp_path)
    try:
        for top_n in (1, 2, 3):
            fast = KAnonFullDomain(k=5, suppression_limit=0.02, top_n=top_n).fit(frame, spec, seed=0)
            full = KAnonFullDomain(k=5, suppression_limit=0.02, top_n=top_n, search="exhaustive")
            full.fit(frame, spec, seed=0)
            pd.testing.assert_frame_equal(fast.sample(), full.sample())
            assert fast.details()["node"] == full.details()["node"]
            assert fast.details()["k_minimal_source"] == ("computed" if top_n == 1 else "memo")
        assert len(list((tmp_path / "memo" / MEMO_NAMESPACE).rglob("*.json"))) == 2  # threshold + exhaustive
    finally:
        memo.configure(None)


def test_memo_is_keyed_by_the_lattice(tmp_path: Path) -> None:
    """Another k, suppression limit or table is another search; a corrupt entry is recomputed."""
    frame, hierarchies = redundant_table(0)
    encoded = encode(frame, hierarchies)
    memo.configure(tmp_path)
    try:
        assert find_k_minimal(Lattice(encoded, 3, 0.02, collapse=True), "threshold")[1] == "computed"
        assert find_k_minimal(Lattice(encoded, 3, 0.02, collapse=True), "threshold")[1] == "memo"
        assert find_k_minimal(Lattice(encoded, 4, 0.02, collapse=True), "threshold")[1] == "computed"
        assert find_k_minimal(Lattice(encoded, 3, 0.05, collapse=True), "threshold")[1] == "computed"
        other = encode(frame.iloc[1:].reset_index(drop=True), hierarchies)
        assert find_k_minimal(Lattice(other, 3, 0.02, collapse=True), "threshold")[1] == "computed"
        for entry in (tmp_path / "memo" / MEMO_NAMESPACE).rglob("*.json"):
            entry.write_text('{"k_minimal": [[99]]}')
        nodes, source = find_k_minimal(Lattice(encoded, 3, 0.02, collapse=True), "threshold")
        assert source == "computed" and nodes == threshold_search(Lattice(encoded, 3, 0.02, collapse=True))
    finally:
        memo.configure(None)
