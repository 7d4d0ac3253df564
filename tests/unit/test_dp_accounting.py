"""ε accounting of PrivBayes (``generators/dp_accounting.py``): sensitivities, calibrated scales, spent ε.

The sensitivity bounds are checked by brute force on small random tables; the fitted generator is
run with a recording RNG, so the Laplace scales and the exponential-mechanism probabilities it
actually draws with are compared with the calibrated ones computed here from the formulas.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

from generators.dp_accounting import PrivBayesBudget, StructureCalibration, count_scaled_mi_sensitivity
from generators.privbayes import DataSynthesizerGenerator, PrivBayes
from harness.spec import DatasetSpec
from tests.unit.test_privbayes import SPEC, make_table

N = 400
EPS = 1.0


def lemma_1(n: int, binary: bool) -> float:
    """PrivBayes Lemma 1, written out independently of the module."""
    if binary:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return 2 / n * math.log((n + 1) / 2) + (n - 1) / n * math.log((n + 1) / (n - 1))


def mutual_info(x: np.ndarray, y: np.ndarray) -> float:
    """Mutual information (nats) of two code vectors (plain numpy; sklearn's is 100x slower here)."""
    pairs, counts = np.unique(np.column_stack([x, y]), axis=0, return_counts=True)
    n = len(x)
    px = np.bincount(x)[pairs[:, 0]] / n
    py = np.bincount(y)[pairs[:, 1]] / n
    pxy = counts / n
    return max(float(np.sum(pxy * np.log(pxy / (px * py)))), 0.0)


def g(m: int) -> float:
    return (m + 1) * math.log(m + 1) - (m * math.log(m) if m else 0.0)


def random_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, int]:
    n = int(rng.integers(2, 25))
    kx, ky = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    cells = rng.choice(kx * ky, size=n, p=rng.dirichlet(np.full(kx * ky, 0.3)))
    return cells % kx, cells // kx, kx, ky


# ---------------------------------------------------------------------- sensitivities
def test_lemma_1_bounds_every_replace_one_change() -> None:
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(3000):
        x, y, kx, ky = random_pair(rng)
        n = len(x)
        x2, y2 = x.copy(), y.copy()
        j = rng.integers(n)
        x2[j], y2[j] = rng.integers(kx), rng.integers(ky)
        change = abs(mutual_info(x2, y2) - mutual_info(x, y))
        worst = max(worst, change / lemma_1(n, kx <= 2 or ky <= 2))
    assert worst <= 1 + 1e-9


def test_mutual_info_helper_matches_sklearn() -> None:
    rng = np.random.default_rng(9)
    x, y = rng.integers(0, 4, 200), rng.integers(0, 3, 200)
    assert mutual_info(x, y) == pytest.approx(mutual_info_score(x, y), rel=1e-10)


def test_count_scaled_mi_bound_for_add_remove() -> None:
    # |(n + 1)·I(D + r) − n·I(D)| ≤ g(n): the add/remove sensitivity of the count-scaled score
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(3000):
        x, y, kx, ky = random_pair(rng)
        n = len(x)
        grown = mutual_info(np.append(x, rng.integers(kx)), np.append(y, rng.integers(ky)))
        worst = max(worst, abs((n + 1) * grown - n * mutual_info(x, y)) / count_scaled_mi_sensitivity(n))
    assert worst <= 1 + 1e-9
    assert count_scaled_mi_sensitivity(10) == pytest.approx(g(10))


