"""Brown et al.'s minority-representation simulation (``spec/reproductions.md`` §10.1).

``004_…`` *Robin Hood*, §3.1: ``n_records`` records (paper: 100,000) with four attributes,
each drawn independently "by randomly sampling with replacement according to a
feature-specific probability distribution":

* ``age``: the age distribution of the Adult data set;
* ``sex``: ``Female`` / ``Male`` with probability 1/2 each;
* ``race``: ``majority`` / ``minority`` / ``super-minority`` with probabilities
  (1 − m − x, m, x); S1 uses m = 0.09, x = 0.01; S2 varies x with 1 − 0.09 − x for the
  majority (the paper writes 0.9 − x: the three shares then sum to 0.99; **Decision:** the
  majority share takes the remainder so that the shares sum to 1);
* ``outcome``: ``"1"`` with the race-specific rate {majority 0.1, minority 0.2,
  super-minority 0.5}, else ``"0"``.

The true odds ratios against the majority are therefore (0.2/0.8)/(0.1/0.9) = 2.25 and
(0.5/0.5)/(0.1/0.9) = 9 (:data:`TRUE_ODDS_RATIOS`).

**Decisions.** The Adult age distribution is the one of the paper's Adult table (the
48,842 UCI rows without the rows with a missing value and without duplicates: 45,175 rows,
ages 17–90), vendored as ``robin_hood_simulation/adult_age_counts.csv.gz`` (see its
PROVENANCE.md). Draws come from ``numpy.random.default_rng(seed)`` in the order age, sex,
race, outcome.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from harness.datasets.paths import DATA_ROOT

RACES: tuple[str, ...] = ("majority", "minority", "super-minority")
OUTCOME_RATES: dict[str, float] = {"majority": 0.1, "minority": 0.2, "super-minority": 0.5}
TRUE_ODDS_RATIOS: dict[str, float] = {
    race: (rate / (1 - rate)) / (OUTCOME_RATES["majority"] / (1 - OUTCOME_RATES["majority"]))
    for race, rate in OUTCOME_RATES.items()
    if race != "majority"
}
SEXES: tuple[str, ...] = ("Female", "Male")
AGE_COUNTS = "robin_hood_simulation/adult_age_counts.csv.gz"
"""Vendored Adult age counts (relative to :data:`~harness.datasets.paths.DATA_ROOT`)."""


@functools.cache
def adult_age_distribution() -> tuple[np.ndarray, np.ndarray]:
    """Ages and their probabilities in the paper's Adult table (45,175 rows)."""
    table = pd.read_csv(DATA_ROOT / AGE_COUNTS)
    counts = table["count"].to_numpy(dtype=float)
    return table["age"].to_numpy(dtype=np.int64), counts / counts.sum()


def robin_hood_population(
    *,
    seed: int = 0,
    n_records: int = 100_000,
    minority_share: float = 0.09,
    super_minority_share: float = 0.01,
) -> pd.DataFrame:
    """The simulated population of the module docstring.

    Parameters
    ----------
    seed : int
        Data seed.
    n_records : int
        Number of records.
    minority_share, super_minority_share : float
        Race probabilities of the minority and the super-minority; the majority gets the rest.

    Returns
    -------
    DataFrame
        Columns ``age`` (int64), ``sex``, ``race``, ``outcome`` (str).
    """
    rng = np.random.default_rng(seed)
    ages, probabilities = adult_age_distribution()
    age = rng.choice(ages, size=n_records, p=probabilities)
    sex = rng.choice(np.array(SEXES, dtype=object), size=n_records)
    shares = [1.0 - minority_share - super_minority_share, minority_share, super_minority_share]
    race = rng.choice(np.array(RACES, dtype=object), size=n_records, p=shares)
    rate = pd.Series(race).map(OUTCOME_RATES).to_numpy(dtype=float)
    outcome = np.where(rng.random(n_records) < rate, "1", "0").astype(object)
    return pd.DataFrame({"age": age, "sex": sex, "race": race, "outcome": outcome})
