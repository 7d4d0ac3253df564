"""R-EPS statistics helpers: intervals per dataset, shares over datasets, conjunctions, selection bias.

``experiments/reproductions/privatesmote_2024_stats.py`` and ``privatesmote_2024_ppt.expected_best_of``
on hand-made numbers (no run).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.reproductions.privatesmote_2024_ppt import expected_best_of
from experiments.reproductions.privatesmote_2024_stats import (
    blocks_needed,
    conjunction,
    dataset_intervals,
    wilson_share,
)
from harness.reproduction import Gate, ReproductionRun, load_plan
from harness.reproduction import uncertainty as unc
from harness.schema import empty_results


def _blocks(values: dict[str, list[float]]) -> pd.Series:
    index = pd.MultiIndex.from_tuples(
        [(d, f"qi{i}") for d, vs in values.items() for i in range(len(vs))], names=["dataset", "qi_set"]
    )
    return pd.Series([v for vs in values.values() for v in vs], index=index, dtype=float)


def test_one_interval_per_dataset_with_the_noise_the_blocks_cannot_show() -> None:
    effect = _blocks({"ds3": [0.10, 0.12, 0.11], "ds55": [0.02, 0.02, 0.02]})
    plain = dataset_intervals(effect, "gap")
    assert [i["name"] for i in plain] == ["ds3: gap", "ds55: gap"]
    assert plain[1]["low"] == plain[1]["high"] == pytest.approx(0.02)  # constant blocks, no own noise given
    se = pd.Series(0.01, index=effect.index)
    noisy = dataset_intervals(effect, "gap", se=se)
    assert noisy[1]["low"] == pytest.approx(0.02 - 1.96 * 0.01, abs=1e-4)  # the release's own noise, not / √k
    shifted = dataset_intervals(effect, "gap", shift=0.05)
    assert shifted[0]["estimate"] == pytest.approx(0.06) and shifted[1]["high"] < 0
    single = _blocks({"ds3": [0.4]})
    assert (
        dataset_intervals(single, "x") == []
        and len(dataset_intervals(single, "x", se=pd.Series(0.1, index=single.index))) == 1
    )


def test_wilson_share_over_datasets_and_the_datasets_a_share_needs() -> None:
    both = wilson_share(pd.Series([1.0, 1.0], index=["ds3", "ds55"]), "SMOTE")
    assert both is not None and both["low"] > 0.15  # 2 of 2 datasets at the oracle: beyond "under 15 %"
    half = wilson_share(pd.Series([0.0, 0.6], index=["ds3", "ds55"]), "ε")
    assert half is not None and half["low"] < 0.5 < 0.7 < half["high"]  # cannot tell 60 % from much else
    assert wilson_share(pd.Series(dtype=float), "none") is None
    assert blocks_needed(0.6, 0.1) == 93 and blocks_needed(0.6, 0.15) == 41 and blocks_needed(0.0, 0.15) == 22


def test_expected_best_of_matches_enumeration() -> None:
    values = np.array([0.3, 0.9, 0.5, 0.7, 0.1])
    for k in (1, 2, 3, 5):
        exact = np.mean([max(c) for c in itertools.combinations(values, k)])
        assert expected_best_of(values, k) == pytest.approx(exact)
    assert expected_best_of(values, 9) == pytest.approx(0.9)


def test_a_conjunction_drops_the_gated_parts_only_when_the_rest_already_fails(tmp_path: Path) -> None:
    run = ReproductionRun(load_plan("privatesmote_2024", "protocol"), tmp_path, empty_results())
    run.gates = [Gate("gan", "learns", False, "AUC 0.5")]
    good, opposite = unc.interval("a", 0.2, 0.1, 0.3), unc.interval("b", -0.2, -0.3, -0.1)
    gated = unc.interval("gan part", 0.3, 0.2, 0.4)
    intervals, keys, note = conjunction(run, [(opposite, ("x",)), (gated, ("gan",))])
    assert intervals == [opposite] and keys == ("x",) and "gan part" in note
    intervals, keys, note = conjunction(run, [(good, ("x",)), (gated, ("gan",))])
    assert intervals == [good, gated] and "gan" in keys and not note  # the claim rests on the failed gate
    inside, outside = unc.interval("c", 0.0, -0.01, 0.01), unc.interval("d", 0.5, 0.4, 0.6)
    intervals, keys, _ = conjunction(run, [(outside, ("x",)), (gated, ("gan",))], band=(-0.02, 0.02))
    assert intervals == [outside] and keys == ("x",)  # a band: outside it already fails the claim
    _, keys, note = conjunction(run, [(inside, ("x",)), (gated, ("gan",))], band=(-0.02, 0.02))
    assert "gan" in keys and not note
