"""The child-process runner: real subprocesses, real timeouts and memory limits."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from harness.errors import ConfigError
from harness.isolation import run_isolated


def _add(a: int, b: int) -> int:
    return a + b


def _sleep_forever() -> None:
    time.sleep(600)


def _allocate(mb: int) -> int:
    block = np.ones(mb * 2**20 // 8)  # touched pages count towards RSS
    time.sleep(5)
    return int(block.size)


def _raise() -> None:
    raise ValueError("bad parameter k: must be >= 2")


def _die() -> None:
    os._exit(3)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_ok_returns_value_and_peak_rss(method: str) -> None:
    outcome = run_isolated(_add, (2, 3), timeout_s=60, max_memory_mb=None, start_method=method)
    assert outcome.status == "ok" and outcome.value == 5
    assert outcome.peak_rss_mb > 1


@pytest.mark.timeout(120)  # a child that is not killed would sleep for 600 s
def test_timeout_kills_the_child() -> None:
    outcome = run_isolated(_sleep_forever, timeout_s=1.0, max_memory_mb=None)
    assert outcome.status == "timeout"
    assert "timed out after 1 s" in outcome.error


def test_memory_limit_kills_the_child() -> None:
    outcome = run_isolated(_allocate, (600,), timeout_s=60, max_memory_mb=300)
    assert outcome.status == "oom"
    assert "exceeded 300 MB" in outcome.error
    assert outcome.peak_rss_mb > 300


def test_exception_becomes_an_error_outcome() -> None:
    outcome = run_isolated(_raise, timeout_s=60, max_memory_mb=None)
    assert outcome.status == "error"
    assert outcome.error.splitlines()[0] == "ValueError: bad parameter k: must be >= 2"
    assert outcome.error_type == "ValueError"


def test_child_exit_without_result() -> None:
    outcome = run_isolated(_die, timeout_s=60, max_memory_mb=None)
    assert outcome.status == "error"
    assert "exited with code 3" in outcome.error


def test_negative_timeout_is_rejected() -> None:
    with pytest.raises(ConfigError, match="runtime.timeout_s must be > 0"):
        run_isolated(_add, (1, 2), timeout_s=-1, max_memory_mb=None)