@pytest.mark.parametrize("neighbours", ["replace_one", "add_remove"])
def test_one_draw_is_epsilon_dp_under_its_relation(neighbours: str) -> None:
    # d = 2: the whole structure budget is one draw; the privacy loss of every outcome between
    # neighbouring tables (exact probabilities) stays within the draw's ε.
    calibration = StructureCalibration(neighbours, "domain", round_scores=False)
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(600):
        cards = [int(rng.integers(2, 5)) for _ in range(4)]
        n = int(rng.integers(2, 20))
        table = np.column_stack([rng.integers(0, c, n) for c in cards])
        other = table.copy()
        record = np.array([rng.integers(0, c) for c in cards])
        if neighbours == "add_remove":
            other = np.vstack([table, record])
        else:
            other[rng.integers(n)] = record
        candidates: list[Any] = [(0, [1]), (0, [2]), (3, [1]), (2, [3]), (1, [2])]

        def probabilities(
            data: np.ndarray, candidates: list[Any] = candidates, cards: list[int] = cards
        ) -> np.ndarray:
            mi = np.array([mutual_info(data[:, c], data[:, p[0]]) for c, p in candidates])
            delta = calibration.deltas(len(data), 2, EPS, candidates, cards, [False] * 4)
            logits = mi / (2 * delta)
            weights = np.exp(logits - logits.max())
            return weights / weights.sum()

        worst = max(worst, float(np.abs(np.log(probabilities(table)) - np.log(probabilities(other))).max()))
    assert worst <= EPS + 1e-9


# ---------------------------------------------------------------------- budget arithmetic
def test_spent_epsilon_per_accounting() -> None:
    for neighbours in ("replace_one", "add_remove"):
        calibrated = PrivBayesBudget(2.0, neighbours, "calibrated", "correlated", 5)
        assert calibrated.spent == pytest.approx(2.0)
    library = PrivBayesBudget(2.0, "replace_one", "datasynthesizer", "correlated", 5)
    assert library.spent == pytest.approx(3.0)  # ε/2 structure + 2·(ε/2) counts
    assert library.count_scale(4) == pytest.approx(4 / 1.0)  # the library's (d − k)/ε₂
    single = PrivBayesBudget(2.0, "replace_one", "calibrated", "correlated", 1)
    assert single.structure_epsilon == 0 and single.spent == pytest.approx(2.0)
    assert PrivBayesBudget(2.0, "replace_one", "datasynthesizer", "independent", 5).spent == pytest.approx(
        2.0
    )


