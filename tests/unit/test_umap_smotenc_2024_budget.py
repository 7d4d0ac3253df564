"""R-UMAP budgets, gates and claims on a synthetic protocol run (real framework, no mocks).

Four real datasets (their class shares give the constant predictor's F1: loan 0.175,
occupancy 0.375, dry_bean 0.059, letter 0.003) × three runs; CTGAN and TVAE at the profile's 30 epochs in
the main sweeps and at 300 epochs in budget sweeps (TVAE on every dataset, CTGAN on Loan only).
At 30 epochs TVAE's F1 is far from its 300-epoch F1, so its budget gate fails and its 30-epoch
rows must never reach a claim: at 300 epochs TVAE beats UMAP-SMOTENC, at 30 it would not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from experiments.reproductions import umap_smotenc_2024 as checks
from experiments.reproductions.umap_smotenc_2024_budget import (
    budgets,
    cost_table,
    fit_model,
    main_results,
    plan_epochs,
    row_epochs,
)
from experiments.reproductions.umap_smotenc_2024_cost import check_cheaper, check_gpu
from experiments.reproductions.umap_smotenc_2024_gates import budget_gates, learns_gates, trivial_f1
from harness.reproduction.checks import Check
from harness.reproduction.plan import ReproductionPlan, Sweep, load_plan
from harness.reproduction.view import ReproductionRun
from harness.schema import to_results_frame

DATASETS = ("loan", "occupancy", "dry_bean", "letter")
SEEDS = (220, 320, 420)
CLASSIFIERS = ("logistic_regression", "naive_bayes", "decision_tree", "random_forest", "xgboost", "mlp")
OVERRIDES = (
    "+generator_overrides.sdv_ctgan.epochs=30",
    "+generator_overrides.sdv_tvae.epochs=30",
    "+metric_overrides.ml_efficacy.param_grid={mlp: {hidden_layer_sizes: [[100]]}}",
)
# (utility, privacy) per generator and budget; the test fold's privacy is 0.3, the real F1 1.0
MAIN = {
    ("sdv_gaussian_copula", None): (0.45, 0.9),
    ("sdv_ctgan", 30): (0.50, 0.8),
    ("sdv_tvae", 30): (0.30, 0.5),
    ("smotenc", None): (0.90, 0.1),
    ("umap_smotenc", None): (0.80, 0.6),
}
PAPER = {("sdv_ctgan", 300): (0.70, 0.7), ("sdv_tvae", 300): (0.85, 0.9)}


def _rows(dataset: str, seed: int, generator: str, epochs: int | None, utility: float, privacy: float,
          fit_s: float = 10.0) -> list[dict[str, Any]]:  # fmt: skip
    jitter = 0.004 * (SEEDS.index(seed) - 1)
    base = {
        "run_id": "r", "experiment": "umap_smotenc_2024", "dataset": dataset, "qi_set": "default",
        "split_seed": seed, "fold": 0, "gen_seed": seed, "generator": generator,
        "generator_params": json.dumps({} if epochs is None else {"epochs": epochs}), "status": "ok",
        "trial_key": f"{dataset}-{seed}-{generator}-{epochs}", "fit_s": fit_s, "sample_s": 1.0, "metric_s": 2.0,
    }  # fmt: skip
    out = [
        {**base, "metric": "ml_efficacy", "variant": v, "family": "utility", "goal": "maximise",
         "value": utility + jitter, "baseline": 1.0}
        for v in ("mean:f1", *(f"{c}:f1" for c in CLASSIFIERS))
    ]  # fmt: skip
    out += [
        {**base, "metric": "dcr_nndr", "variant": v, "family": "privacy", "goal": "maximise",
         "value": privacy + jitter, "baseline": 0.3}
        for v in ("dcr_mean", "nndr_mean", "ratio_1_10_mean")
    ]  # fmt: skip
    return out


def _fit(generator: str, epochs: int | None) -> float:
    if epochs is None:
        return 20.0 if generator == "umap_smotenc" else 2.0
    return 5.0 + (3.0 if generator == "sdv_ctgan" else 1.0) * epochs


def _run(tmp_path: Path, paper: dict[tuple[str, int], tuple[float, float]] | None = None,
         main: dict[tuple[str, int | None], tuple[float, float]] | None = None,
         sweeps: tuple[Sweep, ...] = (), skip: set[tuple[str, int, str]] | None = None) -> ReproductionRun:  # fmt: skip
    """The synthetic protocol run; ``skip`` leaves out (dataset, seed, generator) 300-epoch trials."""
    rows: list[dict[str, Any]] = []
    for dataset in DATASETS:
        for seed in SEEDS:
            for (generator, epochs), (u, p) in (main or MAIN).items():
                rows += _rows(dataset, seed, generator, epochs, u, p, _fit(generator, epochs))
            for (generator, epochs), (u, p) in (PAPER if paper is None else paper).items():
                if generator == "sdv_ctgan" and dataset != "loan":
                    continue  # CTGAN at 300 epochs on Loan only, as the protocol run
                if (dataset, seed, generator) in (skip or set()):
                    continue
                rows += _rows(dataset, seed, generator, epochs, u, p, _fit(generator, epochs))
    plan = ReproductionPlan(
        "umap_smotenc_2024", "R-UMAP", "002.txt", "t", "s", "experiments.reproductions.umap_smotenc_2024",
        "protocol", "", OVERRIDES, sweeps, persist=True,
    )  # fmt: skip
    run = ReproductionRun(plan, tmp_path, to_results_frame(rows))
    run.gates = [*learns_gates(run), *budget_gates(run)]
    return run


def _by_id(run: ReproductionRun) -> dict[str, Check]:
    produced: list[Check] = []
    for function in checks.CHECKS:
        out = function(run)
        produced.extend([out] if isinstance(out, Check) else out)
    ids = [c.id for c in produced]
    assert len(ids) == len(set(ids)), "duplicate check ids"
    return {c.id: c for c in produced}


@pytest.fixture(scope="module")
def protocol(tmp_path_factory: pytest.TempPathFactory) -> ReproductionRun:
    return _run(tmp_path_factory.mktemp("run"))


@pytest.fixture(scope="module")
def by_id(protocol: ReproductionRun) -> dict[str, Check]:
    """Every check of the protocol run, evaluated once for the module."""
    return _by_id(protocol)


def test_trivial_f1_comes_from_the_class_shares() -> None:
    assert trivial_f1("loan") == pytest.approx(2 * 0.096 / 1.096, abs=1e-3)  # positive class '1'
    assert trivial_f1("magic") == pytest.approx(
        2 * 0.648 / 1.648, abs=1e-3
    )  # positive class 'g' (h -> 0, g -> 1)
    assert 0.0 < trivial_f1("dry_bean") < 0.1  # macro-F1 of a constant over 7 classes


def test_plan_epochs_and_main_results_keep_the_profile_budget(protocol: ReproductionRun) -> None:
    assert plan_epochs(protocol) == {"sdv_ctgan": 30, "sdv_tvae": 30}
    kept = main_results(protocol)
    epochs = row_epochs(kept)
    assert set(epochs.dropna().round()) == {30.0}  # the tables of the profile: no 300-epoch row
    assert len(kept) == len(protocol.results) - 10 * 3 * (4 + 1)  # TVAE on 4 datasets, CTGAN on 1, 3 runs


def test_a_cut_budget_that_moves_fails_its_gate_and_never_reaches_a_claim(protocol: ReproductionRun) -> None:
    budget = [g for g in protocol.gates if g.gate == "budget suffices"]
    tvae = [g for g in budget if g.key.startswith("sdv_tvae@epochs=30@loan")]
    assert sorted(g.key for g in tvae) == [  # one gate per measure: mean F1 and each privacy distance
        "sdv_tvae@epochs=30@loan", "sdv_tvae@epochs=30@loan:dcr_mean", "sdv_tvae@epochs=30@loan:nndr_mean",
        "sdv_tvae@epochs=30@loan:ratio_1_10_mean",
    ]  # fmt: skip
    assert not any(g.passed for g in tvae) and all(g.evaluated for g in tvae)
    assert "mean:f1 at epochs 300 − 30: +0.550" in tvae[0].detail  # 0.85 − 0.30
    assert not any(g.passed for g in budget if g.key.startswith("sdv_ctgan@epochs=30@loan"))
    chosen = budgets(protocol, protocol.gates)
    assert not chosen.cut_ok["sdv_tvae"] and not chosen.cut_ok["sdv_ctgan"]
    used = chosen.rows[chosen.rows["generator"].isin(["sdv_ctgan", "sdv_tvae"])]
    assert set(used["epochs"]) == {300.0}
    assert set(used.loc[used["generator"] == "sdv_ctgan", "dataset"]) == {"loan"}
    assert {30.0, 300.0} <= set(chosen.full["epochs"].dropna())  # the sensitivity view keeps them


def test_claims_read_tvae_at_300_epochs_only(by_id: dict[str, Check]) -> None:
    for check_id in ("table3-umap-vs-tvae", "table3-umap-vs-tvae-every-dataset"):
        tvae = by_id[check_id]
        # at 300 epochs TVAE (0.85, 0.9) beats UMAP-SMOTENC (0.80, 0.6) on every dataset; at 30 it would lose
        assert tvae.verdict == "not reproduced", (check_id, tvae.observed, tvae.why)
        assert (
            "TVAE at 300 epochs only" not in tvae.claim
        )  # TVAE ran at 300 epochs everywhere: no scope needed
        assert all(i["high"] < 0 for i in (tvae.uncertainty or {})["intervals"])
    f1 = by_id["table4-umap-vs-tvae"]
    assert f1.verdict == "not reproduced" and "mean over 4 datasets, n = 3 runs each" in f1.observed


def test_a_generator_at_the_paper_budget_on_one_dataset_is_not_evaluable(by_id: dict[str, Check]) -> None:
    for check_id in ("table3-umap-vs-ctgan", "table4-umap-vs-ctgan", "table6-ctgan-vs-baseline",
                     "table2-umap-best-rank", "table2-friedman", "text-improvement-ctgan"):  # fmt: skip
        check = by_id[check_id]
        assert check.verdict == "not evaluable", (check_id, check.why)
        # no sweep of this plan schedules CTGAN at 300 epochs beyond Loan: resuming would not decide it
        assert check.not_evaluable.startswith("not run at the paper's budget and not scheduled: CTGAN"), (
            check_id
        )
        assert "only on loan (3 runs)" in check.not_evaluable and "budget gate" in check.not_evaluable
    assert "needs ≥ 3" in by_id["table3-umap-vs-ctgan"].not_evaluable


def test_comparisons_without_a_cut_generator_are_judged_on_every_dataset(by_id: dict[str, Check]) -> None:
    gc = by_id["table4-umap-vs-gc"]
    assert gc.verdict == "reproduced" and gc.reason.endswith("dry_bean, letter, loan, occupancy")
    for check_id in ("table6-umap-vs-baseline", "table6-smote-nc-vs-baseline", "table4-smote-nc-above-umap",
                     "table6-umap-vs-smote-nc"):  # fmt: skip
        assert by_id[check_id].verdict == "reproduced", check_id
        assert by_id[f"{check_id}-every-dataset"].verdict == "reproduced", check_id
    trade = by_id["table3-umap-vs-smote-nc"]
    assert trade.verdict == "reproduced" and "in the normalisation" in trade.reason  # the sensitivity was run
    assert "normalised over GC, SMOTE-NC, UMAP-SMOTENC" in trade.claim


def test_every_claim_has_a_kind_and_the_shared_verdict(by_id: dict[str, Check]) -> None:
    assert {c.kind for c in by_id.values()} <= {"claim", "setup", "arithmetic", "sanity"}
    for check in by_id.values():
        assert not check.error, (check.id, check.error)
        again = Check.from_dict(check.to_dict())
        assert again.verdict == check.verdict
        if check.verdict == "reproduced" and check.level == "trend" and check.uncertainty:
            intervals = check.uncertainty.get("intervals") or []
            assert check.uncertainty.get("decision") == "holds" or all(i["low"] > 0 for i in intervals), (
                check.id
            )
    assert by_id["setup-epochs-tvae"].verdict == "passes"  # TVAE at 300 epochs on every dataset and run
    ctgan = by_id["setup-epochs-ctgan"]
    assert ctgan.verdict == "fails" and "loan (3 runs)" in ctgan.reason
    assert ctgan.observed == "1 of 4 datasets with every run at 300 epochs"  # a unit, never a bare number
    assert by_id["setup-runs"].verdict == "fails" and by_id["setup-mlp-grid"].verdict == "fails"
    assert all(by_id[i].verdict == "passes" for i in ("arith-holm-4", "arith-holm-5", "arith-improvement"))


def test_holm_p_values_need_eight_datasets(by_id: dict[str, Check]) -> None:
    assert checks.datasets_needed(4) == 8 and checks.datasets_needed(5) == 8
    assert checks.min_holm_p(4, 8) == pytest.approx(3.1e-02, abs=5e-4)
    assert checks.min_holm_p(5, 8) == pytest.approx(3.9e-02, abs=5e-4)
    assert checks.min_holm_p(4, 6) == pytest.approx(0.125)
    for check_id in ("table3-holm-p", "table5-holm-p", "table6-holm-p"):
        check = by_id[check_id]
        assert check.verdict == "not evaluable" and check.not_evaluable.startswith("untestable here")
        assert "needs ≥ 8 datasets, this run has 4" in check.not_evaluable


def test_a_dataset_in_the_opposite_direction_refutes_an_every_dataset_claim(tmp_path: Path) -> None:
    main = dict(MAIN)
    run = _run(tmp_path, main=main)
    rows = run.results
    # UMAP-SMOTENC closer to the training rows than the test fold on Loan only (0.25 < 0.3)
    mask = (
        (rows["generator"] == "umap_smotenc") & (rows["metric"] == "dcr_nndr") & (rows["dataset"] == "loan")
    )
    rows.loc[mask, "value"] = rows.loc[mask, "value"] - 0.35
    run = ReproductionRun(run.plan, tmp_path, rows)
    run.gates = [*learns_gates(run), *budget_gates(run)]
    by_id = {c.id: c for c in checks.check_table6(run)}
    check = by_id["table6-umap-vs-baseline-every-dataset"]
    assert check.verdict == "not reproduced" and "d₁: UMAP-SMOTENC − test set · loan (n = 3)" in check.why
    # the mean over the four datasets still clears the test set (0.6 on three, 0.25 on Loan vs 0.3)
    assert by_id["table6-umap-vs-baseline"].verdict != "not reproduced"


def test_a_generator_below_the_constant_predictor_is_left_out(tmp_path: Path) -> None:
    main = {**MAIN, ("sdv_gaussian_copula", None): (0.30, 0.9)}  # below occupancy's 0.375 only
    run = _run(tmp_path, main=main)
    failed = {g.key for g in run.gates if not g.passed and g.gate == "learns"}
    assert failed == {"sdv_gaussian_copula@occupancy", "sdv_tvae@epochs=30@occupancy"}
    check = {c.id: c for c in checks.check_table4(run)}["table4-umap-vs-gc"]
    assert check.verdict == "reproduced" and "GC on occupancy" in check.claim
    assert "where GC learns, 3 of 4: dry_bean, letter, loan" in check.claim  # in the title, not in a bracket
    assert check.reason.endswith("datasets: dry_bean, letter, loan")
    half = checks.check_gc_half(run)  # GC's own low utility is that claim: its gate does not apply
    assert "dry_bean, letter, loan, occupancy" in half.reason


def test_cost_table_projects_the_missing_paper_budget_runs(protocol: ReproductionRun) -> None:
    rows = protocol.results.assign(epochs=row_epochs(protocol.results))
    model = fit_model(rows[(rows["generator"] == "sdv_ctgan") & (rows["dataset"] == "loan")])
    assert model is not None and model[0] == pytest.approx(5.0) and model[1] == pytest.approx(3.0)
    table = cost_table(protocol).set_index(["generator", "dataset"])
    occupancy = table.loc[("sdv_ctgan", "occupancy")]
    assert occupancy["fit s/epoch (30 epochs)"] == pytest.approx(95.0 / 30)
    assert occupancy["fit s (300 epochs)"] == pytest.approx(5.0 + 300 * 3.0)  # the fitted set-up, 3 s/epoch
    assert occupancy["runs to do"] == 3 and table.loc[("sdv_ctgan", "loan"), "runs to do"] == 0
    assert table.loc[("sdv_tvae", "loan"), "runs to do"] == 0  # TVAE ran at 300 epochs everywhere
    by_id = {c.id: c for c in (check_cheaper(protocol), check_gpu(protocol))}
    cheaper = by_id["text-umap-cheaper-cpu"]  # UMAP-SMOTENC 21 s against CTGAN 906 s / TVAE 306 s
    assert cheaper.verdict == "reproduced", (cheaper.observed, cheaper.why)
    names = [i["name"] for i in (cheaper.uncertainty or {})["intervals"]]
    assert any("measured at 300 epochs" in n for n in names) and any("a lower bound" in n for n in names)
    # 905 s (CTGAN) and 305 s (TVAE) at 300 epochs: far below an hour of one CPU thread
    gpu = by_id["text-deep-models-need-gpu"]
    assert (
        gpu.verdict == "not reproduced" and "CTGAN fit / 1 h − 1 · loan (measured at 300 epochs)" in gpu.why
    )


def test_referee_notes_and_artifacts(protocol: ReproductionRun, by_id: dict[str, Check]) -> None:
    notes = checks.referee_notes(protocol, list(by_id.values()))
    text = "\n".join(notes)
    # the paper-budget evidence opens the notes: on Loan all five ran 300 epochs and TVAE (0.85, 0.9) wins
    assert notes[0].startswith(
        "**At the paper's budget (all five generators at SDV's 300 epochs) TVAE is ahead of UMAP-SMOTENC on the "
        "trade-off (loan, n = 3 runs per dataset; mean "
    ), notes[0]
    assert (
        notes[0]
        .split(".**")[0]
        .endswith(
            "and TVAE is more private than UMAP-SMOTENC on every distance on all 4 datasets that have TVAE at 300 epochs"
        )
    ), notes[0]
    # the summary's lists open with the paper-budget comparisons against TVAE
    from harness.reproduction.referee import referee_summary

    summary = referee_summary(list(by_id.values()), protocol.gates, notes)
    failing = next(line for line in summary if line.startswith("**Does not hold**"))
    assert failing.split(": ", 1)[1].startswith("Table 3: UMAP-SMOTENC's trade-off score above TVAE's"), (
        failing
    )
    assert by_id["text-umap-privacy-par-tvae"].verdict == "not reproduced"
    assert by_id["text-umap-privacy-par-tvae-every-dataset"].verdict == "not reproduced"
    assert "**Training budgets.**" in text and "never enter a trade-off or F1 claim" in text
    assert "**Reading the trade-off.**" in text and "GC scores 0 in 12 of its 12" in text
    assert by_id["table3-umap-vs-gc"].verdict == "not evaluable"
    assert by_id["table3-umap-vs-gc"].not_evaluable.startswith("follows from the score's definition here")
    assert "it does not decide" in text and "table3-umap-vs-ctgan" in text  # CTGAN at 300 is not scheduled
    checks.artifacts(protocol)
    folder = protocol.out_dir / "tables"
    for stem in ("paper_budget_tradeoff", "budget_comparison", "paper_budget_cost", "table3_tradeoff"):
        assert (folder / f"{stem}.md").is_file(), stem
    caption = (folder / "table3_tradeoff.md").read_text().splitlines()[0]
    assert "CTGAN/TVAE at 30 of SDV's 300 epochs" in caption
    assert "control" not in (folder / "table5_wilcoxon_holm.md").read_text()  # generator names, not roles
    paper = pd.read_csv(folder / "paper_budget_tradeoff.csv")
    assert set(paper.loc[paper["generator"] == "TVAE", "epochs"].astype(str)) == {"300"}
    umap = paper[paper["generator"] == "UMAP-SMOTENC"].set_index("dataset")["runs all five"]
    assert umap.to_dict() == {
        "dry_bean": 0,
        "letter": 0,
        "loan": 3,
        "occupancy": 0,
    }  # all five at 300: Loan only


def test_protocol_profile_declares_the_budget_sweeps() -> None:
    plan = load_plan("umap_smotenc_2024", "protocol")
    assert plan.persist
    trials = sum(
        int(np.prod([len(o.split("=", 1)[1].split(",")) for o in s.overrides if o.split("=")[0] in
                     ("dataset", "split_seed", "generator")]))  # fold=0 everywhere
        for s in plan.sweeps
    )  # fmt: skip
    assert trials == 111 and f"{trials} trials" in plan.description  # the description counts what it plans
    sweeps = {s.name: s.overrides for s in plan.sweeps}
    assert {"main", "magic", "budget"} <= set(sweeps)
    assert (
        "generator_overrides.sdv_ctgan.epochs=300" in sweeps["budget"] and "dataset=loan" in sweeps["budget"]
    )
    assert any(o.endswith("sdv_ctgan.epochs=30") for o in plan.overrides)
    tvae = [s for name, s in sweeps.items() if name.startswith("budget_tvae")]
    assert all("generator_overrides.sdv_tvae.epochs=300" in s for s in tvae)


def test_nested_bootstrap_resamples_datasets_then_runs() -> None:
    from experiments.reproductions.umap_smotenc_2024_compare import Part, nested_interval

    index = pd.MultiIndex.from_tuples(
        [(d, s, 0) for d in ("a", "b", "c") for s in SEEDS], names=["dataset", "split_seed", "fold"]
    )
    constant = Part("x", pd.Series(0.2, index=index))
    entry = nested_interval(constant, ["a", "b", "c"])
    assert entry is not None and entry["low"] == pytest.approx(0.2) and entry["high"] == pytest.approx(0.2)
    spread = Part("y", pd.Series(np.repeat([0.1, 0.2, 0.6], 3), index=index))
    first, second = nested_interval(spread, ["a", "b", "c"]), nested_interval(spread, ["a", "b", "c"])
    assert first == second and first is not None and first["low"] < 0.3 < first["high"]
    assert nested_interval(spread, ["a"]) is None  # one dataset: no mean over datasets
