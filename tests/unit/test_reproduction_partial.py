"""A persisted reproduction run stopped part-way: found, evaluated on its trials, reported as incomplete."""

from __future__ import annotations

import json
from pathlib import Path

from harness.collect import write_table
from harness.reproduction.checks import exact
from harness.reproduction.document import build_document, committed_runs, newest_runs
from harness.reproduction.runner import CHECKS_FILE, META_FILE, cost_summary, sittings_wall_seconds
from harness.reproduction.runs import NOT_EVALUATED, current_run
from harness.schema import to_results_frame
from harness.storage import atomic_write_json

EXPERIMENT = """# @package _global_
name: partial
reproduction:
  id: R-PARTIAL
  paper: none.txt
  title: partial test reproduction
  checks: tests.fixtures.repro_partial_checks
  sweeps:
    first: ["generator=identity"]
    second: ["generator=uniform"]
  profiles:
    quick: {}
    protocol: {persist: true, description: a persisted profile}
"""
SITTINGS = [
    {"started": "2026-01-01T10:00:00+00:00", "wall_seconds": 0.001, "jobs_before": 0, "jobs_after": 0},
    {"started": "2026-01-01T12:00:00+00:00", "wall_seconds": 0.001, "jobs_before": 1, "jobs_after": 1},
]


def _rows(generator: str, trial: str, stamp: str) -> list[dict[str, object]]:
    base = {"run_id": "r", "experiment": "partial", "status": "ok", "family": "utility", "variant": "",
            "generator": generator, "generator_params": "{}", "trial_key": trial, "timestamp": stamp,
            "fit_s": 10.0, "sample_s": 2.0}  # fmt: skip
    return [{**base, "metric": "m", "value": 1.0, "metric_s": 3.0}]


def _partial_run(root: Path) -> tuple[Path, Path]:
    """conf/ with the experiment, results/ with its protocol run: 2 of 4 jobs of sweep ``first``."""
    conf = root / "conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "experiment" / "partial.yaml").write_text(EXPERIMENT)
    run_dir = root / "results" / "reproductions" / "runs" / "partial" / "protocol"
    for job, stamp in (("0", "2026-01-01T10:30:00+00:00"), ("1", "2026-01-01T12:20:00+00:00")):
        write_table(to_results_frame(_rows("a", f"t{job}", stamp)), run_dir / "first" / job / "rows.parquet")
    atomic_write_json(
        run_dir / "reproduction" / META_FILE,
        {"experiment": "partial", "id": "R-PARTIAL", "profile": "protocol", "jobs": {"first": 2, "second": 2},
         "sittings": SITTINGS, "wall_seconds": 0.002, "machine": {"cpu": "CPU-X", "cores": 2, "memory_gb": 8}},
    )  # fmt: skip
    return conf, run_dir


def test_stopped_persisted_run_is_evaluated_without_touching_it(tmp_path: Path) -> None:
    conf, run_dir = _partial_run(tmp_path)
    before = sorted(p.relative_to(run_dir) for p in run_dir.rglob("*"))
    run = current_run(run_dir, extra_dirs=(conf,))
    assert run is not None and run.incomplete and (run.trials, run.planned) == (2, 4)
    assert (
        sorted(p.relative_to(run_dir) for p in run_dir.rglob("*")) == before
    )  # no checks.json written there
    assert run.source != run_dir / "reproduction" and (run.source / CHECKS_FILE).is_file()
    cost = run.data["cost"]
    assert cost["progress"] == {"first": [2, 2], "second": [0, 2]} and cost["completed_jobs"] == 2
    assert (cost["fit_seconds"], cost["sample_seconds"], cost["metric_seconds"]) == (20.0, 4.0, 6.0)
    assert cost["wall_seconds"] == 1800.0 + 1200.0 and cost["wall_from_rows"]  # each sitting to its last row
    verdicts = {c.id: run.verdict(c) for c in run.checks}
    assert verdicts == {
        "mean-a": "reproduced",  # computed from the completed trials
        "mean-b": NOT_EVALUATED,  # its trials (sweep second) have not run
        "a-below-b": NOT_EVALUATED,
        "a-above-five": "not reproduced",  # a value from the completed trials that fails is not reproduced
    }
    assert run.verdicts() == {
        "reproduced": 1, "not reproduced": 1, "inconclusive": 0, "not evaluable": 0, NOT_EVALUATED: 2,
    }  # fmt: skip


