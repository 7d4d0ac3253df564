"""The summary line and exit status of ``privbench run`` from the jobs' outcomes."""

from __future__ import annotations

import pandas as pd

from harness.run_status import TrialOutcome, outcome_of, summary


def _rows(fit: str, metric_status: str = "ok") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["fit_seconds", "sample_seconds", "dcr_share", "tcap"],
            "status": [fit, fit, metric_status if fit == "ok" else fit, "skipped"],
        }
    )


def test_outcome_reads_the_generator_status_and_failed_metrics() -> None:
    assert outcome_of(_rows("ok"), "a") == TrialOutcome("a", "ok", 0)  # an incomputable metric is no failure
    assert outcome_of(_rows("ok", "error"), "a") == TrialOutcome("a", "ok", 1)
    assert outcome_of(_rows("skipped"), "a") == TrialOutcome("a", "skipped", 0)
    assert outcome_of(_rows("timeout"), "a").failed


def test_summary_counts_names_the_varying_overrides_and_exits_1_only_on_failure() -> None:
    common = "data.max_rows=600 suite=fast"
    outcomes = [
        TrialOutcome(f"generator=identity {common}", "ok"),
        TrialOutcome(f"generator=smote {common}", "skipped"),
        TrialOutcome(f"generator=uniform {common}", "present"),
    ]
    line, code = summary(outcomes, planned=4)
    assert code == 0
    assert line == (
        "privbench: 3 trial(s): 1 ok, 1 already done, 1 skipped; 1 did not report (killed or lost: run the "
        "same command again); skipped: generator=smote (details: privbench report RUN_DIR, tables/failures.csv)"
    )
    line, code = summary([*outcomes, TrialOutcome(f"generator=mst {common}", "ok", failed_metrics=2)])
    assert code == 1
    assert "1 failed" in line and "failed: generator=mst [2 metric result(s) failed]" in line
