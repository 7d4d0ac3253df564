"""Tests of the report step (harness.report) on a hand-built results table."""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.report import (
    FigureSkipped,
    build_report,
    cost_table,
    failures_table,
    metric_boxplots,
    privacy_utility_scatter,
    status_totals,
    summary_table,
)
from harness.report.figures import PRIVACY_DEFAULTS, UTILITY_DEFAULTS, default_column
from harness.report.formatting import column_decimals, format_mean_std, format_number, summary_display
from harness.report.goals import best_mask
from harness.report.prepare import prepare
from harness.report.render import to_latex, to_markdown
from harness.report.tables import summary_goals
from harness.schema import empty_results, to_results_frame

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# (generator, params)
REAL: tuple[str, dict[str, Any]] = ("real_holdout", {})
PS_LOW = ("privatesmote", {"epsilon": 0.5, "knn": 3})
PS_HIGH = ("privatesmote", {"epsilon": 5.0, "knn": 3})
CTGAN = ("ctgan", {"epochs": 10})
VARIANTS = (REAL, PS_LOW, PS_HIGH, CTGAN)

# metric, variant, family, goal, target_value
METRICS: dict[str, tuple[str, str, str, str, float | None]] = {
    "link": ("anonymeter_linkability", "risk", "privacy", "minimise", None),
    "dcr": ("dcr_share", "", "privacy", "target", 0.5),
    "auc": ("ml_efficacy", "roc_auc", "utility", "maximise", None),
    "det": ("detection_auc", "", "fidelity", "target", 0.5),
    "cov": ("covariance_contraction", "", "fidelity", "none", None),
}

# dataset -> metric -> generator variant index -> values for gen_seed 0 and 1
# ctgan's seed 1 on "adult" times out; its values there are never used.
VALUES: dict[str, dict[str, list[list[float]]]] = {
    "adult": {
        "link": [[0.30, 0.50], [0.10, 0.20], [0.20, 0.40], [0.25, math.nan]],
        "dcr": [[0.50, 0.52], [0.70, 0.80], [0.40, 0.44], [0.60, math.nan]],
        "auc": [[0.90, 0.80], [0.60, 0.70], [0.75, 0.85], [0.70, math.nan]],
        "det": [[0.56, 0.54], [0.90, 0.70], [0.60, 0.62], [0.47, math.nan]],
        "cov": [[1.00, 1.00], [0.50, 0.60], [0.70, 0.80], [0.90, math.nan]],
    },
    "credit": {
        "link": [[0.01, 0.03], [0.10, 0.20], [0.20, 0.40], [0.25, 0.35]],
        "dcr": [[0.50, 0.52], [0.70, 0.80], [0.40, 0.44], [0.60, 0.62]],
        "auc": [[0.90, 0.80], [0.60, 0.70], [0.75, 0.85], [0.95, 0.97]],
        "det": [[0.56, 0.54], [0.90, 0.70], [0.60, 0.62], [0.47, 0.49]],
        "cov": [[1.00, 1.00], [0.50, 0.60], [0.70, 0.80], [0.90, 0.95]],
    },
}
TIMEOUT_ERROR = "TimeoutError: fit exceeded 60 s\n  while fitting ctgan"


def _rows(datasets: tuple[str, ...] = ("adult", "credit"), *, all_fail: bool = False) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for dataset in datasets:
        for g, (generator, params) in enumerate(VARIANTS):
            for seed in (0, 1):
                failed = all_fail or (dataset == "adult" and generator == "ctgan" and seed == 1)
                status = "timeout" if failed else "ok"
                fit_s, sample_s, rss = 1.0 + g + 0.5 * seed, 0.1 * (g + 1), 100.0 * (g + 1) + seed
                common = {
                    "run_id": "run-1",
                    "experiment": "demo",
                    "dataset": dataset,
                    "qi_set": "qi1",
                    "split_seed": 0,
                    "fold": 0,
                    "generator": generator,
                    "generator_params": json.dumps(params, sort_keys=True),
                    "gen_seed": seed,
                    "status": status,
                    "error": TIMEOUT_ERROR if failed else None,
                    "fit_s": math.nan if failed else fit_s,
                    "sample_s": math.nan if failed else sample_s,
                    "peak_rss_mb": math.nan if failed else rss,
                    "versions": json.dumps({"privbench": "0.1.0"}),
                }
                for key, (metric, variant, family, goal, target) in METRICS.items():
                    value = math.nan if failed else VALUES[dataset][key][g][seed]
                    rows.append(
                        {
                            **common,
                            "metric": metric,
                            "variant": variant,
                            "family": family,
                            "goal": goal,
                            "target_value": target,
                            "value": value,
                        }
                    )
                # An incomputable metric: skipped in every trial, the trial stays ok.
                rows.append(
                    {
                        **common,
                        "metric": "tcap",
                        "family": "privacy",
                        "goal": "minimise",
                        "value": math.nan,
                        "status": status if failed else "skipped",
                        "error": TIMEOUT_ERROR if failed else "IncomputableMetricError: no sensitive column",
                    }
                )
                for metric, value in (
                    ("fit_seconds", fit_s),
                    ("sample_seconds", sample_s),
                    ("peak_rss_mb", rss),
                ):
                    rows.append(
                        {
                            **common,
                            "metric": metric,
                            "family": "cost",
                            "goal": "minimise",
                            "value": math.nan if failed else value,
                        }
                    )
    return rows


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return to_results_frame(_rows())