def test_incomplete_protocol_run_is_listed_first_with_size_cost_and_machine(tmp_path: Path) -> None:
    conf, run_dir = _partial_run(tmp_path)
    quick_dir = tmp_path / "results" / "partial" / "2026-01-02_00-00-00"
    atomic_write_json(
        quick_dir / "reproduction" / CHECKS_FILE,
        {"experiment": "partial", "id": "R-PARTIAL", "title": "partial test reproduction", "profile": "quick",
         "evaluated": "2026-01-02T00:00:00+00:00", "cost": {"trials": 2, "planned": 2, "wall_seconds": 5.0},
         "checks": [exact("k", "k formula", "45", 45, 45, kind="arithmetic").to_dict()]},
    )  # fmt: skip
    runs = newest_runs(tmp_path / "results", ["partial"], extra_dirs=(conf,))
    assert sorted(r.profile for r in runs) == ["protocol", "quick"]
    out = tmp_path / "out"
    text = build_document(runs, out).read_text()
    assert text.index("### Profile `protocol` — incomplete: 2 of 4 trials") < text.index(
        "### Profile `quick`"
    )
    assert (
        "| R-PARTIAL | [`partial`]" in text
        and "| protocol (**incomplete**) | 4 | 1 | 1 | 0 | 0 | 2 | – | – | – | 2 of 4 |" in text
    )
    assert "(sweep first 2 of 2, sweep second 0 of 2), 2 sittings" in text
    assert "sweeps not started yet: second (0 of 2)" in text
    assert "Resume with `privbench reproduce partial --profile protocol`" in text
    assert "- **Cost**: wall clock 50.0 min (each sitting from its start to its last row" in text
    assert "trial time 30 s summed from the rows (fit 20 s, sample 4 s, metrics 6 s)" in text
    assert "- **Machine**: CPU-X, 2 cores, 8 GB, GPU none." in text
    row = next(line for line in text.splitlines() if line.startswith("| b's mean score"))
    assert f"**{NOT_EVALUATED}**" in row and "have not run yet (2 of 4 trials completed)" in row
    assert "**not reproduced**" not in row
    copied = json.loads((out / "partial" / "protocol" / CHECKS_FILE).read_text())
    assert copied["run_dir"].endswith("runs/partial/protocol") and len(copied["checks"]) == 4
    # the copy is what a later report keeps when the run is not found, still marked incomplete
    kept = committed_runs(out, ["partial"], [r for r in runs if r.profile == "quick"])
    assert [(r.profile, r.incomplete) for r in kept] == [("protocol", True)]
    assert "incomplete: 2 of 4 trials" in build_document(kept, tmp_path / "out2").read_text()


def test_finished_persisted_run_uses_its_checks_and_a_newer_job_reevaluates(tmp_path: Path) -> None:
    conf, run_dir = _partial_run(tmp_path)
    atomic_write_json(
        run_dir / "reproduction" / CHECKS_FILE,
        {"experiment": "partial", "profile": "protocol", "cost": {"trials": 2, "planned": 4, "completed_jobs": 2},
         "checks": []},
    )  # fmt: skip
    run = current_run(run_dir, extra_dirs=(conf,))
    assert run is not None and run.outputs is None and run.checks == []  # up to date: read as it is
    write_table(
        to_results_frame(_rows("b", "t2", "2026-01-01T12:40:00+00:00")),
        run_dir / "second" / "0" / "rows.parquet",
    )
    run = current_run(run_dir, extra_dirs=(conf,))
    assert run is not None and run.outputs is not None and run.trials == 3  # stale: evaluated again
    # b's one trial: a value, no noise estimate (a single replicate)
    assert {c.id: run.verdict(c) for c in run.checks}["mean-b"] == "inconclusive"
    assert current_run(tmp_path / "absent") is None


def test_wall_clock_keeps_recorded_sittings_and_fills_stopped_ones_from_rows() -> None:
    rows = to_results_frame(_rows("a", "t0", "2026-01-01T10:30:00+00:00"))
    assert sittings_wall_seconds({"wall_seconds": 9.0}, rows) == (9.0, False)
    finished = [{**SITTINGS[0], "wall_seconds": 4000.0}]
    assert sittings_wall_seconds({"sittings": finished}, rows) == (4000.0, False)
    assert sittings_wall_seconds({"sittings": SITTINGS[:1]}, rows) == (1800.0, True)
    assert cost_summary(rows, {"sittings": SITTINGS[:1]})["wall_from_rows"] is True
