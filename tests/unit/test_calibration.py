"""Privacy calibration (``harness/calibration.py``): references, seeds, cache; report rows."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from harness.calibration import Block, CalibrationCache, calibrate, calibration_seed, reference_releases
from harness.checks import ContractData, contract_data
from harness.instantiate import build_generator, build_metric
from harness.metric import as_outputs
from harness.report.calibration import leakage_table, with_reference_rows
from harness.report.prepare import prepare
from harness.report.tables import summary_table

BLOCK = Block(
    dataset_digest="d", max_rows=None, split={"kind": "holdout"}, split_seed=0, fold=0, qi_set="default"
)


@pytest.fixture(scope="module")
def data() -> ContractData:
    return contract_data("german_credit", n_train=300, n_control=100, n_test=100, seed=0)


def test_references_are_what_identity_and_real_holdout_release(data: ContractData) -> None:
    releases = reference_releases(data.train, data.control, data.spec, BLOCK)
    pd.testing.assert_frame_equal(releases["raw"], data.train.reset_index(drop=True), check_index_type=False)
    holdout = build_generator("real_holdout").fit(
        data.train, data.spec, seed=calibration_seed_generator(), control=data.control
    )
    pd.testing.assert_frame_equal(releases["none"], holdout.sample())


def calibration_seed_generator() -> int:
    from harness.seeding import derive_seed

    return derive_seed(BLOCK.split_seed, "calibration", BLOCK.fold, "real_holdout")


def test_values_equal_the_metric_on_the_references_and_are_cached(data: ContractData, tmp_path: Path) -> None:
    metric = build_metric("exact_match")
    cache = CalibrationCache(tmp_path)
    kwargs = {
        "block": BLOCK,
        "train": data.train,
        "control": data.control,
        "test": data.test,
        "spec": data.spec,
    }
    first = calibrate("exact_match", metric, "x", cache=cache, **kwargs)  # type: ignore[arg-type]
    assert not first.cached
    releases = reference_releases(data.train, data.control, data.spec, BLOCK)
    seed = calibration_seed(BLOCK, "exact_match")
    for reference, table in releases.items():
        expected = as_outputs(metric.compute(data.train, table, data.spec, control=data.control, seed=seed))
        assert first.values[reference] == {k: r.value for k, r in expected.items()}
    assert first.for_variant("row_copy_rate") == (1.0, 0.0)
    calls = []
    second = calibrate(
        "exact_match", metric, "x", cache=cache, releases=lambda: calls.append(1) or {}, **kwargs
    )  # type: ignore[arg-type]
    assert second.cached and second.values == first.values and calls == []
    # a different metric configuration is a different entry
    other = build_metric("exact_match", {**_yaml("exact_match"), "tolerances": [0.5]})
    assert not calibrate("exact_match", other, "x", cache=cache, **kwargs).cached  # type: ignore[arg-type]


def _yaml(name: str) -> dict[str, object]:
    from harness.registry import read_config

    cfg = read_config("metric", name)
    cfg.pop("check_params", None)
    return cfg


def test_no_control_split_leaves_the_no_leakage_reference_empty(data: ContractData) -> None:
    metric = build_metric("exact_match")
    result = calibrate(
        "exact_match", metric, "x", block=BLOCK, train=data.train, control=data.control.iloc[:0],
        test=data.test, spec=data.spec, cache=None,
    )  # fmt: skip
    raw, none = result.for_variant("row_copy_rate")
    assert raw == 1.0 and math.isnan(none)
    assert "no control split" in result.errors["none"]


def _results() -> pd.DataFrame:
    base = {"experiment": "e", "dataset": "d", "qi_set": "", "fold": 0, "generator_params": "{}", "gen_seed": 0,
            "metric": "m", "variant": "", "family": "privacy", "status": "ok", "goal": "minimise"}  # fmt: skip
    rows = []
    for block, (raw, none) in enumerate([(0.9, 0.1), (0.7, 0.1)]):
        for generator, value in (("a", 0.5), ("b", 0.1)):
            rows.append({**base, "split_seed": block, "generator": generator, "value": value,
                         "calib_raw": raw, "calib_none": none})  # fmt: skip
    return pd.DataFrame(rows)


def test_report_reference_rows_and_leakage_index() -> None:
    frame = prepare(_results())
    summary = with_reference_rows(summary_table(frame, ["privacy"]), frame)
    labels = list(summary.index.get_level_values("label"))
    assert labels[:2] == ["raw data (reference)", "new individuals (reference)"]
    assert summary.loc[("d", "(reference)", "raw data (reference)"), ("m", "mean")] == pytest.approx(0.8)
    assert not summary[("m", "best")].iloc[:2].any()
    leakage = leakage_table(frame)
    # a: (0.5 - 0.1) / (0.9 - 0.1) = 0.5 and 0.4 / 0.6; b: at the no-leakage level
    assert leakage.loc[("d", "m"), "a"] == pytest.approx((0.5 + 0.4 / 0.6) / 2)
    assert leakage.loc[("d", "m"), "b"] == 0.0