LABELS = ("real_holdout", "privatesmote (epsilon=0.5)", "privatesmote (epsilon=5)", "ctgan")


def _row(dataset: str, variant: tuple[str, dict[str, Any]]) -> tuple[str, str, str]:
    """Summary index of a generator variant."""
    return (dataset, variant[0], LABELS[VARIANTS.index(variant)])


# --- labels and summary statistics -------------------------------------------------------------


def test_variant_labels_show_only_the_parameters_that_differ(results: pd.DataFrame) -> None:
    assert set(prepare(results)["label"]) == set(LABELS)


def test_summary_means_and_stds_are_hand_computed_values(results: pd.DataFrame) -> None:
    summary = summary_table(results)
    assert summary.index.names == ["dataset", "generator", "label"]
    cell = summary.loc[_row("adult", PS_LOW)]
    assert cell[("anonymeter_linkability/risk", "mean")] == pytest.approx(0.15)
    assert cell[("anonymeter_linkability/risk", "std")] == pytest.approx(np.std([0.10, 0.20], ddof=1))
    assert cell[("anonymeter_linkability/risk", "n")] == 2
    assert cell[("ml_efficacy/roc_auc", "mean")] == pytest.approx(0.65)
    # The timed-out seed is not averaged in: one value, no std.
    ctgan = summary.loc[_row("adult", CTGAN)]
    assert ctgan[("anonymeter_linkability/risk", "mean")] == pytest.approx(0.25)
    assert ctgan[("anonymeter_linkability/risk", "n")] == 1
    assert math.isnan(ctgan[("anonymeter_linkability/risk", "std")])
    # Datasets are never pooled.
    credit = summary.loc[_row("credit", REAL)]
    assert credit[("anonymeter_linkability/risk", "mean")] == pytest.approx(0.02)
    # Cost metrics stay out of the summary; the skipped metric is a column without values.
    columns = set(summary.columns.get_level_values(0))
    assert "fit_seconds" not in columns
    assert (summary[("tcap", "n")] == 0).all()


def test_best_marking_follows_each_goal(results: pd.DataFrame) -> None:
    summary = summary_table(results)

    def best(dataset: str, column: str) -> set[str]:
        block = summary.xs(dataset, level="dataset")
        return set(block.index[block[(column, "best")]].get_level_values("label"))

    assert best("adult", "anonymeter_linkability/risk") == {"privatesmote (epsilon=0.5)"}  # minimise
    assert best("credit", "anonymeter_linkability/risk") == {"real_holdout"}  # per dataset
    assert best("adult", "ml_efficacy/roc_auc") == {"real_holdout"}  # maximise
    assert best("credit", "ml_efficacy/roc_auc") == {"ctgan"}
    assert best("adult", "detection_auc") == {"ctgan"}  # target 0.5: 0.47 beats 0.55
    assert best("adult", "dcr_share") == {"real_holdout"}  # target 0.5: 0.51
    assert best("adult", "covariance_contraction") == set()  # goal none
    assert best("adult", "tcap") == set()  # no values


def test_best_mask_ties_nan_and_lone_values() -> None:
    assert best_mask([0.2, np.nan, 0.2, 0.5], "minimise").tolist() == [True, False, True, False]
    assert best_mask([0.4, 0.7], "target", 0.5).tolist() == [True, False]
    assert best_mask([0.3, np.nan], "maximise").tolist() == [False, False]
    assert best_mask([0.3, 0.4], "none").tolist() == [False, False]


# --- failures and cost -------------------------------------------------------------------------


