"""The cross-process memo (``harness/memo.py``)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np
import pandas as pd

from harness import memo as memo_module
from harness.memo import configure, frame_digest, memo


def _compute_in_child(root: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    configure(Path(root))
    hit = memo("ns").get_arrays({"k": 1})
    queue.put(None if hit is None else hit["x"].tolist())


def test_arrays_round_trip_across_processes(tmp_path: Path) -> None:
    configure(tmp_path)
    calls = []
    value = memo("ns").arrays({"k": 1}, lambda: calls.append(1) or {"x": np.arange(3)})
    again = memo("ns").arrays({"k": 1}, lambda: calls.append(1) or {"x": np.zeros(3)})
    assert calls == [1] and again["x"].tolist() == value["x"].tolist() == [0, 1, 2]
    queue: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()  # type: ignore[type-arg]
    child = multiprocessing.get_context("spawn").Process(
        target=_compute_in_child, args=(str(tmp_path), queue)
    )
    child.start()
    child.join(60)
    assert queue.get(timeout=5) == [0, 1, 2]
    assert memo("other").get_arrays({"k": 1}) is None  # namespaces are separate


def test_disabled_memo_never_hits_or_writes(tmp_path: Path) -> None:
    configure(tmp_path, enabled=False)
    m = memo("ns")
    assert not m.enabled
    m.put_json({"a": 1}, {"v": 2})
    assert m.get_json({"a": 1}) is None and not (tmp_path / "memo").exists()
    configure(None)
    assert memo_module.memo("ns").get_arrays({"k": 1}) is None


def test_json_entries_and_corrupt_files_are_misses(tmp_path: Path) -> None:
    configure(tmp_path)
    m = memo("ns")
    m.put_json({"a": 1}, {"v": [1, 2]})
    assert m.get_json({"a": 1}) == {"v": [1, 2]}
    path = next((tmp_path / "memo" / "ns").rglob("*.json"))
    path.write_text("{broken")
    assert m.get_json({"a": 1}) is None
    configure(None)


def test_frame_digest_sees_values_dtypes_and_order() -> None:
    a = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    assert frame_digest(a) == frame_digest(a.copy())
    assert frame_digest(a) != frame_digest(a.iloc[::-1].reset_index(drop=True))
    assert frame_digest(a) != frame_digest(a.astype({"x": float}))
    assert frame_digest(a) != frame_digest(a.assign(y=["a", "c"]))
