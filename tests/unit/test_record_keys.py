"""Keyed record references (issue 29): a private key, created once, and references a reader
without it cannot compute."""

from __future__ import annotations

import hashlib
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness.record_keys import content_hashes, key_file, reference, references, user_key


@pytest.fixture
def key_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "privbench" / "record_key"
    monkeypatch.setenv("PRIVBENCH_KEY_FILE", str(path))
    return path


def test_the_key_is_created_private_and_kept(key_path: Path) -> None:
    assert key_file() == key_path and not key_path.exists()
    first = user_key()
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_path.parent.stat().st_mode) == 0o700
    assert user_key() == first and len(first) == 32


def test_parallel_first_uses_agree_on_one_key(key_path: Path) -> None:
    code = "from harness.record_keys import user_key; print(user_key().hex())"
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(4)
    ]
    keys = {p.communicate()[0].strip() for p in procs}
    assert keys == {key_path.read_bytes().hex()}
    assert [p.name for p in key_path.parent.iterdir()] == ["record_key"]  # no temp file left


def test_references_need_the_key(key_path: Path) -> None:
    frame = pd.DataFrame({"age": [30, 41, 30], "city": ["a", "b", "a"]})
    refs = references(frame)
    assert refs[0] == refs[2] != refs[1]  # a record's reference depends on its content only
    assert references(frame, key=b"\x00" * 32) != refs  # another key, other references
    public = content_hashes(frame)
    # nothing a reader computes from the record without the key gives the reference
    unkeyed = {str(int(h)) for h in public} | {
        hashlib.sha256(int(h).to_bytes(8, "little")).hexdigest()[: len(refs[0])] for h in public
    }
    assert not unkeyed & set(refs)
    assert reference(int(public[1]), user_key()) == refs[1]


def test_a_short_key_file_is_refused(key_path: Path) -> None:
    key_path.parent.mkdir(parents=True)
    key_path.write_bytes(b"short")
    with pytest.raises(Exception, match="record key has 5 bytes; expected 32"):
        user_key()


def test_identical_rows_are_distinct_targets() -> None:
    from harness.record_keys import distinct

    assert distinct(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"]
