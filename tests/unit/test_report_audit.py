"""Tests of the privacy-audit section of the report (harness.report.audit, audit_figures)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.report import build_report
from harness.report.audit import (
    HEADING,
    NOT_DP,
    WARNING_PREFIX,
    audit_blocks,
    audit_display,
    audit_table,
    audit_warning_blocks,
    finding_text,
    format_interval,
    guarantee_scope,
    parse_details,
    record_display,
    record_table,
)
from harness.report.audit_figures import audit_figures, epsilon_figure, roc_curves
from harness.report.document import Heading, Paragraph, TableBlock
from harness.report.figures import FigureSkipped
from harness.report.index import TableWriter
from harness.report.prepare import prepare
from harness.schema import to_results_frame

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DP = ("dpgen", {"epsilon": 1.0})
CTGAN = ("ctgan", {"epochs": 10})
ATTACKS = ("closest_distance", "shadow_model", "density_ratio")
RAW_VALUE = "secret-raw-value-42"
# generator -> (auc, tpr at 0.1 %, 1 %, 10 %, epsilon_lb) for gen_seed 0 and 1
NUMBERS: dict[str, list[tuple[float, float, float, float, float]]] = {
    "dpgen": [(0.60, 0.002, 0.02, 0.15, 0.40), (0.70, 0.004, 0.04, 0.25, 0.60)],
    "ctgan": [(0.80, 0.010, 0.10, 0.40, 2.00), (0.90, 0.030, 0.20, 0.60, 3.00)],
}
FPR_LEVELS = (("tpr_at_fpr_0.1pct", 0.001), ("tpr_at_fpr_1pct", 0.01), ("tpr_at_fpr_10pct", 0.1))


def _common(generator: str, params: dict[str, Any], seed: int, status: str = "ok") -> dict[str, Any]:
    return {
        "run_id": "run-1",
        "experiment": "demo",
        "dataset": "adult",
        "qi_set": "qi1",
        "split_seed": 0,
        "fold": 0,
        "generator": generator,
        "generator_params": json.dumps(params, sort_keys=True),
        "gen_seed": seed,
        "metric": "mia_audit",
        "family": "privacy",
        "goal": "minimise",
        "status": status,
        "fit_s": 1.0,
        "sample_s": 0.1,
        "peak_rss_mb": 100.0,
    }


def _records(generator: str, seed: int) -> list[dict[str, Any]]:
    base = 0.5 if generator == "dpgen" else 0.7
    return [
        {
            "record": f"{generator[:2]}{seed}{i:02d}abcdef",
            "split": "train",  # an older version's field: must never reach the report
            "position": 10 * seed + i,
            "group": "outlier" if i < 2 else "random",
            "auc": round(base + 0.02 * i + 0.01 * seed, 4),
            "attack": "closest_distance",
            "epsilon_point": 1.0,
            "values": [RAW_VALUE],  # must never reach the report
        }
        for i in range(8)
    ]


def _trial(
    variant: tuple[str, dict[str, Any]], seed: int, *, exceeds: bool = False, unresolvable: bool = False
) -> list[dict[str, Any]]:
    generator, params = variant
    auc, t01, t1, t10, eps = NUMBERS[generator][seed]
    configured = params.get("epsilon")
    if exceeds:
        eps = float(params["epsilon"]) + 0.4  # a bound above the guarantee
    common = _common(generator, params, seed)
    roc = {
        a: {"fpr": [0.0, 0.002, 0.01, 0.1, 0.5, 1.0], "tpr": [0.0, t01, t1, t10, 0.8, 1.0]} for a in ATTACKS
    }
    auc_details = {
        "attack": "closest_distance",
        "attacks": {a: {"auc": auc, "auc_low": auc - 0.1, "auc_high": auc + 0.1} for a in ATTACKS},
        "roc": roc,
        "records": _records(generator, seed),
        "configured_epsilon": configured,
        "configured_delta": 0.0 if configured else None,
        "n_targets": 8,
        "n_games": 100 + 20 * seed,
        "n_shadows": 10,
        "n_fits": 1210,
        "seed": 123,
    }
    rows = [
        {
            **common,
            "variant": "auc",
            "value": auc,
            "ci_low": auc - 0.1,
            "ci_high": auc + 0.1,
            "baseline": 0.5,
            "details": json.dumps(auc_details),
            "metric_s": 90.0 + 10 * seed,
        }
    ]
    for (variant_name, level), tpr in zip(FPR_LEVELS, (t01, t1, t10)):
        resolvable = not (unresolvable and level == 0.001)
        rows.append(
            {
                **common,
                "variant": variant_name,
                "value": tpr,
                "ci_low": tpr / 2,
                "ci_high": tpr * 2,
                "baseline": level,
                "details": json.dumps({"attack": "closest_distance", "fpr": level, "resolvable": resolvable}),
            }
        )
    eps_details = {
        "attack": "closest_distance",
        "threshold": 0.3,
        "tp": 40,
        "fp": 5,
        "n_in": 50,
        "n_out": 50,
        "confidence": 0.95,
        "delta": 0.0,
        "epsilon_point": eps * 1.5,
        "configured_epsilon": configured,
        "configured_delta": 0.0 if configured else None,
        "exceeds_configured": exceeds,
    }
    rows.append(
        {
            **common,
            "variant": "epsilon_lb",
            "value": eps,
            "baseline": configured if configured is not None else math.nan,
            "details": json.dumps(eps_details),
        }
    )
    rows.append({**common, "variant": "privacy_gain", "value": 2 * (1 - auc), "details": "{}"})
    for attack in ATTACKS:
        rows.append(
            {**common, "variant": f"auc_{attack}", "value": auc, "ci_low": auc - 0.1, "ci_high": auc + 0.1}
        )
    return rows


def _failed_trial(variant: tuple[str, dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    common = _common(variant[0], variant[1], seed, status="error")
    return [
        {**common, "variant": v, "value": math.nan, "details": d, "error": "RuntimeError: audit crashed"}
        for v, d in (("auc", ""), ("epsilon_lb", "{}"), ("tpr_at_fpr_1pct", None))
    ]


def _results(
    *, exceeds: bool = False, with_dp: bool = True, unresolvable: bool = False, failed: bool = True
) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    variants = (DP, CTGAN) if with_dp else (CTGAN,)
    for variant in variants:
        for seed in (0, 1):
            is_dp = variant is DP
            rows += _trial(
                variant, seed, exceeds=exceeds and is_dp and seed == 1, unresolvable=unresolvable and is_dp
            )
    if failed:
        rows += _failed_trial(CTGAN, 2)
    return to_results_frame(rows)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return prepare(_results(unresolvable=True))


# --- tables ------------------------------------------------------------------------------------


def test_audit_table_means_over_trials(frame: pd.DataFrame) -> None:
    table = audit_table(frame).set_index("label")
    assert list(table.index) == ["ctgan", "dpgen"]
    dp, gan = table.loc["dpgen"], table.loc["ctgan"]
    assert dp["trials"] == 2 and gan["trials"] == 2  # the failed ctgan trial is not counted
    assert dp["auc"] == pytest.approx(0.65) and dp["auc_low"] == pytest.approx(0.55)
    assert gan["auc_high"] == pytest.approx(0.95)
    assert dp["tpr_1pct"] == pytest.approx(0.03) and dp["tpr_1pct_high"] == pytest.approx(0.06)
    assert dp["tpr_0.1pct_unresolvable"] == 2 and gan["tpr_0.1pct_unresolvable"] == 0
    assert dp["epsilon_lb"] == pytest.approx(0.5) and gan["epsilon_lb"] == pytest.approx(2.5)
    assert dp["configured_epsilon"] == pytest.approx(1.0) and math.isnan(gan["configured_epsilon"])
    assert dp["confidence"] == pytest.approx(0.95)
    assert dp["games"] == pytest.approx(110.0) and dp["fits"] == pytest.approx(1210.0)
    assert dp["audit_s"] == pytest.approx(95.0)
    assert dp["fits_per_s"] == pytest.approx((1210 / 90 + 1210 / 100) / 2)
    assert dp["attack"] == "closest_distance"


def test_audit_display_formats_cis_daggers_and_non_dp(frame: pd.DataFrame) -> None:
    text = audit_display(audit_table(frame)).text.set_index("generator")
    assert text.at["dpgen", "AUC [CI]"] == "0.650 [0.550, 0.750]"
    assert text.at["ctgan", "AUC [CI]"] == "0.850 [0.750, 0.950]"
    assert text.at["dpgen", "TPR @ 1 % FPR"] == "0.0300 [0.0150, 0.0600]"
    assert text.at["dpgen", "TPR @ 0.1 % FPR"].endswith("†")
    assert not text.at["ctgan", "TPR @ 0.1 % FPR"].endswith("†")
    assert text.at["ctgan", "configured ε"] == NOT_DP
    assert text.at["dpgen", "configured ε"] == "1.00"
    assert text.at["dpgen", "ε lower bound"] == "0.500"
    assert text.at["dpgen", "trials"] == "2"
    assert format_interval(0.5, math.nan, math.nan) == "0.500"
    assert format_interval(math.nan, 0.1, 0.2) == "–"


def test_record_table_sorts_by_auc_and_hides_raw_values(frame: pd.DataFrame) -> None:
    records = record_table(frame)
    assert len(records) == 10
    assert records["auc"].is_monotonic_decreasing
    assert records["auc"].iloc[0] == pytest.approx(0.7 + 0.02 * 7 + 0.01)
    assert set(records["label"]) == {"ctgan"}  # ctgan's records are the most exposed
    assert "values" not in records.columns
    shown = record_display(records).text
    assert list(shown.columns) == [
        "generator",
        "dataset",
        "record (keyed)",
        "group",
        "AUC",
        "attack",
    ]
    assert shown.at[0, "record (keyed)"] == "ct107abcdef" and shown.at[0, "AUC"] == "0.850"
    assert not {"split", "position"} & set(records.columns)
    assert RAW_VALUE not in shown.to_csv() and RAW_VALUE not in records.to_csv()


def test_audit_blocks_write_tables(frame: pd.DataFrame, tmp_path: Path) -> None:
    writer = TableWriter(tmp_path)
    blocks = audit_blocks(frame, writer)
    assert isinstance(blocks[0], Heading) and blocks[0].text == HEADING
    assert isinstance(blocks[1], Paragraph) and "AUC 0.5 is chance" in blocks[1].text
    tables = [b for b in blocks if isinstance(b, TableBlock)]
    assert len(tables) == 2
    assert tables[0].note is not None and "†" in tables[0].note and "95 %" in tables[0].note
    for stem in ("mia_audit", "mia_audit_records"):
        for ext in ("md", "csv", "tex"):
            assert (tmp_path / f"{stem}.{ext}").exists()
    csv = pd.read_csv(tmp_path / "mia_audit.csv")
    assert set(csv["label"]) == {"dpgen", "ctgan"}
    assert r"\toprule" in (tmp_path / "mia_audit.tex").read_text()
    assert RAW_VALUE not in (tmp_path / "mia_audit_records.csv").read_text()


# --- the warning banner ------------------------------------------------------------------------


def test_no_warning_without_exceeding_bound(frame: pd.DataFrame) -> None:
    assert audit_warning_blocks(frame) == []


def test_warning_names_the_failing_trial() -> None:
    blocks = audit_warning_blocks(prepare(_results(exceeds=True)))
    paragraphs = [b for b in blocks if isinstance(b, Paragraph)]
    assert isinstance(blocks[0], Heading) and "failure" in blocks[0].text.lower()
    assert len(paragraphs) == 1
    text = paragraphs[0].text
    assert text.startswith(WARNING_PREFIX)
    for part in ("dpgen", "adult", "generator seed 1", "1.40", "ε = 1.00", "95 %", "bug in the generator"):
        assert part in text


# --- failures and missing details --------------------------------------------------------------


def test_non_ok_rows_and_missing_details_do_not_crash(tmp_path: Path) -> None:
    rows = _trial(CTGAN, 0) + _failed_trial(DP, 0)
    for row in rows:
        if row["variant"] in ("auc", "epsilon_lb", "tpr_at_fpr_1pct"):
            row["details"] = "{}" if row["variant"] == "auc" else "not json"
    frame = prepare(to_results_frame(rows))
    table = audit_table(frame)
    assert list(table["label"]) == ["ctgan"] and math.isnan(table.at[0, "games"])
    assert record_table(frame).empty
    assert audit_warning_blocks(frame) == []
    blocks = audit_blocks(frame, TableWriter(tmp_path))
    assert sum(isinstance(b, TableBlock) for b in blocks) == 1  # no record table
    outcomes = {o.name: o for o in audit_figures(frame, tmp_path)}
    assert outcomes["mia_roc"].skipped is not None and "ROC" in outcomes["mia_roc"].skipped
    assert outcomes["mia_epsilon"].skipped is not None
    assert parse_details(None) == {} and parse_details("[1, 2]") == {} and parse_details("") == {}


def test_only_failed_audits_give_no_section(tmp_path: Path) -> None:
    frame = prepare(to_results_frame(_failed_trial(CTGAN, 0)))
    assert audit_blocks(frame, TableWriter(tmp_path)) == []
    assert audit_warning_blocks(frame) == []
    assert audit_figures(frame, tmp_path) == []
    assert not list(tmp_path.iterdir())


# --- figures -----------------------------------------------------------------------------------


def test_figures_are_written(tmp_path: Path) -> None:
    frame = prepare(_results(exceeds=True))
    outcomes = audit_figures(frame, tmp_path)
    assert [o.name for o in outcomes] == ["mia_roc", "mia_epsilon"]
    for outcome in outcomes:
        assert outcome.skipped is None
        assert [p.suffix for p in outcome.paths] == [".png", ".pdf"]
        assert outcome.paths[0].read_bytes().startswith(PNG_SIGNATURE)
        assert outcome.paths[1].read_bytes().startswith(b"%PDF")
        assert outcome.paths[0].stat().st_size > 5000


def test_epsilon_figure_skipped_without_dp_generators(tmp_path: Path) -> None:
    frame = prepare(_results(with_dp=False))
    with pytest.raises(FigureSkipped, match="DP generator"):
        epsilon_figure(frame, tmp_path)
    assert roc_curves(frame, tmp_path)[0].exists()
    outcomes = {o.name: o for o in audit_figures(frame, tmp_path)}
    assert outcomes["mia_epsilon"].skipped is not None and "DP" in outcomes["mia_epsilon"].skipped
    assert not (tmp_path / "mia_epsilon.png").exists()


# --- the whole report --------------------------------------------------------------------------


def test_build_report_has_audit_section_and_warning_near_top(tmp_path: Path) -> None:
    paths = build_report(_results(exceeds=True), tmp_path, title="Audit run")
    markdown = paths["report_md"].read_text()
    assert f"## {HEADING}" in markdown
    warning = markdown.index(WARNING_PREFIX)
    # a failed DP claim opens the report, before the verdict (which ranks the generator it concerns)
    assert (
        markdown.index("# Audit run") < warning < markdown.index("## Verdict") < markdown.index("## Overview")
    )
    assert warning < markdown.index(f"## {HEADING}")
    for key in ("tables/mia_audit.csv", "tables/mia_audit.tex", "tables/mia_audit_records.csv"):
        assert paths[key].exists()
    assert paths["figures/mia_roc.png"].exists() and paths["figures/mia_epsilon.png"].exists()
    html = paths["report_html"].read_text()
    assert WARNING_PREFIX in html and 'alt="ROC curves' in html and '<img src="figures/' not in html
    assert RAW_VALUE not in markdown and RAW_VALUE not in html


def test_build_report_without_failure_has_no_warning(tmp_path: Path) -> None:
    paths = build_report(_results(with_dp=False), tmp_path, title="Audit run")
    markdown = paths["report_md"].read_text()
    assert WARNING_PREFIX not in markdown and f"## {HEADING}" in markdown
    assert "Figure skipped" in markdown and "no formally DP generator" in markdown


def test_warning_names_what_a_partial_guarantee_leaves_out() -> None:
    finding = pd.Series(
        {"label": "smote_dp", "dataset": "adult", "split_seed": 0, "fold": 0, "gen_seed": 0, "bound": 2.5,
         "configured_epsilon": 1.0, "confidence": 0.95, "delta": 0.0, "attack": "closest_distance",
         "scope": guarantee_scope({"configured_unit": "smote_output", "configured_end_to_end": False})}
    )  # fmt: skip
    text = finding_text(finding)
    assert "declared not end to end" in text and "neighbouring smote output" in text
    assert guarantee_scope({"configured_unit": "original_records", "configured_end_to_end": True}) == ""
