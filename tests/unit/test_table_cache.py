"""Parsed tables cached on disk between processes (``harness.datasets.table_cache``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.datasets import clear_cache, load_dataset, load_spec
from harness.datasets.table_cache import DIR_ENV, ENABLED_ENV, cached_table
from harness.memo import frame_digest
from tests.conftest import REPO


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "tables"
    monkeypatch.setenv(DIR_ENV, str(root))
    monkeypatch.setenv(ENABLED_ENV, "1")
    clear_cache()
    yield root
    clear_cache()


def entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.parquet"))


@pytest.mark.parametrize("name", ["adult", "ds43", "german_credit", "ds3"])
def test_a_cached_table_equals_the_parsed_one(
    cache: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Values, NaN, dtypes, column order and the predefined test mask come back exactly."""
    spec = load_spec(name)
    monkeypatch.setenv(ENABLED_ENV, "0")
    parsed = load_dataset(spec)
    clear_cache()
    monkeypatch.setenv(ENABLED_ENV, "1")
    first = load_dataset(spec)  # parses and stores
    assert len(entries(cache)) == 1
    clear_cache()
    served = load_dataset(spec)  # read from disk
    for loaded in (first, served):
        assert frame_digest(loaded.frame) == frame_digest(parsed.frame)
        pd.testing.assert_frame_equal(loaded.frame, parsed.frame, check_exact=True)
        if parsed.test_mask is None:
            assert loaded.test_mask is None
        else:
            assert loaded.test_mask is not None and np.array_equal(loaded.test_mask, parsed.test_mask)
        assert loaded.digest == parsed.digest
    assert (parsed.test_mask is not None) == (name in ("adult", "ds43", "ds3"))  # test file / test index


def test_another_process_reads_the_entry(cache: Path) -> None:
    spec = load_spec("german_credit")
    expected = frame_digest(load_dataset(spec).frame)
    [entry] = entries(cache)
    stamp = entry.stat().st_mtime_ns
    code = (
        "from harness.datasets import load_dataset, load_spec; from harness.memo import frame_digest; "
        "print(frame_digest(load_dataset(load_spec('german_credit')).frame))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), DIR_ENV: str(cache)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == expected
    assert entry.stat().st_mtime_ns == stamp and entries(cache) == [entry]  # read, not rewritten


def test_changed_file_is_another_entry(cache: Path, tmp_path: Path) -> None:
    from harness.spec import DatasetSpec

    (tmp_path / "t.csv").write_text("a,b\n1,x\n2,y\n3,x\n")
    spec = DatasetSpec.from_dict(
        {"name": "t", "source": {"kind": "path", "path": str(tmp_path / "t.csv")},
         "columns": {"a": "integer", "b": "categorical"}}
    )  # fmt: skip
    load_dataset(spec)
    (tmp_path / "t.csv").write_text("a,b\n1,x\n2,y\n4,x\n")
    clear_cache()
    assert load_dataset(spec).frame["a"].tolist() == [1, 2, 4]
    assert len(entries(cache)) == 2


def test_a_table_that_would_not_round_trip_is_not_cached(cache: Path) -> None:
    """An object column holding both None and NaN comes back from Parquet with one kind of
    missing value: parsed every time, never served changed."""
    frame = pd.DataFrame({"a": np.array(["x", None, np.nan, "y"], dtype=object), "b": [1, 2, 3, 4]})
    calls = []

    def build() -> tuple[pd.DataFrame, None]:
        calls.append(1)
        return frame.copy(), None

    for _ in range(2):
        got, mask = cached_table("digest-of-a-mixed-table", build)
        assert got["a"].tolist()[1] is None and isinstance(got["a"].tolist()[2], float)
    assert len(calls) == 2 and entries(cache) == [] and len(list(cache.rglob("*.uncacheable"))) == 1


def test_switched_off_or_corrupt(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_spec("german_credit")
    monkeypatch.setenv(ENABLED_ENV, "0")
    load_dataset(spec)
    assert entries(cache) == []
    monkeypatch.setenv(ENABLED_ENV, "1")
    clear_cache()
    expected = frame_digest(load_dataset(spec).frame)
    [entry] = entries(cache)
    entry.write_bytes(b"not parquet")
    clear_cache()
    assert frame_digest(load_dataset(spec).frame) == expected  # a miss, parsed and stored again
    assert entry.read_bytes()[:4] == b"PAR1"


def test_parsed_copies_go_under_the_cache_dir_the_user_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRIVBENCH_CACHE_DIR holds the parsed copies; the home cache stays untouched (issue 28)."""
    monkeypatch.delenv(DIR_ENV, raising=False)
    monkeypatch.setenv(ENABLED_ENV, "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    monkeypatch.setenv("PRIVBENCH_CACHE_DIR", str(tmp_path / "mine"))
    clear_cache()
    try:
        load_dataset(load_spec("german_credit"))
    finally:
        clear_cache()
    assert entries(tmp_path / "mine" / "datasets") and not (tmp_path / "home-cache").exists()
