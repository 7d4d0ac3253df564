"""R-UMAP aggregation and checks on a hand-made results table (values computed by hand).

Two datasets × one run × the five generators, with the same numbers in both datasets:

=============  =======  ======================  ======================================
generator      mean F1  privacy (all 3 outputs)  trade-off (OU, OP = P / max P = P)
=============  =======  ======================  ======================================
GC             0.2      1.0                      OU 0     -> 0
CTGAN          0.4      0.8                      OU 0.25  -> 2·0.8·0.25/1.05  = 0.380952
TVAE           0.5      0.5                      OU 0.375 -> 2·0.5·0.375/0.875 = 0.428571
SMOTE-NC       0.9      0.1                      OU 0.875 -> 2·0.1·0.875/0.975 = 0.179487
UMAP-SMOTENC   0.8      0.8                      OU 0.75  -> 2·0.8·0.75/1.55  = 0.774194
=============  =======  ======================  ======================================

OU = (U − 0.2)/(1.0 − 0.2) with the train-real F1 1.0; the test-fold privacy baseline is 0.3.
Ranks: UMAP-SMOTENC 1, TVAE 2, CTGAN 3, SMOTE-NC 4, GC 5; Friedman over two identical blocks:
χ² = 12·2/(5·6)·55 − 3·2·6 = 8, p = P(χ²₄ > 8) = 0.0916.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.reproductions import umap_smotenc_2024 as checks
from experiments.reproductions.umap_smotenc_2024_tables import (
    baseline_values,
    run_summary,
    tables,
)
from harness.reproduction.checks import Check
from harness.reproduction.plan import ReproductionPlan
from harness.reproduction.view import ReproductionRun
from harness.schema import to_results_frame

UTILITY = {"sdv_gaussian_copula": 0.2, "sdv_ctgan": 0.4, "sdv_tvae": 0.5, "smotenc": 0.9, "umap_smotenc": 0.8}
PRIVACY = {"sdv_gaussian_copula": 1.0, "sdv_ctgan": 0.8, "sdv_tvae": 0.5, "smotenc": 0.1, "umap_smotenc": 0.8}
CLASSIFIERS = ("logistic_regression", "naive_bayes", "decision_tree", "random_forest", "xgboost", "mlp")


def _results() -> pd.DataFrame:
    rows = []
    for dataset in ("a", "b"):
        for generator in UTILITY:
            base = {
                "run_id": "r", "experiment": "umap_smotenc_2024", "dataset": dataset, "qi_set": "default",
                "split_seed": 220, "fold": 0, "gen_seed": 220, "generator": generator, "generator_params": "{}",
                "status": "ok", "trial_key": f"{dataset}-{generator}",
            }  # fmt: skip
            for variant in ("mean:f1", *(f"{c}:f1" for c in CLASSIFIERS)):
                rows.append({**base, "metric": "ml_efficacy", "variant": variant, "family": "utility",
                             "goal": "maximise", "value": UTILITY[generator], "baseline": 1.0})  # fmt: skip
            for variant in ("dcr_mean", "nndr_mean", "ratio_1_10_mean"):
                rows.append({**base, "metric": "dcr_nndr", "variant": variant, "family": "privacy",
                             "goal": "maximise", "value": PRIVACY[generator], "baseline": 0.3})  # fmt: skip
    return to_results_frame(rows)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> ReproductionRun:
    """One run for the module: ``tables(run)`` is computed once and memoised."""
    plan = ReproductionPlan(
        "umap_smotenc_2024", "R-UMAP", "002.txt", "t", "s", "experiments.reproductions.umap_smotenc_2024",
        "paper", "", (), (),
    )  # fmt: skip
    return ReproductionRun(plan, tmp_path_factory.mktemp("run"), _results())


def test_run_summary_is_mean_and_sd_over_runs_of_the_dataset_mean() -> None:
    frame = pd.DataFrame(
        {
            "dataset": ["a", "a", "b", "b"],
            "split_seed": [220, 220, 220, 220],
            "fold": [0, 1, 0, 1],
            "label": ["X"] * 4,
            "value": [1.0, 3.0, 3.0, 5.0],
        }
    )
    out = run_summary(frame)
    # run (220, 0): mean(1, 3) = 2; run (220, 1): mean(3, 5) = 4 -> 3 ± sd(2, 4) = √2
    assert out.loc["X", "mean"] == pytest.approx(3.0)
    assert out.loc["X", "sd"] == pytest.approx(math.sqrt(2.0))
    assert (out.loc["X", "n_runs"], out.loc["X", "n_datasets"]) == (2, 2)


def test_baseline_values_become_a_treatment_per_unit() -> None:
    values = pd.DataFrame(
        {"dataset": ["a", "a"], "split_seed": [220, 220], "fold": [0, 0], "generator": ["g", "h"],
         "value": [0.5, 0.7], "baseline": [0.2, 0.4], "label": ["G", "H"]}
    )  # fmt: skip
    base = baseline_values(values, "Test Set Baseline")
    assert base["value"].tolist() == [pytest.approx(0.3)] and base["label"].tolist() == ["Test Set Baseline"]


def test_tables_follow_the_hand_computed_tradeoff(run: ReproductionRun) -> None:
    t = tables(run)
    assert not t.errors
    expected = {
        "GC": 0.0,
        "CTGAN": 0.380952,
        "TVAE": 0.428571,
        "SMOTE-NC": 0.179487,
        "UMAP-SMOTENC": 0.774194,
    }
    for label, value in expected.items():
        assert t.summary("tradeoff", label) == pytest.approx(value, abs=1e-6)
    ranks = {label: t.summary("rank", label) for label in expected}
    assert ranks == {"GC": 5.0, "CTGAN": 3.0, "TVAE": 2.0, "SMOTE-NC": 4.0, "UMAP-SMOTENC": 1.0}
    assert t.friedman is not None and t.friedman.statistic == pytest.approx(8.0)
    assert t.friedman.pvalue == pytest.approx(0.091578, abs=1e-6)
    assert t.cell("privacy", "dcr_mean", "Test Set Baseline") == pytest.approx(0.3)
    assert t.cell("utility", "DT", "Original Train Set") == pytest.approx(1.0)
    assert t.cell("utility", "DT", "SMOTE-NC") == pytest.approx(0.9)


def test_checks_on_a_run_whose_datasets_have_no_class_shares(run: ReproductionRun) -> None:
    """Datasets ``a`` and ``b`` are not bundled: no constant predictor, so every learns gate fails.

    Every check is still evaluated (no error), every check has a kind, and no claim resting on a
    generator that failed its gate comes out reproduced.
    """
    run.gates = [gate for function in checks.GATES for gate in function(run)]
    assert run.gates and not any(g.passed for g in run.gates if g.gate == "learns")
    produced: list[Check] = []
    for function in checks.CHECKS:
        out = function(run)
        produced.extend([out] if isinstance(out, Check) else out)
    by_id = {c.id: c for c in produced}
    assert len(by_id) == len(produced)  # unique ids
    assert not any(c.error for c in produced)
    assert {c.kind for c in produced} <= {"claim", "setup", "arithmetic", "sanity"}
    comparisons = [c for c in produced if c.id.startswith(("table3-umap", "table4-umap", "table6-"))]
    assert comparisons and all(c.verdict != "reproduced" for c in comparisons if "-values" not in c.id)
    assert (
        by_id["table3-holm-p"].verdict == "not evaluable"
        and "needs ≥ 8 datasets" in by_id["table3-holm-p"].why
    )
    assert by_id["arith-holm-4"].verdict == "passes"  # the paper's own numbers
    assert by_id["sanity-shared-baselines"].verdict == "passes"


def test_artifacts_write_tables_2_to_6(run: ReproductionRun) -> None:
    checks.artifacts(run)  # the claims' own tables too (paper_budget_tradeoff): nothing to gate here
    folder = run.out_dir / "tables"
    for stem in ("table2_mean_rank", "table3_tradeoff", "table4_ml_utility", "table5_wilcoxon_holm",
                 "table6_privacy", "per_dataset"):  # fmt: skip
        assert (folder / f"{stem}.md").is_file() and (folder / f"{stem}.csv").is_file()
    table3 = pd.read_csv(folder / "table3_tradeoff.csv")
    assert table3.loc[table3["generator"] == "UMAP-SMOTENC", "ours"].item() == pytest.approx(0.774)
    assert table3.loc[table3["generator"] == "GC", "paper"].item() == "0.24±0.11"
