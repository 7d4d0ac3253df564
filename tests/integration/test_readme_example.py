"""The README's "Your own method" example, run as a user would: its files written from the README itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```(python|yaml|bash)\n(.*?)```", re.S)
CONTRACT_MARK = "from harness.checks import check_generator"


def _example_blocks() -> dict[str, str]:
    text = (REPO / "README.md").read_text()
    section = text.split("**Your own method, in your own folder**", 1)[1].split("\n## ", 1)[0]
    blocks: dict[str, str] = {}
    for kind, body in BLOCK.findall(section):
        blocks[("contract" if CONTRACT_MARK in body else kind)] = body
    return blocks


def test_readme_own_generator_example_runs(tmp_path: Path) -> None:
    blocks = _example_blocks()
    for kind in ("python", "yaml"):
        first, body = blocks[kind].split("\n", 1)
        path = tmp_path / first.lstrip("# ").strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    (tmp_path / "mymethods" / "__init__.py").write_text("")
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}",
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
    }
    commands = [line for line in blocks["bash"].splitlines() if line.startswith("PYTHONPATH=. privbench ")]
    assert len(commands) == 2
    outputs = []
    for line in commands:
        args = line.split()[2:]  # privbench's arguments, as the README writes them
        proc = subprocess.run(
            [sys.executable, "-m", "harness.cli", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc)
    assert "replace = False   # draw each column's values with replacement" in outputs[0].stdout
    assert "4 ok" in outputs[1].stderr
    rows = pd.concat(pd.read_parquet(p) for p in (tmp_path / "results").rglob("rows.parquet"))
    shuffled = rows[rows["generator"] == "column_shuffle"]
    assert set(shuffled["status"]) == {"ok"} and shuffled["gen_seed"].nunique() == 2
    contract = subprocess.run(
        [sys.executable, "-c", blocks["contract"]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert contract.returncode == 0, contract.stderr
    passed = contract.stdout.strip()  # the README's generator passes the whole generator contract
    for check in ("params", "schema", "deterministic_per_seed", "seed_dependence", "single_category"):
        assert f"'{check}'" in passed
