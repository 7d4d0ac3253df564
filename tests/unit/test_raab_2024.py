"""R-RAAB building blocks: AdultUCI and the SD2011 subset, split kind none, raab_disclosure's
control ground truth, the experiment's suites and the paper's R (spec/reproductions.md §6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from experiments.reproductions.raab_2024_paper import TABLE3, specific_risk
from harness.datasets.loader import load_dataset, load_spec
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import as_outputs
from harness.spec import DatasetSpec
from harness.splits import SplitConfig, make_split
from metrics.privacy.raab_disclosure import RaabDisclosure

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------- datasets
def test_adult_uci_is_arules_adultuci() -> None:
    loaded = load_dataset(load_spec("adult_uci"))
    frame = loaded.frame
    assert frame.shape == (48842, 13)
    assert list(frame.columns) == [
        "age", "workclass", "education.num", "marital.status", "occupation", "relationship", "race",
        "sex", "capital.gain", "capital.loss", "hours.per.week", "native.country", "income",
    ]  # fmt: skip
    # income is NA exactly for the 16,281 adult.test rows (their labels end with ".")
    assert loaded.test_mask is not None
    assert frame["income"].isna().to_numpy().tolist() == loaded.test_mask.tolist()
    assert frame["income"].value_counts().to_dict() == {"<=50K": 24720, ">50K": 7841}
    assert frame[["workclass", "occupation", "native.country"]].isna().sum().tolist() == [2799, 2809, 857]
    assert frame["education.num"].dtype == object and frame["education.num"].nunique() == 16
    assert int((frame["capital.gain"] == 99999).sum()) == 244


def test_sd2011_raab_subset() -> None:
    frame = load_dataset(load_spec("sd2011_raab")).frame
    assert frame.shape == (5000, 9)
    assert list(frame.columns) == [
        "sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab",
    ]  # fmt: skip
    # the -8 code stays a level (recode_missing_codes: false)
    assert int((frame["income"] == -8).sum()) == 603
    assert frame["depress"].nunique(dropna=False) == 23
    assert frame[["sex", "age", "region", "placesize"]].drop_duplicates().shape[0] == 3459


# ---------------------------------------------------------------------- split kind none
def test_split_none_keeps_every_row_for_training() -> None:
    split = make_split(10, SplitConfig(kind="none"), split_seed=3, y=np.array([0, 1] * 5))
    assert split.train.tolist() == list(range(10))
    assert len(split.control) == 0 and len(split.test) == 0
    train, control, test = split.take(pd.DataFrame({"x": range(10)}))
    assert len(train) == 10 and control.empty and test.empty


def test_split_kind_error_names_none() -> None:
    with pytest.raises(ConfigError, match="holdout, kfold, predefined, none; got 'all'"):
        SplitConfig.from_dict({"kind": "all"})


# ---------------------------------------------------------------------- ground_truth: control
KEYS = ["k1", "k2"]
SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"k1": "categorical", "k2": "categorical", "t": "categorical"},
        "qi_sets": {"default": KEYS},
        "sensitive": ["t"],
    }
)
TRAIN = pd.DataFrame({"k1": ["A", "A", "B"], "k2": ["x", "x", "x"], "t": ["a", "a", "b"]})
RELEASE = pd.DataFrame({"k1": ["A", "B"], "k2": ["x", "x"], "t": ["a", "b"]})
# control: A|x with a (correct) and b (wrong), C|x absent from the release
CONTROL = pd.DataFrame({"k1": ["A", "A", "C"], "k2": ["x", "x", "x"], "t": ["a", "b", "a"]})


def test_ground_truth_control_by_hand() -> None:
    train = as_outputs(RaabDisclosure().compute(TRAIN, RELEASE, SPEC, control=CONTROL, seed=0))
    assert train["DiSCO:t"].value == pytest.approx(100.0)  # every training record is disclosed
    out = as_outputs(
        RaabDisclosure(ground_truth="control").compute(TRAIN, RELEASE, SPEC, control=CONTROL, seed=0)
    )
    disco = out["DiSCO:t"]
    assert disco.value == pytest.approx(100 / 3)  # (A|x, a) only
    assert disco.baseline == pytest.approx(100 / 3)  # Dorig of the control: C|x is unique
    assert disco.details["iS"] == pytest.approx(200 / 3)  # A|x twice
    assert disco.details["DiS"] == pytest.approx(200 / 3)
    assert out["repU"].baseline == pytest.approx(100 / 3) and out["repU"].value == 0.0  # C|x not released
    assert out["repU"].details["ground_truth"] == "control"


def test_ground_truth_control_needs_control_rows() -> None:
    metric = RaabDisclosure(ground_truth="control")
    with pytest.raises(
        IncomputableMetricError, match="ground_truth: control needs a non-empty control split"
    ):
        metric.compute(TRAIN, RELEASE, SPEC, control=CONTROL.iloc[:0], seed=0)
    with pytest.raises(IncomputableMetricError):
        metric.compute(TRAIN, RELEASE, SPEC, seed=0)


def test_ground_truth_bad_value_is_one_line() -> None:
    with pytest.raises(ConfigError) as err:
        RaabDisclosure(ground_truth="holdout").validate_params()
    assert str(err.value) == "`ground_truth` must be one of 'train', 'control'; got 'holdout'"


# ---------------------------------------------------------------------- experiment suites
def _suite(name: str) -> dict:
    return yaml.safe_load((ROOT / "experiments" / "suite" / f"{name}.yaml").read_text())["metrics"]


def test_adult_suite_is_table2_column_settings() -> None:
    metrics = _suite("raab_2024_adult")
    one_way = {"capital.gain": [0], "capital.loss": [0], "native.country": ["United-States"]}
    expected = {
        "raab_c0": {},
        "raab_c1": {"not_targetslev": one_way},
        "raab_c2": {"not_targetslev": one_way, "use_targets_na": False},
        "raab_c3": {"not_targetslev": one_way, "use_targets_na": False, "denom_lim": 1},
        "raab_c4": {"denom_lim": 1},
    }
    for name, options in expected.items():
        params = metrics[name]
        assert params["keys"] == ["age", "occupation", "race", "sex"]
        assert len(params["targets"]) == 9 and params["denom_source"] == "original"
        extra = {k: v for k, v in params.items() if k not in ("keys", "targets", "denom_source")}
        assert extra == options, name
        RaabDisclosure(**params).validate_params()
    assert metrics["raab_c3_sd"]["denom_source"] == metrics["raab_c4_sd"]["denom_source"] == "synthetic"


def test_sd2011_suite() -> None:
    metrics = _suite("raab_2024_sd2011")
    assert metrics["raab_control"]["ground_truth"] == "control"
    assert metrics["raab_workab_no"]["not_targetslev"] == {"workab": ["NO"]}  # a string, not YAML's false
    for params in metrics.values():
        assert params["keys"] == ["sex", "age", "region", "placesize"]
        RaabDisclosure(**params).validate_params()


# ---------------------------------------------------------------------- Table 3's R
def test_specific_risk_by_hand() -> None:
    assert specific_risk(9.45, 4.20) == pytest.approx((0.0945 - 0.042) / (1 - 0.042))
    assert specific_risk(5.0, 5.0) == 0.0
    # the printed R column follows from the printed Train and Ctrl columns at 2 decimals
    for row in TABLE3.values():
        for k in (0, 4):
            assert abs(specific_risk(row[k + 1], row[k + 2]) - row[k + 3]) <= 0.005
