"""``asymptotic_moment_re``: hand-computed replicate covariances and REs (reproductions.md §9)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from harness.datasets import load_dataset, load_spec
from harness.errors import ConfigError, IncomputableMetricError
from harness.spec import DatasetSpec
from metrics.fidelity.asymptotic_moments import AsymptoticMomentRE

SPEC = DatasetSpec.from_dict({"name": "groups", "columns": {"g": "categorical", "x": "continuous"}})
# three replicates of n = 2: means 1, 2, 4; variances (ddof 1) 2, 2, 8
TRAIN = pd.DataFrame({"g": ["a", "a", "b", "b", "c", "c"], "x": [0.0, 2.0, 1.0, 3.0, 2.0, 6.0]})


def test_hand_computed_train_population() -> None:
    out = AsymptoticMomentRE(by="g").compute(TRAIN, TRAIN, SPEC)
    # population from T: mean 14/6 = 7/3, pooled variance (2 + 2 + 8) / (6 - 3) = 4
    # a_r = √2 (x̄_r − 7/3) = √2 (−4/3, −1/3, 5/3): mean 0, sample variance 2·(16 + 1 + 25)/9 / 2 = 14/3
    assert out["re_mean_sigma"].value == pytest.approx(abs(14 / 3 - 4) / 4)
    assert out["re_mean_2sigma"].value == pytest.approx(abs(14 / 3 - 8) / 8)
    # b_r = √2 (S_r − 4) = √2 (−2, −2, 4): mean 0, sample variance 2·24/2 = 24; limit (p = 1) 2σ² = 32
    assert out["re_cov_original"].value == pytest.approx(8 / 32)
    assert out["re_cov_spectral"].value == pytest.approx(8 / 32)
    assert out["max_abs_mean_shift"].value == 0.0
    details = out["re_cov_original"].details
    assert details["population"] == "train" and details["mu"] == pytest.approx([7 / 3])
    assert details["sigma"] == [[pytest.approx(4.0)]] and details["n_replicates"] == 3
    assert details["sum_b"] == pytest.approx([0.0], abs=1e-12) and details["sum_bb"] == [
        [pytest.approx(48.0)]
    ]
    assert out["re_mean_sigma"].details["sum_aa"] == [[pytest.approx(2 * 42 / 9)]]


def test_mean_shift_and_small_groups() -> None:
    release = TRAIN.assign(x=TRAIN["x"] + np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0]))
    release = pd.concat([release, pd.DataFrame({"g": ["d"], "x": [9.0]})], ignore_index=True)
    train = pd.concat([TRAIN, pd.DataFrame({"g": ["d"], "x": [9.0]})], ignore_index=True)
    out = AsymptoticMomentRE(by="g").compute(train, release, SPEC)
    assert out["max_abs_mean_shift"].value == pytest.approx(1.0)
    assert out["re_mean_sigma"].details["n_skipped"] == 1  # group d has one row


def test_simulation_population_and_theorem_1() -> None:
    spec = load_spec("spectral_sim_p2", {"source": {"params": {"n": 50, "replicates": 400, "seed": 3}}})
    data = load_dataset(spec).frame
    out = AsymptoticMomentRE().compute(data, data, spec)
    details = out["re_mean_sigma"].details
    assert details["population"] == "simulation" and details["mu"] == [3.0, 3.0]
    assert details["sigma"] == [[2.0, 0.0], [0.0, 1.0]]
    assert details["simulation"] == {
        "generator": "spectral_dgp",
        "dgp": 1,
        "p": 2,
        "n": 50,
        "replicates": 400,
        "seed": 3,
    }
    # original normal data: Cov(√n x̄) = Σ exactly; RE is Monte Carlo noise of 400 replicates
    assert out["re_mean_sigma"].value < 0.2 < out["re_mean_2sigma"].value


def test_incomputable_and_bad_params() -> None:
    with pytest.raises(IncomputableMetricError, match="at least 2 replicates"):
        AsymptoticMomentRE(by=None).compute(TRAIN, TRAIN, SPEC)
    with pytest.raises(IncomputableMetricError, match="not a simulation"):
        AsymptoticMomentRE(by="g", population="simulation").compute(TRAIN, TRAIN, SPEC)
    with pytest.raises(IncomputableMetricError, match="group column 'h'"):
        AsymptoticMomentRE(by="h").compute(TRAIN, TRAIN, SPEC)
    with pytest.raises(
        ConfigError, match="`population` must be one of 'auto', 'simulation', 'train'; got 'x'"
    ):
        AsymptoticMomentRE(population="x").compute(TRAIN, TRAIN, SPEC)
    with pytest.raises(ConfigError, match="`by` must be null or a column name; got 3"):
        AsymptoticMomentRE(by=3).compute(TRAIN, TRAIN, SPEC)  # type: ignore[arg-type]
    assert math.isinf(AsymptoticMomentRE.max_value)
