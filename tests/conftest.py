"""Shared fixtures: run the real `privbench` command in a subprocess with isolated dirs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRIVBENCH = [sys.executable, "-m", "harness.cli"]
os.environ["PRIVBENCH_WORKER"] = (
    "0"  # commands run in their own processes (test_worker.py starts its own worker)
)

Runner = Callable[..., subprocess.CompletedProcess[str]]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the modules holding ``slow`` tests first, each module's tests kept together.

    Longest jobs first lets pytest-xdist's idle workers fill in with short tests at the end
    instead of waiting on one long test started last.
    """
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_modules)


@pytest.fixture
def privbench(tmp_path: Path) -> Runner:
    """Run ``privbench ARGS`` in ``tmp_path`` with its own results and cache directories."""
    return privbench_runner(tmp_path)


def privbench_runner(tmp_path: Path) -> Runner:
    """A runner of ``privbench ARGS`` in ``tmp_path`` (for module-scoped fixtures too)."""
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PRIVBENCH_KEY_FILE": str(tmp_path / "record_key"),
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
    }

    def run(
        *args: str, check: bool = True, timeout: float = 600, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*PRIVBENCH, *args], cwd=cwd or tmp_path, env=env, capture_output=True, text=True, timeout=timeout
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"privbench {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
            )
        return proc

    return run
