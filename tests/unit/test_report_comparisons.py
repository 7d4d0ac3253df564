"""Report settings, comparison tables and the paper figures on hand-computed data.

The results fixture of ``test_report`` (two datasets; real_holdout, two privatesmote variants
and ctgan, whose second adult seed timed out) is reused; see its VALUES table.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.errors import ConfigError
from harness.report import build_report
from harness.report.comparisons import (
    TableSkipped,
    control_table,
    paths_table,
    rank_table,
    sign_test_table,
    win_draw_lose_table,
)
from harness.report.figures import FigureSkipped
from harness.report.pareto import colour_parameter, pareto_front, pareto_scatter
from harness.report.prepare import prepare
from harness.report.privacy_figures import curve_rows, dcr_distribution, k_threshold_curve
from harness.report.ranking import cd_diagram, metric_blocks
from harness.report.settings import (
    REPLICATE_BLOCKS,
    REPLICATE_NOTE,
    UNIT_BLOCKS,
    ReportSettings,
    headline_column,
    load_settings,
    resolve_settings,
)
from harness.report.stat_figures import cd_figure, sign_test_bars
from harness.report.tables import throughput_table
from harness.schema import to_results_frame
from tests.unit.test_report import PNG_SIGNATURE, _rows

REAL, LOW, HIGH, CTGAN = "real_holdout", "privatesmote (epsilon=0.5)", "privatesmote (epsilon=5)", "ctgan"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return prepare(to_results_frame(_rows()))


@pytest.fixture(scope="module")
def settings(frame: pd.DataFrame) -> ReportSettings:
    return resolve_settings(frame)


def _pngs_ok(paths: list[Path]) -> None:
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert paths[0].read_bytes().startswith(PNG_SIGNATURE) and paths[0].stat().st_size > 5000
    assert paths[1].read_bytes().startswith(b"%PDF")


# --- settings ----------------------------------------------------------------------------------


def test_default_settings(settings: ReportSettings) -> None:
    assert settings.privacy == "anonymeter_linkability/risk"
    assert settings.utility == "ml_efficacy/roc_auc"
    assert settings.blocks == ("dataset",)
    # chosen columns first, then one headline per other ranked metric (covariance has no goal)
    assert settings.rank_metrics == (
        "anonymeter_linkability/risk",
        "ml_efficacy/roc_auc",
        "dcr_share",
        "detection_auc",
    )


def test_one_dataset_blocks_are_evaluation_units(frame: pd.DataFrame) -> None:
    adult = frame[frame["dataset"] == "adult"]
    two_splits = pd.concat([adult, adult.assign(split_seed=1)], ignore_index=True)
    resolved = resolve_settings(two_splits)
    assert resolved.blocks == UNIT_BLOCKS and REPLICATE_NOTE not in resolved.notes


def test_a_single_unit_with_several_seeds_blocks_on_the_seeds(frame: pd.DataFrame) -> None:
    adult = frame[frame["dataset"] == "adult"]  # one dataset, QI set, split and fold; gen_seed 0 and 1
    resolved = resolve_settings(adult)
    assert resolved.blocks == REPLICATE_BLOCKS and REPLICATE_NOTE in resolved.notes
    complete = adult[adult["label"] != CTGAN]  # ctgan's seed 1 timed out: Friedman drops that block
    # 3 variants over 2 seeds: the smallest exact Friedman p is 1/3! = 0.167, so at α = 0.05 no rank test
    with pytest.raises(TableSkipped, match="smallest attainable exact p"):
        rank_table(complete, resolve_settings(complete))
    ranks = rank_table(complete, replace(resolve_settings(complete), alpha=0.2))
    assert set(ranks.numbers["n_blocks"]) == {2}  # Friedman runs (it was omitted with one block)
    # Two seeds: the smallest attainable p is 2/2^2 = 0.5, so at α = 0.6 the pairs can be tested.
    table = control_table(adult, replace(resolved, alpha=0.6))
    assert (table.numbers["n"] >= 2).all()
    # ctgan's seed 1 timed out: one pair with the control is no test, it is named instead of p = 1
    assert CTGAN not in set(table.numbers["treatment"]) | set(table.numbers["control"])
    assert f"{CTGAN} on ml_efficacy/roc_auc, {CTGAN} on anonymeter_linkability/risk (N = 1," in (
        table.note or ""
    )


def test_control_table_with_one_block_is_skipped_with_the_reason(frame: pd.DataFrame) -> None:
    adult = frame[frame["dataset"] == "adult"]
    one_block = resolve_settings(adult, ReportSettings(blocks=UNIT_BLOCKS))
    with pytest.raises(TableSkipped, match="too few blocks paired with the control to reach p < 0.05"):
        control_table(adult, one_block)


def _ml_rows(variants: list[str]) -> pd.DataFrame:
    rows = []
    for variant in variants:
        rows.append(
            {
                "dataset": "adult",
                "generator": "g",
                "generator_params": "{}",
                "gen_seed": 0,
                "metric": "ml_efficacy",
                "variant": variant,
                "family": "utility",
                "goal": "maximise",
                "value": 0.5,
                "status": "ok",
                "details": json.dumps({"headline": "f1"}),
            }  # fmt: skip
        )
    return prepare(to_results_frame(rows))


def test_headline_of_classifier_variants() -> None:
    both = ["rf:f1", "rf:pct_diff", "xgb:f1", "mean:f1", "best:f1", "mean:pct_diff"]
    assert headline_column(_ml_rows(both), "ml_efficacy") == "ml_efficacy/mean:f1"
    assert (
        headline_column(_ml_rows(["rf:f1", "rf:pct_diff", "rf:rope_outcome"]), "ml_efficacy")
        == "ml_efficacy/rf:f1"
    )
    assert resolve_settings(_ml_rows(both)).tradeoff_utility == "ml_efficacy/mean:f1"


def test_settings_file_and_overrides(tmp_path: Path, frame: pd.DataFrame) -> None:
    path = tmp_path / "report.yaml"
    path.write_text("control: ctgan\nblocks: dataset\nrope: 2\nutility: ml_efficacy\n")
    loaded = load_settings(path, {"rope": 0.5, "alpha": None})
    assert (loaded.control, loaded.blocks, loaded.rope, loaded.alpha) == ("ctgan", ("dataset",), 0.5, 0.05)
    resolved = resolve_settings(frame, loaded)
    assert resolved.utility == "ml_efficacy/roc_auc"  # a metric name picks its headline column
    assert load_settings(tmp_path / "absent.yaml") == ReportSettings()
    path.write_text("contrl: ctgan\n")
    with pytest.raises(ConfigError, match="unknown report setting"):
        load_settings(path)
    with pytest.raises(ConfigError, match="alpha"):
        load_settings(None, {"alpha": 1.5})


def test_absent_columns_fall_back_with_a_note(frame: pd.DataFrame) -> None:
    resolved = resolve_settings(frame, ReportSettings(privacy="nope/risk", blocks=("nope",)))
    assert resolved.privacy == "anonymeter_linkability/risk" and resolved.blocks == ("dataset",)
    assert len(resolved.notes) == 2


# --- tables ------------------------------------------------------------------------------------


def test_rank_table_hand_computed(frame: pd.DataFrame, settings: ReportSettings) -> None:
    table = rank_table(frame, settings)
    auc = table.numbers[table.numbers["column"] == "ml_efficacy/roc_auc"].set_index("treatment")
    # adult means: real .85, low .65, high .80, ctgan .70; credit: .85, .65, .80, .96
    assert auc["mean_rank"].to_dict() == {REAL: 1.5, CTGAN: 2.0, HIGH: 2.5, LOW: 4.0}
    expected = stats.friedmanchisquare([0.85, 0.85], [0.65, 0.65], [0.80, 0.80], [0.70, 0.96])
    assert auc["statistic"].iloc[0] == pytest.approx(expected.statistic)
    # Two blocks: the χ² approximation is not used; the p is a permutation p, close to the exact one
    # (block 1's ranks fixed, the 4! orderings of block 2 equally likely under the null).
    assert auc["p_method"].iloc[0] == "permutation"
    first, second = np.array([1, 4, 2, 3]), np.array([2, 4, 3, 1])  # real, low, high, ctgan per block
    observed = np.sum((first + second) ** 2)
    exact = np.mean([np.sum((first + np.array(p)) ** 2) >= observed for p in itertools.permutations(second)])
    assert auc["p_value"].iloc[0] == pytest.approx(exact, abs=0.01)
    text = table.display.text
    assert list(text["generator"])[-2:] == ["Friedman χ² (p)", "blocks"]
    assert text.loc[text["generator"] == REAL, "ml_efficacy/roc_auc ↑"].iloc[0] == "1.50 ± 0.71"


def test_rank_table_needs_three_treatments(frame: pd.DataFrame, settings: ReportSettings) -> None:
    two = frame[frame["label"].isin([REAL, CTGAN])]
    with pytest.raises(TableSkipped, match="at least 3 treatments"):
        rank_table(two, settings)


def test_control_defaults_to_the_best_mean_rank(frame: pd.DataFrame, settings: ReportSettings) -> None:
    table = control_table(frame, replace(settings, alpha=0.6))  # two blocks: testable above α = 0.5
    assert set(table.numbers["control"]) == {REAL}
    auc = table.numbers[table.numbers["column"] == "ml_efficacy/roc_auc"]
    assert list(auc["treatment"]) == [CTGAN, LOW, HIGH] and set(auc["n"]) == {2}
    with pytest.raises(TableSkipped, match="single generator variant"):
        control_table(frame[frame["label"] == REAL], settings)


def test_win_draw_lose_against_a_variant(frame: pd.DataFrame, settings: ReportSettings) -> None:
    table = win_draw_lose_table(frame, replace(settings, baseline=REAL))
    auc = table.numbers[table.numbers["column"] == "ml_efficacy/roc_auc"].set_index("treatment")
    assert auc.loc[CTGAN, ["win", "draw", "lose"]].tolist() == [1, 0, 1]  # credit .96 vs .85; adult .70
    assert auc.loc[LOW, ["win", "draw", "lose"]].tolist() == [0, 0, 2]
    expected = np.mean([100 * (0.70 - 0.85) / 0.85, 100 * (0.96 - 0.85) / 0.85])
    assert auc.loc[CTGAN, "mean_pct_diff"] == pytest.approx(expected)
    with pytest.raises(TableSkipped, match="no baseline value"):  # the fixture has no baseline column
        win_draw_lose_table(frame, settings)


def test_optimisation_paths_and_sign_test(frame: pd.DataFrame, settings: ReportSettings) -> None:
    paths = paths_table(frame, settings).numbers.set_index(["dataset", "generator", "path"])
    # privatesmote on adult: link 0.15 (eps 0.5, auc .65) vs 0.30 (eps 5, auc .80)
    assert paths.loc[("adult", "privatesmote", "privacy_first"), "label"] == LOW
    assert paths.loc[("adult", "privatesmote", "performance_first"), "label"] == HIGH
    sign = sign_test_table(frame, settings).numbers.set_index("generator")
    assert sign["n"].tolist() == [2, 2, 2]
    assert sign[["p_lose", "p_draw", "p_win"]].sum(axis=1).to_numpy() == pytest.approx(1.0)
    # real_holdout is the oracle on adult (its privacy-first auc .85) but not on credit (ctgan .96)
    assert sign.loc["real_holdout", ["n_lose", "n_draw", "n_win"]].tolist() == [1, 1, 0]


def test_rank_table_needs_blocks_that_can_reach_alpha(frame: pd.DataFrame, settings: ReportSettings) -> None:
    three = frame[frame["label"] != REAL]  # 3 variants over 2 blocks: the smallest exact p is 1/3! > 0.05
    table = None
    with pytest.raises(TableSkipped, match=r"smallest attainable exact p is \(k!\)\^\(1 − N\) = 0.167"):
        table = rank_table(three, settings)
    assert table is None


def test_throughput_hand_computed(frame: pd.DataFrame) -> None:
    table = throughput_table(frame)
    real = table.loc[("adult", "real_holdout")]
    # fit 1.0 and 1.5 s, sample 0.1 s each: 2 ok trials in 2.7 s
    assert real["ok"] == 2 and real["minutes"] == pytest.approx(2.7 / 60)
    assert real["variants_per_minute"] == pytest.approx(2 / (2.7 / 60))
    assert table.loc[("adult", "privatesmote"), "variants"] == 2
    assert table.loc[("adult", "ctgan"), "ok"] == 1


# --- figures -----------------------------------------------------------------------------------


def test_pareto_front() -> None:
    x = [1.0, 2.0, 3.0, 2.0, math.nan, 3.0]
    y = [3.0, 2.0, 1.0, 1.0, 9.0, 1.0]
    assert pareto_front(x, y).tolist() == [True, True, True, False, False, True]


def test_pareto_scatter_coloured_by_a_parameter(frame: pd.DataFrame, tmp_path: Path) -> None:
    assert colour_parameter(frame["generator_params"]) in {"epsilon", "epochs"}
    paths = pareto_scatter(
        frame, tmp_path, x="anonymeter_linkability/risk", y="ml_efficacy/roc_auc", colour_by="epsilon"
    )
    _pngs_ok(paths)
    with pytest.raises(FigureSkipped):
        pareto_scatter(
            frame[frame["label"] == REAL], tmp_path, x="anonymeter_linkability/risk", y="ml_efficacy/roc_auc"
        )


def test_cd_and_sign_test_figures(frame: pd.DataFrame, settings: ReportSettings, tmp_path: Path) -> None:
    scores = metric_blocks(frame, "ml_efficacy", "roc_auc")
    _pngs_ok(cd_figure(cd_diagram(scores), tmp_path, title="auc", stem="cd"))
    _pngs_ok(sign_test_bars(sign_test_table(frame, settings).numbers, tmp_path))
    with pytest.raises(FigureSkipped):
        sign_test_bars(pd.DataFrame(), tmp_path)


def _privacy_rows() -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    curve = {"k": [1, 2, 3, 4], "release": [1.0, 0.5, 0.2, 0.0], "train": [1.0, 0.6, 0.3, 0.1]}
    for generator in ("a", "b"):
        for seed in (0, 1):
            common = {"dataset": "adult", "generator": generator, "generator_params": "{}", "gen_seed": seed,
                      "split_seed": 0, "fold": 0, "status": "ok", "family": "privacy"}  # fmt: skip
            rows.append(
                {
                    **common,
                    "metric": "reid_score",
                    "variant": "reid_mean",
                    "goal": "none",
                    "value": 0.5,
                    "details": json.dumps({"k_threshold_curve": curve}),
                }  # fmt: skip
            )
            for variant in ("dcr_mean", "nndr_mean"):
                rows.append(
                    {
                        **common,
                        "metric": "dcr_nndr",
                        "variant": variant,
                        "goal": "maximise",
                        "value": 0.2 + seed + (generator == "b"),
                        "baseline": 1.0,
                    }  # fmt: skip
                )
    return prepare(to_results_frame(rows))


def test_k_threshold_and_dcr_figures(frame: pd.DataFrame, tmp_path: Path) -> None:
    privacy = _privacy_rows()
    curves = curve_rows(privacy)
    assert len(curves) == 16 and curves["train"].iloc[1] == 0.6
    _pngs_ok(k_threshold_curve(privacy, tmp_path))
    _pngs_ok(dcr_distribution(privacy, tmp_path))
    with pytest.raises(FigureSkipped, match="k-threshold"):
        k_threshold_curve(frame, tmp_path)
    with pytest.raises(FigureSkipped, match="dcr_nndr"):
        dcr_distribution(frame, tmp_path)


# --- the whole report --------------------------------------------------------------------------


def test_report_with_comparisons(tmp_path: Path) -> None:
    paths = build_report(to_results_frame(_rows()), tmp_path, title="Demo")
    for stem in ("optimisation_paths", "bayes_sign_test", "throughput"):
        for ext in ("md", "csv", "tex"):
            assert paths[f"tables/{stem}.{ext}"].is_file()
    for stem in ("pareto", "bayes_sign_test"):
        assert paths[f"figures/{stem}.png"].read_bytes().startswith(PNG_SIGNATURE)
    markdown = paths["report_md"].read_text()
    assert "Table omitted: no column to compare with the baseline" in markdown
    # no calibration rows: the privacy part of the trade-off score has no fixed scale
    assert "Table omitted: anonymeter_linkability/risk has no leakage index" in markdown
    # real_holdout is a reference: it is never the control, never ranked; 3 methods over 2 datasets (blocks)
    # cannot make a Friedman test significant (smallest exact p 1/3! = 0.167), nor a Wilcoxon test (issue 16)
    assert "tables/wilcoxon_holm.md" not in paths and "tables/ranks.md" not in paths
    assert "Table omitted: no comparison with the control 'ctgan': too few blocks paired" in markdown
    assert "smallest attainable exact p is (k!)^(1 − N) = 0.167" in markdown
    assert "cd_ml_efficacy-roc_auc.png" not in markdown and "no Friedman test, no diagram" in markdown
    assert "real_holdout (reference)" in paths["tables/summary_utility.md"].read_text()
    assert "real_holdout" not in paths["tables/bayes_sign_test.md"].read_text()
    assert r"\toprule" in paths["tables/optimisation_paths.tex"].read_text()


def test_report_of_one_generator_degrades_gracefully(tmp_path: Path) -> None:
    rows = [r for r in _rows(("adult",)) if r["generator"] == "ctgan"]
    paths = build_report(to_results_frame(rows), tmp_path, title="One generator")
    markdown = paths["report_md"].read_text()
    assert markdown.count("Table omitted") == 5  # all but the optimisation paths
    assert "single generator" in markdown
