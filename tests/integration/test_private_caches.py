"""Every file privbench creates under its cache roots is private to the user (issue 29).

The caches hold copies of the real data: the parsed table, the released variants (``identity``
releases the training rows), neighbour graphs of real rows in the cross-process memo and the
calibration entries. A run on a shared machine must leave them unreadable to other users:
folders ``0700``, files ``0600``, whatever the user's umask.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tests.conftest import PRIVBENCH, REPO


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in [root, *root.rglob("*")]}


def test_a_run_leaves_every_cache_file_private_under_a_permissive_umask(tmp_path: Path) -> None:
    cache, tables = tmp_path / "cache", tmp_path / "tables"
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(cache),
        "PRIVBENCH_DATASET_CACHE_DIR": str(tables),
        "PRIVBENCH_DATASET_CACHE": "1",
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
    }
    command = [
        *PRIVBENCH, "run", "-m", "generator=identity,eps_private_smote", "dataset=german_credit",
        "data.max_rows=300", "suite=default", "profile=quick",
    ]  # fmt: skip
    proc = subprocess.run(
        ["sh", "-c", 'umask 000 && exec "$@"', "sh", *command], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    for root in (cache, tables):
        modes = _modes(root)
        assert any(name.endswith(".parquet") for name in modes), f"{root}: nothing cached"
        folders = {n: m for n, m in modes.items() if (root / n).is_dir() or n == "."}
        files = {n: m for n, m in modes.items() if n not in folders}
        assert set(folders.values()) == {0o700}, {n: oct(m) for n, m in folders.items() if m != 0o700}
        assert set(files.values()) == {0o600}, {n: oct(m) for n, m in files.items() if m != 0o600}
    assert {"variants", "trials", "calibration"} <= {p.name for p in cache.iterdir()}


def test_cache_info_and_clear_one_dataset_then_all(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PRIVBENCH_DATASET_CACHE": "1",
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
    }
    env.pop("PRIVBENCH_DATASET_CACHE_DIR", None)

    def privbench(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*PRIVBENCH, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc

    privbench(
        "run", "-m", "dataset=german_credit,adult", "generator=identity", "data.max_rows=300", "suite=fast"
    )
    lines = {line.split()[0]: line for line in privbench("cache", "info").stdout.splitlines()}
    assert "adult 1" in lines["variants"] and "german_credit 1" in lines["variants"]
    assert "german_credit" in lines["trials"] and "german_credit" in lines["datasets"]
    cleared = privbench("cache", "clear", "--dataset", "german_credit").stdout
    assert "cleared dataset 'german_credit': variants 1, trials 1" in cleared
    after = {line.split()[0]: line for line in privbench("cache", "info").stdout.splitlines()}
    assert "german_credit" not in after["variants"] + after["trials"] + after["datasets"]
    assert "adult 1" in after["variants"] and "adult" in after["datasets"]
    privbench("cache", "clear")
    assert not (tmp_path / "cache" / "variants").exists() and not (tmp_path / "cache" / "datasets").exists()
