"""``dp_moments``: the DP moments mechanism of SMOTE-DP's Theorem 3.2 (``001_…`` §3.2).

One test per claim of :mod:`generators.dp_moments` and :mod:`generators.dp_moments_mechanism`:
the L1 sensitivities (bounds attained), the noise of every step has the scale of its formula
(details and the empirical noise), the radius draw is ε-DP on neighbouring inputs (exact
densities) and samples its weights, the budget composes to ε under replace-one, ``formal_dp`` is
honest about the domain, strict mode takes the domain from the spec / ``bounds``, the noise
shrinks with the spread of the input (Theorem 3.2's premise), and the release reproduces the
moments when the noise is negligible.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from generators.dp_moments import DEFAULT_SPLIT, DpMoments
from generators.dp_moments_mechanism import (
    LOG2_RANGE,
    STEPS,
    centre_sensitivity,
    dp_quantile,
    mean_sensitivity,
    noisy_second_moment,
    private_moments,
    project_psd,
    quantile_weights,
    second_moment_sensitivity,
    step_epsilons,
)
from harness.datasets import load_dataset, load_spec
from harness.dtypes import conform
from harness.errors import ConfigError, DataError
from harness.instantiate import build_generator
from harness.registry import read_config
from harness.spec import DatasetSpec

BOUNDS = {"x1": [-6.0, 9.0], "x2": [-6.0, 9.0]}
SPEC = DatasetSpec.from_dict(
    {
        "name": "toy_gauss",
        "columns": {
            "x": {"kind": "continuous", "bounds": [-10, 10]},
            "n": {"kind": "integer", "bounds": [0, 50]},
            "colour": {"kind": "categorical", "domain": ["red", "blue", "green"], "nullable": True},
            "label": {"kind": "categorical", "categories": ["a", "b", "c"]},
        },
        "target": "label",
    }
)


def toy(n: int, seed: int) -> pd.DataFrame:
    """Two observed classes (``c`` is public but absent), a nullable colour, an integer column."""
    rng = np.random.default_rng(seed)
    label = rng.choice(np.array(["a", "b"], dtype=object), size=n)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n) + np.where(label == "a", -2.0, 2.0),
            "n": rng.integers(10, 30, size=n),
            "colour": rng.choice(np.array(["red", "blue", None], dtype=object), size=n, p=[0.5, 0.4, 0.1]),
            "label": label,
        }
    )
    return conform(frame, SPEC)


def gaussians(seed: int = 0) -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec("two_gaussians", {"source": {"params": {"seed": seed}}})
    return spec, load_dataset(spec).frame


def moments_generator(**params: Any) -> DpMoments:
    cfg = {k: v for k, v in read_config("generator", "dp_moments").items() if k != "check_params"}
    gen = build_generator("dp_moments", {**cfg, **params})
    assert isinstance(gen, DpMoments)
    return gen


# ---------------------------------------------------------------------- sensitivities
@pytest.mark.parametrize("d", [1, 2, 5, 17])
def test_sensitivity_bounds_hold_and_are_attained(d: int) -> None:
    rng = np.random.default_rng(d)
    radius = 0.37
    z = rng.normal(size=(5000, d))
    z *= (radius * rng.uniform(0, 1, size=(5000, 1)) ** (1 / d)) / np.linalg.norm(z, axis=1, keepdims=True)
    upper = np.triu_indices(d)
    l1_sum = np.abs(z).sum(axis=1)
    l1_moment = np.array([np.abs(np.outer(v, v)[upper]).sum() for v in z])
    assert l1_sum.max() <= mean_sensitivity(d, radius) + 1e-12
    assert l1_moment.max() <= second_moment_sensitivity(d, radius) + 1e-12
    corner = np.full(d, radius / math.sqrt(d))  # attains both bounds
    assert np.abs(corner).sum() == pytest.approx(mean_sensitivity(d, radius))
    assert np.abs(np.outer(corner, corner)[upper]).sum() == pytest.approx(
        second_moment_sensitivity(d, radius)
    )
    box = np.full(d, 0.5)  # x − ½ for a corner of [0, 1]^d
    assert np.abs(box).sum() == pytest.approx(centre_sensitivity(d))


def test_budget_composes_to_epsilon_under_replace_one() -> None:
    eps = step_epsilons(3.0, DEFAULT_SPLIT)
    assert set(eps) == set(STEPS)
    assert sum(eps.values()) == pytest.approx(1.5)  # ε_c = ε/2: one removal + one addition
    gen = moments_generator(epsilon=3.0, strict=True)
    dp = gen.info().formal_dp
    assert dp is not None
    assert dp["epsilon"] == 3.0 and dp["delta"] == 0.0 and dp["neighbours"] == "replace_one"


# ---------------------------------------------------------------------- noise scales
def test_details_noise_scales_equal_the_formulas() -> None:
    spec, frame = gaussians(1)
    gen = moments_generator(epsilon=2.0, strict=True, bounds=BOUNDS).fit(frame, spec, seed=0)
    details = gen.details()
    d = details["dimension"]
    assert d == 2 and set(details["classes"]) == {"0", "1"}
    eps = details["step_epsilons"]
    assert eps == pytest.approx({s: 1.0 * DEFAULT_SPLIT[s] for s in STEPS})
    for cls in details["classes"].values():
        r, scales = cls["radius"], cls["laplace_scales"]
        assert scales["count"] == pytest.approx(1 / eps["count"])
        assert scales["centre"] == pytest.approx((d / 2) / eps["centre"])
        assert scales["mean"] == pytest.approx(math.sqrt(d) * r / eps["mean"])
        assert scales["covariance"] == pytest.approx((d + 1) * r**2 / 2 / eps["covariance"])
        assert abs(cls["noisy_count"] - 1000) < 200


def test_count_and_mean_noise_are_laplace_of_the_formula_scale() -> None:
    rng = np.random.default_rng(0)
    x = np.clip(rng.normal(0.5, 0.08, size=(300, 3)), 0, 1)
    eps = {"count": 0.5, "centre": 0.5, "radius": 0.5, "mean": 0.3, "covariance": 0.5}
    count_noise, mean_noise = [], []
    for _ in range(1500):
        mom = private_moments(x, eps, 0.5, 2.0, rng)
        count_noise.append((mom.count - len(x)) / mom.scales["count"])
        offsets = x - mom.centre
        norms = np.linalg.norm(offsets, axis=1)
        z = offsets * np.minimum(1.0, mom.radius / norms)[:, None]
        noisy_sum = (mom.mean - mom.centre) * max(mom.count, 1.0)
        mean_noise.extend((noisy_sum - z.sum(axis=0)) / mom.scales["mean"])
    assert stats.kstest(count_noise, "laplace").pvalue > 0.001
    assert stats.kstest(mean_noise, "laplace").pvalue > 0.001


def test_second_moment_noise_is_symmetric_laplace_of_the_scale() -> None:
    rng = np.random.default_rng(1)
    z = rng.normal(size=(40, 3))
    draws = np.array([noisy_second_moment(z, 0.7, rng) - z.T @ z for _ in range(2000)])
    assert np.allclose(draws, np.transpose(draws, (0, 2, 1)))
    upper = np.triu_indices(3)
    entries = draws[:, upper[0], upper[1]] / 0.7
    for column in entries.T:  # each upper entry (diagonal included) is Laplace(0.7)
        assert stats.kstest(column, "laplace").pvalue > 0.001
    assert abs(np.corrcoef(entries[:, 0], entries[:, 1])[0, 1]) < 0.1  # independent entries


def test_project_psd_is_the_nearest_psd_matrix() -> None:
    matrix = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and −1
    out = project_psd(matrix)
    assert np.linalg.eigvalsh(out).min() >= -1e-12
    assert out == pytest.approx(np.full((2, 2), 1.5))


# ---------------------------------------------------------------------- the DP radius
def _log_density(values: np.ndarray, t: np.ndarray, n_target: float, eps: float) -> np.ndarray:
    """log density (w.r.t. dt/t) of the quantile draw at ``t``, from the mechanism's own weights."""
    edges, log_w = quantile_weights(values, 0.5, n_target, 1.0, eps)
    log_norm = np.logaddexp.reduce(log_w[np.isfinite(log_w)])
    k = np.clip(np.searchsorted(edges, np.log(t), side="right") - 1, 0, len(log_w) - 1)
    lengths = np.diff(edges)[k]
    return log_w[k] - np.log(lengths) - log_norm


