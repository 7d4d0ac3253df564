"""The default privacy metric on a fresh machine: empty numba, dataset and trial caches (issue 28).

On a fresh clone every Anonymeter attack that ran after the first metric had imported numba
became an ``error`` row ("Cannot set NUMBA_NUM_THREADS to a different value once the threads
have been launched"), and ``privbench evaluate`` silently lost its headline privacy axis; with
warm caches (every developer machine) nothing failed. These runs start each command with its
own empty ``XDG_CACHE_HOME`` (numba's on-disk cache lives there) and cache directory. A local
launcher with one worker runs its trials in the launching process, the path where trials share
numba's state (and where the composition memo used to fail to pickle the launcher's config).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from harness.collect import collect
from harness.datasets import load_dataset, load_spec
from tests.conftest import PRIVBENCH, REPO


def _cold(tmp_path: Path, *args: str, name: str, jobs: str = "1") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / f"{name}-home-cache"),
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / f"{name}-cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PRIVBENCH_JOBS": jobs,
        "PYTHONPATH": str(REPO),
    }
    for variable in ("NUMBA_NUM_THREADS", "NUMBA_CACHE_DIR"):
        env.pop(variable, None)
    return subprocess.run(
        [*PRIVBENCH, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.mark.slow
def test_sweep_in_one_process_from_a_cold_start_keeps_every_anonymeter_row(tmp_path: Path) -> None:
    proc = _cold(
        tmp_path, "run", "-m", "experiment=quickstart", "profile=quick", "generator=identity,uniform",
        "hydra/launcher=local", name="sweep",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = collect([tmp_path / "results" / "quickstart"])
    linkability = rows[rows["metric"] == "anonymeter_linkability"]
    assert len(linkability) and set(linkability["status"]) == {"ok"}, linkability["error"].tolist()
    assert set(rows["status"]) == {"ok"}


@pytest.mark.slow
def test_evaluate_from_a_cold_start_keeps_its_headline_privacy_metric(tmp_path: Path) -> None:
    table = load_dataset(load_spec("adult")).frame.sample(600, random_state=3).reset_index(drop=True)
    table.iloc[:300].to_csv(tmp_path / "real.csv", index=False)
    shuffled = table.iloc[:300].copy()
    for offset, column in enumerate(shuffled.columns):  # every column shuffled on its own
        shuffled[column] = shuffled[column].sample(frac=1, random_state=offset).to_numpy()
    shuffled.to_csv(tmp_path / "shuffled.csv", index=False)
    proc = _cold(tmp_path, "evaluate", "real.csv", "shuffled.csv", "-o", "out", name="evaluate")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = pd.concat(pd.read_parquet(p) for p in (tmp_path / "out").rglob("rows.parquet"))
    linkability = rows[rows["metric"] == "anonymeter_linkability"]
    assert len(linkability) and set(linkability["status"]) == {"ok"}, linkability["error"].tolist()
