"""The committed reproduction results obey the verdict rule (issue 27).

Every ``checks.json`` under ``results/reproductions`` (the copies the document links and the
persisted protocol runs) is read back: every check has a kind, every verdict is the one rule's on
the recorded evidence, and a claim counted as reproduced carries evidence beyond noise. The
document counts claims apart from the other kinds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_reproductions import assert_kinds_and_verdicts

REPRODUCTIONS = Path(__file__).resolve().parents[2] / "results" / "reproductions"
FILES = sorted(REPRODUCTIONS.glob("*/*/checks.json")) + sorted(
    REPRODUCTIONS.glob("runs/*/*/reproduction/checks.json")
)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPRODUCTIONS)) for p in FILES])
def test_committed_checks_follow_the_verdict_rule(path: Path) -> None:
    data = json.loads(path.read_text())
    checks = {c["id"]: c for c in data["checks"]}
    assert checks, f"{path}: no checks"
    assert not {i: c["error"] for i, c in checks.items() if c["error"]}
    assert_kinds_and_verdicts(checks)
    assert data.get("referee"), f"{path}: no referee's summary"


def test_the_document_counts_claims_apart() -> None:
    text = (REPRODUCTIONS / "REPRODUCTION.md").read_text()
    assert "| claims | reproduced | not reproduced | inconclusive | not evaluable |" in text
    assert text.count("### Referee's summary") >= 15
    assert "same ordering or trend" not in text and "| differs |" not in text  # the old verdicts are gone