@pytest.mark.parametrize("extra", [1e-12, 0.05, 0.3, 0.31, 1.0, 5.0])
def test_radius_draw_is_epsilon_dp_on_neighbouring_inputs(extra: float) -> None:
    rng = np.random.default_rng(2)
    values = rng.uniform(0.01, 0.6, size=60)
    neighbour = np.append(values, extra)  # add/remove one record
    eps = 0.8
    t = np.exp(np.linspace(math.log(2.0**-LOG2_RANGE) + 1e-9, -1e-9, 20001))
    gap = np.abs(_log_density(values, t, 30.0, eps) - _log_density(neighbour, t, 30.0, eps))
    assert gap.max() <= eps + 1e-9
    if extra < 0.6:  # a value above every t changes no count: identical densities
        assert gap.max() > eps / 4  # the bound is not vacuous here


def test_radius_draw_follows_its_weights_and_finds_the_quantile() -> None:
    rng = np.random.default_rng(3)
    values = np.array([0.1, 0.2, 0.4, 0.8])
    edges, log_w = quantile_weights(values, 0.5, 4.0, 1.0, 2.0)
    expected = np.exp(log_w - np.logaddexp.reduce(log_w))
    draws = np.log([dp_quantile(values, 0.5, 4.0, 1.0, 2.0, rng) for _ in range(20000)])
    observed = np.bincount(np.searchsorted(edges, draws) - 1, minlength=len(log_w)) / len(draws)
    assert observed == pytest.approx(expected, abs=0.015)
    many = rng.lognormal(mean=-2.0, sigma=0.3, size=2000)
    estimates = [dp_quantile(many, 0.5, 2000.0, 1.0, 1.0, rng) for _ in range(50)]
    assert np.median(estimates) == pytest.approx(np.median(many), rel=0.03)


