"""The Wilcoxon–Holm table leaves out comparisons too few blocks to reach p < α (tracker issue 16).

With N paired blocks the smallest two-sided exact p of the signed-rank test is 2/2^N: at
α = 0.05 a comparison needs N ≥ 6. Fewer blocks used to give rows whose p could never be
significant; they are now left out of the table (and the Holm family) and named in its note.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.report.comparisons import TableSkipped, control_table
from harness.report.control import min_attainable_p, min_blocks, omitted_note
from harness.report.prepare import prepare
from harness.report.ranking import wilcoxon_holm
from harness.report.settings import ReportSettings, resolve_settings
from harness.schema import to_results_frame

CONTROL, SHORT, FULL = "control", "short", "full"


def _results(blocks: dict[str, int]) -> pd.DataFrame:
    """AUC of three generators over split seeds (blocks); ``blocks`` says how many each has.

    The control is always best, by a different margin per seed (no ties: exact test).
    """
    rows = []
    for generator, n in blocks.items():
        for seed in range(n):
            value = 0.9 if generator == CONTROL else 0.8 - 0.01 * seed - (0.05 if generator == SHORT else 0.0)
            rows.append(
                {
                    "run_id": "r",
                    "experiment": "e",
                    "dataset": "adult",
                    "qi_set": "qi",
                    "split_seed": seed,
                    "fold": 0,
                    "generator": generator,
                    "generator_params": "{}",
                    "gen_seed": 0,
                    "metric": "ml_efficacy",
                    "variant": "roc_auc",
                    "family": "utility",
                    "goal": "maximise",
                    "value": value,
                    "status": "ok",
                }
            )
    return prepare(to_results_frame(rows))


def _settings(frame: pd.DataFrame, alpha: float = 0.05) -> ReportSettings:
    base = ReportSettings(utility="ml_efficacy/roc_auc", control=CONTROL, blocks=("dataset", "split_seed"))
    return replace(resolve_settings(frame, base), alpha=alpha)


def test_smallest_attainable_p_is_two_over_two_to_the_n() -> None:
    assert [min_attainable_p(n) for n in range(7)] == [1.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125]
    assert min_blocks(0.05) == 6 and min_blocks(0.1) == 5 and min_blocks(0.6) == 2
    # the bound is scipy's exact p when every difference has the same sign
    for n in (3, 5, 6):
        x = np.arange(1.0, n + 1)
        assert stats.wilcoxon(x, np.zeros(n), method="exact").pvalue == pytest.approx(min_attainable_p(n))


def test_comparisons_with_too_few_blocks_are_left_out_and_named() -> None:
    frame = _results({CONTROL: 8, SHORT: 4, FULL: 8})
    table = control_table(frame, _settings(frame))
    assert list(table.numbers["treatment"]) == [FULL]
    assert list(table.display.text["generator"]) == [FULL]
    assert table.numbers["n"].tolist() == [8]
    expected = omitted_note([(SHORT, "ml_efficacy/roc_auc", 4)], 0.05)
    assert table.note is not None and expected in table.note
    assert "short on ml_efficacy/roc_auc (N = 4, smallest attainable p = 0.125)" in expected
    assert "N ≥ 6 is needed" in expected and expected.count("\n") == 0


def test_the_holm_family_holds_only_the_tested_comparisons() -> None:
    frame = _results({CONTROL: 8, SHORT: 4, FULL: 8})
    table = control_table(frame, _settings(frame))
    scores = frame.pivot_table(index="split_seed", columns="label", values="value")
    alone = wilcoxon_holm(scores[[CONTROL, FULL]], CONTROL)
    assert table.numbers["p_holm"].tolist() == alone["p_holm"].tolist()  # m = 1, not 2
    assert table.numbers["p_value"].tolist() == alone["p_value"].tolist()


def test_six_blocks_are_enough_at_alpha_005_and_fewer_at_a_larger_alpha() -> None:
    frame = _results({CONTROL: 6, SHORT: 5, FULL: 6})
    table = control_table(frame, _settings(frame))
    assert list(table.numbers["treatment"]) == [FULL]
    assert bool(table.numbers["significant"].iloc[0])  # p = 2/64 < 0.05 after Holm over one test
    loose = control_table(frame, _settings(frame, alpha=0.1))  # 5 blocks reach 2/32 < 0.1
    assert sorted(loose.numbers["treatment"]) == [FULL, SHORT]
    assert "Not shown" not in (loose.note or "")


def test_a_table_with_no_testable_comparison_is_omitted_with_the_reason() -> None:
    frame = _results({CONTROL: 3, SHORT: 3, FULL: 2})
    with pytest.raises(TableSkipped) as caught:
        control_table(frame, _settings(frame))
    message = str(caught.value)
    assert "too few blocks paired with the control to reach p < 0.05" in message
    assert "full on ml_efficacy/roc_auc (N = 2, smallest attainable p = 0.5)" in message
    assert "short on ml_efficacy/roc_auc (N = 3, smallest attainable p = 0.25)" in message
