"""Closed forms of the isolation baseline (``metrics/privacy/isolation.py``; ``004_…`` *From
Isolation to Identification* §3–4) against hand-computed values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from harness.errors import ConfigError
from metrics.privacy.isolation import (
    expected_isolations,
    guesses_for_share,
    isolation_probability,
    max_isolation_probability,
    population_unique_probability,
)

NOT_AN_INT: Any = 2.5


def test_eq1_by_hand() -> None:
    # n = 5, p = 0.2: 5 · 0.2 · 0.8^4 = 0.4096; p = 0.5: 5 · 0.5 · 0.5^4 = 0.15625
    assert isolation_probability([0.2, 0.5, 0.0, 1.0], 5) == pytest.approx(
        [0.4096, 0.15625, 0.0, 0.0], abs=1e-15
    )
    # n = 2, p = 0.25: 2 · 0.25 · 0.75 = 0.375
    assert isolation_probability(0.25, 2) == pytest.approx(0.375, abs=1e-15)
    # one row: a predicate isolates exactly when it matches it
    assert isolation_probability([0.0, 0.3, 1.0], 1) == pytest.approx([0.0, 0.3, 1.0])


def test_theorem_1_maximum() -> None:
    assert max_isolation_probability(5) == pytest.approx(0.4096, abs=1e-15)
    assert max_isolation_probability(2) == pytest.approx(0.5)
    assert max_isolation_probability(1) == 1.0
    assert max_isolation_probability(10**6) == pytest.approx(1 / math.e, abs=1e-6)
    grid = np.linspace(0, 1, 2001)
    assert isolation_probability(grid, 5).max() == pytest.approx(0.4096, abs=1e-12)  # at p = 0.2


def test_expected_isolations_fig_1() -> None:
    # n = 5: k · 0.4096 for k <= 5; k = 10: 5 · 0.9^4 = 3.2805; 20: 5 · 0.95^4 = 4.07253; 100: 5 · 0.99^4
    got = expected_isolations([1, 3, 5, 10, 20, 100], 5)
    want = [0.4096, 1.2288, 2.048, 3.2805, 4.07253125, 4.80298005]
    assert got == pytest.approx(want, abs=1e-12)
    assert np.all(np.diff(expected_isolations(np.arange(1, 500), 5)) > 0)  # grows towards n
    assert expected_isolations(10**6, 5) == pytest.approx(5.0, abs=1e-4)


def test_guesses_for_share() -> None:
    assert guesses_for_share(0.95, 1) == pytest.approx(1 / math.log(1 / 0.95))  # 19.50
    assert guesses_for_share(0.99, 100) == pytest.approx(9949.9, abs=0.1)
    # the k it gives isolates about share·n in expectation (large n)
    n = 10_000
    k = int(round(guesses_for_share(0.95, n)))
    assert expected_isolations(k, n) / n == pytest.approx(0.95, abs=1e-3)


def test_population_uniqueness() -> None:
    assert population_unique_probability(0.1, 2) == pytest.approx(0.81)
    assert population_unique_probability([0.0, 1.0], 0) == pytest.approx([1.0, 1.0])
    assert population_unique_probability(1.0, 3) == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: isolation_probability(0.5, 0), r"`n` \(rows of the table\) must be an integer >= 1; got 0"),
        (lambda: isolation_probability(0.5, NOT_AN_INT), r"`n` .* got 2\.5"),
        (lambda: isolation_probability([0.5, 1.5], 3), r"`p` \(predicate masses\) must lie in \[0, 1\]"),
        (lambda: expected_isolations([0, 2], 3), r"`k` \(number of guesses\) must be integers >= 1"),
        (lambda: expected_isolations(2.0, 3), r"`k` \(number of guesses\) must be integers >= 1"),
        (lambda: guesses_for_share(1.0, 3), r"`share` must lie in \(0, 1\); got 1\.0"),
        (lambda: population_unique_probability(0.5, -1), r"`outside` .* got -1"),
    ],
)
def test_bad_input_is_one_line(call: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        call()  # type: ignore[operator]
    assert "\n" not in str(info.value)
