"""References, the privacy floor, the fixed-scale score, the headline axis and the verdict (tracker issue 28).

A toy table: one dataset, three split seeds, the two reference generators (``identity``: the raw
data; ``real_holdout``: new individuals) and three methods. Two privacy outputs carry calibration
rows: Anonymeter linkability, which rates the raw data 0.002 and new individuals 0 with
confidence intervals of ±0.01 (it cannot see leakage on this table), and the mean distance to the
closest record, raw data 0 and new individuals 1.0. Method ``b`` lies at distance 2.0: farther
from the training rows than new individuals, i.e. distorted, not more private.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.report.calibration import distortion_table, leakage_table, mark_distortion, with_reference_rows
from harness.report.comparisons import rank_table
from harness.report.document import to_markdown
from harness.report.formatting import summary_display
from harness.report.power import choose_privacy_axis, separation_table
from harness.report.prepare import prepare
from harness.report.provenance import RunContext, report_title, roles_text, run_context
from harness.report.references import compared, mark_references, with_floor
from harness.report.score import fixed_scores, score_table
from harness.report.settings import ReportSettings, privacy_axis, resolve_settings
from harness.report.tables import summary_goals, summary_tables
from harness.report.verdict import front_of, verdict_blocks
from harness.schema import to_results_frame

LINK, DCR, AUC = "anonymeter_linkability", "dcr_nndr/dcr_mean", "ml_efficacy/random_forest:roc_auc"
VALUES: dict[str, dict[str, float]] = {
    "identity": {"link": 0.002, "dcr": 0.0, "auc": 0.90},
    "real_holdout": {"link": 0.0, "dcr": 1.0, "auc": 0.86},
    "a": {"link": 0.001, "dcr": 0.5, "auc": 0.85},
    "b": {"link": 0.0, "dcr": 2.0, "auc": 0.70},
    "c": {"link": 0.0, "dcr": 1.0, "auc": 0.80},
}


def toy(
    *,
    dcr_refs: tuple[float, float] = (0.0, 1.0),
    values: dict[str, dict[str, float]] | None = None,
    seeds: tuple[int, ...] = (0, 1, 2),
) -> pd.DataFrame:
    """The toy results table (module docstring); ``dcr_refs`` = (raw data, new individuals)."""
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        jitter = 0.003 * (seed % 3 - 1)
        for generator, own in (values or VALUES).items():
            common = {"experiment": "toy", "dataset": "small", "qi_set": "default", "split_seed": seed, "fold": 0,
                      "generator": generator, "generator_params": "{}", "gen_seed": 0, "status": "ok",
                      "family": "privacy"}  # fmt: skip
            link = own["link"] + (jitter if own["link"] > 0 else 0.0)
            rows.append({**common, "metric": "anonymeter_linkability", "goal": "minimise", "value": link,
                         "ci_low": link - 0.01, "ci_high": link + 0.01, "calib_raw": 0.002 + jitter,
                         "calib_none": 0.0})  # fmt: skip
            rows.append({**common, "metric": "dcr_nndr", "variant": "dcr_mean", "goal": "maximise",
                         "value": own["dcr"], "calib_raw": dcr_refs[0], "calib_none": dcr_refs[1]})  # fmt: skip
            rows.append({**common, "metric": "ml_efficacy", "variant": "random_forest:roc_auc", "family": "utility",
                         "goal": "maximise", "value": own["auc"] + jitter, "baseline": 0.9})  # fmt: skip
    return to_results_frame(rows)


def marked(results: pd.DataFrame) -> pd.DataFrame:
    return with_floor(mark_references(prepare(results), ReportSettings().reference_names))


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return marked(toy())


def _best(summary: pd.DataFrame, column: str) -> set[str]:
    return set(summary.index[summary[(column, "best")]].get_level_values("label"))


# --- references --------------------------------------------------------------------------------


def test_references_are_marked_never_bold_ranked_or_on_the_front(frame: pd.DataFrame) -> None:
    assert {"identity (reference)", "real_holdout (reference)"} <= set(frame["label"])
    privacy, utility = summary_tables(frame, [["privacy"], ["utility"]])
    # identity has the best utility (0.90) and real_holdout the best linkability, yet neither is bold
    assert _best(utility, AUC) == {"a"}
    assert _best(privacy, LINK) == {"b", "c"}
    settings = resolve_settings(frame)
    ranks = rank_table(compared(frame), replace(settings, alpha=0.2, rank_metrics=(AUC,)))
    assert set(ranks.numbers["treatment"]) == {"a", "b", "c"}
    assert set(front_of(frame, settings, "small")) == {"a", "c"}  # identity would dominate a on both axes
    score = score_table(frame, settings, privacy_axis(frame))
    text, bold = score.display.text, score.display.bold
    assert bold is not None
    references = text["generator"].str.endswith("(reference)")
    assert references.sum() == 2 and not bold[references.to_numpy()].to_numpy().any()
    assert set(text["generator"][:2]) == {"identity (reference)", "real_holdout (reference)"}  # shown first


def test_a_reference_named_in_the_settings_is_a_reference() -> None:
    frame = with_floor(mark_references(prepare(toy()), ("a",)))
    assert "a (reference)" in set(frame["label"]) and "identity" in set(frame["label"])
    assert "a (reference)" not in set(compared(frame)["label"])


# --- the floor: distance beyond new individuals is distortion ------------------------------------


def test_distance_beyond_new_individuals_is_clipped_and_flagged_as_distortion(frame: pd.DataFrame) -> None:
    b = frame[(frame["label"] == "b") & (frame["column"] == DCR)]
    # L = (risk − risk(none)) / (risk(raw) − risk(none)) = (−2 − (−1)) / (0 − (−1)) = −1: one span beyond
    assert b["leakage"].tolist() == pytest.approx([-1.0] * 3)
    assert b["clipped"].tolist() == pytest.approx([1.0] * 3)  # counted as the new-individuals value
    assert leakage_table(frame).loc[("small", DCR), "b"] == 0.0
    assert distortion_table(frame).loc[("small", DCR), "b"] == pytest.approx(1.0)
    assert distortion_table(frame).loc[("small", DCR), "a"] == 0.0
    privacy = with_reference_rows(summary_tables(frame, [["privacy"]])[0], frame)
    display = mark_distortion(summary_display(privacy, summary_goals(frame)), privacy, frame)
    row = display.text["generator"] == "b"
    assert display.text.loc[row, f"{DCR} ↑"].iloc[0].endswith("‡")
    assert display.bold is not None and not display.bold.loc[row, f"{DCR} ↑"].iloc[0]
    # judged at the floor, b ties with c (both as private as new individuals): never "best" for being farthest
    assert _best(privacy, DCR) == {"b", "c"}
    methods = compared(frame)
    assert methods.loc[(methods["label"] == "b") & (methods["column"] == DCR), "value"].max() == 1.0


# --- the trade-off score -------------------------------------------------------------------------


def test_tradeoff_scores_stay_in_their_range_and_ignore_the_other_methods(frame: pd.DataFrame) -> None:
    more = dict(VALUES, d={"link": 0.0, "dcr": 0.01, "auc": 0.99}, e={"link": 0.0, "dcr": 9.0, "auc": 0.3})
    for privacy in (DCR, LINK):
        alone = fixed_scores(frame, privacy=privacy, utility=AUC)
        crowd = fixed_scores(marked(toy(values=more)), privacy=privacy, utility=AUC)
        for scores in (alone, crowd):
            parts = scores[["privacy_part", "utility_part", "score"]].to_numpy()
            parts = parts[np.isfinite(parts)]  # NaN: a block whose references are inverted has no index
            assert len(parts) and ((parts >= 0) & (parts <= 1)).all()
        merged = alone.merge(crowd, on=["split_seed", "label"], suffixes=("", "_crowd"))
        assert len(merged) == len(alone)
        assert merged["score"].to_numpy() == pytest.approx(merged["score_crowd"].to_numpy(), nan_ok=True)
    scores = (
        fixed_scores(marked(toy(values=more)), privacy=DCR, utility=AUC)
        .groupby("label")
        .mean(numeric_only=True)
    )
    # d: utility above the real-data score is clipped to 1; e: below a constant predictor, clipped to 0
    assert scores.at["d", "utility_part"] == 1.0 and scores.at["e", "utility_part"] == 0.0
    # a, seed 1: P = 1 − 0.5 = 0.5, U = (0.85 − 0.5)/(0.9 − 0.5) = 0.875, score = 2PU/(P + U)
    a = fixed_scores(frame, privacy=DCR, utility=AUC).set_index(["label", "split_seed"]).loc[("a", 1)]
    assert a["score"] == pytest.approx(2 * 0.5 * 0.875 / (0.5 + 0.875))
    assert scores.at["identity (reference)", "privacy_part"] == 0.0  # the raw data
    assert scores.at["real_holdout (reference)", "privacy_part"] == 1.0  # new individuals


# --- the headline privacy axis ------------------------------------------------------------------


def test_the_headline_axis_skips_an_output_whose_references_do_not_separate(frame: pd.DataFrame) -> None:
    table = separation_table(frame).set_index("column")
    assert not table.at[LINK, "separates"]  # 0.002 vs 0 with ±0.01 intervals: no power
    assert table.at[DCR, "separates"]
    settings = resolve_settings(frame)
    axis = privacy_axis(frame)
    assert settings.privacy == axis.column == DCR and axis.powered == {"small": True}
    assert f"since {LINK} (preferred) does not separate them" in axis.reason
    # a user's explicit choice wins, with the warning
    chosen = resolve_settings(frame, ReportSettings(privacy=LINK))
    assert chosen.privacy == LINK
    assert any("does not tell the raw data from new individuals" in note for note in chosen.notes)


def test_when_no_output_separates_the_report_says_so_and_uses_utility_alone() -> None:
    frame = marked(toy(dcr_refs=(1.0, 1.0)))
    axis = privacy_axis(frame)
    assert axis.powered == {"small": False} and "No privacy output of this run separates" in axis.reason
    text = to_markdown(verdict_blocks(frame, resolve_settings(frame), axis))
    assert "the report cannot say which release leaks less" in text and "By utility alone" in text
    score = score_table(frame, resolve_settings(frame), axis)
    assert set(score.display.text["privacy part P"]) == {"no power"}


def test_preferences_and_fallback_without_calibration() -> None:
    plain = prepare(toy()).drop(columns=["calib_raw", "calib_none"])
    choice = choose_privacy_axis(plain, None, preferences=(LINK,), resolve=lambda p: p, fallback=LINK)
    assert choice.column == LINK and choice.powered == {} and "is not known" in choice.reason


# --- the verdict ---------------------------------------------------------------------------------


def test_the_verdict_names_the_front_its_support_and_what_would_settle_it(frame: pd.DataFrame) -> None:
    text = to_markdown(verdict_blocks(frame, resolve_settings(frame), privacy_axis(frame)))
    assert text.startswith("## Verdict")
    assert (
        "Pareto-optimal" in text and "- a: leakage index 0.50" in text and "- c: leakage index 0.00" in text
    )
    assert "identity (reference)" in text and "- identity" not in text  # for scale, not on the front
    assert "3 blocks are too few for a paired test between two methods at α = 0.05" in text
    assert "What would settle it: 3 more split seeds (6 blocks) would allow a test at α = 0.05" in text


def test_with_enough_blocks_the_verdict_reports_tests() -> None:
    frame = marked(toy(seeds=tuple(range(8))))
    text = to_markdown(verdict_blocks(frame, resolve_settings(frame), privacy_axis(frame)))
    assert "Tests: two-sided exact Wilcoxon signed-rank over 8 blocks, Holm over" in text
    assert "too few" not in text


# --- provenance ----------------------------------------------------------------------------------


def test_the_title_is_never_the_unnamed_default() -> None:
    results = toy()
    assert report_title("demo", RunContext(), results) == "demo"
    assert report_title("default", RunContext(description="My study"), results) == "My study"
    assert report_title("default", RunContext(), results) == "privbench report: small"
    config = "name: default\ndescription: ''\ndataset:\n  name: small\n  target: income\n  qi_sets:\n    default: [age, sex]\n"
    context = run_context(config)
    assert roles_text(prepare(results), context) == {
        "small": "small — QI set 'default': age, sex; target: income"
    }
    assert run_context("not: [valid") == RunContext() and math.isnan(float("nan"))


def test_leakage_needs_the_raw_data_riskier_than_new_individuals() -> None:
    inverted = marked(
        toy(dcr_refs=(2.0, 1.0))
    )  # raw data farther than new individuals: the metric is inverted
    rows = inverted[(inverted["column"] == DCR) & (inverted["label"] == "a")]
    assert rows["leakage"].isna().all() and np.allclose(rows["clipped"], rows["value"])


def test_evaluate_summary_uses_the_report_axis_references_and_score() -> None:
    from harness.evaluate import summary_table

    summary = summary_table(toy(), ["b", "a"]).set_index("generator")
    assert list(summary.index[:2]) == ["b", "a"]
    assert summary["reference"].to_dict() == {
        "b": False,
        "a": False,
        "identity": True,
        "real_holdout": True,
        "c": False,
    }
    assert f"privacy: {DCR}" in summary.columns  # the axis with power, not linkability
    assert summary.at["b", "leakage index"] == 0.0  # beyond new individuals: clipped, not extra privacy
    parts = summary[["privacy part", "utility part", "trade-off"]].to_numpy()
    assert np.isfinite(parts).all() and ((parts >= 0) & (parts <= 1)).all()