def test_failures_are_counted_not_hidden(results: pd.DataFrame) -> None:
    summary = summary_table(results)
    trials = summary.loc[_row("adult", CTGAN), "trials"]
    assert (trials["total"], trials["ok"], trials["timeout"], trials["error"]) == (2, 1, 1, 0)
    assert summary.loc[_row("credit", CTGAN), ("trials", "timeout")] == 0
    totals = status_totals(results)
    assert totals["total"] == 16 and totals["ok"] == 15 and totals["timeout"] == 1

    failures = failures_table(results)
    trial_level = failures[failures["scope"] == "trial"]
    assert len(trial_level) == 1
    row = trial_level.iloc[0]
    assert (row["dataset"], row["generator"], row["gen_seed"], row["status"]) == (
        "adult",
        "ctgan",
        1,
        "timeout",
    )
    assert row["error"] == "TimeoutError: fit exceeded 60 s"
    assert json.loads(row["generator_params"]) == {"epochs": 10}
    # The skipped metric of every ok trial is listed too.
    metric_level = failures[failures["scope"] == "metric"]
    assert len(metric_level) == 15

    assert set(metric_level["status"]) == {"skipped"} and set(metric_level["metric"]) == {"tcap"}

    text = to_markdown(summary_display(summary, summary_goals(results)))
    assert "1 timeout" in text


def test_cost_table_means_over_ok_trials(results: pd.DataFrame) -> None:
    costs = cost_table(results)
    ctgan = costs.loc[_row("adult", CTGAN)]
    assert (ctgan["trials"], ctgan["ok"]) == (2, 1)
    assert ctgan["fit_s_mean"] == pytest.approx(4.0)
    real = costs.loc[_row("adult", REAL)]
    assert real["fit_s_mean"] == pytest.approx(1.25)
    assert real["fit_s_std"] == pytest.approx(np.std([1.0, 1.5], ddof=1))
    assert real["peak_rss_mb_mean"] == pytest.approx(100.5)


def test_cost_falls_back_to_cost_rows() -> None:
    rows = [
        {k: v for k, v in r.items() if k not in ("fit_s", "sample_s", "peak_rss_mb")}
        for r in _rows(("credit",))
    ]
    costs = cost_table(to_results_frame(rows))
    assert costs.loc[_row("credit", REAL), "fit_s_mean"] == pytest.approx(1.25)


# --- rendering ---------------------------------------------------------------------------------


def test_markdown_and_latex_mark_the_best_cells(results: pd.DataFrame) -> None:
    display = summary_display(summary_table(results, ["privacy"]), summary_goals(results))
    markdown = to_markdown(display)
    assert "**0.150 ± 0.071**" in markdown
    assert "| anonymeter_linkability/risk ↓ |" in markdown.splitlines()[0]  # direction in the header
    latex = to_latex(display, caption="Privacy", label="tab:privacy")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert rule in latex
    assert r"\textbf{0.150 $\pm$ 0.071}" in latex
    assert r"anonymeter\_linkability/risk $\downarrow$" in latex
    assert latex.count(r"\midrule") == 2  # after the header, between the two datasets
    body = latex.split(r"\midrule", 1)[1]
    assert all(line.endswith(r"\\") for line in body.splitlines() if "&" in line)


def test_number_formatting() -> None:
    assert format_number(0.81234) == "0.812"
    assert format_number(1234.5) == "1234"
    assert format_number(float("nan")) == "–"
    assert format_number(1.5e-5) == "1.50e-05"
    assert format_mean_std(0.15, 0.0707) == "0.150 ± 0.071"
    assert format_mean_std(0.25, float("nan")) == "0.250"
    assert column_decimals([0.02, 0.15, 0.30, 0.40]) == 3  # one column, one number of decimals
    assert column_decimals([1.0, 0.55, 0.9]) == 3
    assert column_decimals([100.0, 400.0]) == 0
    assert column_decimals([1e-6, 1.0]) is None  # too wide: each cell on its own


# --- figures -----------------------------------------------------------------------------------


def test_default_scatter_axes(results: pd.DataFrame) -> None:
    frame = prepare(results)
    assert default_column(frame, "privacy", PRIVACY_DEFAULTS) == "anonymeter_linkability/risk"
    assert default_column(frame, "utility", UTILITY_DEFAULTS) == "ml_efficacy/roc_auc"


def test_figures_skip_missing_metrics(results: pd.DataFrame, tmp_path: Path) -> None:
    with pytest.raises(FigureSkipped, match="not in the results"):
        privacy_utility_scatter(results, tmp_path, x="no_such_metric")
    no_utility = results[results["family"] != "utility"]
    with pytest.raises(FigureSkipped, match="no utility metric"):
        privacy_utility_scatter(no_utility, tmp_path)
    assert not list(tmp_path.iterdir())


