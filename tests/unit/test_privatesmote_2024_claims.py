"""R-EPS claims, gates and verdicts on synthetic protocol runs (no trial runs; issue 27).

``experiments/reproductions/privatesmote_2024*.py``: every check has a kind, claim verdicts come
from the shared rule and the recorded uncertainty (an ordering inside its noise is inconclusive),
a generator that did not learn or ignores ε fails its gate and the claims on it are not
evaluable, the central comparison with PPT is checked on both paths, and Fig. 5's sampling
methods — the oracle — are not evaluable.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from experiments.reproductions import privatesmote_2024 as module
from experiments.reproductions import privatesmote_2024_fig4 as fig4
from experiments.reproductions import privatesmote_2024_ppt as ppt
from experiments.reproductions import privatesmote_2024_rq2 as rq2
from experiments.reproductions.privatesmote_2024_budget import PROTOCOL_BUDGETS
from experiments.reproductions.privatesmote_2024_common import conjunction
from experiments.reproductions.privatesmote_2024_epsilon import check_linkability_epsilon
from experiments.reproductions.privatesmote_2024_gates import gate_epsilon
from harness.reproduction import Gate, ReproductionRun, load_plan
from harness.reproduction import uncertainty as unc
from harness.reproduction.adequacy import apply_gates
from harness.reproduction.checks import Check
from harness.reproduction.runner import evaluate_gates
from harness.schema import to_results_frame
from tests.integration.test_reproductions import assert_kinds_and_verdicts

QI_SETS = ("qi0", "qi1", "qi2", "qi3")
DATASETS = ("ds3", "ds55")
EPSILONS = (0.1, 0.5, 1.0, 5.0, 10.0)


def _jitter(*parts: object) -> float:
    """A small deterministic spread per block (so intervals have a width)."""
    return (zlib.crc32("|".join(map(str, parts)).encode()) % 7) / 1000


def trial(
    dataset: str, qi: str, generator: str, params: dict[str, Any], *, link: float, auc: float,
    fidelity: tuple[float, float, float] = (1.0, 1.0, 0.99), fit: float = 1.0, rss: float = 300.0,
) -> list[dict[str, Any]]:  # fmt: skip
    """The result rows of one trial (linkability, AUC, its % difference and ROPE outcome, fidelity, cost)."""
    key = f"{dataset}-{qi}-{generator}-{json.dumps(params, sort_keys=True)}"
    base = {
        "run_id": "r", "experiment": "privatesmote_2024", "status": "ok", "dataset": dataset, "qi_set": qi,
        "generator": generator, "generator_params": json.dumps(params, sort_keys=True), "trial_key": key,
        "fit_s": fit, "sample_s": 0.0, "cache_hit": False, "split_seed": 0, "fold": 0, "gen_seed": 0,
    }  # fmt: skip
    pct = 100 * (auc - 0.95) / 0.95
    details = json.dumps({"n_test": 400, "n_attacks": 400, "rate_main": link + 0.1, "rate_control": 0.1})
    gen_details = json.dumps({"generator": {"n_risky": 50, "n_train": 100}})
    rows = [
        {"metric": "linkability", "variant": "", "family": "privacy", "value": link, "goal": "minimise"},
        {"metric": "ml_efficacy", "variant": "best:roc_auc", "family": "utility", "value": auc, "goal": "maximise"},
        {"metric": "ml_efficacy", "variant": "best:pct_diff", "family": "utility", "value": pct, "goal": "maximise"},
        {"metric": "ml_efficacy", "variant": "best:rope_outcome", "family": "utility",
         "value": float(-1 if pct < -1 else (1 if pct > 1 else 0)), "goal": "maximise"},
        {"metric": "range_coverage", "variant": "", "family": "fidelity", "value": fidelity[0], "goal": "maximise"},
        {"metric": "boundary_adherence", "variant": "", "family": "fidelity", "value": fidelity[1], "goal": "maximise"},
        {"metric": "statistic_similarity", "variant": "", "family": "fidelity", "value": fidelity[2], "goal": "maximise"},
        {"metric": "fit_seconds", "variant": "", "family": "cost", "value": fit, "goal": "minimise", "details": gen_details},
        {"metric": "peak_rss_mb", "variant": "", "family": "cost", "value": rss, "goal": "minimise"},
    ]  # fmt: skip
    return [{**base, "details": details, **row} for row in rows]


def results(
    *, ppt_link: float = 0.2, gan_auc: float = 0.75, eps_link: Callable[[float], float] | None = None,
    dp_same_above_1: bool = False,
) -> pd.DataFrame:  # fmt: skip
    """A protocol-shaped run: ε-PrivateSMOTE, PPT, RUS, SMOTE and the five GANs on ds3 and ds55.

    ε-PrivateSMOTE is less linkable than PPT by default (``ppt_link``) with the same AUC; the
    sampling methods keep original rows (the oracle's AUC, high linkability); the GANs reach
    ``gan_auc`` (0.5: they did not learn), retrained on ds3 at the paper's budget.
    """
    link_of = eps_link or (lambda eps: 0.05 - 0.004 * eps)
    rows: list[dict[str, Any]] = []
    for dataset in DATASETS:
        for qi in QI_SETS:
            j = _jitter(dataset, qi)
            for eps in EPSILONS:
                fid = (1.0 - 0.001 * eps, 0.5 + 0.04 * eps, 0.98 + 0.001 * eps)
                rows += trial(dataset, qi, "eps_private_smote", {"epsilon": eps, "knn": 3, "per": 2},
                              link=link_of(eps) + j, auc=0.90 + 0.004 * eps + j, fidelity=fid, fit=0.1, rss=250)  # fmt: skip
            rows += trial(dataset, qi, "kanon_fulldomain", {"top_n": 1}, link=ppt_link + _jitter(dataset, qi, "ppt"), auc=0.93 + j,
                          fidelity=(0.9, 0.9, 0.99))  # fmt: skip
            for generator in ("rus", "smote", "borderline_smote"):
                rows += trial(dataset, qi, generator, {"ratio": 1.0}, link=0.5 + j, auc=0.95, fit=0.01)
            for generator, (param, shrunk, paper) in PROTOCOL_BUDGETS.items():
                budgets = (shrunk, paper) if dataset == "ds3" else (shrunk,)
                for budget in budgets:
                    eps_grid: tuple[float | None, ...] = (
                        (0.5, 1.0, 5.0) if generator in ("dpgan", "pategan") else (None,)
                    )
                    for bs in (50, 100):
                        for dp_eps in eps_grid:
                            params: dict[str, Any] = {param: budget, "batch_size": bs}
                            shift = 0.0
                            if dp_eps is not None:
                                params["epsilon"] = dp_eps
                                shift = 0.0 if dp_same_above_1 and dp_eps >= 1 else 0.01 * dp_eps
                            value = gan_auc + shift + 0.01 * (bs == 100) + (0.02 if budget == paper else 0.0)
                            rows += trial(dataset, qi, generator, params, link=0.003 + j, auc=value,
                                          fit=60.0 if budget == paper else 10.0, rss=550)  # fmt: skip
    return to_results_frame(rows)


def protocol_run(tmp_path: Path, frame: pd.DataFrame) -> ReproductionRun:
    return ReproductionRun(
        load_plan("privatesmote_2024", "protocol"), tmp_path, frame, output_dir=tmp_path / "out"
    )


def evaluated(
    tmp_path: Path,
    frame: pd.DataFrame,
    functions: Sequence[Callable[[ReproductionRun], Check | list[Check]]] | None = None,
) -> tuple[ReproductionRun, dict[str, Check]]:
    """Gates, checks (``functions``, default all) and gate failures as ``privbench reproduce`` evaluates them."""
    run = protocol_run(tmp_path, frame)
    run.gates = evaluate_gates(module, run)
    checks: list[Check] = []
    for function in functions if functions is not None else module.CHECKS:
        produced = function(run)
        checks.extend([produced] if isinstance(produced, Check) else produced)
    checked = apply_gates(checks, run.gates)
    return run, {c.id: c for c in checked}


@pytest.fixture(scope="module")
def paper_like(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReproductionRun, dict[str, Check]]:
    return evaluated(tmp_path_factory.mktemp("paper_like"), results())


def test_every_check_has_a_kind_and_claim_verdicts_follow_the_shared_rule(paper_like: Any) -> None:
    run, checks = paper_like
    assert not {i: c.error for i, c in checks.items() if c.error}
    assert_kinds_and_verdicts({i: c.to_dict() for i, c in checks.items()})
    kinds = {c.kind for c in checks.values()}
    assert kinds == {"claim", "setup", "arithmetic", "sanity"}
    for check in checks.values():
        if check.is_claim and not check.not_evaluable:
            assert check.uncertainty, f"{check.id}: a claim without its uncertainty"
    # the central comparison comes first, and PPT is in Fig. 5
    claims = [c.id for c in checks.values() if c.is_claim]
    assert claims[0] == "fig4-perf-first-linkability-vs-ppt"
    assert {"fig5-eps-vs-ppt-equivalent", "fig5-ppt-draw", "fig5-eps-draw"} <= set(claims)
    notes = module.referee_notes(run, list(checks.values()))
    assert any("kanon_fulldomain" in n and "stand-in" in n for n in notes)


def test_the_central_comparison_with_ppt_follows_the_data(paper_like: Any, tmp_path: Path) -> None:
    _, checks = paper_like
    lower = checks["fig4-perf-first-linkability-vs-ppt"]
    assert lower.verdict == "reproduced" and "stand-in decides the verdict" in lower.reason
    reversed_ = protocol_run(tmp_path, results(ppt_link=0.0))  # PPT below ε-PrivateSMOTE beyond noise
    assert ppt.check_perf_first_linkability_vs_ppt(reversed_).verdict == "not reproduced"
    close = protocol_run(tmp_path, results(ppt_link=0.0095))  # the same linkability up to the block spread
    assert ppt.check_privacy_first_linkability_vs_ppt(close).verdict == "inconclusive"


def test_a_gan_that_did_not_learn_fails_its_gate_and_its_claims_are_not_evaluable(tmp_path: Path) -> None:
    functions: list[Callable[[ReproductionRun], Check | list[Check]]] = [
        fig4.check_auc_vs_gans,
        ppt.check_fig5_gans_draw,
        rq2.check_rq2_gans_indifferent,
    ]
    run, checks = evaluated(tmp_path, results(gan_auc=0.5), functions)
    failed = {g.key for g in run.gates if not g.passed}
    assert {"sdv_tvae", "sdv_tvae@epochs=100", "dpgan"} <= failed
    assert not {
        g.key for g in run.gates if g.key in ("eps_private_smote", "kanon_fulldomain") and not g.passed
    }
    for check_id in ("fig4-auc-vs-tvae", "fig5-gans-draw", "rq2-gans-indifferent"):
        assert checks[check_id].verdict == "not evaluable", check_id
        assert "adequacy gate failed" in checks[check_id].not_evaluable


def test_learnt_gans_decide_their_claims_at_the_paper_budget(paper_like: Any) -> None:
    run, checks = paper_like
    assert run.gate("sdv_tvae@epochs=100") is not None and run.gate("sdv_tvae@epochs=100").passed
    tvae = checks["fig4-auc-vs-tvae"]
    assert tvae.depends_on == ("eps_private_smote", "sdv_tvae@epochs=100") and "on ds3" in tvae.claim
    assert tvae.verdict == "reproduced"  # 0.94 against 0.78, beyond the blocks' spread and the test-set noise
    budget = run.gate("sdv_tvae@epochs=10")
    assert (
        budget is not None and not budget.passed and "+0.020" in budget.detail
    )  # still moving between budgets


def test_a_dp_gan_whose_output_ignores_epsilon_fails_responds_to_epsilon(tmp_path: Path) -> None:
    gates = [
        g for g in gate_epsilon(protocol_run(tmp_path, results(dp_same_above_1=True))) if g.key == "pategan"
    ]
    assert any(not g.passed and "identical at ε = 1 and ε = 5" in g.detail for g in gates)


def test_fig5_sampling_methods_are_the_oracle_and_not_evaluable(paper_like: Any) -> None:
    _, checks = paper_like
    sampling = checks["fig5-sampling-draw"]
    assert sampling.verdict == "not evaluable" and "near-definitional" in sampling.not_evaluable
    assert "8 of 8 complete blocks" in sampling.not_evaluable
    eps_draw = checks["fig5-eps-draw"]
    assert eps_draw.uncertainty and "not independent" in eps_draw.uncertainty["method"]


def test_linkability_against_epsilon_reads_as_a_true_statement(tmp_path: Path) -> None:
    frame = results(eps_link=lambda eps: 0.01 + 0.02 * eps)  # rises with ε: the opposite of the paper
    check = check_linkability_epsilon(protocol_run(tmp_path, frame))
    assert check.verdict == "not reproduced"
    assert (
        check.observed.startswith("ε = 0.1: ")
        and ", below ε ≥ 0.5: " in check.observed
        and "<" not in check.observed
    )


def test_setup_checks_read_the_run_evaluated(paper_like: Any) -> None:
    _, checks = paper_like
    tvae = checks["grid-sdv_tvae"]
    assert tvae.kind == "setup" and tvae.verdict == "fails" and "ds55 2 of 2 planned" in tvae.observed
    assert checks["grid-eps_private_smote"].observed.startswith("ds3 20 of 20 planned")
    assert (
        checks["table2-per-variant-tvae"].kind == "arithmetic"
        and checks["table2-per-variant-tvae"].verdict == "passes"
    )
    assert checks["setup-gan-budgets"].verdict == "fails"


def test_a_conjunction_drops_the_gated_parts_only_when_the_rest_already_fails(tmp_path: Path) -> None:
    run = protocol_run(tmp_path, results())
    run.gates = [Gate("gan", "learns", False, "AUC 0.5")]
    good, opposite = unc.interval("a", 0.2, 0.1, 0.3), unc.interval("b", -0.2, -0.3, -0.1)
    gated = unc.interval("gan part", 0.3, 0.2, 0.4)
    intervals, keys, note = conjunction(run, [(opposite, ("x",)), (gated, ("gan",))])
    assert intervals == [opposite] and keys == ("x",) and "gan part" in note
    intervals, keys, note = conjunction(run, [(good, ("x",)), (gated, ("gan",))])
    assert intervals == [good, gated] and "gan" in keys and not note  # the claim rests on the failed gate
