"""Every paper reproduction in its quick profile (issue 8: CI runs every one).

Each test runs the real command, ``privbench reproduce <name>`` (preflight, Hydra multiruns in
child processes, collection, the paper's tables and figures, ``checks.json``) and asserts on
what it wrote: every trial ran, every check could be evaluated and has a kind, every claim's
verdict is the shared rule's on its recorded evidence (issue 27), every sanity check passes,
a failing arithmetic check (a paper's misprint) or setup check (a departure) says why, and
every other check carries an observed value or a reason. Which
tolerance and trend checks hold in the quick profile is what ``REPRODUCTION.md`` reports;
the per-paper expectations that must hold even in the quick profile are the check module's
``QUICK_MUST_PASS`` (check ids) and the row statuses other than ``ok`` it expects are its
``ALLOWED_STATUSES`` (e.g. ``skipped`` for infeasible grid cells).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.reproduction import load_plan, reproduction_names
from harness.reproduction.checks import Check
from harness.reproduction.verdict import CLAIM_VERDICTS, KINDS
from harness.storage import read_parquet
from tests.conftest import Runner


def _checks(run_dir: Path) -> dict[str, dict]:
    data = json.loads((run_dir / "reproduction" / "checks.json").read_text())
    return {c["id"]: c for c in data["checks"]}


@pytest.mark.slow
@pytest.mark.parametrize("name", reproduction_names())
def test_reproduction_quick_profile(privbench: Runner, tmp_path: Path, name: str) -> None:
    proc = privbench("reproduce", name, "--profile", "quick", timeout=900)
    run_dir = Path(proc.stdout.split("reproduction: ", 1)[1].split()[0]).parent.parent
    assert run_dir.is_relative_to(tmp_path / "results" / name)
    checks = _checks(run_dir)
    assert checks, "a reproduction without checks"
    errors = {i: c["error"] for i, c in checks.items() if c["error"]}
    assert not errors, errors
    assert_kinds_and_verdicts(checks)
    failed_sanity = {
        i: (c["observed"], c["reason"]) for i, c in checks.items() if c["kind"] == "sanity" and not c["pass"]
    }
    assert not failed_sanity, failed_sanity  # the pipeline behaves, in every profile
    # arithmetic checks may fail (a paper's misprint) and setup checks may (a departure): with a reason
    for check_id, check in checks.items():
        if check["kind"] in ("arithmetic", "setup") and not check["pass"]:
            assert check["reason"], f"{check_id}: a failing {check['kind']} check without a reason"
    for check_id, check in checks.items():
        assert check["observed"] or check["reason"], f"{check_id}: neither an observed value nor a reason"
    module = load_plan(name, "quick").load_checks()
    must_pass = set(getattr(module, "QUICK_MUST_PASS", ()))
    assert must_pass <= set(checks), must_pass - set(checks)
    missing = {i for i in must_pass if not checks[i]["pass"]}
    assert not missing, {i: checks.get(i) for i in missing}
    results = run_dir / "reproduction" / "results.parquet"
    if results.exists():
        statuses = set(read_parquet(results)["status"])
        assert statuses <= {"ok", *getattr(module, "ALLOWED_STATUSES", ())}, statuses
    meta = json.loads((run_dir / "reproduction" / "reproduction.json").read_text())
    assert meta["profile"] == "quick" and meta["experiment"] == name

    # the document is built from the real run
    privbench("reproduction-report", str(run_dir), "-o", str(tmp_path / "doc"))
    document = (tmp_path / "doc" / "REPRODUCTION.md").read_text()
    assert f"(`{name}`)" in document and "quick-profile numbers" in document
    for check in checks.values():
        assert f"**{check['verdict']}**" in document or f"| {check['verdict']} |" in document
    assert "### Referee's summary" in document


def assert_kinds_and_verdicts(checks: dict[str, dict]) -> None:
    """Every check has a kind; every claim's verdict is the shared rule's on its recorded evidence.

    A claim recorded as ``reproduced`` must have its evidence beyond noise: a deterministic value,
    a test that decides for it, or intervals that all clear the band or 0 (issue 27).
    """
    for check_id, data in checks.items():
        assert data.get("kind") in KINDS, f"{check_id}: kind {data.get('kind')!r}"
        recomputed = Check.from_dict(data).verdict
        assert data["verdict"] == recomputed, (check_id, data["verdict"], recomputed)
        if data["kind"] != "claim":
            assert data["verdict"] in ("passes", "fails"), check_id
            continue
        assert data["verdict"] in CLAIM_VERDICTS, check_id
        if data["verdict"] == "reproduced":
            evidence = data.get("uncertainty") or {}
            intervals = evidence.get("intervals") or []
            assert evidence.get("deterministic") or evidence.get("decision") == "holds" or intervals, check_id
            if (
                data["level"] == "trend"
                and not evidence.get("deterministic")
                and not evidence.get("decision")
            ):
                assert all(i["low"] > 0 for i in intervals), (check_id, intervals)
        if data["verdict"] == "not evaluable":
            assert data["verdict_why"], f"{check_id}: not evaluable without a reason"


def test_reproduce_bad_input_is_one_line(privbench: Runner, tmp_path: Path) -> None:
    proc = privbench("reproduce", "quickstart", check=False)
    assert proc.returncode == 2 and "has no reproduction block" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = privbench("reproduce", "data_anonymizer_2023", "--profile", "laptop", check=False)
    assert proc.returncode == 2 and "unknown reproduction profile 'laptop'" in proc.stderr
    proc = privbench("reproduce", check=False)
    assert proc.returncode == 2 and "pass --all" in proc.stderr
    proc = privbench("reproduce", "data_anonymizer_2023", "generator.nope=1", check=False)
    assert proc.returncode == 2 and "nope" in proc.stderr
    assert not (tmp_path / "results" / "data_anonymizer_2023").exists()  # nothing ran
    proc = privbench("reproduction-report", str(tmp_path), check=False)
    assert proc.returncode == 2 and "no reproduction/checks.json" in proc.stderr
