"""reid_score (spec/metrics.md P4): hand-computed equivalence classes, curve, baseline, params."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult, as_outputs
from harness.spec import DatasetSpec
from metrics.privacy.reid_score import ClassProfile, ReidScore

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "sex": "categorical", "salary": "continuous"},
        "qi_sets": {"demo": ["age", "sex"]},
    }
)
# QI classes of RELEASE: (30, F) x3, (40, M) x2, (50, NA) x1  -> sizes 3, 2, 1
RELEASE = pd.DataFrame(
    {
        "age": [30, 30, 30, 40, 40, 50],
        "sex": ["F", "F", "F", "M", "M", None],
        "salary": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    }
)
# TRAIN classes: (30, F) x4, (50, NA) x2, (60, M) x1 -> sizes 4, 2, 1 (7 rows)
TRAIN = pd.DataFrame(
    {
        "age": [30, 30, 30, 30, 50, 50, 60],
        "sex": ["F", "F", "F", "F", None, None, "M"],
        "salary": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    }
)


def _run(metric: BaseMetric, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
    return as_outputs(metric.compute(*args, **kwargs))


def _values(out: dict[str, MetricResult]) -> dict[str, float]:
    return {k: r.value for k, r in out.items()}


def test_hand_computed_outputs_and_baselines() -> None:
    out = _run(ReidScore(ks=[2, 3], k_max=4, ranked=True), TRAIN, RELEASE, SPEC, seed=0)
    assert _values(out) == pytest.approx(
        {
            "reid_mean": 3 / 6,  # record-weighted: (3·1/3 + 2·1/2 + 1·1)/6 = #classes/|D|
            "reid_mean_classes": (1 / 3 + 1 / 2 + 1) / 3,
            "reid_max": 1.0,
            "k_anonymity": 1.0,
            "prop_k_anonymous_k2": 5 / 6,
            "prop_k_anonymous_k3": 3 / 6,
            "suppression_rate": (7 - 6) / 7,
        }
    )
    baselines = {k: r.baseline for k, r in out.items()}
    assert baselines == pytest.approx(
        {
            "reid_mean": 3 / 7,
            "reid_mean_classes": (1 / 4 + 1 / 2 + 1) / 3,
            "reid_max": 1.0,
            "k_anonymity": 1.0,
            "prop_k_anonymous_k2": 6 / 7,
            "prop_k_anonymous_k3": 4 / 7,
            "suppression_rate": None,
        }
    )
    goals = {k: r.goal for k, r in out.items()}
    assert goals["reid_mean"] is None and ReidScore.goal == "minimise"
    assert goals["k_anonymity"] == goals["prop_k_anonymous_k2"] == "maximise"
    assert goals["suppression_rate"] == "minimise"
    details = out["reid_mean"].details
    assert details["n_classes"] == 3 and details["n_rows"] == 6 and details["qi"] == ["age", "sex"]
    assert details["k_threshold_curve"] == {
        "k": [1, 2, 3, 4],
        "release": pytest.approx([1.0, 5 / 6, 3 / 6, 0.0]),
        "train": pytest.approx([1.0, 6 / 7, 4 / 7, 4 / 7]),
    }


def test_unranked_by_default() -> None:
    out = _run(ReidScore(), TRAIN, RELEASE, SPEC, seed=0)
    assert {r.goal for r in out.values()} == {"none"}
    ranked = _run(ReidScore(ranked=True), TRAIN, RELEASE, SPEC, seed=0)
    assert _values(ranked) == _values(out)


def test_na_and_generalised_labels_are_values() -> None:
    release = pd.DataFrame(
        {
            "age": ["[20, 30)", "[20, 30)", "*", "*", None, None],
            "sex": ["*", "*", "F", "F", None, None],
            "salary": [1.0] * 6,
        }
    )
    out = _run(ReidScore(ks=[2]), TRAIN, release, SPEC, seed=0)
    assert out["k_anonymity"].value == 2.0
    assert out["reid_max"].value == 0.5
    assert out["prop_k_anonymous_k2"].value == 1.0
    assert "suppression_rate" in out  # 6 < 7 rows


def test_k_anonymous_release_and_no_suppression_output_when_not_smaller() -> None:
    release = pd.concat([RELEASE.iloc[:5]] * 2, ignore_index=True)  # classes of sizes 6 and 4
    out = _run(ReidScore(ks=[4, 5, 7]), TRAIN, release, SPEC, seed=0)
    assert out["k_anonymity"].value == 4.0
    assert out["reid_max"].value == pytest.approx(1 / out["k_anonymity"].value)
    assert out["prop_k_anonymous_k4"].value == 1.0
    assert out["prop_k_anonymous_k5"].value == pytest.approx(6 / 10)
    assert out["prop_k_anonymous_k7"].value == 0.0
    assert "suppression_rate" not in out  # |S| = 10 >= |T| = 7


def test_curve_is_non_increasing_and_starts_at_one() -> None:
    rng = np.random.default_rng(0)
    release = pd.DataFrame(
        {"age": rng.integers(20, 30, 200), "sex": rng.choice(["F", "M"], 200), "salary": rng.normal(size=200)}
    )
    out = _run(ReidScore(k_max=50), release, release, SPEC, seed=0)
    curve = np.asarray(out["reid_mean"].details["k_threshold_curve"]["release"])
    assert curve[0] == 1.0 and len(curve) == 50
    assert np.all(np.diff(curve) <= 0)
    sizes = release.groupby(["age", "sex"]).size()
    assert curve[4] == pytest.approx(sizes[sizes >= 5].sum() / 200)


def test_row_order_invariance() -> None:
    shuffled = RELEASE.sample(frac=1.0, random_state=3).reset_index(drop=True)
    a = _run(ReidScore(), TRAIN, RELEASE, SPEC, seed=0)
    b = _run(ReidScore(), TRAIN, shuffled, SPEC, seed=0)
    assert _values(a) == _values(b)
    assert a["reid_mean"].details["k_threshold_curve"] == b["reid_mean"].details["k_threshold_curve"]


def test_class_profile_direct() -> None:
    profile = ClassProfile(np.array([5, 1, 1, 3]))
    assert profile.n_rows == 10 and profile.n_classes == 4
    assert profile.prop_k_anonymous(1) == 1.0
    assert profile.prop_k_anonymous(2) == pytest.approx(0.8)
    assert profile.prop_k_anonymous(4) == pytest.approx(0.5)
    assert profile.prop_k_anonymous(6) == 0.0


def test_needs_a_qi_set() -> None:
    spec = DatasetSpec.from_dict(
        {"name": "noqi", "columns": {"age": "integer", "sex": "categorical", "salary": "continuous"}}
    )
    with pytest.raises(IncomputableMetricError, match="QI set"):
        _run(ReidScore(), TRAIN, RELEASE, spec, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"ks": "5"}, "`ks`"),
        ({"ks": [0]}, "`ks`"),
        ({"ks": [2, 2]}, "`ks`"),
        ({"ks": [True]}, "`ks`"),
        ({"ks": [2.5]}, "`ks`"),
        ({"k_max": 0}, "`k_max`"),
        ({"k_max": "50"}, "`k_max`"),
        ({"ranked": "yes"}, "`ranked`"),
    ],
)
def test_bad_params_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        ReidScore(**params).validate_params()
    assert key in str(info.value) and "\n" not in str(info.value)


def test_yaml_builds() -> None:
    metric = build_metric("reid_score")
    assert isinstance(metric, ReidScore)
    assert list(metric.ks) == [2, 5, 10] and metric.k_max == 50 and metric.ranked is False
