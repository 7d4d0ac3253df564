"""Progress lines of long trial stages (harness/progress.py)."""

from __future__ import annotations

import logging
import time

import pytest

from harness.progress import elapsed_text, stage


def test_a_long_stage_logs_progress_and_a_short_one_does_not(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PRIVBENCH_PROGRESS_S", "0.2")
    with caplog.at_level(logging.INFO, logger="privbench"):
        with stage("fitting and sampling sleepy", "adult sleepy gen_seed=0"):
            time.sleep(0.7)
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) >= 2
        assert all(line.startswith("still fitting and sampling sleepy (") for line in lines)
        assert all(line.endswith("): adult sleepy gen_seed=0") for line in lines)
        caplog.clear()
        with stage("computing dcr_share", "adult x"):
            pass
        time.sleep(0.3)
        assert not caplog.records  # the heartbeat stops with its stage


def test_progress_off_and_elapsed_text(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PRIVBENCH_PROGRESS_S", "0")
    with caplog.at_level(logging.INFO, logger="privbench"), stage("x", "y"):
        time.sleep(0.1)
    assert not caplog.records
    assert [elapsed_text(s) for s in (45, 185, 3725)] == ["45 s", "3 min 05 s", "1 h 02 min"]
