"""The preflight's prepared trials are reused by jobs of the same process, only for the same config."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from harness import prepared_memo
from harness.datasets import load_spec
from harness.preflight import preflight_jobs
from harness.registry import read_config
from harness.splits import SplitConfig
from harness.trial import COST_METRICS, TrialConfig, prepare_trial, run_prepared


def config(tmp_path: Path, **changes: object) -> TrialConfig:
    base = TrialConfig(
        experiment="test",
        run_id="preflight",
        dataset="adult",
        dataset_cfg=load_spec("adult").to_dict(),
        generator="identity",
        generator_cfg=read_config("generator", "identity"),
        metrics={"consistency": read_config("metric", "consistency")},
        split=SplitConfig(kind="none"),
        max_rows=200,
        cache_dir=tmp_path / "cache",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def empty_memo() -> None:
    prepared_memo.clear()


def test_a_job_takes_the_preflight_trial_once_with_its_own_run_id(tmp_path: Path) -> None:
    prepared = prepare_trial(config(tmp_path))
    prepared_memo.remember(prepared)
    job = config(tmp_path, run_id="2026-11-27_10-00-00")
    reused = prepared_memo.take(job)
    assert reused is not None and reused.cfg is job and reused.trial_key == prepared.trial_key
    assert reused.train is prepared.train and reused.generator is prepared.generator
    assert prepared_memo.take(job) is None  # taken once: the job owns its generator and metrics


def test_any_other_difference_builds_the_trial_again(tmp_path: Path) -> None:
    prepared_memo.remember(prepare_trial(config(tmp_path)))
    for other in (
        config(tmp_path, split_seed=1),
        config(tmp_path, max_rows=100),
        config(tmp_path, gen_seed=3),
    ):
        assert prepared_memo.take(other) is None
        assert prepared_memo.prepare_or_reuse(other).cfg is other


def test_the_memo_is_bounded_and_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = prepare_trial(config(tmp_path, split_seed=0))
    prepared_memo.remember(first)
    for seed in range(1, prepared_memo.MEMO_SIZE + 1):
        prepared_memo.remember(dataclasses.replace(first, cfg=config(tmp_path, split_seed=seed)))
    assert prepared_memo.take(config(tmp_path, split_seed=0)) is None  # the oldest went
    assert prepared_memo.take(config(tmp_path, split_seed=prepared_memo.MEMO_SIZE)) is not None
    prepared_memo.clear()
    monkeypatch.setenv(prepared_memo.REUSE_ENV, "0")
    prepared_memo.remember(first)
    assert prepared_memo.take(config(tmp_path, split_seed=0)) is None


def test_a_reused_trial_gives_the_rows_of_a_fresh_one(tmp_path: Path) -> None:
    job = config(tmp_path, run_id="run", use_cache=False)
    prepared_memo.remember(prepare_trial(config(tmp_path, use_cache=False)))
    reused = prepared_memo.take(job)
    assert reused is not None
    reused_rows = run_prepared(reused)
    fresh_rows = run_prepared(prepare_trial(job))
    timing = ["fit_s", "sample_s", "metric_s", "calib_s", "peak_rss_mb", "timestamp", "versions"]

    def measured(rows: pd.DataFrame) -> pd.DataFrame:  # cost rows hold seconds and megabytes
        return rows[~rows["metric"].isin(COST_METRICS)].drop(columns=timing).reset_index(drop=True)

    assert (reused_rows["metric"] == "consistency").any()
    pd.testing.assert_frame_equal(measured(reused_rows), measured(fresh_rows))


def test_the_preflight_of_a_small_command_remembers_its_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    jobs = preflight_jobs(
        ["generator=identity", "suite=fast", "profile=quick"], multirun=False, base_dir=tmp_path
    )
    assert len(jobs) == 1
    assert len(prepared_memo._MEMO) == 1
