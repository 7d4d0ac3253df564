"""Full-domain lattice and OLA search (``spec/generators.md`` §6.2) on hand-checked and random data."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from generators.kanon.hierarchies import (
    FlatHierarchy,
    FrequencyHierarchy,
    Hierarchy,
    IntervalHierarchy,
    TableHierarchy,
    column_hierarchy,
)
from generators.kanon.lattice import Lattice, encode, exhaustive_search, ola_search, rank_nodes
from harness.datasets import load_dataset, load_spec
from harness.errors import InfeasibleConfigError
from harness.spec import DatasetSpec

# A 10-row table with two QIs and 2-level hierarchies (value -> group -> *).
AGES = [21, 21, 24, 24, 35, 35, 36, 36, 37, 37]
ZIPS = ["13053", "13068", "13053", "13068", "14850", "14850", "14853", "14853", "14850", "14853"]
AGE_TABLE = pd.DataFrame(
    {"level0": ["21", "24", "35", "36", "37"], "level1": ["20-29", "20-29", "30-39", "30-39", "30-39"],
     "level2": ["*"] * 5}
)  # fmt: skip
ZIP_TABLE = pd.DataFrame(
    {"level0": ["13053", "13068", "14850", "14853"], "level1": ["130**", "130**", "148**", "148**"],
     "level2": ["*"] * 4}
)  # fmt: skip


def toy_lattice(k: int, limit: float) -> Lattice:
    frame = pd.DataFrame({"age": AGES, "zip": ZIPS})
    encoded = encode(frame, {"age": TableHierarchy(AGE_TABLE), "zip": TableHierarchy(ZIP_TABLE)})
    return Lattice(encoded, k, limit)


def test_hand_checked_k_minimal_nodes_and_losses() -> None:
    """k = 2, no suppression. Bottom classes: (21,13053) (21,13068) (24,13053) (24,13068) (37,14850)
    (37,14853) of size 1, (35,14850) (36,14853) of size 2.

    * (1,0) age band, exact zip: classes 2, 2, 3, 3 -> anonymous.
    * (0,1) exact age, zip prefix: five classes of 2 -> anonymous.
    * (0,0) is not; (2,0) and (0,2) are anonymous but above (1,0) / (0,1): k-minimal = {(0,1), (1,0)}.

    Entropy (1/n) Σ log2(F_after / F_before):
    (1,0): rows 1-4: log2(2/1); 35/36 rows: log2(3/2) four times; 37 rows: log2(3/1) twice
           -> (4 + 4 log2 1.5 + 2 log2 3) / 10 = 0.95098
    (0,1): rows 1-4 and the two 37s: log2(2/1); 35/36 rows: log2(2/2) -> 6 / 10 = 0.6
    Discernibility (Σ|E|²)/n: (1,0): (4+4+9+9)/10 = 2.6; (0,1): 5·4/10 = 2.0.
    Precision (mean level/height): both 0.25, tie -> lower height (tie) -> node order: (0,1).
    """
    lattice = toy_lattice(k=2, limit=0.0)
    for search in (ola_search, exhaustive_search):
        assert search(lattice) == [(0, 1), (1, 0)]
    by_node = {s.node: s for s in rank_nodes(lattice, [(0, 1), (1, 0)], "entropy")}
    assert by_node[(1, 0)].entropy == pytest.approx((4 + 4 * math.log2(1.5) + 2 * math.log2(3)) / 10)
    assert by_node[(0, 1)].entropy == pytest.approx(0.6)
    assert by_node[(1, 0)].discernibility == pytest.approx(2.6)
    assert by_node[(0, 1)].discernibility == pytest.approx(2.0)
    assert by_node[(1, 0)].precision == by_node[(0, 1)].precision == pytest.approx(0.25)
    for loss in ("entropy", "discernibility", "precision"):
        assert rank_nodes(lattice, [(1, 0), (0, 1)], loss)[0].node == (0, 1)
    assert lattice.stats((0, 0)).n_suppressed == 6 and not lattice.stats((0, 0)).anonymous


def test_hand_checked_suppression_limit() -> None:
    """k = 3, at most 4 rows suppressed: (1,0) suppresses the four 20s rows (classes of 2) and is
    the only k-minimal node ((0,1) has every class of size 2; (1,1) is above (1,0)).
    Entropy: suppressed rows count log2(n / 1): (4 log2 10 + 4 log2 1.5 + 2 log2 3) / 10."""
    lattice = toy_lattice(k=3, limit=0.4)
    assert ola_search(lattice) == exhaustive_search(lattice) == [(1, 0)]
    stats = lattice.stats((1, 0))
    assert stats.n_suppressed == 4 and stats.achieved_k == 3 and stats.n_classes == 2
    assert stats.entropy == pytest.approx((4 * math.log2(10) + 4 * math.log2(1.5) + 2 * math.log2(3)) / 10)
    assert stats.discernibility == pytest.approx((9 + 9 + 4 * 10) / 10)
    assert stats.precision == pytest.approx(0.6 * 0.25 + 0.4)
    # one row fewer allowed: (1,0) fails, (1,1) (classes of 4 and 6) becomes k-minimal
    assert ola_search(toy_lattice(k=3, limit=0.3)) == [(1, 1)]


def test_infeasible_when_even_the_top_node_is_too_small() -> None:
    with pytest.raises(InfeasibleConfigError, match="no generalisation is 11-anonymous"):
        ola_search(toy_lattice(k=11, limit=0.0))
    assert ola_search(toy_lattice(k=10, limit=0.0)) == [(2, 2)]


def random_table(seed: int, n: int = 300) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 60, size=n),
            "b": rng.choice(list("pqrstuvw"), size=n, p=[0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05]),
            "c": rng.choice(np.array(["x", "y", "z", None], dtype=object), size=n),
            "d": rng.normal(50, 10, size=n).round(1),
        }
    )
    hierarchies: dict[str, Hierarchy] = {
        "a": IntervalHierarchy.doubling(5, 0, 59),
        "b": FrequencyHierarchy.from_values(frame["b"], [20, 40]),
        "c": FlatHierarchy(),
        "d": IntervalHierarchy([2, 4, 8, 16]),
    }
    return frame, hierarchies


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("k", "limit"), [(2, 0.0), (3, 0.02), (5, 0.1), (10, 0.0)])
def test_ola_agrees_with_exhaustive_search(seed: int, k: int, limit: float) -> None:
    frame, hierarchies = random_table(seed)
    encoded = encode(frame, hierarchies)
    ola = Lattice(encoded, k, limit)
    full = Lattice(encoded, k, limit)
    found = ola_search(ola)
    assert found == exhaustive_search(full)
    assert ola.n_evaluated < full.n_evaluated  # predictive tagging saves evaluations
    for loss in ("entropy", "discernibility", "precision"):
        assert rank_nodes(ola, found, loss)[0] == rank_nodes(full, found, loss)[0]


@pytest.fixture(scope="module")
def adult_sample() -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec("adult")
    frame = load_dataset(spec).frame
    rows = np.random.default_rng(0).choice(len(frame), size=2000, replace=False)
    return spec, frame.iloc[rows].reset_index(drop=True)


def test_ola_agrees_with_exhaustive_on_adult(adult_sample: tuple[DatasetSpec, pd.DataFrame]) -> None:
    spec, frame = adult_sample
    qi = spec.qi  # 7 QIs with ARX hierarchies: 2160 nodes
    encoded = encode(frame, {c: column_hierarchy(spec, c, frame[c]) for c in qi})
    for k, limit in ((5, 0.01), (10, 0.0)):
        assert ola_search(Lattice(encoded, k, limit)) == exhaustive_search(Lattice(encoded, k, limit))


def test_anonymity_and_losses_are_monotone_without_suppression(
    adult_sample: tuple[DatasetSpec, pd.DataFrame],
) -> None:
    """Generalising one QI by one level only merges classes: anonymity is kept, and where no
    row is suppressed (every node for k = 1; the anonymous nodes for k = 5 without
    suppression) entropy, discernibility and precision never decrease."""
    spec, frame = adult_sample
    qi = spec.with_active_qi("raab").qi  # age, occupation, race, sex: 5·3·2·2 = 60 nodes
    encoded = encode(frame, {c: column_hierarchy(spec, c, frame[c]) for c in qi})
    heights = encoded.heights
    for k in (1, 5):
        lattice = Lattice(encoded, k, 0.0)
        for node in itertools.product(*(range(h + 1) for h in heights)):
            here = lattice.stats(node)
            for j in range(len(node)):
                if node[j] == heights[j]:
                    continue
                up = lattice.stats(tuple(v + (i == j) for i, v in enumerate(node)))
                assert up.anonymous or not here.anonymous
                if here.anonymous:
                    assert here.n_suppressed == up.n_suppressed == 0
                    for loss in ("entropy", "discernibility", "precision"):
                        assert up.loss(loss) >= here.loss(loss) - 1e-12
        assert lattice.stats(lattice.top).anonymous
    lattice = Lattice(encoded, 1, 0.0)
    assert lattice.stats(lattice.bottom).entropy == 0 and lattice.stats(
        lattice.bottom
    ).discernibility == pytest.approx(float(np.sum(encoded.weights.astype(float) ** 2) / len(frame)))
    assert lattice.stats(lattice.top).entropy == pytest.approx(
        float(np.sum(encoded.weights * np.log2(len(frame) / encoded.weights)) / len(frame))
    )
    assert lattice.stats(lattice.top).discernibility == len(frame)
    assert lattice.stats(lattice.top).precision == 1.0


def test_suppression_is_monotone_upward(adult_sample: tuple[DatasetSpec, pd.DataFrame]) -> None:
    spec, frame = adult_sample
    qi = spec.with_active_qi("raab").qi
    encoded = encode(frame, {c: column_hierarchy(spec, c, frame[c]) for c in qi})
    lattice = Lattice(encoded, 5, 0.01)
    for node in map(tuple, lattice.nodes):
        for j in range(len(node)):
            if node[j] < encoded.heights[j]:
                up = tuple(int(v) + (i == j) for i, v in enumerate(node))
                assert lattice.stats(up).n_suppressed <= lattice.stats(node).n_suppressed
