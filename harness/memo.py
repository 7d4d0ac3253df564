"""Cross-process memo of intermediate results (content-addressed, on the trial cache's disk).

Trials run in separate processes (a Hydra job each, a fresh process per SLURM job), so an
in-process ``functools.cache`` cannot share work between the variants of a grid: ε-PrivateSMOTE
rebuilds the same neighbour graph for every (ε, per) of a knn, and every ML-utility trial refits
the same TRTR models on the same training split. :class:`Memo` stores such intermediate results
under ``<cache>/memo/<namespace>/<k[:2]>/<k>.npz`` (numpy arrays) or ``.json`` (plain values),
keyed by the SHA-256 of the canonical JSON of everything that determines them.

The trial configures the memo for its process (:func:`configure`, from ``runtime.cache_dir``
and ``runtime.use_cache``); plugins call :func:`memo` and get a disabled memo (every lookup
misses, nothing is written) outside a trial or with ``runtime.use_cache=false``. Entries are
written atomically; a corrupt or unreadable entry is a miss. A memoised value must be a pure
function of its key: callers put in the key everything the value depends on (data digests,
parameters, seeds, the code's version tag).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness.spec import canonical_json
from harness.storage import atomic_write_bytes, atomic_write_json

_STATE: dict[str, Any] = {"root": None}


def configure(cache_dir: Path | None, *, enabled: bool = True) -> None:
    """Set this process's memo root (``<cache_dir>/memo``), or disable it (None / not enabled)."""
    _STATE["root"] = Path(cache_dir) / "memo" if (cache_dir is not None and enabled) else None


def memo(namespace: str) -> Memo:
    """The memo of ``namespace`` in this process (disabled unless :func:`configure` set a root)."""
    root = _STATE["root"]
    return Memo(None if root is None else Path(root) / namespace)


def key_of(payload: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``payload``."""
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


def frame_digest(frame: pd.DataFrame) -> str:
    """Digest of a table's content, column names, dtypes and row order (for memo keys)."""
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    header = canonical_json([[str(c), str(t)] for c, t in frame.dtypes.items()])
    return hashlib.sha256(header.encode() + hashed.tobytes()).hexdigest()


@dataclass(frozen=True)
class Memo:
    """Entries of one namespace; ``root`` None means disabled."""

    root: Path | None

    @property
    def enabled(self) -> bool:
        """False when lookups always miss and nothing is stored."""
        return self.root is not None

    @property
    def _private_root(self) -> Path:
        """The cache root (``<cache_dir>/memo/<namespace>`` is this root's): neighbour graphs of
        real rows are kept private (0700 folders, 0600 files)."""
        assert self.root is not None
        return self.root.parent.parent

    def _path(self, key: str, suffix: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}{suffix}"

    def get_arrays(self, payload: Any) -> dict[str, np.ndarray] | None:
        """The arrays stored for ``payload``, or None."""
        if self.root is None:
            return None
        path = self._path(key_of(payload), ".npz")
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                return {name: data[name] for name in data.files}
        except (OSError, ValueError):
            return None

    def put_arrays(self, payload: Any, arrays: Mapping[str, np.ndarray]) -> None:
        """Store arrays (no object arrays: nothing is pickled)."""
        if self.root is None:
            return
        buffer = io.BytesIO()
        np.savez(buffer, **{name: np.asarray(value) for name, value in arrays.items()})
        atomic_write_bytes(
            self._path(key_of(payload), ".npz"), buffer.getvalue(), private_root=self._private_root
        )

    def get_json(self, payload: Any) -> Any | None:
        """The JSON value stored for ``payload``, or None."""
        if self.root is None:
            return None
        path = self._path(key_of(payload), ".json")
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def put_json(self, payload: Any, value: Any) -> None:
        """Store a JSON-serialisable value."""
        if self.root is not None:
            atomic_write_json(self._path(key_of(payload), ".json"), value, private_root=self._private_root)

    def arrays(self, payload: Any, compute: Callable[[], Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
        """The memoised arrays of ``payload``, computing and storing them on a miss."""
        hit = self.get_arrays(payload)
        if hit is not None:
            return hit
        value = {name: np.asarray(v) for name, v in compute().items()}
        self.put_arrays(payload, value)
        return value
