"""`privbench init` and `privbench evaluate` end to end: real files, real subprocess calls."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from harness.datasets import load_dataset, load_spec
from tests.conftest import Runner
from tests.integration.test_runs import run_dirs


@pytest.fixture(scope="module")
def adult_rows() -> pd.DataFrame:
    """900 Adult rows: three disjoint tables of 300."""
    return load_dataset(load_spec("adult")).frame.sample(900, random_state=1).reset_index(drop=True)


def test_init_writes_a_yaml_that_runs_as_is(
    privbench: Runner, tmp_path: Path, adult_rows: pd.DataFrame
) -> None:
    adult_rows.iloc[:300].to_csv(tmp_path / "people.csv", index=False)
    init = privbench("init", "people.csv")
    written = tmp_path / "conf" / "dataset" / "people.yaml"
    assert f"wrote {Path('conf') / 'dataset' / 'people.yaml'}" in init.stdout
    assert "column age: integer" in init.stdout and "target: income (task binary; SUGGESTED" in init.stdout
    assert "missing: workclass:" in init.stdout
    data = yaml.safe_load(written.read_text())
    assert data["source"] == {"kind": "path", "files": [{"path": "people.csv"}]}
    assert data["columns"]["sex"] == {"kind": "categorical", "categories": ["Female", "Male"]}
    assert "age" in data["qi_sets"]["suggested"] and "income" not in data["qi_sets"]["suggested"]
    privbench(
        "run", "--config-dir", "conf", "dataset=people", "generator=independent_marginals", "suite=fast"
    )
    (run_dir,) = run_dirs(tmp_path)
    rows = pd.read_parquet(next(run_dir.rglob("rows.parquet")))
    assert set(rows["status"]) == {"ok"} and set(rows["dataset"]) == {"people"}

    again = privbench("init", "people.csv", check=False)
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "exists; not overwritten" in again.stderr
    assert yaml.safe_load(written.read_text()) == data


@pytest.mark.slow
def test_evaluate_rates_a_copy_riskier_than_an_independent_draw(
    privbench: Runner, tmp_path: Path, adult_rows: pd.DataFrame
) -> None:
    """A copy, a noisy copy, new individuals and the holdout itself as releases (issue 28)."""
    adult_rows.iloc[:300].to_csv(tmp_path / "real.csv", index=False)
    adult_rows.iloc[300:600].to_csv(tmp_path / "holdout.csv", index=False)
    adult_rows.iloc[:300].to_csv(tmp_path / "copy.csv", index=False)
    noisy = adult_rows.iloc[:300].copy()
    noisy["age"] = noisy["age"] + np.random.default_rng(0).integers(-3, 4, len(noisy))
    noisy.to_csv(tmp_path / "noisy.csv", index=False)
    adult_rows.iloc[600:].to_csv(tmp_path / "fresh.csv", index=False)
    proc = privbench(
        "evaluate", "real.csv", "copy.csv", "noisy.csv", "fresh.csv", "holdout.csv", "--holdout", "holdout.csv",
        "--suite", "default", "-o", "ev",
    )  # fmt: skip
    out = tmp_path / "ev"
    assert (out / "report" / "report.html").is_file() and (out / "report" / "report.md").is_file()
    assert (out / "conf" / "dataset" / "real.yaml").is_file()  # the inferred schema
    assert f"report: {Path('ev') / 'report' / 'report.html'}" in proc.stdout
    assert "column age: integer" in proc.stdout
    assert "REAL real.csv: 300 rows, H holdout.csv: 300 rows" in proc.stdout  # each file counted apart
    assert "all 300 rows of REAL (real.csv) train" in proc.stdout and "are halved" in proc.stdout
    summary = pd.read_csv(out / "summary.csv").set_index("generator")
    assert {
        "release_copy",
        "release_noisy",
        "release_fresh",
        "release_holdout",
        "identity",
        "real_holdout",
    } <= set(summary.index)
    leakage = summary["leakage index"]
    assert leakage["release_copy"] > 0.9 and leakage["release_fresh"] < 0.5
    assert leakage["release_copy"] > leakage["release_noisy"] > leakage["release_fresh"]
    assert leakage["release_holdout"] < 0.5  # H's rows are not training rows
    utility = next(c for c in summary.columns if c.startswith("utility: "))
    scores = summary[utility]
    assert scores.drop("release_holdout").between(0, 1).all()
    # real_holdout is scored on H's other half, never on the rows it released: no perfect score
    assert scores["real_holdout"] < 0.99 and abs(scores["real_holdout"] - scores["identity"]) < 0.15
    # the holdout released as a "synthetic" table holds the test rows: its utility is not reported
    assert pd.isna(scores["release_holdout"]) and summary.at["release_holdout", "H rows in release"] == 1.0
    assert "release_holdout holds 100% of H's rows verbatim" in proc.stderr
    assert summary.at["release_copy", "H rows in release"] < 0.05
    report = (out / "report" / "report.md").read_text()
    assert "raw data (reference)" in report and "new individuals (reference)" in report


def test_evaluate_without_holdout_splits_real_with_a_given_dataset(
    privbench: Runner, tmp_path: Path, adult_rows: pd.DataFrame
) -> None:
    adult_rows.iloc[:300].to_csv(tmp_path / "real.csv", index=False)
    adult_rows.iloc[:300].to_csv(tmp_path / "copy.csv", index=False)
    adult_rows.iloc[600:].to_csv(tmp_path / "fresh.csv", index=False)
    privbench("init", "real.csv", "--name", "mine")
    yaml_file = str(Path("conf") / "dataset" / "mine.yaml")
    proc = privbench(
        "evaluate", "real.csv", "copy.csv", "fresh.csv", "--dataset", yaml_file, "--suite", "fast", "-o", "ev"
    )
    assert "the release's training rows are unknown to privbench" in proc.stdout
    assert f"the schema of {yaml_file}" in proc.stdout
    written = yaml.safe_load((tmp_path / "ev" / "conf" / "dataset" / "mine.yaml").read_text())
    given = yaml.safe_load((tmp_path / yaml_file).read_text())
    assert (
        list(written["columns"]) == list(given["columns"])
        and written["target"] == given["target"] == "income"
    )
    assert written["qi_sets"] == given["qi_sets"]
    assert written["source"]["files"] == [{"path": str(tmp_path / "real.csv"), "role": "train"}]
    summary = pd.read_csv(tmp_path / "ev" / "summary.csv").set_index("generator")
    assert list(summary.index) == ["release_copy", "release_fresh"]
    privacy = next(c for c in summary.columns if c.startswith("privacy: "))
    assert summary.at["release_copy", privacy] < summary.at["release_fresh", privacy]  # DCR: lower = riskier


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2
    stderr = proc.stderr
    assert stderr.startswith("privbench: error: ") and stderr.count("\n") == 1
    return stderr


def test_bad_input_is_one_line_and_writes_nothing(
    privbench: Runner, tmp_path: Path, adult_rows: pd.DataFrame
) -> None:
    adult_rows.iloc[:300].to_csv(tmp_path / "real.csv", index=False)
    adult_rows.iloc[:300].drop(columns=["age", "sex"]).to_csv(tmp_path / "narrow.csv", index=False)
    err = _one_line_error(privbench("init", "absent.csv", check=False))
    assert "absent.csv: file not found" in err
    err = _one_line_error(privbench("init", "real.csv", "--target", "nope", check=False))
    assert "--target 'nope' is not a column" in err
    err = _one_line_error(privbench("evaluate", "real.csv", "absent.csv", "-o", "ev", check=False))
    assert "absent.csv: release file not found" in err
    err = _one_line_error(privbench("evaluate", "real.csv", "narrow.csv", "-o", "ev", check=False))
    assert "release lacks column(s) 'age', 'sex'" in err
    assert not (tmp_path / "ev").exists() and not (tmp_path / "conf").exists()
