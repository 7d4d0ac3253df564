"""The results schema."""

from __future__ import annotations

import pytest

from harness.schema import RESULT_COLUMNS, empty_results, to_results_frame


def test_rows_get_every_column_and_dtype() -> None:
    frame = to_results_frame([{"metric": "dcr_nndr", "value": 0.5, "status": "ok", "gen_seed": 1}])
    assert list(frame.columns) == list(RESULT_COLUMNS)
    assert frame.loc[0, "value"] == 0.5 and frame.loc[0, "gen_seed"] == 1
    assert str(frame["gen_seed"].dtype) == "Int64"
    assert frame["ci_low"].isna().all()


def test_design_columns_are_present() -> None:
    design = (
        "run_id experiment dataset qi_set split_seed fold generator generator_params gen_seed metric variant "
        "metric_params family value ci_low ci_high baseline goal status error fit_s sample_s metric_s "
        "peak_rss_mb n_train n_synthetic cache_hit trial_key versions timestamp"
    ).split()
    assert set(design) <= set(RESULT_COLUMNS)
    assert list(empty_results().columns) == list(RESULT_COLUMNS)


def test_bad_rows_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown column"):
        to_results_frame([{"status": "ok", "colour": "red"}])
    with pytest.raises(ValueError, match="status must be one of"):
        to_results_frame([{"status": "fine"}])