# ---------------------------------------------------------------------- Theorem 3.2's premise
def test_noise_shrinks_with_the_spread_of_the_input() -> None:
    """A contracted input (α = 0.25 in trace) gets a radius ≈ 0.5 and covariance noise ≈ 0.25 times smaller.

    Slightly more than 0.5 and 0.25: the DP centre's error is calibrated on the public box, not on
    the spread, and adds to the distances of the contracted input.
    """
    spec, frame = gaussians(2)
    contracted = frame.copy()
    for label in ("0", "1"):
        rows = contracted["label"] == label
        centre = contracted.loc[rows, ["x1", "x2"]].mean()
        contracted.loc[rows, ["x1", "x2"]] = centre + 0.5 * (contracted.loc[rows, ["x1", "x2"]] - centre)
    ratios_r, ratios_cov = [], []
    for seed in range(10):
        scales = []
        for data in (frame, contracted):
            gen = moments_generator(epsilon=1.0, strict=True, bounds=BOUNDS).fit(data, spec, seed=seed)
            scales.append(gen.details()["classes"])
        for label in ("0", "1"):
            ratios_r.append(scales[1][label]["radius"] / scales[0][label]["radius"])
            ratios_cov.append(
                scales[1][label]["laplace_scales"]["covariance"]
                / scales[0][label]["laplace_scales"]["covariance"]
            )
    assert 0.45 < np.median(ratios_r) < 0.65
    assert 0.2 < np.median(ratios_cov) < 0.42


def test_release_reproduces_the_class_moments_when_noise_is_negligible() -> None:
    spec, frame = gaussians(3)
    gen = moments_generator(epsilon=1e6, clip_factor=5.0, strict=True, bounds=BOUNDS).fit(frame, spec, seed=0)
    out = gen.sample(20000)
    assert set(out["label"]) == {"0", "1"}
    assert (out["label"] == "1").mean() == pytest.approx(0.5, abs=0.02)
    for label in ("0", "1"):
        real = frame.loc[frame["label"] == label, ["x1", "x2"]].to_numpy(float)
        syn = out.loc[out["label"] == label, ["x1", "x2"]].to_numpy(float)
        assert syn.mean(axis=0) == pytest.approx(real.mean(axis=0), abs=0.05)
        assert np.cov(syn, rowvar=False) == pytest.approx(np.cov(real, rowvar=False), abs=0.08)


