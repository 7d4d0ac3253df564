"""benchmarks/sim_scale: the simulation behind benchmarks/SCALE.md, checked on cases with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.sim_scale import main, measured_durations, simulate


def test_simulation_without_loss_is_list_scheduling() -> None:
    durations = np.full(8, 10.0)
    one = simulate(durations, per_job=1, slots=2, overhead_s=5.0, loss=0.0, rng=np.random.default_rng(0))
    assert one["makespan_h"] == pytest.approx(4 * 15.0 / 3600)  # 4 tasks of 15 s per slot
    assert one["own_share"] == pytest.approx(80 / 120)
    packed = simulate(durations, per_job=4, slots=2, overhead_s=5.0, loss=0.0, rng=np.random.default_rng(0))
    assert packed["makespan_h"] == pytest.approx(45.0 / 3600) and packed["own_share"] == pytest.approx(
        80 / 90
    )
    assert one["rounds"] == packed["rounds"] == 1


def test_lost_tasks_are_retried_and_cost_more() -> None:
    durations = np.full(200, 10.0)
    lossless = simulate(durations, 4, 8, 5.0, 0.0, np.random.default_rng(1))
    lossy = simulate(durations, 4, 8, 5.0, 0.3, np.random.default_rng(1))
    assert lossy["rounds"] > 1 and lossy["cpu_h"] > lossless["cpu_h"]


def test_measured_durations_come_from_the_committed_protocol_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(measured_durations()) > 100
    main(["--trials", "2000", "--slots", "16", "--per-job", "1", "8"])
    table = capsys.readouterr().out.splitlines()
    assert table[-2].startswith("| 1 | 2,000 |") and table[-1].startswith("| 8 | 250 |")