# ---------------------------------------------------------------------- the fitted generator
class RecordingRng:
    """Delegates to a numpy Generator, recording Laplace scales and choice probabilities."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self.laplace_scales: list[float] = []
        self.choices: list[np.ndarray] = []

    def laplace(self, loc: float, scale: float, size: Any = None) -> Any:
        self.laplace_scales.append(float(scale))
        return self._rng.laplace(loc, scale, size)

    def choice(self, a: Any, p: Any = None, **kwargs: Any) -> Any:
        self.choices.append(np.asarray(p, dtype=float))
        return self._rng.choice(a, p=p, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


class RecordedPrivBayes(PrivBayes):
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.rng_ = RecordingRng(self.rng_)  # type: ignore[assignment]
        super()._fit(train, control)


class RecordedDataSynthesizer(DataSynthesizerGenerator):
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.rng_ = RecordingRng(self.rng_)  # type: ignore[assignment]
        super()._fit(train, control)


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table(N, seed=3)


def expected_draws(gen: PrivBayes, train: pd.DataFrame, rounded: bool) -> list[np.ndarray]:
    """Exponential-mechanism probabilities of every step (k = 1), from the formulas."""
    names = [a.name for a in gen.attributes_]
    codes = np.column_stack([a.encode(train[a.name]) for a in gen.attributes_])
    cards = [a.card for a in gen.attributes_]
    observed_binary = [len(np.unique(codes[:, j])) <= 2 for j in range(len(names))]
    d, n = len(names), len(train)
    eps1 = EPS / 2
    done = [names.index(gen.root_)]
    out = []
    for child, _ in gen.network_:
        rest = [j for j in range(d) if j not in done]
        candidates = [(c, p) for c in rest for p in done]  # the library's order for k = 1
        mi = np.array([mutual_info(codes[:, c], codes[:, p]) for c, p in candidates])
        if rounded:
            mi = np.round(mi, 12)
        if gen.neighbours == "add_remove":
            big = max(min(cards[c], cards[p]) for c, p in candidates)
            delta = np.full(len(candidates), (d - 1) * (g(n) + math.log(big)) / (n * eps1))
        else:
            binary = observed_binary if gen.accounting == "datasynthesizer" else [c <= 2 for c in cards]
            delta = np.array([(d - 1) * lemma_1(n, binary[c] or binary[p]) / eps1 for c, p in candidates])
        logits = mi / (2 * delta)
        weights = np.exp(logits - logits.max())
        out.append(weights / weights.sum())
        done.append(names.index(child))
    return out


@pytest.mark.parametrize(
    ("neighbours", "accounting", "count_scale", "spent"),
    [
        ("replace_one", "calibrated", 2 * 4 / (EPS / 2), EPS),  # count sensitivity 2
        ("add_remove", "calibrated", 4 / (EPS / 2), EPS),  # count sensitivity 1
        ("replace_one", "datasynthesizer", 4 / (EPS / 2), 1.5 * EPS),  # the library's mis-calibration
    ],
)
def test_fit_draws_with_the_calibrated_scales(
    train: pd.DataFrame, neighbours: str, accounting: str, count_scale: float, spent: float
) -> None:
    gen = RecordedPrivBayes(epsilon=EPS, k=1, neighbours=neighbours, accounting=accounting)
    gen.fit(train, SPEC, seed=5)
    rng: RecordingRng = gen.rng_  # type: ignore[assignment]
    # d − k = 4 noisy count tables, each with the calibrated Laplace scale
    assert rng.laplace_scales == pytest.approx([count_scale] * 4, rel=1e-12)
    # d − 1 = 4 exponential-mechanism draws with the calibrated temperatures
    expected = expected_draws(gen, train, rounded=accounting == "datasynthesizer")
    assert len(rng.choices) == len(expected) == 4
    for got, want in zip(rng.choices, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15)
    formal = gen.info().formal_dp
    assert formal is not None
    assert formal["epsilon"] == pytest.approx(spent) and formal["neighbours"] == neighbours
    accounting_details = gen.details()["accounting"]
    assert accounting_details["epsilon_spent"] == pytest.approx(spent)
    assert accounting_details["conditionals"]["laplace_scale_counts"] == pytest.approx(count_scale)
    assert accounting_details["structure"]["epsilon"] == pytest.approx(EPS / 2)


@pytest.mark.parametrize(
    ("neighbours", "accounting", "sensitivity"),
    [
        ("replace_one", "calibrated", 2.0),
        ("add_remove", "calibrated", 1.0),
        ("replace_one", "datasynthesizer", 2.0),
    ],
)
def test_independent_mode_scales(
    train: pd.DataFrame, neighbours: str, accounting: str, sensitivity: float
) -> None:
    gen = RecordedDataSynthesizer(
        mode="independent", epsilon=EPS, neighbours=neighbours, accounting=accounting
    )
    gen.fit(train, SPEC, seed=0)
    rng: RecordingRng = gen.rng_  # type: ignore[assignment]
    # d histograms with ε/d each: Laplace sensitivity/n / (ε/d) on probabilities = sensitivity·d/ε on counts
    assert rng.laplace_scales == pytest.approx([(sensitivity / N) / (EPS / 5)] * 5, rel=1e-12)
    assert (gen.info().formal_dp or {})["epsilon"] == pytest.approx(EPS)


def test_single_column_gives_the_counts_the_whole_budget() -> None:
    spec = DatasetSpec.from_dict({"name": "one", "columns": {"colour": "categorical"}})
    frame = pd.DataFrame({"colour": np.array(["a", "b", "c"] * 20, dtype=object)})
    gen = RecordedPrivBayes(epsilon=EPS).fit(frame, spec, seed=0)
    assert gen.rng_.laplace_scales == pytest.approx([2 * 1 / EPS])  # type: ignore[attr-defined]
    assert (gen.info().formal_dp or {})["epsilon"] == pytest.approx(EPS)
