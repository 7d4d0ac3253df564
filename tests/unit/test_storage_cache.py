"""Deterministic Parquet bytes, atomic writes, content keys and the caches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from harness.cache import TrialCache, VariantCache, content_key
from harness.schema import conform_results
from harness.storage import atomic_write_bytes, parquet_bytes, read_parquet, rows_parquet_bytes


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"age": np.array([30, 41, 52], dtype="int64"), "sex": ["F", np.nan, "M"], "w": [0.5, np.nan, 2.25]}
    )


def test_parquet_bytes_are_identical_in_a_fresh_process(tmp_path: Path) -> None:
    code = (
        "import sys, numpy as np, pandas as pd; from harness.storage import parquet_bytes;"
        "f = pd.DataFrame({'age': np.array([30, 41, 52], dtype='int64'), 'sex': ['F', np.nan, 'M'],"
        " 'w': [0.5, np.nan, 2.25]}); sys.stdout.buffer.write(parquet_bytes(f))"
    )
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    assert other == parquet_bytes(frame())


def test_parquet_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    atomic_write_bytes(path, parquet_bytes(frame()))
    back = read_parquet(path)
    assert back["age"].tolist() == [30, 41, 52]
    assert back["sex"].isna().tolist() == [False, True, False]


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    atomic_write_bytes(tmp_path / "a" / "b.bin", b"123")
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["b.bin"]


def test_content_key_is_order_independent_and_sensitive() -> None:
    assert content_key({"a": 1, "b": [1, 2]}) == content_key({"b": [1, 2], "a": 1})
    assert content_key({"a": 1}) != content_key({"a": 2})
    assert len(content_key({})) == 64


def test_variant_cache_round_trip(tmp_path: Path) -> None:
    cache = VariantCache(tmp_path)
    assert cache.get("ab" * 32) is None
    cache.put("ab" * 32, frame(), {"fit_s": 1.5})
    table, meta = cache.get("ab" * 32)  # type: ignore[misc]
    pd.testing.assert_frame_equal(table, read_parquet(cache.parquet_path("ab" * 32)))
    assert meta == {"fit_s": 1.5}


def result_rows() -> pd.DataFrame:
    return conform_results(
        pd.DataFrame(
            {
                "generator": ["identity", "identity"],
                "metric": ["ks", "dcr"],
                "value": [0.5, np.nan],
                "split_seed": [0, 0],
                "cache_hit": [False, False],
                "error": [None, "boom"],
            }
        )
    )


def test_trial_cache_round_trip(tmp_path: Path) -> None:
    cache = TrialCache(tmp_path)
    rows = result_rows()
    cache.put("cd" * 32, rows)
    pd.testing.assert_frame_equal(cache.get("cd" * 32), rows)  # type: ignore[arg-type]
    assert cache.get("ef" * 32) is None


def test_rows_layout_is_deterministic_and_reads_back_as_the_schema(tmp_path: Path) -> None:
    rows = result_rows()
    assert rows_parquet_bytes(rows) == rows_parquet_bytes(rows.copy())
    path = tmp_path / "rows.parquet"
    path.write_bytes(rows_parquet_bytes(rows))
    # No pandas metadata in the file: plain dtypes on read, the schema's after conforming.
    pd.testing.assert_frame_equal(conform_results(read_parquet(path)), rows)
    assert len(rows_parquet_bytes(rows)) < len(parquet_bytes(rows))
