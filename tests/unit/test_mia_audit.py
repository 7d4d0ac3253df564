"""Membership-inference audit (``mia_audit``): a copy of the training rows is audited as
maximally exposed, marginals of many rows hardly at all, the ε lower bound of a Laplace count
mechanism at ε = 1 stays below 1 and within a stated factor of it, a data-dependent domain is
caught, seeds give identical results, records carry no raw values, and bad parameters fail."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from harness.checks import ContractData, contract_data
from harness.errors import ConfigError
from harness.instantiate import GeneratorBuilder
from harness.metric import MetricResult
from harness.spec import DatasetSpec
from metrics.privacy.mia_audit import MiaAudit, _Scores, _Summary
from metrics.privacy.mia_targets import Population, select_targets

LAPLACE = {"_target_": "generators.poisson_counts.PoissonCounts", "mechanism": "laplace", "epsilon": 1.0}
QUICK = dict(n_outliers=1, n_random=1, n_shadows=3, n_syn_A=2, n_estimators=20)


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=50, seed=0)


def _audit(data: ContractData, generator: str, seed: int = 1, **params: object) -> dict[str, MetricResult]:
    metric = MiaAudit(**{**QUICK, **params})  # type: ignore[arg-type]
    out = metric.compute(
        data.train,
        data.train,
        data.spec,
        control=data.control,
        seed=seed,
        generator=GeneratorBuilder(generator),
    )
    assert isinstance(out, dict)
    return out


def test_a_copy_of_the_training_rows_is_maximally_exposed(adult: ContractData) -> None:
    # 100 games: the bound is computed on 50 IN and 50 OUT games; with a perfect attack the
    # one-sided 97.5 % Clopper–Pearson bounds give TPR >= 0.9289, FPR <= 0.0711: log(13.1) = 2.57.
    out = _audit(adult, "identity", n_games=100, n_random=0, attacks=["closest_distance", "density_ratio"])
    assert out["auc"].value > 0.99 and out["auc"].details["attack"] == "closest_distance"
    assert out["epsilon_lb"].value == pytest.approx(2.57, abs=0.01)
    assert out["tpr_at_fpr_10pct"].value > 0.95
    assert out["privacy_gain"].value < 0.1
    assert out["epsilon_lb"].details["configured_epsilon"] is None
    assert out["epsilon_lb"].details["exceeds_configured"] is False


def test_marginals_of_many_rows_are_hardly_exposed(adult: ContractData) -> None:
    out = _audit(adult, "independent_marginals", n_games=40)
    assert set(out) == {
        "auc", "tpr_at_fpr_0.1pct", "tpr_at_fpr_1pct", "tpr_at_fpr_10pct", "privacy_gain", "epsilon_lb",
        "auc_closest_distance", "auc_density_ratio", "auc_shadow_model",
    }  # fmt: skip
    assert out["auc"].value < 0.8
    assert out["epsilon_lb"].value < 1.0
    assert out["privacy_gain"].value > 0.6
    assert not out["tpr_at_fpr_0.1pct"].details["resolvable"]  # 80 OUT games cannot resolve 0.1 %
    details = out["auc"].details
    assert details["n_fits"] == (1 + 2) * (40 + 3)  # OUT fit shared by the targets, one IN fit each
    for curve in details["roc"].values():
        assert curve["fpr"][0] == 0.0 and curve["tpr"][-1] == 1.0


def _canary_table(n: int, canary: tuple[str, str], seed: int) -> pd.DataFrame:
    """Cells (p, r), (p, s), (q, r) only, plus one canary row."""
    rng = np.random.default_rng(seed)
    cells = np.array([("p", "r"), ("p", "s"), ("q", "r")], dtype=object)[rng.integers(0, 3, size=n)]
    frame = pd.DataFrame(cells, columns=["a", "b"])
    frame.loc[n // 2] = list(canary)
    return frame


CANARY_SPEC = DatasetSpec.from_dict({"name": "canary", "columns": {"a": "categorical", "b": "categorical"}})


def _canary_audit(canary: tuple[str, str], n_games: int) -> dict[str, MetricResult]:
    table = _canary_table(400, canary, seed=3)
    metric = MiaAudit(n_outliers=1, n_random=0, n_games=n_games, size_raw_T=50, attacks=["closest_distance"])
    out = metric.compute(
        table.iloc[:300].reset_index(drop=True),
        table.iloc[:300].reset_index(drop=True),
        CANARY_SPEC,
        control=table.iloc[300:].reset_index(drop=True),
        seed=5,
        generator=GeneratorBuilder("poisson_counts", {**LAPLACE, "columns": "all"}),
    )
    assert isinstance(out, dict)
    return out


def test_laplace_counts_at_epsilon_one_are_bounded_below_one_and_within_a_factor_two() -> None:
    """Calibration on an analytic mechanism: the Laplace count of the canary's cell (ε = 1).

    The canary (q, s) is the only record of its cell; both levels occur in other cells, so the
    cell exists with and without it. IN: b = max(0, rint(1 + L)), OUT: b = max(0, rint(L)),
    L ~ Laplace(1): the best test (b >= 2) has TPR/FPR = e exactly, so ε = 1 is attainable.
    With 1,000 games (500 choose the threshold, 500 bound it) the bound at 95 % must lie in
    [0.5, 1]: never above the truth, within a factor 2 of it.
    """
    out = _canary_audit(("q", "s"), n_games=1000)
    bound = out["epsilon_lb"]
    assert bound.details["configured_epsilon"] == 1.0
    assert 0.5 <= bound.value <= 1.0, bound.details
    assert bound.details["exceeds_configured"] is False
    records = out["auc"].details["records"]
    assert len(records) == 1 and records[0]["group"] == "outlier"


def test_a_level_read_from_the_training_data_is_caught() -> None:
    """A canary with a level of its own: ``poisson_counts`` builds its cells from the levels
    present in the training rows, so only an IN fit can release that level; the audit's
    bound exceeds the configured ε = 1 and says so."""
    out = _canary_audit(("t", "s"), n_games=200)
    bound = out["epsilon_lb"]
    assert bound.value > 2.0
    assert bound.details["exceeds_configured"] is True
    assert bound.details["configured_end_to_end"] is False


def test_same_seed_same_audit_and_no_raw_values(adult: ContractData) -> None:
    params = dict(n_games=6, n_shadows=2, n_syn_A=2, n_estimators=10)
    runs = [_audit(adult, "independent_marginals", seed=4, **params) for _ in range(2)]
    assert {
        k: (v.value, v.ci_low, v.ci_high, json.dumps(v.details, sort_keys=True)) for k, v in runs[0].items()
    } == {
        k: (v.value, v.ci_low, v.ci_high, json.dumps(v.details, sort_keys=True)) for k, v in runs[1].items()
    }
    other = _audit(adult, "independent_marginals", seed=5, **params)
    assert other["auc"].details["records"] != runs[0]["auc"].details["records"]
    text = json.dumps(runs[0]["auc"].details)
    for record in runs[0]["auc"].details["records"]:
        assert set(record) >= {"record", "group", "auc", "attack"}
        assert not set(record) & {"row_hash", "split", "position"}  # nothing that discloses membership
    for value in adult.train.iloc[0].astype(str):
        if len(value) > 3 and not value.replace(".", "").isdigit():
            assert f'"{value}"' not in text  # no category of a record in the details


def test_population_rows_know_where_they_came_from() -> None:
    train = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    control = pd.DataFrame({"x": [4.0, 5.0]})
    pop = Population.build(train, control)
    # inside the metric only: outputs name a row by its keyed reference alone
    assert all(set(pop.record(i)) == {"record"} for i in range(5))
    back = {(str(pop.split[i]), int(pop.position[i])): pop.frame.loc[i, "x"] for i in range(5)}
    assert back == {
        ("train", 0): 1.0,
        ("train", 1): 2.0,
        ("train", 2): 3.0,
        ("control", 0): 4.0,
        ("control", 1): 5.0,
    }
    shuffled = Population.build(train.iloc[::-1].reset_index(drop=True), control)
    assert shuffled.frame.equals(pop.frame)  # canonical order: the input order does not matter


def test_rarest_combination_is_the_outlier_without_numeric_columns() -> None:
    table = _canary_table(200, ("q", "s"), seed=0)
    outliers, randoms = select_targets(table, CANARY_SPEC, 1, 2, np.random.default_rng(0), 10)
    assert outliers == [100] and len(randoms) == 2 and 100 not in randoms


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_outliers": 0, "n_random": 0}, "no target"),
        ({"n_games": 2}, "n_games"),
        ({"attacks": ["nope"]}, "attacks"),
        ({"attacks": []}, "attacks"),
        ({"confidence": 1.0}, "confidence"),
        ({"aux_fraction": 0}, "aux_fraction"),
    ],
)
def test_bad_parameters_are_one_line_errors(params: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        MiaAudit(**params)._validate_params()  # type: ignore[arg-type]
    assert "\n" not in str(err.value)


def test_an_attack_whose_members_score_lower_is_turned_round() -> None:
    """A release that pushes a member away (lower closest-distance score when IN) leaks as much
    as one that keeps it: the direction is learnt on the selection games and the bound sees it."""
    rng = np.random.default_rng(0)
    n = 400
    scores = _Scores()
    for _ in range(n):
        scores.add("out", 0, {"closest_distance": float(rng.normal(0.0, 1.0))})
        scores.add("in", 0, {"closest_distance": float(rng.normal(-3.0, 1.0))})
    summary = _Summary(MiaAudit(n_outliers=1, n_random=0, n_games=n), scores, [0], np.random.default_rng(1))
    out = summary.results(None, [], {})
    assert out["auc"].value > 0.95
    assert out["auc"].details["attacks"]["closest_distance"]["direction"] == "lower_is_member"
    assert out["epsilon_lb"].value > 1.5


def test_the_audit_benchmark_runs_at_a_tiny_size() -> None:
    import io
    from contextlib import redirect_stdout

    from benchmarks.bench_mia_audit import main

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        main("--games 4 --targets 2 --generators independent_marginals".split())
    text = buffer.getvalue()
    assert "fits_per_s" in text and "independent_marginals" in text and "x" in text.splitlines()[-1]
