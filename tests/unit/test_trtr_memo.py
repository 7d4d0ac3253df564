"""The cross-process TRTR memo of ml_efficacy (metrics.utility.trtr_memo): served = fitted."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import harness.memo
from harness.checks import ContractData, contract_data
from harness.datasets import load_spec
from harness.metric import MetricResult, as_outputs
from harness.registry import read_config
from harness.spec import canonical_json
from harness.splits import SplitConfig
from harness.trial import TrialConfig, run_trial
from metrics.utility import trtr_memo
from metrics.utility.ml_efficacy import MlEfficacy
from metrics.utility.trtr_memo import NAMESPACE, TRTR_CACHE, Fitted, from_json, grid_point, to_json

CONFIGS: dict[str, dict[str, Any]] = {
    "simple": {"classifiers": ["random_forest", "logistic_regression"], "n_estimators": 20},
    "carvalho2024": {
        "grid": "small",
        "cv_folds": 3,
        "cv_repeats": 1,
        "classifiers": ["random_forest", "mlp"],  # the MLP's grid point holds a tuple
    },
    "almeida2024": {"grid": "small", "classifiers": ["naive_bayes", "decision_tree"]},
    "almeida2024_reference": {
        "protocol": "almeida2024",
        "grid": "small",
        "tuning": "reference",
        "classifiers": ["decision_tree"],
    },
    "miletic2024": {"grid": "small"},  # TSTR reuses the TRTR's best parameters
}


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=10, n_test=300, seed=1)


@pytest.fixture
def memo_root(tmp_path: Path) -> Iterator[Path]:
    """An enabled cross-process memo under ``tmp_path`` (disabled again afterwards)."""
    TRTR_CACHE.clear()
    harness.memo.configure(tmp_path)
    yield tmp_path
    harness.memo.configure(None)
    TRTR_CACHE.clear()


def _metric(name: str) -> MlEfficacy:
    params = dict(CONFIGS[name])
    return MlEfficacy(protocol=params.pop("protocol", name), **params)


def _rows(out: Any) -> str:
    results: dict[str, MetricResult] = as_outputs(out)
    return canonical_json({k: dataclasses.asdict(v) for k, v in results.items()})


def _entries(root: Path) -> list[Path]:
    return sorted((root / "memo" / NAMESPACE).rglob("*.json"))


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_served_baseline_gives_the_same_rows(
    adult: ContractData, memo_root: Path, config: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    metric = _metric(config)
    release = adult.train.sample(frac=0.7, random_state=3)
    harness.memo.configure(None)
    plain = _rows(metric.compute(adult.train, release, adult.spec, test=adult.test, seed=4))

    TRTR_CACHE.clear()
    harness.memo.configure(memo_root)
    stored = _rows(metric.compute(adult.train, release, adult.spec, test=adult.test, seed=4))
    n_classifiers = len(metric.classifiers or metric.preset.classifiers)
    assert len(_entries(memo_root)) == n_classifiers

    TRTR_CACHE.clear()  # a fresh process: only the trial cache's entries remain
    fits: list[int] = []
    original = MlEfficacy._fit_score

    def counting(self: MlEfficacy, *args: Any, **kwargs: Any) -> Fitted:
        fits.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MlEfficacy, "_fit_score", counting)
    served = _rows(metric.compute(adult.train, release, adult.spec, test=adult.test, seed=4))
    assert len(fits) == n_classifiers  # TSTR only: every TRTR came from the memo
    assert plain == stored == served


def test_key_covers_data_parameters_and_seed(adult: ContractData, memo_root: Path) -> None:
    metric = _metric("simple")
    compute = metric.compute
    compute(adult.train, adult.train, adult.spec, test=adult.test, seed=1)
    assert len(_entries(memo_root)) == 2
    shuffled = adult.train.sample(frac=1.0, random_state=0)
    compute(shuffled, adult.train, adult.spec, test=adult.test, seed=1)  # same rows: same key
    assert len(_entries(memo_root)) == 2
    compute(adult.train, adult.train, adult.spec, test=adult.test, seed=2)
    assert len(_entries(memo_root)) == 4
    compute(adult.train.iloc[1:], adult.train, adult.spec, test=adult.test, seed=1)
    assert len(_entries(memo_root)) == 6
    compute(adult.train, adult.train, adult.spec, test=adult.test.iloc[1:], seed=1)
    assert len(_entries(memo_root)) == 8
    MlEfficacy(classifiers=["random_forest"], n_estimators=21).compute(
        adult.train, adult.train, adult.spec, test=adult.test, seed=1
    )
    assert len(_entries(memo_root)) == 9
    MlEfficacy(classifiers=["random_forest"], n_estimators=20, rope=5.0).compute(
        adult.train, adult.train, adult.spec, test=adult.test, seed=1
    )  # the ROPE does not change the baseline
    assert len(_entries(memo_root)) == 9


def test_corrupt_entry_is_refitted(adult: ContractData, memo_root: Path) -> None:
    metric = _metric("simple")
    first = _rows(metric.compute(adult.train, adult.train, adult.spec, test=adult.test, seed=1))
    for path in _entries(memo_root):
        path.write_text("{not json")
    TRTR_CACHE.clear()
    assert _rows(metric.compute(adult.train, adult.train, adult.spec, test=adult.test, seed=1)) == first


def test_switched_off_by_environment(
    adult: ContractData, memo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(trtr_memo.MEMO_ENV, "0")
    _metric("simple").compute(adult.train, adult.train, adult.spec, test=adult.test, seed=1)
    assert _entries(memo_root) == []


def test_json_round_trip_restores_grid_objects() -> None:
    grid: dict[str, list[Any]] = {"hidden_layer_sizes": [(3,), (3, 2)], "alpha": [0.001]}
    fitted = Fitted(
        scores={"roc_auc": 0.75, "f1": float("nan")},
        cv_score=0.5,
        best_params={"hidden_layer_sizes": (3, 2), "alpha": 0.001},
        n_configs=2,
        note="x",
    )
    back = from_json(to_json(fitted), grid)
    assert back is not None
    assert back.best_params == {"hidden_layer_sizes": (3, 2), "alpha": 0.001}
    assert isinstance(back.best_params["hidden_layer_sizes"], tuple)
    assert canonical_json(to_json(back)) == canonical_json(to_json(fitted))
    assert grid_point({"a": 1}, {}) == {"a": 1}
    assert from_json({"scores": "nope"}, grid) is None
    assert from_json(None, grid) is None


def _trial(cache: Path) -> TrialConfig:
    metric_cfg = {
        **read_config("metric", "ml_efficacy"),
        "protocol": "carvalho2024",
        "grid": "small",
        "cv_folds": 3,
        "cv_repeats": 1,
        "classifiers": ["random_forest", "logistic_regression"],
    }
    return TrialConfig(
        experiment="test",
        run_id="test",
        dataset="adult",
        dataset_cfg=load_spec("adult").to_dict(),
        generator="subsample",
        generator_cfg=read_config("generator", "subsample"),
        metrics={"ml_efficacy": metric_cfg},
        split=SplitConfig(),
        max_rows=500,
        cache_dir=cache,
        calibrate=False,
    )


def _comparable(rows: pd.DataFrame) -> pd.DataFrame:
    rows = rows[rows["family"] != "cost"]
    return rows.drop(
        columns=["timestamp", "metric_s", "calib_s", "fit_s", "sample_s", "peak_rss_mb", "cache_hit"]
    )


def test_trial_rows_identical_with_and_without_the_memo(tmp_path: Path) -> None:
    TRTR_CACHE.clear()
    without = run_trial(dataclasses.replace(_trial(tmp_path / "a"), use_cache=False))
    TRTR_CACHE.clear()
    first = run_trial(_trial(tmp_path / "b"))  # fits TRTR and stores it
    assert len(_entries(tmp_path / "b")) == 2
    for part in ("trials", "variants"):  # keep only the memo: the trial itself runs again
        shutil.rmtree(tmp_path / "b" / part, ignore_errors=True)
    TRTR_CACHE.clear()
    served = run_trial(_trial(tmp_path / "b"))
    harness.memo.configure(None)
    TRTR_CACHE.clear()
    assert not served["resumed"].any()
    pd.testing.assert_frame_equal(_comparable(without), _comparable(first))
    pd.testing.assert_frame_equal(_comparable(without), _comparable(served))
