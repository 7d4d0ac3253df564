"""``grouped_exact_match``: matches and EUC within replicates (reproductions.md §9)."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.spec import DatasetSpec
from metrics.privacy.grouped_exact_match import GroupedExactMatch

SPEC = DatasetSpec.from_dict(
    {"name": "groups", "columns": {"g": "categorical", "x": "continuous", "y": "continuous"}}
)
TRAIN = pd.DataFrame({"g": ["a", "a", "b", "b"], "x": [0.0, 3.0, 10.0, 10.0], "y": [0.0, 4.0, 0.0, 1.0]})


def test_hand_computed_within_groups() -> None:
    # group a: (0, 0) copies T's first row (d = 0); (3, 0) is 3 from (0, 0) and 4 from (3, 4) → d = 3
    # group b: (0, 0) would copy group a's first row, but only b's rows count → d = 10; (10, 1) is a copy
    release = pd.DataFrame({"g": ["a", "a", "b", "b"], "x": [0.0, 3.0, 0.0, 10.0], "y": [0.0, 0.0, 0.0, 1.0]})
    out = GroupedExactMatch(by="g").compute(TRAIN, release, SPEC)
    assert out["matches_tol"].value == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert out["euc_mean"].value == pytest.approx(((0 + 3) / 2 + (10 + 0) / 2) / 2)
    details = out["matches_tol"].details
    assert details["n_matches"] == 2 and details["n_rows"] == 4 and details["n_groups"] == 2
    assert details["matches_per_group"] == {"1": 2}
    assert out["euc_mean"].goal == "maximise"
    whole = GroupedExactMatch(by=None).compute(TRAIN, release, SPEC)
    assert whole["matches_tol"].value == pytest.approx(3 / 4)  # across groups (0, 0) in b copies a's row


def test_delta_is_strict_and_groups_without_training_rows_are_skipped() -> None:
    release = pd.DataFrame({"g": ["a", "a", "c", "c"], "x": [1e-6, 3.0, 0.0, 0.0], "y": [0.0, 4.0, 0.0, 0.0]})
    out = GroupedExactMatch(by="g", delta=1e-6).compute(TRAIN, release, SPEC)
    assert out["matches_tol"].value == pytest.approx(0.5)  # d = 1e-6 is not < 1e-6
    assert out["matches_tol"].details["n_skipped"] == 1


def test_errors() -> None:
    with pytest.raises(ConfigError, match="`delta` must be a number > 0; got 0"):
        GroupedExactMatch(delta=0).compute(TRAIN, TRAIN, SPEC)
    with pytest.raises(IncomputableMetricError, match="no release group has training rows"):
        GroupedExactMatch(by="g").compute(TRAIN, TRAIN.assign(g="z"), SPEC)
    with pytest.raises(IncomputableMetricError, match="not numeric columns"):
        GroupedExactMatch(by="g", columns=["g"]).compute(TRAIN, TRAIN, SPEC)
