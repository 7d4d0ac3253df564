"""tcap (spec/metrics.md P11): the Kolb et al. example, the CARS numbers, nonmatch, calibration, multi-target."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import as_outputs
from harness.registry import read_config
from harness.spec import DatasetSpec
from metrics.privacy.tcap import Tcap, calibrate, marginal_baseline, multi_target_scores, tcap_score

KEYS = ["k1", "k2"]
# Kolb et al., Table 2: (a) synthetic, (b) original.
S = pd.DataFrame({"k1": [1, 1, 4, 4, 4, 5], "k2": [2, 2, 12, 12, 12, 12], "t": [3, 5, 4, 4, 4, 10]})
A = pd.DataFrame({"k1": [1, 1, 4, 4, 4, 5], "k2": [2, 2, 12, 12, 12, 12], "t": [3, 3, 4, 4, 9, 10]})
SPEC = DatasetSpec.from_dict(
    {
        "name": "kolb",
        "columns": {"k1": "integer", "k2": "integer", "t": "integer"},
        "qi_sets": {"default": KEYS},
        "sensitive": ["t"],
    }
)


def test_kolb_example() -> None:
    score = tcap_score(S, A, KEYS, "t")
    assert (score.n_kept, score.n_matched, score.n_correct) == (2, 4, 3)  # (4,12) and (5,12) kept
    assert score.tcap == pytest.approx(3 / 4)
    assert score.tcap_ratio == pytest.approx(1 / 2)  # only (5,12) has TCAP = 1
    assert score.n_kept_correct == 1
    # per-combination TCAP: 2/3 for (4,12), 1 for (5,12)
    assert tcap_score(S, A[A.k1 == 4], KEYS, "t").tcap == pytest.approx(2 / 3)
    assert tcap_score(S, A[A.k1 == 5], KEYS, "t").tcap == pytest.approx(1.0)
    assert score.baseline == pytest.approx(2 * (2 / 6) ** 2 + 2 * (1 / 6) ** 2)  # levels 3, 4, 9, 10


def test_nonmatch_variants() -> None:
    assert tcap_score(S, A, KEYS, "t", nonmatch="zero").tcap == pytest.approx(3 / 6)
    nothing = A.assign(k1=A.k1 + 100)
    undefined = tcap_score(S, nothing, KEYS, "t")
    assert undefined.tcap == 0.0 and undefined.defined is False and undefined.n_matched == 0
    zero = tcap_score(S, nothing, KEYS, "t", nonmatch="zero")
    assert zero.tcap == 0.0 and zero.defined is True


def test_cars_calibration_numbers() -> None:
    # Little et al. Table 10: CARS proportions 0.4726 / 0.5274 -> baseline 0.502.
    cars = pd.Series(["yes"] * 4726 + ["no"] * 5274)
    baseline = marginal_baseline(cars)
    assert round(baseline, 3) == 0.502
    assert round(calibrate(0.733, 0.502), 3) == 0.464
    assert round(calibrate(0.733, baseline), 3) == 0.464
    assert round(calibrate(0.719, 0.502), 3) == 0.436  # the paper prints 0.437
    assert round(calibrate(0.777, 0.502), 3) == 0.552
    assert calibrate(1.0, 0.502) == pytest.approx(1.0)
    assert calibrate(0.502, 0.502) == 0.0
    assert calibrate(0.2, 0.5) < 0  # below guessing: negative
    assert calibrate(1.0, 1.0) == 0.0  # a single target level discloses nothing


def test_calibrated_in_score() -> None:
    score = tcap_score(S, A, KEYS, "t")
    assert score.tcap_calibrated == pytest.approx((0.75 - score.baseline) / (1 - score.baseline))


def test_missing_values_are_levels() -> None:
    s = pd.DataFrame({"k1": [1, None], "k2": [2, 2], "t": ["a", None]})
    a = pd.DataFrame({"k1": [None, None, 1], "k2": [2, 2, 2], "t": [None, "b", "a"]})
    score = tcap_score(s, a, KEYS, "t")
    assert (score.n_matched, score.n_correct) == (3, 2)


def test_multi_target() -> None:
    scores = multi_target_scores(S, A, ["k1", "k2", "t"])
    # t from (k1, k2): 3/4; k1 from (k2, t): 5 matched, all correct; k2 from (k1, t): likewise.
    assert {c: s.tcap for c, s in scores.items()} == pytest.approx({"t": 0.75, "k1": 1.0, "k2": 1.0})
    out = as_outputs(Tcap(multi_target=True).compute(A, S, SPEC, seed=0))
    assert out["multi_target"].value == pytest.approx((0.75 + 1 + 1) / 3)
    assert out["multi_target"].details["tcap"] == pytest.approx({"k1": 1.0, "k2": 1.0, "t": 0.75})
    with pytest.raises(ConfigError, match="at least two columns"):
        multi_target_scores(S, A, ["t"])


def test_metric_outputs() -> None:
    out = as_outputs(Tcap().compute(A, S, SPEC, seed=0))
    assert set(out) == {"tcap:t", "tcap_calibrated:t", "tcap_ratio:t"}
    b = out["tcap:t"].baseline
    assert b is not None
    assert out["tcap:t"].value == pytest.approx(0.75) and b == pytest.approx(2 / 9 + 2 / 36)
    assert out["tcap_calibrated:t"].value == pytest.approx((0.75 - b) / (1 - b))
    assert out["tcap_ratio:t"].value == pytest.approx(0.5)
    assert out["tcap:t"].details["n_matched"] == 4


def test_attacked_control_and_holdout_details() -> None:
    control = A.iloc[[2, 3, 5]].reset_index(drop=True)  # (4,12,4) x2 and (5,12,10): all correct
    out = as_outputs(Tcap(attacked="control").compute(A, S, SPEC, control=control, seed=0))
    assert out["tcap:t"].value == pytest.approx(1.0)
    train = as_outputs(Tcap().compute(A, S, SPEC, control=control, seed=0))
    assert train["tcap:t"].value == pytest.approx(0.75)
    assert train["tcap:t"].details["tcap_control"] == pytest.approx(1.0)
    with pytest.raises(IncomputableMetricError, match="attacked=control needs a control split"):
        Tcap(attacked="control").compute(A, S, SPEC, seed=0)


def test_identical_release_scores_one() -> None:
    out = as_outputs(Tcap(nonmatch="zero").compute(A, A.copy(), SPEC, seed=0))
    # (1,2) has one level (3) in A; (4,12) has two (4, 9): only 3 of 6 records are matched.
    assert out["tcap:t"].value == pytest.approx(3 / 6)
    out = as_outputs(Tcap().compute(A, A.copy(), SPEC, seed=0))
    assert out["tcap:t"].value == 1.0 and out["tcap_ratio:t"].value == 1.0


def test_defaults_and_incomputable() -> None:
    bare = DatasetSpec.from_dict({"name": "kolb", "columns": dict.fromkeys(["k1", "k2", "t"], "integer")})
    with pytest.raises(IncomputableMetricError):
        Tcap().compute(A, S, bare, seed=0)
    with pytest.raises(IncomputableMetricError):
        Tcap(keys=KEYS).compute(A, S, bare, seed=0)
    assert as_outputs(Tcap(keys=KEYS, targets=["t"]).compute(A, S, bare, seed=0))[
        "tcap:t"
    ].value == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"keys": "k1"}, "keys"),
        ({"keys": ["k1", "k1"]}, "keys"),
        ({"targets": []}, "targets"),
        ({"nonmatch": "nan"}, "nonmatch"),
        ({"attacked": "test"}, "attacked"),
        ({"multi_target": "yes"}, "multi_target"),
    ],
)
def test_bad_params(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        Tcap(**params).validate_params()
    message = str(err.value)
    assert f"`{key}`" in message and "\n" not in message


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"keys": ["k1", "zz"]}, r"`keys` names unknown column\(s\) zz"),
        ({"targets": ["k1"]}, r"`targets` must not include key column\(s\) k1"),
    ],
)
def test_bad_columns(params: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        Tcap(**params).compute(A, S, SPEC, seed=0)


def test_yaml_builds_with_defaults() -> None:
    metric = build_metric("tcap", read_config("metric", "tcap"))
    assert isinstance(metric, Tcap)
    assert metric.get_params() == Tcap().get_params()
