"""A new user's walk on a table the README never describes: init -> run -> report -> evaluate (issue 28).

The bundled Employee table (4,653 rows, CamelCase headers, a 0/1 outcome ``LeaveOrNot``) is
copied as a user's own CSV. Its YAML is written only by ``privbench init`` (no edit needed: the
documented rules must pick the outcome as target and the demographic columns as QIs). A small
sweep with the two references and three methods is reported; the report's verdict must name
methods only (never a reference) and show the references for scale; ``evaluate`` on a release
file with a holdout must place the raw data at the top of the leakage scale and new individuals
at its floor.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from harness.datasets.paths import DATA_ROOT
from tests.conftest import Runner

METHODS = ("independent_marginals", "privbayes", "cart_synthpop")
REFERENCES = ("identity", "real_holdout")


@pytest.mark.slow
def test_init_run_report_evaluate_on_an_undescribed_table(privbench: Runner, tmp_path: Path) -> None:
    source = next(Path(DATA_ROOT).glob("employee/Employee.csv*"))
    table = pd.read_csv(source).sample(1200, random_state=0).reset_index(drop=True)
    table.iloc[:900].to_csv(tmp_path / "staff.csv", index=False)

    init = privbench("init", "staff.csv")
    assert (
        "target: LeaveOrNot (task binary; SUGGESTED: the last binary column named like an outcome"
        in init.stdout
    )
    written = yaml.safe_load((tmp_path / "conf" / "dataset" / "staff.yaml").read_text())
    assert written["target"] == "LeaveOrNot"
    assert {"Age", "Gender", "City", "Education"} <= set(written["qi_sets"]["suggested"])
    assert written["columns"]["PaymentTier"]["kind"] == "ordinal"  # 1-3 named like a tier

    privbench(
        "run", "-m", "--config-dir", "conf", "dataset=staff", "profile=quick", "split_seed=0,1,2",
        f"generator={','.join((*METHODS, *REFERENCES))}", "hydra.sweep.dir=results/walk", timeout=1800,
    )  # fmt: skip
    privbench("report", "results/walk")
    report = (tmp_path / "results" / "walk" / "report" / "report.md").read_text()
    verdict = report.split("## Verdict", 1)[1].split("\n## ", 1)[0]
    front = [line for line in verdict.splitlines() if line.startswith("- ")]
    assert front and all(any(f"- {m}" in line for m in METHODS) for line in front), front
    assert not any(r in line for line in front for r in REFERENCES)  # references are never "the winner"
    assert (
        "For scale, not compared — identity (reference)" in verdict and "real_holdout (reference)" in verdict
    )
    assert "How sure:" in verdict and "What would settle it:" in verdict

    table.iloc[900:].to_csv(tmp_path / "holdout.csv", index=False)
    shuffled = table.iloc[:900].copy()
    for offset, column in enumerate(shuffled.columns):
        shuffled[column] = shuffled[column].sample(frac=1, random_state=offset).to_numpy()
    shuffled.to_csv(tmp_path / "shuffled.csv", index=False)
    privbench("evaluate", "staff.csv", "shuffled.csv", "--holdout", "holdout.csv", "-o", "ev", timeout=1800)
    summary = pd.read_csv(tmp_path / "ev" / "summary.csv").set_index("generator")
    leakage = summary["leakage index"]
    assert leakage["identity"] > 0.9 and leakage["real_holdout"] < 0.1
    assert summary.loc[["identity", "real_holdout"], "reference"].all()
    assert not summary.at["release_shuffled", "reference"]
