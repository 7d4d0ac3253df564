"""A ``persist: true`` reproduction profile: its run lives in results/reproductions/runs/<name>/<profile>,
is resumed by the same command after an interruption, and is found by ``reproduction-report``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Runner

EXPERIMENT = """# @package _global_
defaults:
  - override /dataset: german_credit
  - override /suite: fast
name: resumable
data: {max_rows: 300}
reproduction:
  id: R-TEST
  paper: none.txt
  title: resumable test reproduction
  checks: tests.fixtures.repro_checks
  sweeps:
    releases: ["generator=identity,uniform", "gen_seed=0,1"]
  profiles:
    quick: {}
    long: {persist: true, description: a persisted profile}
"""


def test_persisted_profile_is_resumed_by_the_same_command(privbench: Runner, tmp_path: Path) -> None:
    conf = tmp_path / "conf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "resumable.yaml").write_text(EXPERIMENT)
    command = ["reproduce", "resumable", "--profile", "long", "--config-dir", str(tmp_path / "conf")]
    privbench(*command)
    run_dir = tmp_path / "results" / "reproductions" / "runs" / "resumable" / "long"
    jobs = sorted(run_dir.glob("releases/*/rows.parquet"))
    assert len(jobs) == 4
    assert not (run_dir / "reproduction" / "results.parquet").exists()  # the job directories hold the rows
    # an interruption: one job's rows are missing; the stopped run can be evaluated and reported...
    jobs[2].unlink()
    privbench("reproduce", "--evaluate", str(run_dir), "--config-dir", str(tmp_path / "conf"))
    partial = tmp_path / "partial"
    privbench("reproduction-report", str(run_dir), "-o", str(partial))
    assert "**incomplete: 3 of 4 trials**" in (partial / "REPRODUCTION.md").read_text()
    # ...and the same command runs only the missing job
    kept = {p: p.stat().st_mtime_ns for p in jobs if p.exists()}
    proc = privbench(*command)
    assert "resuming" in proc.stderr and "3 of 4 job(s)" in proc.stderr
    assert jobs[2].exists() and all(p.stat().st_mtime_ns == t for p, t in kept.items())
    meta = json.loads((run_dir / "reproduction" / "reproduction.json").read_text())
    assert [s["jobs_before"] for s in meta["sittings"]] == [0, 3]
    assert [s["jobs_after"] for s in meta["sittings"]] == [4, 4]
    checks = json.loads((run_dir / "reproduction" / "checks.json").read_text())
    assert checks["profile"] == "long" and checks["checks"][0]["verdict"] == "passes"
    out = tmp_path / "doc"
    privbench("reproduction-report", str(run_dir), "-o", str(out))
    text = (out / "REPRODUCTION.md").read_text()
    assert "incomplete: " not in text and "4 trials, 2 sittings" in text
    assert "### Profile `long`" in text and (out / "resumable" / "long" / "checks.json").is_file()
    # a complete sweep is not launched again (its jobs would each only find their rows)
    again = privbench(*command)
    assert "sweep releases: all 4 job(s) already have their rows" in again.stderr
    assert "privbench: sweep releases: " not in again.stderr.replace("sweep releases: all", "")
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())
