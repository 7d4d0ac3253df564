"""End-to-end runs through the real CLI: single runs, multiruns with the joblib and
submitit_local launchers, failure rows, kill-and-resume and cross-process determinism."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from harness.collect import collect, result_files
from harness.storage import read_parquet
from tests.conftest import PRIVBENCH, REPO, Runner

FIXTURES = REPO / "tests" / "fixtures" / "conf"
SMALL = ["data.max_rows=600", "suite=fast"]


def run_dirs(tmp_path: Path, experiment: str = "default") -> list[Path]:
    root = tmp_path / "results" / experiment
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []


def test_single_run_then_collect(privbench: Runner, tmp_path: Path) -> None:
    single = privbench("run", "generator=independent_marginals", *SMALL)
    assert "privbench: 1 trial(s): 1 ok" in single.stderr.splitlines()[-1]
    (run_dir,) = run_dirs(tmp_path)
    rows = read_parquet(run_dir / "rows.parquet")
    ok = rows[rows["status"] == "ok"]
    assert set(ok["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds", "peak_rss_mb"}
    assert (rows["generator"] == "independent_marginals").all()
    assert rows["n_train"].iloc[0] == 360  # 600 rows: 20 % test, 20 % control
    out = tmp_path / "all.csv"
    privbench("collect", str(run_dir), "-o", str(out))
    assert len(pd.read_csv(out)) == len(rows)


def test_multirun_joblib_two_generators_two_seeds(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "-m", "generator=independent_marginals,uniform", "gen_seed=0,1", "hydra/launcher=joblib",
        "hydra.launcher.n_jobs=2", *SMALL,
    )  # fmt: skip
    (run_dir,) = run_dirs(tmp_path)
    results = collect([run_dir])
    trials = results.drop_duplicates("trial_key")
    assert len(trials) == 4
    assert sorted(zip(trials["generator"], trials["gen_seed"])) == [
        ("independent_marginals", 0), ("independent_marginals", 1), ("uniform", 0), ("uniform", 1),
    ]  # fmt: skip
    assert (results["status"] == "ok").all()
    ks = results[results["metric"] == "ks_complement"].set_index(["generator", "gen_seed"])["value"]
    assert ks["independent_marginals", 0] != ks["independent_marginals", 1]  # seeds matter


@pytest.mark.slow
def test_multirun_submitit_local(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "-m", "generator=identity,subsample", "hydra/launcher=submitit_local", *SMALL, timeout=900
    )
    (run_dir,) = run_dirs(tmp_path)
    results = collect([run_dir])
    assert results["trial_key"].nunique() == 2 and (results["status"] == "ok").all()


def test_failures_are_rows_and_the_sweep_continues(privbench: Runner, tmp_path: Path) -> None:
    proc = privbench(
        "run", "-m", "--config-dir", str(FIXTURES), "generator=sleepy,hungry,broken,identity",
        "runtime.timeout_s=8", "runtime.max_memory_mb=800", *SMALL, check=False,
    )  # fmt: skip
    assert proc.returncode == 1, "a script can tell that trials failed"
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("privbench: 4 trial(s): ")]
    assert line.startswith("privbench: 4 trial(s): 1 ok, 3 failed; failed: ")
    for fragment in (
        "generator=sleepy [timeout]",
        "generator=hungry [",
        "generator=broken [error]",
        "failures.csv",
    ):
        assert fragment in line
    (run_dir,) = run_dirs(tmp_path)
    results = collect([run_dir])
    status = results[results["metric"] == "dcr_nndr"].groupby("generator")["status"].first().to_dict()
    assert status == {"sleepy": "timeout", "hungry": "oom", "broken": "error", "identity": "ok"}
    broken = results[(results["generator"] == "broken") & (results["metric"] == "dcr_nndr")]
    assert broken["error"].iloc[0].startswith("LinAlgError: singular matrix in the covariance step")
    hungry = results[(results["generator"] == "hungry") & (results["metric"] == "peak_rss_mb")]
    assert hungry["peak_rss_mb"].iloc[0] > 800


def _wait_for(predicate, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_kill_and_resume(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(REPO),
    }
    args = [*PRIVBENCH, "run", "-m", "generator=identity,independent_marginals,uniform,subsample", "gen_seed=0,1",
            "data.max_rows=1500", "suite=fast"]  # fmt: skip
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    root = tmp_path / "results" / "default"

    def done_files() -> list[Path]:
        return [f for d in (root.iterdir() if root.exists() else []) for f in result_files(d)]

    assert _wait_for(lambda: len(done_files()) >= 2, 300), "no trial finished"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = done_files()
    assert 2 <= len(first) < 8, "the sweep finished before it could be killed"
    kept = {f: f.stat().st_mtime_ns for f in first}

    rerun = subprocess.run(
        args, cwd=tmp_path, env=env, check=True, capture_output=True, text=True, timeout=600
    )
    assert "privbench: resuming " in rerun.stderr  # the same command continues the killed sweep...
    (latest,) = [p for p in root.iterdir() if p.is_dir()]  # ...in its own directory
    results = collect([latest])
    trials = results.drop_duplicates("trial_key")
    assert len(trials) == 8  # nothing lost, nothing duplicated
    assert results.duplicated(["trial_key", "metric", "variant"]).sum() == 0
    assert all(f.stat().st_mtime_ns == t for f, t in kept.items())  # only the missing trials ran again

    # restarting into the same sweep directory skips the jobs that have results
    again = subprocess.run([*args, f"hydra.sweep.dir={latest}"], cwd=tmp_path, env=env, check=True,
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert (again.stdout + again.stderr).count("results already present, skipped") == 8
    assert len(collect([latest])) == len(results)


def _trial_in_fresh_process(tmp_path: Path, cache: str) -> tuple[bytes, pd.DataFrame]:
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / f"results_{cache}"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / cache),
        "PYTHONPATH": str(REPO),
    }
    subprocess.run([*PRIVBENCH, "run", "generator=uniform", "gen_seed=3", "data.max_rows=800"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=600)  # fmt: skip
    (variant,) = (tmp_path / cache / "variants").rglob("*.parquet")
    (rows_file,) = (tmp_path / f"results_{cache}").rglob("rows.parquet")
    return variant.read_bytes(), read_parquet(rows_file)


@pytest.mark.slow
def test_same_config_and_seed_give_identical_bytes_and_values_in_fresh_processes(tmp_path: Path) -> None:
    bytes_a, rows_a = _trial_in_fresh_process(tmp_path, "cache_a")
    bytes_b, rows_b = _trial_in_fresh_process(tmp_path, "cache_b")
    assert bytes_a == bytes_b
    keep = ["trial_key", "metric", "variant", "status", "value", "ci_low", "ci_high", "baseline", "details"]
    quality = rows_a[rows_a["family"] != "cost"][keep].reset_index(drop=True)
    assert (quality["status"] == "ok").all(), quality[quality["status"] != "ok"]
    pd.testing.assert_frame_equal(quality, rows_b[rows_b["family"] != "cost"][keep].reset_index(drop=True))
    assert json.loads(rows_a["details"].iloc[0])  # details are JSON


def test_variant_cache_hit_is_visible(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=uniform", *SMALL)
    privbench("run", "generator=uniform", "suite=default", "data.max_rows=600", f"hydra.run.dir={tmp_path / 'second'}",
              "++metric_overrides.anonymeter_linkability.n_attacks=50")  # fmt: skip
    (first_dir,) = run_dirs(tmp_path)
    first, second = (read_parquet(d / "rows.parquet") for d in (first_dir, tmp_path / "second"))
    assert not first["cache_hit"].any()
    assert second["cache_hit"].all()
    assert not second["resumed"].any()  # another suite: a new trial on a cached variant


def test_generator_details_and_artifacts_are_recorded(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "--config-dir", str(FIXTURES), "generator=annotated", *SMALL)
    (run_dir,) = run_dirs(tmp_path)
    rows = read_parquet(run_dir / "rows.parquet")
    fit = rows[rows["metric"] == "fit_seconds"].iloc[0]
    details = json.loads(fit["details"])
    assert details["generator"] == {"n_copied": 360, "alpha_hat": 1.0}
    assert details["artifacts"] == ["row_origin"]
    (artifact,) = (tmp_path / "cache" / "variants").rglob("*.row_origin.parquet")
    assert read_parquet(artifact)["row_origin"].eq("original").sum() == 360


def test_third_party_info_logging_is_quiet_unless_verbose(privbench: Runner) -> None:
    quiet = privbench("run", "generator=sdv_gaussian_copula", "gen_seed=1", *SMALL)
    text = quiet.stdout + quiet.stderr
    assert "SingleTableSynthesizer" not in text and "sdv.data_processing" not in text
    assert "[privbench][INFO] - trial done" in text
    loud = privbench("run", "--verbose", "generator=sdv_gaussian_copula", "gen_seed=2", *SMALL)
    assert "[SingleTableSynthesizer][INFO]" in loud.stdout + loud.stderr