# ---------------------------------------------------------------------- domain and formal_dp
def test_formal_dp_is_end_to_end_only_in_strict_mode() -> None:
    loose = moments_generator().info().formal_dp
    strict = moments_generator(strict=True).info().formal_dp
    assert loose is not None and strict is not None
    assert loose["end_to_end"] is False and "read from the training data" in loose["reason"]
    assert strict["end_to_end"] is True and "reason" not in strict


def test_strict_mode_takes_the_domain_from_the_spec() -> None:
    train = toy(400, 0)
    train.loc[0, "x"] = 99.0  # outside the public bounds: clamped, never widens the domain
    gen = moments_generator(epsilon=5.0, strict=True)
    gen.fit(train, SPEC, seed=0)
    assert gen.encoding_.numeric == {"x": (-10.0, 10.0), "n": (0.0, 50.0)}
    levels = gen.encoding_.levels["colour"]
    assert levels[:3] == ["red", "blue", "green"] and pd.isna(levels[3])
    assert set(gen.moments_) == {"a", "b", "c"}  # the public class c, absent from training, is modelled
    out = gen.sample(3000)
    assert out["x"].between(-10, 10).all() and out["n"].between(0, 50).all()
    assert (out["n"] == np.rint(out["n"])).all()
    assert set(out["label"]) <= {"a", "b", "c"}
    assert set(out["colour"].dropna()) <= {"red", "blue", "green"}


def test_loose_mode_reads_the_domain_from_the_data() -> None:
    train = toy(300, 1)
    gen = moments_generator(epsilon=5.0)
    gen.fit(train, SPEC, seed=0)
    low, high = gen.encoding_.numeric["x"]
    assert (low, high) == (float(train["x"].min()), float(train["x"].max()))
    assert set(gen.moments_) == {"a", "b"}
    out = gen.sample()
    assert len(out) == len(train) and set(out["label"]) <= {"a", "b"}


def test_strict_mode_needs_public_bounds() -> None:
    spec, frame = gaussians(0)
    with pytest.raises(ConfigError, match=r"'x1'.*bounds"):
        moments_generator(strict=True).fit(frame, spec, seed=0)
    moments_generator(strict=True, bounds=BOUNDS).validate_spec(spec)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": None}, "epsilon"),
        ({"clip_quantile": 1.5}, "clip_quantile"),
        ({"clip_factor": 0}, "clip_factor"),
        ({"budget_split": {"count": 1.0}}, "budget_split"),
        ({"budget_split": {**DEFAULT_SPLIT, "count": 0.3}}, "sum to 1"),
        ({"bounds": {"x1": [3, 1]}}, "lower < upper"),
        ({"strict": "yes"}, "strict"),
    ],
)
def test_invalid_parameters_are_one_line_errors(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        moments_generator(**params).validate_params()


def test_bounds_of_unknown_columns_and_numeric_missing_values_are_refused() -> None:
    spec, frame = gaussians(0)
    with pytest.raises(ConfigError, match="not a numeric column"):
        moments_generator(bounds={"label": [0, 1]}).validate_spec(spec)
    broken = frame.copy()
    broken.loc[3, "x1"] = np.nan
    with pytest.raises(DataError, match="missing values"):
        moments_generator().fit(broken, spec, seed=0)


def test_as_the_dp_stage_of_smote_dp() -> None:
    spec, frame = gaussians(4)
    cfg = {k: v for k, v in read_config("generator", "smote_dp").items() if k != "check_params"}
    cfg.update(epsilon=1.0, g2="dp_moments", g2_params={"strict": True, "bounds": BOUNDS})
    gen = build_generator("smote_dp", cfg).fit(frame, spec, seed=0)
    dp = gen.info().formal_dp
    assert dp is not None and dp["epsilon"] == 1.0 and dp["unit"] == "smote_output"
    assert dp["end_to_end"] is False  # with respect to the original records (smote_dp)
    details = gen.details()
    assert 0.9 < details["alpha_hat"] < 1.05
    assert set(details["g2"]["details"]["classes"]) == {"0", "1"}
    assert len(gen.sample()) == len(frame)
