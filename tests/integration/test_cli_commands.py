"""`privbench list`, `validate`, `report` and `collect` through the real command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness.registry import names
from tests.conftest import Runner


@pytest.mark.parametrize("what", ["generators", "metrics", "datasets", "experiments", "suites", "profiles"])
def test_list_shows_every_registered_config(privbench: Runner, what: str) -> None:
    group = {"generators": "generator", "metrics": "metric", "datasets": "dataset", "experiments": "experiment",
             "suites": "suite", "profiles": "profile"}[what]  # fmt: skip
    out = privbench("list", what).stdout.splitlines()
    assert [line.split()[0] for line in out] == names(group)
    assert all(len(line.split()) > 1 for line in out), "every entry has a one-line description"
    assert not any("(invalid" in line for line in out)


def test_list_rejects_unknown_group(privbench: Runner) -> None:
    proc = privbench("list", "gens", check=False)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


@pytest.mark.slow
def test_validate_composes_and_instantiates_every_config(privbench: Runner) -> None:
    proc = privbench("validate", timeout=900)
    lines = proc.stdout.splitlines()
    assert all(line.startswith("ok ") for line in lines), proc.stdout
    expected = sum(
        len(names(g)) for g in ("generator", "metric", "dataset", "suite", "profile", "experiment")
    )
    assert len(lines) == expected


def test_report_writes_tables_figures_and_index(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "-m", "generator=identity,uniform", "gen_seed=0,1", "data.max_rows=600", "suite=fast")
    (run_dir,) = (tmp_path / "results" / "default").iterdir()
    out = privbench("report", str(run_dir)).stdout
    report = run_dir / "report"
    assert str(report / "report.html") in out
    html = (report / "report.html").read_text()
    pngs = sorted((report / "figures").glob("*.png"))
    assert pngs and all(p.stat().st_size > 1000 for p in pngs)
    # self-contained: every figure is embedded (no relative image links), its PDF stays a download
    assert '<img src="figures/' not in html
    assert html.count("data:image/png;base64,") == len(pngs)
    for table in ("summary", "cost", "status"):
        for ext in ("md", "csv", "tex"):
            assert (report / "tables" / f"{table}.{ext}").is_file()
    summary = (report / "tables" / "summary.csv").read_text().splitlines()
    assert sum(line.startswith("adult,identity,") for line in summary) == 1
    assert sum(line.split(",")[1:2] == ["uniform"] for line in summary) == 1
    results = pd.read_parquet(report / "results.parquet")
    assert results["trial_key"].nunique() == 4


def test_describe_shows_parameters_defaults_and_documented_values(privbench: Runner) -> None:
    out = privbench("describe", "smote").stdout
    assert out.startswith("smote (generator, ")
    assert "knn            = 5   # k_neighbors; 000_… grid {1, 3, 5}" in out
    assert "ratio          = 1.0   # N_minority / N_majority after resampling, in (0, 1]" in out
    assert "generator_overrides.smote.NAME=VALUE" in out
    assert "check_params" not in out and "_target_" not in out
    metric = privbench("describe", "dcr_share").stdout
    assert metric.startswith("dcr_share (metric, ") and "parameters" in metric
    proc = privbench("describe", "nope", check=False)
    assert proc.returncode == 2 and "unknown generator, metric or dataset 'nope'" in proc.stderr


def test_list_generators_with_parameters(privbench: Runner) -> None:
    lines = privbench("list", "generators", "--params").stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("smote "))
    assert lines[at + 1].split() == ["knn=5,", "ratio=1.0,", "on_categorical='error'"]
    identity = next(i for i, line in enumerate(lines) if line.startswith("identity "))
    assert lines[identity + 1].strip() == "(no parameters)"


def test_one_generators_parameter_in_a_multi_generator_sweep(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "-m", "generator=smote,identity", "generator_overrides.smote.on_categorical=smotenc",
              "data.max_rows=300", "suite=fast")  # fmt: skip
    (run_dir,) = (tmp_path / "results" / "default").iterdir()
    rows = pd.concat(pd.read_parquet(p) for p in run_dir.rglob("rows.parquet"))
    smote = rows[rows["generator"] == "smote"]
    assert set(smote["status"]) == {"ok"}
    assert '"on_categorical":"smotenc"' in smote["generator_params"].iloc[0]
    assert set(rows.loc[rows["generator"] == "identity", "status"]) == {"ok"}
