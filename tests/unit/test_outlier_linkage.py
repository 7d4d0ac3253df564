"""outlier_linkage (spec/metrics.md P9): Gauss thresholds, hand-computed counts, blocking, params."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.checks import uniform_release
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult, as_outputs
from harness.registry import read_config
from harness.spec import DatasetSpec
from metrics.privacy.outlier_linkage import (
    PAPER_CATEGORICAL_QIS,
    PAPER_NUMERIC_QIS,
    OutlierLinkage,
    gauss_similarity,
    match_tolerance,
)

# A miniature of Credit Risk's QIs, named like the real table so that the paper's defaults apply.
COLUMNS = {
    "person_age": "integer",
    "person_income": "integer",
    "person_home_ownership": "categorical",
    "loan_intent": "categorical",
}
SPEC = DatasetSpec.from_dict({"name": "credit_risk", "columns": COLUMNS})
OTHER_SPEC = DatasetSpec.from_dict(
    {"name": "mini", "columns": COLUMNS, "qi_sets": {"default": ["person_age", "person_home_ownership"]}}
)


def _run(metric: BaseMetric, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
    """``metric.compute`` with its outputs as a dict (typed for mypy)."""
    return as_outputs(metric.compute(*args, **kwargs))


def _train() -> pd.DataFrame:
    """20 ordinary rows (age 30, income 50,000) and two outliers: age 90 and income 1,000,000."""
    n = 20
    frame = pd.DataFrame(
        {
            "person_age": [30] * n + [90, 31],
            "person_income": [50_000] * n + [52_000, 1_000_000],
            "person_home_ownership": ["RENT"] * n + ["OWN", "MORTGAGE"],
            "loan_intent": ["EDUCATION"] * n + ["PERSONAL", "VENTURE"],
        }
    )
    return frame


def _values(out: dict) -> dict[str, float]:
    return {k: r.value for k, r in out.items()}


def test_gauss_similarity_thresholds_of_the_paper() -> None:
    # person_age: offset = scale = 5 -> similarity 1 up to 5, 0.5 at 10, below 0.5 beyond
    age = gauss_similarity(np.array([0, 5, 7.5, 10, 10.01, -10]), offset=5, scale=5)
    assert age[:2].tolist() == [1.0, 1.0]
    assert age[2] == pytest.approx(2 ** (-0.25))
    assert age[3] == 0.5 and age[5] == 0.5
    assert age[4] < 0.5
    income = gauss_similarity(np.array([1000, 2000, 2001, np.nan]), offset=1000, scale=1000)
    assert income.tolist()[:2] == [1.0, 0.5] and income[2] < 0.5 and income[3] == 0.0
    assert match_tolerance(5, 5, 0.5) == 10.0
    assert match_tolerance(1000, 1000, 0.5) == 2000.0
    assert match_tolerance(1000, 1000, 1.0) == 1000.0
    # the interval test agrees with the similarity itself at another threshold
    tol = match_tolerance(2.0, 3.0, 0.8)
    assert gauss_similarity(tol - 1e-9, 2.0, 3.0) >= 0.8 > gauss_similarity(tol + 1e-6, 2.0, 3.0)


def test_hand_computed_counts_with_paper_defaults() -> None:
    train = _train()
    synthetic = pd.DataFrame(
        {
            # 0: matches outlier age 90 (|Δage| = 10, |Δincome| = 2,000: both on the boundary)
            # 1: second match of the age outlier (Δage = 3)
            # 2: age-outlier values but another home ownership -> numeric match only
            # 3: |Δage| = 11 -> no match
            # 4: matches the income outlier exactly once (|Δincome| = 1,500)
            # 5: |Δincome| = 2,001 -> no match
            # 6-7: ordinary rows
            "person_age": [80, 93, 90, 79, 31, 31, 30, 30],
            "person_income": [54_000, 52_000, 52_000, 52_000, 998_500, 1_002_001, 50_000, 50_500],
            "person_home_ownership": ["OWN", "OWN", "RENT", "OWN", "MORTGAGE", "MORTGAGE", "RENT", "RENT"],
            "loan_intent": ["PERSONAL"] * 4 + ["VENTURE"] * 2 + ["EDUCATION"] * 2,
        }
    )
    out = _run(OutlierLinkage(), train, synthetic, SPEC, seed=0)
    values = _values(out)
    details = out["n_outliers"].details
    assert details["qi_source"].startswith("numeric: paper")
    assert details["match_tolerance"] == {"person_age": 10.0, "person_income": 2000.0}
    assert details["n_outliers_per_qi"] == {"person_age": 1, "person_income": 1}
    assert values["n_outliers"] == 2
    assert values["n_possible_matches"] == 3  # age outlier: rows 0, 1; income outlier: row 4
    assert values["n_unique_matches"] == 1  # only the income outlier has exactly one match
    assert values["unique_match_rate"] == 0.5
    assert values["numeric_qi_n_possible_matches"] == 4  # + row 2 without the categorical QIs
    # rows 0-5 lie outside T's 3-sigma band (T's mean and sd, not S's)
    assert values["n_outliers_synthetic"] == 6
    # all of T: 20 ordinary rows x S rows 6, 7 (40 pairs) + the 3 outlier pairs
    assert values["all_records_n_possible_matches"] == 43
    assert values["all_records_n_unique_matches"] == 1
    assert values["all_records_unique_match_rate"] == pytest.approx(1 / 22)
    goals = {k: r.goal for k, r in out.items()}
    assert goals["n_outliers"] == goals["n_outliers_synthetic"] == "none"
    assert goals["numeric_qi_n_possible_matches"] == "none"
    assert goals["unique_match_rate"] == goals["all_records_n_possible_matches"] == "minimise"


def _brute_force(train: pd.DataFrame, synthetic: pd.DataFrame, rows: np.ndarray) -> np.ndarray:
    """Possible matches per T row of ``rows`` from the full |rows| x |S| similarity matrices."""
    ok = np.ones((len(rows), len(synthetic)), dtype=bool)
    for col, gauss in PAPER_NUMERIC_QIS.items():
        delta = train[col].to_numpy(float)[rows, None] - synthetic[col].to_numpy(float)[None, :]
        ok &= gauss_similarity(delta, gauss["offset"], gauss["scale"]) >= 0.5
    for col in PAPER_CATEGORICAL_QIS:
        ok &= train[col].to_numpy()[rows, None] == synthetic[col].to_numpy()[None, :]
    return ok.sum(axis=1)


@pytest.mark.parametrize("chunk_pairs", [1, 7, 2_000_000])
def test_matches_brute_force_and_is_chunk_invariant(chunk_pairs: int) -> None:
    rng = np.random.default_rng(3)
    n = 400

    def table(size: int) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "person_age": np.round(rng.gamma(9.0, 3.0, size)).astype(int) + 18,
                "person_income": np.round(rng.lognormal(11, 0.6, size), -2).astype(int),
                "person_home_ownership": rng.choice(["RENT", "OWN", "MORTGAGE"], size),
                "loan_intent": rng.choice(["EDUCATION", "PERSONAL"], size),
            }
        )

    train, synthetic = table(n), table(n)
    out = _run(OutlierLinkage(chunk_pairs=chunk_pairs), train, synthetic, SPEC, seed=0)
    per_row = _brute_force(train, synthetic, np.arange(n))
    assert out["all_records_n_possible_matches"].value == per_row.sum()
    assert out["all_records_n_unique_matches"].value == np.count_nonzero(per_row == 1)
    z = (train[["person_age", "person_income"]] - train[["person_age", "person_income"]].mean()) / train[
        ["person_age", "person_income"]
    ].std(ddof=1)
    outliers = np.flatnonzero((z.abs() > 3).any(axis=1).to_numpy())
    assert out["n_outliers"].value == len(outliers) > 0
    assert out["n_possible_matches"].value == per_row[outliers].sum()
    assert out["n_unique_matches"].value == np.count_nonzero(per_row[outliers] == 1)


def test_identical_release_is_riskier_than_degraded() -> None:
    train = _train()
    identical = _values(_run(OutlierLinkage(), train, train.copy(), SPEC, seed=0))
    degraded = _values(_run(OutlierLinkage(), train, uniform_release(train, SPEC, seed=0), SPEC, seed=0))
    assert identical["n_unique_matches"] == 2 and identical["unique_match_rate"] == 1.0
    for key in (
        "unique_match_rate",
        "n_unique_matches",
        "n_possible_matches",
        "all_records_n_possible_matches",
    ):
        assert identical[key] >= degraded[key], key
    assert identical["all_records_n_possible_matches"] > degraded["all_records_n_possible_matches"]


def test_row_order_invariance() -> None:
    train = _train()
    synthetic = uniform_release(train, SPEC, seed=1)
    base = _values(_run(OutlierLinkage(), train, synthetic, SPEC, seed=0))
    shuffled = _values(
        _run(
            OutlierLinkage(),
            train.sample(frac=1.0, random_state=0),
            synthetic.sample(frac=1.0, random_state=1),
            SPEC,
            seed=0,
        )
    )
    assert base == shuffled


def test_automatic_qis_on_other_datasets() -> None:
    train = _train()
    out = _run(OutlierLinkage(), train, train.copy(), OTHER_SPEC, seed=0)
    details = out["n_outliers"].details
    sd = train["person_age"].std(ddof=1)
    assert details["categorical_qis"] == ["person_home_ownership"]
    assert details["numeric_qis"] == {
        "person_age": {"offset": pytest.approx(0.25 * sd), "scale": pytest.approx(0.25 * sd)}
    }
    assert out["n_outliers"].value == 1  # age 90 only: income is not a QI here
    assert out["n_unique_matches"].value == 1


def test_explicit_qis_and_outlier_rule() -> None:
    train = _train()
    explicit = OutlierLinkage(numeric_qis={"person_income": {"offset": 0, "scale": 1}}, categorical_qis=[])
    out = _run(explicit, train, train.copy(), OTHER_SPEC, seed=0)
    assert out["n_outliers"].value == 1 and out["n_outliers"].details["categorical_qis"] == []
    both = _run(OutlierLinkage(outlier_rule="all"), train, train.copy(), SPEC, seed=0)
    assert both["n_outliers"].value == 0  # no row is extreme on age and income at once
    assert both["unique_match_rate"].value == 0.0 and both["unique_match_rate"].details["no_outliers"]


def test_missing_values_never_match_and_are_not_outliers() -> None:
    train = _train().astype({"person_income": "Int64"})
    train.loc[0, "person_income"] = pd.NA
    synthetic = train.copy()
    out = _run(OutlierLinkage(), train, synthetic, SPEC, seed=0)
    assert out["n_outliers"].value == 2
    # row 0 has no income: it matches nothing, not even itself
    assert out["all_records_n_possible_matches"].value == 19 * 19 + 2


def test_no_numeric_qi_is_incomputable() -> None:
    spec = DatasetSpec.from_dict(
        {"name": "mini", "columns": COLUMNS, "qi_sets": {"default": ["person_home_ownership"]}}
    )
    with pytest.raises(IncomputableMetricError, match="numeric QI"):
        _run(OutlierLinkage(), _train(), _train(), spec, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"numeric_qis": {}}, "numeric_qis"),
        ({"numeric_qis": ["person_age"]}, "numeric_qis"),
        ({"numeric_qis": {"person_age": {"offset": 5}}}, "numeric_qis"),
        ({"numeric_qis": {"person_age": {"offset": -1, "scale": 5}}}, "numeric_qis.person_age.offset"),
        ({"numeric_qis": {"person_age": {"offset": 5, "scale": 0}}}, "numeric_qis.person_age.scale"),
        ({"categorical_qis": "loan_intent"}, "categorical_qis"),
        ({"z": 0}, "z"),
        ({"z": "3"}, "z"),
        ({"outlier_rule": "most"}, "outlier_rule"),
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"auto_offset_sd": -0.1}, "auto_offset_sd"),
        ({"auto_scale_sd": 0}, "auto_scale_sd"),
        ({"chunk_pairs": 0}, "chunk_pairs"),
    ],
)
def test_bad_params_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        OutlierLinkage(**params).validate_params()
    message = str(info.value)
    assert f"`{key}`" in message and "\n" not in message


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"numeric_qis": {"nope": {"offset": 1, "scale": 1}}}, "numeric_qis"),
        ({"numeric_qis": {"loan_intent": {"offset": 1, "scale": 1}}}, "numeric_qis"),
        ({"categorical_qis": ["nope"]}, "categorical_qis"),
    ],
)
def test_unknown_or_mistyped_columns_raise_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=f"`{key}`"):
        _run(OutlierLinkage(**params), _train(), _train(), SPEC, seed=0)


def test_yaml_builds_with_spec_defaults() -> None:
    metric = build_metric("outlier_linkage", read_config("metric", "outlier_linkage"))
    assert isinstance(metric, OutlierLinkage)
    assert metric.get_params() == OutlierLinkage().get_params()


def test_real_credit_risk_sample() -> None:
    """The shared table without NA rows: 675 outliers (480 on age, 209 on income; reproductions.md §8)."""
    from harness.datasets import load_dataset, load_spec

    spec = load_spec("credit_risk")
    frame = load_dataset(spec).frame.dropna().reset_index(drop=True)
    release = frame.sample(n=3000, random_state=0).reset_index(drop=True)
    out = _run(OutlierLinkage(), frame, release, spec, seed=0)
    details = out["n_outliers"].details
    assert len(frame) == 28_638
    assert out["n_outliers"].value == 675
    assert details["n_outliers_per_qi"] == {"person_age": 480, "person_income": 209}
    # the release is a sample of T: each of its outliers (flagged with T's mean and sd) matches
    # at least itself, and every released row matches its own T row
    assert out["n_possible_matches"].value >= out["n_outliers_synthetic"].value > 0
    assert 0.0 <= out["unique_match_rate"].value <= 1.0
    assert out["all_records_n_possible_matches"].value >= len(release)


def test_intervals_are_wilson_and_exact_poisson() -> None:
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    from metrics.privacy.outlier_linkage import poisson_interval, wilson_interval

    for k, n in [(0, 3), (1, 3), (3, 3), (7, 40)]:
        assert wilson_interval(k, n, 0.95) == pytest.approx(proportion_confint(k, n, method="wilson"))
    assert wilson_interval(0, 0, 0.95) is None
    low, high = poisson_interval(4, 0.95)  # Garwood: P(X >= 4 | low) = P(X <= 4 | high) = 2.5 %
    assert stats.poisson.sf(3, low) == pytest.approx(0.025) and stats.poisson.cdf(4, high) == pytest.approx(
        0.025
    )
    assert poisson_interval(0, 0.95)[0] == 0.0
