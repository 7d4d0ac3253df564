"""``privbench records RUN_DIR --rekey``: bring rows written before keyed references under the rule.

Older versions named membership-inference targets in ``details`` by a public hash, their split
and their position (``mia_audit``), or by their position and their values (``mia_privacy_gain``'s
``target_rows``). Both disclose membership or the record itself (:mod:`harness.disclosure`).
This rewrites such rows in place (atomically, one ``rows.parquet`` at a time): every target is
found in the dataset as the run loaded it (by its old public hash or by its values) and named by
its keyed reference (:mod:`harness.record_keys`); split, position, public hash and values are
dropped. Every number stays as it was. A target that cannot be found keeps no name but
``unresolved-<i>``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import DataError
from harness.record_keys import content_hashes, distinct, reference, user_key
from harness.records_command import run_datasets
from harness.report.audit import parse_details
from harness.spec import canonical_json
from harness.storage import atomic_write_rows, read_parquet

OLD_RECORD_FIELDS = ("row_hash", "split", "position")


@dataclass
class RekeyCount:
    """What a rekey changed."""

    files: int = 0
    records: int = 0
    unresolved: int = 0


class _Lookup:
    """A dataset's rows by old public hash and by values, to their keyed references."""

    def __init__(self, frame: pd.DataFrame, key: bytes) -> None:
        hashes = content_hashes(frame)
        self.refs = [reference(int(h), key) for h in hashes]
        self.by_old_hash = {
            hashlib.sha256(int(h).to_bytes(8, "little")).hexdigest()[:12]: i for i, h in enumerate(hashes)
        }
        text = frame.astype("string")
        self.by_values = {
            tuple(None if pd.isna(v) else str(v) for v in row): i
            for i, row in enumerate(text.itertuples(index=False, name=None))
        }
        self.columns = [str(c) for c in frame.columns]

    def from_old_hash(self, old: object) -> str | None:
        row = self.by_old_hash.get(str(old))
        return None if row is None else self.refs[row]

    def from_values(self, values: dict[str, Any]) -> str | None:
        if set(values) != set(self.columns):
            return None
        row = self.by_values.get(tuple(values[c] for c in self.columns))
        return None if row is None else self.refs[row]


def rekey_run(run_dir: Path) -> RekeyCount:
    """Rewrite every ``rows.parquet`` under ``run_dir`` that names records the old way."""
    count = RekeyCount()
    files = [p for p in sorted(Path(run_dir).rglob("rows.parquet")) if "private" not in p.parts]
    if not files:
        raise DataError(f"{run_dir}: no rows.parquet to rekey")
    lookups: dict[str, _Lookup] = {}
    frames: dict[str, pd.DataFrame] | None = None
    key = user_key()
    for path in files:
        rows = read_parquet(path)
        if "details" not in rows.columns or not _old_style(rows):
            continue
        if frames is None:
            frames = run_datasets(run_dir)
        details = rows["details"].tolist()
        for i, (dataset, text) in enumerate(zip(rows["dataset"], details)):
            parsed = parse_details(text)
            if not _old_details(parsed):
                continue
            if dataset not in lookups:
                if dataset not in frames:
                    raise DataError(f"{run_dir}: no job's .hydra/config.yaml has dataset {dataset!r}")
                lookups[dataset] = _Lookup(frames[dataset], key)
            details[i] = canonical_json(_rekeyed(parsed, lookups[dataset], count))
        atomic_write_rows(path, rows.assign(details=details))
        count.files += 1
    return count


def _old_style(rows: pd.DataFrame) -> bool:
    text = rows["details"].dropna().astype(str)
    return bool(text.str.contains('"row_hash"|"target_rows"', regex=True).any())


def _old_details(parsed: dict[str, Any]) -> bool:
    records = parsed.get("records")
    old_records = isinstance(records, list) and any(isinstance(r, dict) and "row_hash" in r for r in records)
    return old_records or "target_rows" in parsed


def _rekeyed(parsed: dict[str, Any], lookup: _Lookup, count: RekeyCount) -> dict[str, Any]:
    out = dict(parsed)
    if isinstance(parsed.get("records"), list):
        records = []
        for record in parsed["records"]:
            if not isinstance(record, dict) or "row_hash" not in record:
                records.append(record)
                continue
            ref = lookup.from_old_hash(record["row_hash"])
            count.records += 1
            if ref is None:
                count.unresolved += 1
                ref = f"unresolved-{count.unresolved}"
            kept = {k: v for k, v in record.items() if k not in OLD_RECORD_FIELDS}
            records.append({"record": ref, **kept})
        names = distinct([str(r.get("record")) if isinstance(r, dict) else "" for r in records])
        records = [
            {**r, "record": n} if isinstance(r, dict) else r for r, n in zip(records, names, strict=True)
        ]
        out["records"] = sorted(records, key=lambda r: (-float(r.get("auc", 0.0)), str(r.get("record"))))
    if "target_rows" in parsed:
        values = parsed["target_rows"] if isinstance(parsed["target_rows"], dict) else {}
        found = parsed.get("targets")
        targets: dict[str, Any] = found if isinstance(found, dict) else {}
        refs: list[str] = []
        for old in targets:
            ref = lookup.from_values(values.get(old) or {})
            count.records += 1
            if ref is None:
                count.unresolved += 1
                ref = f"unresolved-{count.unresolved}"
            refs.append(ref)
        out["targets"] = dict(zip(distinct(refs), targets.values(), strict=True))
        del out["target_rows"]
    return out
