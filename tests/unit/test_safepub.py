"""``safepub`` (``spec/generators.md`` §6.4): k from (ε_anon, β, δ) against Table 1 of ``004_…``
*Utility Analysis … Random Sampling* (``reproductions.md`` §5), the exponential mechanism on a
hand-checked lattice, and the release on Adult."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from generators.kanon.hierarchies import TableHierarchy
from generators.kanon.lattice import Lattice, encode
from generators.kanon.safepub import (
    SafePub,
    beta_max,
    class_k_scores,
    exponential_mechanism,
    safepub_delta,
    safepub_k,
    selection_probabilities,
)
from harness.datasets import load_dataset, load_spec
from harness.errors import ConfigError, InfeasibleConfigError
from harness.instantiate import build_generator
from harness.registry import read_config
from harness.spec import DatasetSpec
from tests.unit.test_kanon_lattice import AGE_TABLE, AGES, ZIP_TABLE, ZIPS

DELTA = 1e-4
# Table 1 of the paper, verbatim: ε_anon → [(β, k)]; None = β_max (printed 0.59, 0.83, 0.93).
TABLE_1: dict[float, list[tuple[float | None, int]]] = {
    0.9: [(None, 45), (0.5, 31), (0.4, 22), (0.3, 16), (0.2, 11)],
    1.8: [(None, 78), (0.8, 63), (0.7, 34), (0.6, 24), (0.5, 18), (0.4, 14), (0.3, 11), (0.2, 7)],
    2.7: [(None, 134), (0.9, 59), (0.8, 43), (0.7, 27), (0.6, 20), (0.5, 15), (0.4, 12), (0.3, 9), (0.2, 7)],
}
MISPRINT = (2.7, 0.9, 59, 89)
"""ε_anon, β, printed k, formula k + 1 (``reproductions.md`` §5.3: 59 is a misprint)."""


def table_cells() -> list[tuple[float, float | None, int]]:
    return [(eps, beta, k) for eps, cells in TABLE_1.items() for beta, k in cells]


# ---------------------------------------------------------------------- k and β_max
@pytest.mark.parametrize(("eps_anon", "beta", "printed"), table_cells())
def test_table_1_k_recomputed_exactly(eps_anon: float, beta: float | None, printed: int) -> None:
    rate = beta_max(eps_anon) if beta is None else beta
    k = safepub_k(eps_anon, rate, DELTA)
    if (eps_anon, beta, printed) == MISPRINT[:3]:
        assert k == MISPRINT[3] != printed
    else:
        assert k == printed
    # the offset is ARX's +1 on the paper's Eq. (5): d(k*) <= δ < d(k* - 1)
    assert safepub_k(eps_anon, rate, DELTA, offset=0) == k - 1
    assert safepub_delta(k - 1, eps_anon, rate) <= DELTA < safepub_delta(k - 2, eps_anon, rate)


def test_first_column_is_the_exact_beta_max() -> None:
    """The printed 0.59 / 0.83 / 0.93 are β_max rounded: the literal rates give other k."""
    assert [safepub_k(e, b, DELTA) for e, b in ((0.9, 0.59), (1.8, 0.83), (2.7, 0.93))] == [47, 75, 128]


def test_beta_max_formula() -> None:
    for eps_anon, printed in ((0.9, 0.59), (1.8, 0.83), (2.7, 0.93)):
        assert beta_max(eps_anon) == pytest.approx(1 - math.exp(-eps_anon), rel=1e-15)
        assert round(beta_max(eps_anon), 2) == printed
    assert [round(beta_max(e), 3) for e in (0.9, 1.8, 2.7)] == [0.593, 0.835, 0.933]


def test_k_grows_with_beta_and_shrinks_with_delta() -> None:
    ks = [safepub_k(1.8, b, DELTA) for b in (0.2, 0.4, 0.6, 0.8)]
    assert ks == sorted(ks) and ks[0] < ks[-1]
    assert safepub_k(1.8, 0.6, 1e-2) < safepub_k(1.8, 0.6, 1e-6)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0.0, 0.5, DELTA), "`epsilon_anon` must be a finite number in > 0"),
        ((0.9, 1.0, DELTA), r"`beta` must be a finite number in \(0, 1\)"),
        ((0.9, 0.5, 0.0), r"`delta` must be a finite number in \(0, 1\)"),
        ((0.9, 0.5, DELTA, 40), "`nmax`=40 is too small"),
        ((0.9, 0.5, DELTA, 4000, -1), "`arx_k_offset` must be an integer >= 0"),
    ],
)
def test_safepub_k_rejects_bad_arguments(args: tuple[Any, ...], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        safepub_k(*args)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------- parameters
def build(**params: Any) -> SafePub:
    gen = build_generator("safepub", {"_target_": "generators.kanon.safepub.SafePub", **params})
    assert isinstance(gen, SafePub)
    return gen


def test_beta_above_beta_max_is_a_one_line_config_error() -> None:
    with pytest.raises(
        ConfigError, match=r"`beta`=0.6 exceeds beta_max = 1 - exp\(-epsilon_anon\) = 0.5934"
    ) as info:
        build(epsilon=1.0, beta=0.6)
    assert "\n" not in str(info.value)
    assert build(epsilon=1.0, beta=0.59).beta == 0.59
    assert build(epsilon=2.0, beta=0.8).beta == 0.8


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"epsilon": 0}, "`epsilon` must be a finite number in > 0"),
        ({"epsilon": -1.0}, "`epsilon` must be a finite number in > 0"),
        ({"epsilon": math.inf}, "`epsilon` must be a finite number in > 0"),
        ({"epsilon": "one"}, "`epsilon` must be a number"),
        ({"epsilon_search_share": 0.0}, r"`epsilon_search_share` must be a finite number in \(0, 1\)"),
        ({"epsilon_search_share": 1.0}, r"`epsilon_search_share` must be a finite number in \(0, 1\)"),
        ({"beta": 0.0}, r"`beta` must be a finite number in \(0, 1\)"),
        ({"beta": "half"}, r"`beta` must be a number in \(0, beta_max\] or 'max'"),
        ({"beta": True}, "`beta` must be a number"),
        ({"delta": 0.0}, r"`delta` must be a finite number in \(0, 1\)"),
        ({"delta": 1.5}, r"`delta` must be a finite number in \(0, 1\)"),
        ({"suppression_limit": 1.5}, r"`suppression_limit` must be a number in \[0, 1\]"),
        ({"score": "entropy"}, "`score` must be one of 'class_k'"),
        ({"score_sensitivity": 0}, "`score_sensitivity` must be a finite number in > 0"),
        ({"score_sensitivity": "n"}, "`score_sensitivity` must be a number"),
        ({"arx_k_offset": -1}, "`arx_k_offset` must be an integer >= 0"),
        ({"arx_k_offset": 1.5}, "`arx_k_offset` must be an integer >= 0"),
        ({"nmax": 0}, "`nmax` must be an integer >= 1"),
        ({"nmax": 30}, "`nmax`=30 is too small"),
        ({"score_target": 3}, "`score_target` must be a column name or null"),
        ({"qi": True}, "`qi` must be a QI set name, its position or null"),
        ({"decode": "upper"}, "`decode` must be one of"),
        ({"hierarchy": "mine"}, "`hierarchy` must be one of"),
        ({"widths": {"age": -5}}, "`widths.age` must be a positive number"),
    ],
)
def test_bad_parameters_raise_one_line_config_errors(params: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        build(**params)
    assert "\n" not in str(info.value)


def test_yaml_defaults_match_the_spec() -> None:
    cfg = read_config("generator", "safepub")
    gen = build(**{k: v for k, v in cfg.items() if k not in ("_target_", "check_params")})
    assert gen.get_params() == SafePub().get_params()
    assert (gen.epsilon, gen.epsilon_search_share, gen.beta, gen.delta) == (1.0, 0.1, "max", 1e-4)
    assert (gen.suppression_limit, gen.score, gen.score_sensitivity, gen.arx_k_offset) == (
        0.05,
        "class_k",
        "k",
        1,
    )


def test_info_carries_the_configured_budget() -> None:
    info = SafePub(epsilon=3.0, delta=1e-5).info()
    assert info.formal_dp == {"epsilon": 3.0, "delta": 1e-5, "unit": "original_records"}
    assert info.needs_target and info.needs_qi and info.generalised_output and info.fixed_size
    assert info.randomised and info.output_kind == "transformed"


# ---------------------------------------------------------------------- hand-checked lattice
# Class attribute of the 10-row toy of test_kanon_lattice.
LABELS = ["a", "b", "a", "a", "b", "b", "a", "b", "a", "a"]
# node → (n_suppressed, n_classes, class_k) for k = 2, worked out by hand:
# (0,0): released (35,14850)={b,b} → 2, (36,14853)={a,b} → 1; six singletons suppressed.
# (1,0): (20-29,13053)={a,a} 2, (20-29,13068)={b,a} 1, (30-39,14850)={b,b,a} 2, (30-39,14853)={a,b,a} 2.
# (0,1): (21,130**)={a,b} 1, (24,130**)={a,a} 2, 35={b,b} 2, 36={a,b} 1, 37={a,a} 2.
# (1,1): 20-29={a,b,a,a} 3, 30-39={b,b,a,b,a,a} 3.  (2,2): six a of ten.
HAND = {(0, 0): (6, 2, 3), (1, 0): (0, 4, 7), (0, 1): (0, 5, 8), (1, 1): (0, 2, 6), (2, 2): (0, 1, 6)}


def toy_scores() -> tuple[Lattice, np.ndarray, np.ndarray, np.ndarray]:
    frame = pd.DataFrame({"age": AGES, "zip": ZIPS})
    encoded = encode(frame, {"age": TableHierarchy(AGE_TABLE), "zip": TableHierarchy(ZIP_TABLE)})
    lattice = Lattice(encoded, 2, 0.0)
    codes, _ = pd.factorize(pd.Series(LABELS))
    return (lattice, *class_k_scores(lattice, codes.astype(np.int64)))


def test_class_k_scores_on_a_hand_checked_lattice() -> None:
    lattice, n_suppressed, n_classes, score = toy_scores()
    assert len(lattice.nodes) == 9
    for node, expected in HAND.items():
        i = lattice.index(node)
        assert (n_suppressed[i], n_classes[i], score[i]) == expected, node


def test_exponential_mechanism_probabilities_and_draws() -> None:
    """Candidates = nodes within the limit (all but the bottom); P ∝ exp(ε·u/(2Δ))."""
    lattice, n_suppressed, _, score = toy_scores()
    candidates = np.flatnonzero(n_suppressed <= lattice.max_suppressed)
    assert lattice.index((0, 0)) not in candidates and len(candidates) == 8
    eps, sensitivity = 2.0, 2.0
    probs = selection_probabilities(score[candidates], eps, sensitivity)
    expected = np.exp(eps * score[candidates] / (2 * sensitivity))
    np.testing.assert_allclose(probs, expected / expected.sum(), rtol=1e-12)
    # ratio of two candidates = exp(ε·Δu/(2Δ)): (0,1) has u = 8, (1,1) has u = 6
    pos = {int(c): j for j, c in enumerate(candidates)}
    ratio = probs[pos[lattice.index((0, 1))]] / probs[pos[lattice.index((1, 1))]]
    assert ratio == pytest.approx(math.exp(eps * 2 / (2 * sensitivity)))
    rng = np.random.default_rng(12345)
    draws = np.array([exponential_mechanism(score[candidates], eps, sensitivity, rng) for _ in range(20_000)])
    observed = np.bincount(draws, minlength=len(candidates))
    assert chisquare(observed, probs * len(draws)).pvalue > 1e-3
    # huge scores do not overflow; ε → 0 is uniform
    assert selection_probabilities(np.array([1e6, 1e6 - 1]), 1.0, 0.5).sum() == pytest.approx(1.0)
    np.testing.assert_allclose(selection_probabilities(np.array([0, 50, 100]), 1e-12, 1.0), [1 / 3] * 3)


# ---------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult() -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec("adult").with_active_qi("safepub")
    frame = load_dataset(spec).frame.dropna().reset_index(drop=True)
    rows = np.random.default_rng(1).choice(len(frame), size=4000, replace=False)
    return spec, frame.iloc[rows].reset_index(drop=True)


@pytest.fixture(scope="module")
def fitted(adult) -> SafePub:  # type: ignore[no-untyped-def]
    spec, frame = adult
    gen = SafePub(widths={"age": 5})
    gen.fit(frame, spec, seed=3)
    return gen


def test_sampling_rate_is_beta_on_adult(adult, fitted: SafePub) -> None:  # type: ignore[no-untyped-def]
    _, frame = adult
    details = fitted.details()
    beta = details["beta"]
    assert beta == pytest.approx(1 - math.exp(-0.9)) and details["beta_is_max"]
    assert abs(details["n_sampled"] / len(frame) - beta) < 4 * math.sqrt(beta * (1 - beta) / len(frame))
    assert details["sampling_rate"] == details["n_sampled"] / len(frame)
    rates = [
        SafePub(beta=b, widths={"age": 5}).fit(frame, adult[0], seed=0).details()["sampling_rate"]
        for b in (0.2, 0.4)
    ]
    assert rates == pytest.approx([0.2, 0.4], abs=4 * math.sqrt(0.25 / len(frame)))


def test_release_is_k_anonymous_on_the_qis(adult, fitted: SafePub) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    qi = list(spec.qi)
    details = fitted.details()
    k = details["k"]
    assert k == 45
    out = fitted.sample()
    labels = fitted.artifacts()["generalised"]
    assert int(labels.groupby(qi, dropna=False).size().min()) >= k
    assert int(out.groupby(qi, dropna=False).size().min()) >= k
    assert len(out) == len(labels) == details["n_sampled"] - details["n_suppressed"] == details["n_released"]
    assert details["suppressed_share"] == details["n_suppressed"] / details["n_sampled"] <= 0.05
    assert details["n_classes"] == labels.groupby(qi, dropna=False).ngroups
    assert fitted._expected_rows(None) is None
    with pytest.raises(ConfigError, match="n_rows must be None"):
        fitted.sample(10)
    # released rows are training rows: columns outside the QI set are unchanged
    reid = fitted.artifacts()["reid"]
    source = frame.iloc[reid["source_row"].to_numpy()].reset_index(drop=True)
    others = [c for c in frame.columns if c not in qi]
    pd.testing.assert_frame_equal(out[others], source[others], check_dtype=False)
    assert (reid["ec_size"] >= k).all()


def test_details_are_recorded(fitted: SafePub) -> None:
    details = fitted.details()
    assert details["epsilon"] == 1.0
    assert details["epsilon_anon"] == pytest.approx(0.9) and details["epsilon_search"] == pytest.approx(0.1)
    assert details["beta_max"] == pytest.approx(0.5934, abs=1e-4) and details["delta"] == 1e-4
    assert details["score"] == "class_k" and details["score_target"] == "income"
    assert details["score_sensitivity"] == 45.0 and details["score_sensitivity_validated"] is True
    assert set(details["node"]) == {
        "age",
        "workclass",
        "education",
        "occupation",
        "race",
        "sex",
        "native-country",
    }
    assert details["node_height"] == sum(details["node"].values())
    assert details["hierarchies"]["age"] == {
        "kind": "intervals",
        "widths": ["5", "10", "20", "40", "80"],
        "levels": 7,
    }
    assert details["lattice_size"] == 7 * math.prod(
        h["levels"] for c, h in details["hierarchies"].items() if c != "age"
    )
    assert 0 < details["n_candidates"] <= details["lattice_size"]
    assert 0 < details["score_value"] <= details["score_max"] <= details["n_sampled"]
    assert 0 < details["selection_probability"] < 1
    for key in ("n_sampled", "n_classes", "n_suppressed", "suppressed_share", "k", "beta", "achieved_k"):
        assert key in details
    assert fitted.info().formal_dp == {"epsilon": 1.0, "delta": 1e-4, "unit": "original_records"}


def test_same_seed_same_output_other_seed_differs(adult, fitted: SafePub) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    again = SafePub(widths={"age": 5}).fit(frame, spec, seed=3)
    pd.testing.assert_frame_equal(fitted.sample(), again.sample(), check_exact=True)
    assert fitted.details() == again.details()
    other = SafePub(widths={"age": 5}).fit(frame, spec, seed=4)
    assert not other.sample().equals(fitted.sample())


def test_unvalidated_sensitivity_is_flagged(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    small = frame.iloc[:800].reset_index(drop=True)
    gen = SafePub(score_sensitivity=1.0, epsilon=2.0, beta=0.3).fit(small, spec, seed=0)
    details = gen.details()
    assert details["k"] == safepub_k(1.8, 0.3, 1e-4) == 11
    assert details["score_sensitivity"] == 1.0 and details["score_sensitivity_validated"] is False
    assert (
        SafePub(score_sensitivity=11, epsilon=2.0, beta=0.3)
        .fit(small, spec, seed=0)
        .details()["score_sensitivity_validated"]
    )


def test_score_target_and_qi_parameters(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    small = frame.iloc[:800].reset_index(drop=True)
    default_spec = spec.with_active_qi(None)
    gen = SafePub(qi="safepub", score_target="marital-status").fit(small, default_spec, seed=0)
    assert gen.details()["score_target"] == "marital-status"
    assert gen.details()["qi"] == list(spec.qi)
    with pytest.raises(ConfigError, match="`score_target` 'salary' is not a column"):
        SafePub(score_target="salary").fit(small, spec, seed=0)


def test_infeasible_cases(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    with pytest.raises(InfeasibleConfigError, match="is 45-anonymous within") as info:
        SafePub().fit(frame.iloc[:40].reset_index(drop=True), spec, seed=0)  # < k rows sampled
    assert "\n" not in str(info.value)
    with pytest.raises(InfeasibleConfigError, match="kept none of the 1 training rows"):
        SafePub(beta=0.01).fit(frame.iloc[:1].reset_index(drop=True), spec, seed=0)
