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
    assert all(f"figures/{p.name}" in html for p in pngs)
    for table in ("summary", "cost", "status"):
        for ext in ("md", "csv", "tex"):
            assert (report / "tables" / f"{table}.{ext}").is_file()
    summary = (report / "tables" / "summary.csv").read_text().splitlines()
    assert sum(line.startswith("adult,identity,") for line in summary) == 1
    assert sum(line.split(",")[1:2] == ["uniform"] for line in summary) == 1
    results = pd.read_parquet(report / "results.parquet")
    assert results["trial_key"].nunique() == 4
