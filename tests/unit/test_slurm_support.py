"""The pieces of the SLURM launcher that need no cluster: scontrol parsing, memory sizing, job states.

The whole path runs against a real SLURM in ``tests/integration/test_slurm.py``; the scontrol
lines below are the shape SLURM 22.05 prints (``scontrol -o show job ARRAY_ID``), cut to the
fields that are read.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from harness.collect import LOST_MARKER, ROWS_FILE, job_done
from harness.slurm_launcher import LOST_PREFIX, SlurmJobLost, job_state
from harness.slurm_resources import UNMEASURED_PEAK_MB, job_pair, measured_peaks, memory_request
from harness.slurm_watcher import ENDED, expand_task_ids, parse_scontrol, rest_key

SCONTROL = "\n".join(
    [
        "JobId=12 ArrayJobId=7 ArrayTaskId=0 JobName=privbench JobState=COMPLETED NodeList=n1",
        "JobId=13 ArrayJobId=7 ArrayTaskId=1 JobName=privbench JobState=RUNNING NodeList=n1",
        "JobId=7 ArrayJobId=7 ArrayTaskId=2-4%64 JobName=privbench JobState=PENDING NodeList=(null)",
        "JobId=30 JobName=single JobState=TIMEOUT NodeList=n2",
    ]
)


def test_expand_task_ids() -> None:
    assert expand_task_ids("3") == ["3"]
    assert expand_task_ids("2-4%64") == ["2", "3", "4"]
    assert expand_task_ids("1,5-6%2") == ["1", "5", "6"]
    assert expand_task_ids("4294967294") is None  # SLURM's NO_VAL: the never-started rest
    assert expand_task_ids("(null)") is None


def test_parse_scontrol_gives_submitit_job_ids() -> None:
    states = parse_scontrol(SCONTROL)
    assert {k: v["State"] for k, v in states.items()} == {
        "7_0": "COMPLETED",
        "7_1": "RUNNING",
        "7_2": "PENDING",
        "7_3": "PENDING",
        "7_4": "PENDING",
        "30": "TIMEOUT",
    }
    assert states["7_0"] == {"JobID": "7_0", "State": "COMPLETED", "NodeList": "n1"}


def test_parse_scontrol_keeps_a_cancelled_arrays_rest_apart() -> None:
    text = "JobId=9 ArrayJobId=9 ArrayTaskId=4294967294 JobState=CANCELLED NodeList=(null)"
    assert parse_scontrol(text) == {
        rest_key("9"): {"JobID": rest_key("9"), "State": "CANCELLED", "NodeList": "(null)"}
    }


def test_ended_state_is_done_for_submitit() -> None:
    from harness.slurm_watcher import StateWatcher

    watcher = StateWatcher()
    watcher._info_dict["5_0"] = {"State": ENDED}
    watcher._registered.add("5_0")
    assert watcher.is_done("5_0", mode="cache")
    watcher._info_dict["5_1"] = {"State": "PENDING"}
    watcher._registered.add("5_1")
    assert not watcher.is_done("5_1", mode="cache")


def _rows(path: Path, dataset: str, generator: str, peaks: list[float]) -> None:
    path.mkdir(parents=True)
    frame = pd.DataFrame({"dataset": dataset, "generator": generator, "peak_rss_mb": peaks})
    frame.to_parquet(path / ROWS_FILE)


def test_memory_from_measured_peaks(tmp_path: Path) -> None:
    _rows(tmp_path / "sweep_a" / "0", "adult", "identity", [180.0, 210.0])
    _rows(tmp_path / "sweep_a" / "1", "adult", "mst", [900.0, float("nan")])
    _rows(tmp_path / "sweep_b" / "0", "adult", "identity", [250.0])
    peaks = measured_peaks([tmp_path])
    assert peaks == {("adult", "identity"): 250.0, ("adult", "mst"): 900.0}
    measured = memory_request([("adult", "identity"), ("adult", "mst")], peaks, headroom=1.5)
    assert (measured.gb, measured.measured_pairs, measured.unmeasured_pairs) == (
        3,
        2,
        0,
    )  # 1.5 x 900 + 1024 MB
    assert "900 MB measured in earlier runs (2 dataset/generator pair(s))" in measured.describe()
    unknown = memory_request([("adult", "identity"), ("texas", "mst")], peaks, headroom=1.5)
    assert unknown.assumed_peak_mb == UNMEASURED_PEAK_MB and unknown.gb == 6
    limited = memory_request([("texas", "mst")], peaks, headroom=2.0, trial_limit_mb=2048)
    assert (
        limited.gb == 5
    )  # runtime.max_memory_mb bounds what an unmeasured trial may use: 2 x 2048 + 1024 MB


def test_job_pair_reads_the_group_choices() -> None:
    assert job_pair(["dataset=adult", "+generator=mst", "gen_seed=1"]) == ("adult", "mst")
    assert job_pair(["gen_seed=1"]) == (None, None)


@pytest.mark.parametrize("marker", [False, True])
def test_job_state_tells_a_lost_jobs_status_row_from_results(tmp_path: Path, marker: bool) -> None:
    job_dir = tmp_path / "3"
    overrides = ["generator=identity", "gen_seed=0"]
    assert job_state(job_dir, overrides) == "todo"
    (job_dir / ".hydra").mkdir(parents=True)
    (job_dir / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(overrides))
    error = f"{LOST_PREFIX}{SlurmJobLost('SLURM job 4_3 ended CANCELLED')}" if marker else None
    pd.DataFrame({"status": ["error" if marker else "ok"], "error": [error]}).to_parquet(job_dir / ROWS_FILE)
    if marker:
        (job_dir / LOST_MARKER).write_text("{}")
    assert job_state(job_dir, overrides) == ("lost" if marker else "done")
    assert job_done(job_dir) is not marker
    assert job_state(job_dir, ["generator=identity", "gen_seed=1"]) == ("lost" if marker else "todo")
