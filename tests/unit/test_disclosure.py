"""The 'what may leave this machine' check (issue 29) sees each kind of disclosure it names
and passes aggregate outputs and keyed references."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from harness.disclosure import RealRecords, scan
from harness.record_keys import content_hashes, references

REAL = pd.DataFrame(
    {"age": [23, 67, 45, 45], "job": ["clerk", "pilot", "nurse", "clerk"], "income": [1.5, 9.25, 3.0, 3.0]}
)


@pytest.fixture(autouse=True)
def _key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIVBENCH_KEY_FILE", str(tmp_path / "key"))


def _rules(tmp_path: Path, name: str, text: str) -> set[str]:
    (tmp_path / name).write_text(text)
    return {f.rule for f in scan(tmp_path / name, REAL)}


def test_public_hashes_of_a_record_are_found(tmp_path: Path) -> None:
    public = int(content_hashes(REAL)[1])
    short = hashlib.sha256(public.to_bytes(8, "little")).hexdigest()[:12]
    assert _rules(tmp_path, "old.md", f"| row hash | AUC |\n| {short} | 0.9 |") == {"public fingerprint"}
    assert _rules(tmp_path, "raw.json", json.dumps({"target": public})) == {"public fingerprint"}


def test_membership_labels_are_found(tmp_path: Path) -> None:
    details = {"records": [{"record": "x", "split": "control", "auc": 0.7}]}
    assert _rules(tmp_path, "d.json", json.dumps(details)) == {"membership label"}
    assert _rules(tmp_path, "t.csv", "row_hash,split,position\nab,train,3\n") == {"membership label"}


def test_a_real_rows_values_are_found(tmp_path: Path) -> None:
    row = {
        "targets": {"7": {"pg": 1.0}},
        "target_rows": {"7": {"age": "67", "job": "pilot", "income": "9.25"}},
    }
    assert _rules(tmp_path, "d.json", json.dumps(row)) == {"real values"}
    # the same columns with values no real row has, and per-column statistics, are not rows
    fake = {"age": "67", "job": "clerk", "income": "9.25"}
    assert _rules(tmp_path, "f.json", json.dumps(fake)) == set()
    assert _rules(tmp_path, "s.json", json.dumps({"ks": {"age": 0.1, "income": 0.2}})) == set()


def test_parquet_details_private_folders_and_keyed_references(tmp_path: Path) -> None:
    refs = references(REAL)
    rows = pd.DataFrame(
        {"metric": ["mia_audit"], "details": [json.dumps({"records": [{"record": refs[1]}]})]}
    )
    rows.to_parquet(tmp_path / "rows.parquet")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "exposed_records.csv").write_text("record,split,age\nx,train,67\n")
    assert scan(tmp_path, RealRecords(REAL)) == []  # keyed references pass; private/ is not shareable
    leaky = rows.assign(details=[json.dumps({"records": [{"record": refs[1], "split": "train"}]})])
    leaky.to_parquet(tmp_path / "rows.parquet")
    assert [f.rule for f in scan(tmp_path, REAL)] == ["membership label"]
