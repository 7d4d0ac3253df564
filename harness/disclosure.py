"""What may leave this machine: a check that shareable outputs disclose no real record.

Rule (issue 29). A shareable output (result rows, ``details``, reports, tables, figures' data,
logs) may carry aggregate statistics of the real data, never:

1. **a public fingerprint of a real record**: anything a reader holding a candidate record
   could compute and look up without the user's key (pandas' content hash of the row, in
   decimal or hex, a SHA-256 of it, whole or cut to 12 hex digits as older versions wrote);
2. **a membership label tied to a record**: a ``split`` of ``train`` / ``control`` next to a
   record (``"split": "train"`` in JSON, a ``split`` column in a table of records);
3. **a real record's values**: a JSON object whose keys are columns of the table and whose
   values equal a real row's on every one of them (at least three columns).

Records are named by keyed references (:mod:`harness.record_keys`), which a reader cannot
compute. :func:`scan` applies the rule to every file under a folder except ``private/``
folders (the owner's own look-ups) and binary images; ``tests/`` run it on generated outputs
and on every committed example. It finds what the rule names; it is not a proof that nothing
else discloses (a figure's pixels, a cell of a small-count table).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.record_keys import content_hashes

TEXT_SUFFIXES = frozenset({".md", ".csv", ".json", ".html", ".tex", ".yaml", ".yml", ".log", ".txt", ".svg"})
SKIPPED_FOLDERS = frozenset({"private", ".cache"})
MIN_ROW_COLUMNS = 3
SPLIT_LABEL = re.compile(r"""["']split["']\s*:\s*["'](train|control)["']""")
TOKEN = re.compile(r"[0-9a-fA-F]{12,64}|\d{12,20}")


@dataclass(frozen=True)
class Finding:
    """One disclosure: the file, which rule, and a short description (no real value quoted)."""

    path: Path
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.rule}: {self.detail}"


class RealRecords:
    """What the scanner looks for, computed once from the real table."""

    def __init__(self, real: pd.DataFrame) -> None:
        self.columns = [str(c) for c in real.columns]
        self.fingerprints: set[str] = set()
        for value in content_hashes(real):
            number = int(value)
            digest = hashlib.sha256(number.to_bytes(8, "little")).hexdigest()
            self.fingerprints |= {str(number), f"{number:016x}", digest, digest[:12]}
        text = real.astype("string").fillna("")
        self._values = {c: text[c].to_numpy(dtype=object) for c in text.columns}
        self._index = {c: _positions(self._values[c]) for c in self._values}

    def matches_row(self, record: dict[str, Any]) -> bool:
        """Whether ``record`` (column → value) equals some real row on every one of its columns."""
        keys = [k for k in record if k in self._index]
        if len(keys) < MIN_ROW_COLUMNS or len(keys) < len(record):
            return False
        candidates: set[int] | None = None
        for key in keys:
            rows = self._index[key].get(_text(record[key]), set())
            candidates = set(rows) if candidates is None else candidates & rows
            if not candidates:
                return False
        return bool(candidates)


def scan(root: Path, real: pd.DataFrame | RealRecords | Sequence[RealRecords]) -> list[Finding]:
    """Every :class:`Finding` in the shareable files under ``root`` (or the file ``root``).

    ``real`` is the real table, or several (each file is read once whatever their number).
    """
    if isinstance(real, pd.DataFrame):
        tables: Sequence[RealRecords] = [RealRecords(real)]
    elif isinstance(real, RealRecords):
        tables = [real]
    else:
        tables = list(real)
    fingerprints = set().union(*(t.fingerprints for t in tables)) if tables else set()
    findings: list[Finding] = []
    for path in _shareable_files(Path(root)):
        for text in _texts(path):
            findings += _scan_text(path, text, fingerprints, tables)
    return findings


def _shareable_files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        if not path.is_file() or SKIPPED_FOLDERS & set(path.relative_to(root).parts[:-1]):
            continue
        if path.suffix in TEXT_SUFFIXES or path.suffix == ".parquet":
            yield path


def _texts(path: Path) -> Iterator[str]:
    if path.suffix != ".parquet":
        yield path.read_text(errors="replace")
        return
    frame = pd.read_parquet(path)
    for column in frame.columns:
        if frame[column].dtype == object or str(frame[column].dtype).startswith("string"):
            for value in frame[column].dropna().unique():
                if isinstance(value, str):
                    yield value


def _scan_text(path: Path, text: str, fingerprints: set[str], tables: Sequence[RealRecords]) -> list[Finding]:
    found: list[Finding] = []
    tokens = {t for t in TOKEN.findall(text) if t in fingerprints or t.lower() in fingerprints}
    if tokens:
        found.append(Finding(path, "public fingerprint", f"{len(tokens)} public hash(es) of real records"))
    if SPLIT_LABEL.search(text):
        found.append(Finding(path, "membership label", "a record's split (train/control)"))
    if path.suffix in (".csv", ".md") and _record_table_with_split(text):
        found.append(Finding(path, "membership label", "a table of records with a split column"))
    rows = sum(any(t.matches_row(obj) for t in tables) for obj in _json_objects(text))
    if rows:
        found.append(Finding(path, "real values", f"{rows} object(s) equal to a real row"))
    return found


def _record_table_with_split(text: str) -> bool:
    header = text.splitlines()[0].lower() if text else ""
    cells = {c.strip() for c in re.split(r"[,|]", header)}
    return "split" in cells and bool(cells & {"row hash", "row_hash", "record", "position", "target"})


def _json_objects(text: str) -> Iterator[dict[str, Any]]:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return
    try:
        value = json.loads(stripped)
    except ValueError:
        return
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _positions(values: Any) -> dict[str, set[int]]:
    series = pd.Series(values, dtype=object).astype(str)
    return {str(k): set(v.tolist()) for k, v in series.groupby(series, sort=False).indices.items()}


def _text(value: Any) -> str:
    return "" if value is None else str(value)
