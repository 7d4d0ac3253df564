"""Rules of the known-leakage ladder verdict (``harness/ladder.py``) on hand-made rows."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.ladder import RUNGS, exemption, ladder_verdicts, risk_of, verdict_table

NAMES = [name for name, _ in RUNGS]


def rows(values: dict[str, float | list[float]], *, goal: str = "minimise", target: float | None = None,
         half: float | None = None, metric: str = "m", variant: str = "") -> pd.DataFrame:  # fmt: skip
    out = []
    for generator, value in values.items():
        for block, v in enumerate(value if isinstance(value, list) else [value]):
            out.append(
                {
                    "dataset": "d", "metric": metric, "variant": variant, "generator": generator,
                    "split_seed": block, "family": "privacy", "status": "ok", "goal": goal,
                    "target_value": math.nan if target is None else target, "value": v,
                    "ci_low": math.nan if half is None else v - half,
                    "ci_high": math.nan if half is None else v + half,
                }
            )  # fmt: skip
    return pd.DataFrame(out)


def ladder(*values: float) -> dict[str, float]:
    return dict(zip(NAMES, values))


def test_risk_orientation() -> None:
    assert risk_of(0.3, "minimise", None) == 0.3
    assert risk_of(0.3, "maximise", None) == -0.3
    assert risk_of(0.7, "target", 0.5) == pytest.approx(0.2)
    assert math.isnan(risk_of(0.7, "none", None))


def test_a_well_ordered_metric_passes_with_its_resolution() -> None:
    (v,) = ladder_verdicts(rows(ladder(1.0, 0.7, 0.4, 0.2, 0.02, 0.0, 0.0)))
    assert v.orders and v.raw_seen and v.monotone and not v.problems
    assert v.resolution == 0.5  # 0.02 at p = 0.9 is within 10 % of the span


def test_ratings_below_the_floor_count_as_the_floor() -> None:
    # a distance (maximise): new individuals sit at 0.9, scrambled rungs far beyond: saturation, not disorder
    (v,) = ladder_verdicts(rows(ladder(0.0, 0.6, 1.3, 1.7, 2.0, 2.0, 0.9), goal="maximise"))
    assert v.orders and v.resolution == 0.1


def test_a_blind_metric_fails_raw_seen() -> None:
    (v,) = ladder_verdicts(rows(ladder(0.01, 0.003, 0.003, 0.0, 0.0, 0.0, 0.0), half=0.02))
    assert not v.raw_seen and not v.orders
    assert "identity (0.01) is not rated riskier than new individuals (0)" in v.problems[0]


def test_an_inversion_beyond_the_noise_fails_monotone() -> None:
    (v,) = ladder_verdicts(rows(ladder(1.0, 0.5, 0.8, 0.2, 0.1, 0.0, 0.0)))
    assert v.raw_seen and not v.monotone
    assert v.problems == ("noisy_copy_30 (0.8) is rated riskier than noisy_copy_10 (0.5)",)


def test_confidence_intervals_and_block_spread_widen_the_tolerance() -> None:
    values = ladder(1.0, 0.5, 0.65, 0.2, 0.1, 0.0, 0.0)
    assert not ladder_verdicts(rows(values))[0].monotone  # 0.15 > 10 % of the span
    assert ladder_verdicts(rows(values, half=0.08))[0].monotone  # intervals overlap
    spread = {k: [v - 0.1, v + 0.1] for k, v in values.items()}  # two blocks, se 0.1 each
    assert ladder_verdicts(rows(spread))[0].monotone


def test_target_goal_and_identity_outranked() -> None:
    (v,) = ladder_verdicts(rows(ladder(0.67, 0.70, 0.62, 0.58, 0.51, 0.50, 0.50), goal="target", target=0.5))
    assert v.monotone is False  # p = 0.1 above identity by more than the tolerance
    (w,) = ladder_verdicts(rows(ladder(0.67, 0.60, 0.80, 0.58, 0.51, 0.50, 0.50), goal="target", target=0.5))
    assert not w.raw_seen


def test_no_direction_and_missing_rungs() -> None:
    (v,) = ladder_verdicts(rows(ladder(1, 2, 3, 4, 5, 6, 7), goal="none"))
    assert not v.orders and "no risk direction" in v.problems[0]
    partial = rows({k: 1.0 for k in NAMES[:-1]})
    assert ladder_verdicts(partial) == []


def test_exemption_patterns_and_table() -> None:
    exempt = {"all_records_*": "measures the release alone", "": "single"}
    assert exemption("all_records_unique_match_rate", exempt) == "measures the release alone"
    assert exemption("", exempt) == "single"
    assert exemption("unique_match_rate", exempt) is None
    table = verdict_table(ladder_verdicts(rows(ladder(1.0, 0.7, 0.4, 0.2, 0.02, 0.0, 0.0), variant="v")))
    assert list(table["metric"]) == ["m/v"] and bool(table["orders"].iloc[0])
    assert table["identity"].iloc[0] == 1.0
