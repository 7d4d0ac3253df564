"""A metric's first-use imports run before its clock starts (issue 18)."""

from __future__ import annotations

import os

import pytest

from harness.trial_metrics import WARM_UP_ENV, warm_up


class _Metric:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str | None] = []
        self.fail = fail

    def warm_up(self) -> None:
        self.calls.append(os.environ.get("NUMBA_NUM_THREADS"))
        if self.fail:
            raise ImportError("no such library")


def test_warm_up_runs_the_hook_under_the_thread_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    metric = _Metric()
    warm_up(metric, 2)  # type: ignore[arg-type]
    assert metric.calls in (["2"], [None])  # "2" unless numba is loaded (then limited directly)


def test_import_errors_are_left_to_compute() -> None:
    metric = _Metric(fail=True)
    warm_up(metric, 1)  # type: ignore[arg-type]  # compute raises it again and records the row
    assert len(metric.calls) == 1


def test_switch_skips_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WARM_UP_ENV, "0")
    metric = _Metric()
    warm_up(metric, 1)  # type: ignore[arg-type]
    assert metric.calls == []


def test_metrics_without_a_hook_are_fine() -> None:
    warm_up(object(), 1)  # type: ignore[arg-type]


def test_anonymeter_metrics_declare_their_imports() -> None:
    from harness.instantiate import build_metric

    for name in ("anonymeter_linkability", "anonymeter_inference", "anonymeter_singling_out"):
        assert callable(getattr(build_metric(name), "warm_up", None)), name
