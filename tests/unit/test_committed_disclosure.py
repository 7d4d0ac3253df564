"""Every committed output obeys 'what may leave this machine' (issue 29): no public hash of a
real record, no membership label and no real row in results/ (audits, examples, reproductions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.disclosure import RealRecords, scan
from harness.records_command import run_datasets

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ("results/audits", "results/examples", "results/reproductions")


@pytest.mark.slow
def test_committed_outputs_disclose_no_real_record() -> None:
    roots = [ROOT / r for r in COMMITTED if (ROOT / r).is_dir()]
    frames: dict = {}
    for root in roots:
        frames.update(run_datasets(root))
    assert {"adult", "german_credit", "texas"} <= set(frames)  # the audits' and R-SMOTEDP's data
    tables = [RealRecords(frame) for frame in frames.values()]
    findings = [str(f) for root in roots for f in scan(root, tables)]
    assert findings == []