def test_boxplot_of_one_dataset(results: pd.DataFrame, tmp_path: Path) -> None:
    paths = metric_boxplots(results, tmp_path, "utility", block=("credit",))
    assert [p.name for p in paths] == ["box_utility_credit.png", "box_utility_credit.pdf"]
    assert paths[0].read_bytes().startswith(PNG_SIGNATURE)
    assert paths[1].read_bytes().startswith(b"%PDF")


# --- the whole report --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    results = to_results_frame(_rows(("adult",)))
    out = tmp_path_factory.mktemp("report")
    return build_report(results, out, title="Demo run", config_text="generator: ctgan\nseed: 0 # <b>")


def test_build_report_writes_every_file_it_returns(report: dict[str, Path]) -> None:
    for key in ("report_md", "report_html", "tables_dir", "figures_dir"):
        assert key in report
    for path in report.values():
        assert path.exists()
        if path.is_file():
            assert path.stat().st_size > 0
    out = report["report_md"].parent
    for stem in ("summary_privacy", "summary_utility", "summary_fidelity", "failures", "cost", "status"):
        for ext in ("md", "csv", "tex"):
            assert (out / "tables" / f"{stem}.{ext}") == report[f"tables/{stem}.{ext}"]
    tex = report["tables/summary_privacy.tex"].read_text()
    assert r"\toprule" in tex and r"\bottomrule" in tex


def test_report_html_embeds_every_figure(report: dict[str, Path]) -> None:
    """report.html travels alone: every figure is a base64 PNG inside it, none a link to figures/."""
    html = report["report_html"].read_text()
    pngs = sorted(report["figures_dir"].glob("*.png"))
    assert {p.stem for p in pngs} >= {"privacy_utility", "box_privacy_adult", "box_fidelity_adult", "cost"}
    sources = re.findall(r'<img src="([^"]+)"', html)
    assert len(sources) == len(pngs) and '<img src="figures/' not in html
    embedded = {base64.b64decode(s.split(",", 1)[1]) for s in sources}
    for png in pngs:
        assert png.read_bytes() in embedded  # the same bytes as the file next to it
        assert png.read_bytes().startswith(PNG_SIGNATURE)
        assert png.stat().st_size > 5000
        assert png.with_suffix(".pdf").exists()
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert '<a href="config.yaml">config.yaml</a>' in html  # the configuration: a file, linked
    assert "privbench: 0.1.0" in html  # versions from the results
    assert "timeout" in html


def test_report_markdown_has_tables_inline_and_figures_linked(report: dict[str, Path]) -> None:
    markdown = report["report_md"].read_text()
    assert "| dataset | generator |" in markdown
    assert "![" in markdown and "(figures/privacy_utility.png)" in markdown
    # the configuration is a file next to the report, linked, not hundreds of lines inline
    assert "```text" not in markdown and "[config.yaml](config.yaml)" in markdown
    assert report["config.yaml"].read_text() == "generator: ctgan\nseed: 0 # <b>\n"


def test_report_when_every_trial_failed(tmp_path: Path) -> None:
    results = to_results_frame(_rows(("adult",), all_fail=True))
    paths = build_report(results, tmp_path, title="Everything failed")
    assert not list(paths["figures_dir"].glob("*.png"))
    markdown = paths["report_md"].read_text()
    # scatter, Pareto scatter, sign-test bars, k-threshold, DCR vs holdout, three box plots, cost
    assert markdown.count("Figure skipped") == 9
    totals = pd.read_csv(paths["tables/status.csv"])
    assert totals.loc[0, "timeout"] == 8 and totals.loc[0, "ok"] == 0
    assert "2 timeout" in paths["tables/summary_privacy.md"].read_text()
    assert "Figure skipped" in paths["report_html"].read_text()


def test_report_of_empty_results(tmp_path: Path) -> None:
    paths = build_report(empty_results(), tmp_path, title="Nothing yet", versions={"privbench": "0.1.0"})
    assert paths["report_html"].exists()
    assert "0 result rows" in paths["report_md"].read_text()


def test_failures_keep_the_whole_first_line(results: pd.DataFrame) -> None:
    fix = "(set on_categorical: smotenc to use SMOTE-NC)"
    long = "InfeasibleConfigError: SMOTE needs numeric features; categorical columns " + "x, " * 80 + fix
    edited = results.copy()
    edited["error"] = edited["error"].where(edited["error"].isna(), long + "\nTraceback ...")
    errors = failures_table(edited)["error"]
    assert (errors == long).all() and errors.str.endswith(fix).all()
