"""The collector is paused for a command's imports and on again for its work (``harness.gc_policy``);
results are the same either way, and privbench used as a library leaves the caller's collector alone."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import gc_policy
from harness.cli import main
from tests.conftest import REPO
from tests.integration.test_process_exit import assert_same_results

PROBE = textwrap.dedent(
    """
    import gc, json, sys
    from harness import gc_policy
    from harness.cli import main

    gc_policy.pause_for_startup()  # what the console script does first
    paused = not gc.isenabled()
    code = main(sys.argv[1:])
    state = {"code": code, "paused_at_start": paused, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
    print(json.dumps(state))
    """
)


def probe(tmp_path: Path, name: str, pause: str, *args: str) -> dict[str, object]:
    """Run ``privbench ARGS`` as the console script would and report the collector's state after it."""
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / name / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / name / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PRIVBENCH_GC_PAUSE": pause,
        "PYTHONPATH": str(REPO),
    }
    (tmp_path / name).mkdir(exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=tmp_path / name, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    state: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return state


def test_a_run_pauses_for_imports_then_collects_with_the_imports_frozen(tmp_path: Path) -> None:
    args = ("run", "generator=identity", "suite=fast", "profile=quick", "data.max_rows=400")
    paused = probe(tmp_path, "paused", "1", *args)
    ordinary = probe(tmp_path, "ordinary", "0", *args)
    assert paused["code"] == ordinary["code"] == 0
    assert paused["paused_at_start"] is True and ordinary["paused_at_start"] is False
    assert paused["enabled"] is True and ordinary["enabled"] is True  # on again for the trials
    assert isinstance(paused["frozen"], int) and paused["frozen"] > 50_000  # the imported stack
    assert ordinary["frozen"] == 0
    assert_same_results(tmp_path / "paused" / "results", tmp_path / "ordinary" / "results")


def test_other_commands_turn_the_collector_back_on_before_their_work(tmp_path: Path) -> None:
    state = probe(tmp_path, "list", "1", "list", "metrics")
    assert state == {"code": 0, "paused_at_start": True, "enabled": True, "frozen": state["frozen"]}


def test_bad_input_still_ends_with_the_collector_on(tmp_path: Path) -> None:
    state = probe(tmp_path, "bad", "1", "run", "generator=identity", "data.max_rows=-3")
    assert state["code"] == 2 and state["enabled"] is True


def test_privbench_as_a_library_leaves_the_callers_collector_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    assert main(["list", "generators"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen  # nothing of the caller's frozen
    gc_policy.resume_after_startup()  # without a startup pause: nothing to do
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_paused_restores_the_collector_and_respects_a_callers_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    with gc_policy.paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_policy.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the caller had it off: left off
    finally:
        gc.enable()
    monkeypatch.setenv(gc_policy.GC_PAUSE_ENV, "0")
    with gc_policy.paused():
        assert gc.isenabled()
