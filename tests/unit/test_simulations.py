"""Simulated datasets of reproductions.md §9 (spectral_dgp) and §10 (robin_hood_population)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.datasets import load_dataset, load_spec
from harness.datasets.simulated import population_moments, resolve_params, simulate
from harness.datasets.simulations.robin_hood import TRUE_ODDS_RATIOS, adult_age_distribution
from harness.errors import ConfigError


@pytest.mark.parametrize("dgp", [1, 2, 3, 4])
def test_spectral_dgp_moments(dgp: int) -> None:
    frame = simulate("spectral_dgp", {"dgp": dgp, "p": 3, "n": 200, "replicates": 300, "seed": 5})
    assert frame.shape == (60_000, 4) and list(frame.columns) == ["replicate", "x1", "x2", "x3"]
    assert frame["replicate"].tolist()[:201] == ["0"] * 200 + ["1"]
    mean, cov = population_moments(
        {"kind": "simulated", "generator": "spectral_dgp", "params": {"dgp": dgp, "p": 3}}
    )
    expected_var = [3.0, 2.0, 1.0] if dgp in (1, 3) else [1.0, 1.0, 1.0]
    np.testing.assert_array_equal(np.diag(cov), expected_var)
    np.testing.assert_array_equal(mean, [3.0, 3.0, 3.0] if dgp in (1, 2) else expected_var)
    x = frame[["x1", "x2", "x3"]].to_numpy()
    np.testing.assert_allclose(x.mean(axis=0), mean, atol=0.03)
    np.testing.assert_allclose(np.cov(x, rowvar=False), cov, atol=0.05)
    if dgp >= 3:
        assert np.array_equal(x, np.rint(x))  # Poisson counts, stored as floats


def test_spectral_dataset_yamls() -> None:
    for p in (2, 3, 6):
        data = load_dataset(load_spec(f"spectral_sim_p{p}"))
        assert data.frame.shape == (100 * 100, p + 1) and data.test_mask is None
    spec = load_spec("spectral_sim_p2", {"source": {"params": {"n": 7, "replicates": 3}}})
    assert len(load_dataset(spec).frame) == 21
    assert population_moments({"kind": "bundled"}) is None
    assert population_moments({"kind": "simulated", "generator": "two_gaussians"}) is None


def test_robin_hood_population() -> None:
    frame = simulate("robin_hood_population", {"seed": 2, "n_records": 200_000})
    assert list(frame.columns) == ["age", "sex", "race", "outcome"] and len(frame) == 200_000
    shares = frame["race"].value_counts(normalize=True)
    assert shares["majority"] == pytest.approx(0.90, abs=0.003)
    assert shares["minority"] == pytest.approx(0.09, abs=0.003)
    assert shares["super-minority"] == pytest.approx(0.01, abs=0.001)
    assert frame["sex"].value_counts(normalize=True)["Female"] == pytest.approx(0.5, abs=0.005)
    rates = (frame["outcome"] == "1").groupby(frame["race"]).mean()
    assert rates["majority"] == pytest.approx(0.1, abs=0.003)
    assert rates["minority"] == pytest.approx(0.2, abs=0.01)
    assert rates["super-minority"] == pytest.approx(0.5, abs=0.025)
    assert pytest.approx({"minority": 2.25, "super-minority": 9.0}) == TRUE_ODDS_RATIOS
    ages, probabilities = adult_age_distribution()
    assert frame["age"].between(17, 90).all() and ages.min() == 17 and ages.max() == 90
    observed = frame["age"].value_counts(normalize=True).reindex(ages, fill_value=0.0).to_numpy()
    np.testing.assert_allclose(observed, probabilities, atol=0.003)
    s2 = simulate("robin_hood_population", {"n_records": 100_000, "super_minority_share": 0.002})
    assert s2["race"].value_counts(normalize=True)["majority"] == pytest.approx(0.908, abs=0.004)


def test_age_counts_are_the_papers_adult_table() -> None:
    """The vendored counts are the ages of Adult without NA rows and duplicates (45,175 rows)."""
    adult = load_dataset(load_spec("adult_robin_hood")).frame
    counts = pd.read_csv(
        __import__("harness.datasets.paths", fromlist=["DATA_ROOT"]).DATA_ROOT
        / "robin_hood_simulation/adult_age_counts.csv.gz"
    )
    assert counts["count"].sum() == len(adult) == 45_175
    assert adult["age"].value_counts().sort_index().to_dict() == dict(zip(counts["age"], counts["count"]))


@pytest.mark.parametrize(
    ("generator", "params", "message"),
    [
        ("spectral_dgp", {"dgp": 5}, r"source\.params\.dgp must be an integer in \[1, 4\]; got 5"),
        ("spectral_dgp", {"n": 1}, r"source\.params\.n must be an integer >= 2; got 1"),
        ("spectral_dgp", {"p": 2.5}, r"source\.params\.p must be an integer >= 1; got 2\.5"),
        (
            "robin_hood_population",
            {"minority_share": "x"},
            r"minority_share must be a number in \[0, 1\]; got 'x'",
        ),
        (
            "robin_hood_population",
            {"super_minority_share": 0.95},
            r"must be < 1 \(the majority gets the rest\); got 1\.04",
        ),
        ("robin_hood_population", {"shares": 1}, r"unknown source\.params key\(s\) shares"),
    ],
)
def test_bad_parameters_are_one_line_config_errors(generator: str, params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        resolve_params(generator, params, where="dataset 'x'")
    assert "\n" not in str(info.value) and str(info.value).startswith("dataset 'x': ")
