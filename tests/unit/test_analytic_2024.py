"""R-ANALYTIC: kinds and verdicts of the closed-form checks (spec/reproductions.md §14, issue 27)."""

from __future__ import annotations

from pathlib import Path

from experiments.reproductions import analytic_2024 as analytic
from harness.reproduction.checks import Check
from harness.reproduction.plan import ReproductionPlan
from harness.reproduction.view import ReproductionRun
from harness.schema import empty_results


def _checks(tmp_path: Path) -> dict[str, Check]:
    plan = ReproductionPlan("analytic_2024", "R-ANALYTIC", "p", "t", "s", "m", "paper", "", (), ())
    run = ReproductionRun(plan, tmp_path, empty_results())
    out: list[Check] = []
    for function in analytic.CHECKS:
        produced = function(run)
        out.extend([produced] if isinstance(produced, Check) else produced)
    return {c.id: c for c in out}


def test_the_papers_own_readings_are_claims_with_deterministic_verdicts(tmp_path: Path) -> None:
    checks = _checks(tmp_path)
    assert checks["poisson-alpha0.1-eps3-claim"].verdict == "reproduced"
    wrong = checks["poisson-alpha0.1-eps1.5-claim"]
    assert wrong.kind == "claim" and wrong.verdict == "not reproduced" and "deterministic" in wrong.why
    assert "0.301" in wrong.observed and "ε < ln 11 − 1" in wrong.reason
    for cid in ("poisson-eps2-alpha1", "poisson-alpha0.1-delta0.05", "poisson-delta-not-monotone",
                "poisson-worst-case-ak1", "poisson-utility-alpha", "poisson-delta-vs-gaussian",
                "isolation-single-guess-max", "isolation-remark3", "isolation-footnote-11"):  # fmt: skip
        assert checks[cid].kind == "claim" and checks[cid].verdict == "reproduced", (cid, checks[cid].why)


def test_the_simulated_figure_is_decided_by_its_monte_carlo_interval(tmp_path: Path) -> None:
    check = _checks(tmp_path)["isolation-fig1-simulated"]
    assert check.kind == "claim" and check.verdict == "reproduced"
    assert check.uncertainty is not None and len(check.uncertainty["intervals"]) == 8
    assert all(i["low"] >= -0.02 and i["high"] <= 0.02 for i in check.uncertainty["intervals"])


def test_spec_derived_values_are_sanity_and_table_10_is_arithmetic(tmp_path: Path) -> None:
    checks = _checks(tmp_path)
    assert {
        checks[f"poisson-delta-alpha{a}-eps{e}"].kind for a in ("0.1", "0.5", "1") for e in ("1.5", "2", "3")
    } == {"sanity"}
    assert checks["isolation-fig1-k10"].kind == "sanity" and checks["isolation-fig1-k10"].verdict == "passes"
    assert (
        checks["tcap-holdout-ea-run1"].kind == "arithmetic"
        and checks["tcap-holdout-ea-run1"].verdict == "passes"
    )
    assert checks["tcap-baseline"].verdict == "not evaluable" and checks["no-trials"].kind == "setup"
    assert all(c.kind in ("claim", "setup", "arithmetic", "sanity") for c in checks.values())
