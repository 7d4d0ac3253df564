"""Content-addressed cache of synthetic variants and of completed trial results.

Layout under the cache root::

    variants/<k[:2]>/<k>.parquet   the released table (deterministic Parquet)
    variants/<k[:2]>/<k>.json      sidecar: generator, params, seed, info, timings, versions
    trials/<k[:2]>/<k>.parquet     the result rows of a completed trial (resume)

Keys are SHA-256 hashes of canonical JSON of everything that determines the content
(dataset file digest and preprocessing, split, generator target and parameters, seed,
privbench version). Entries are written atomically; a partially written entry is never
visible. Nothing is stored with pickle. Variants can be the real rows themselves (``identity``,
a noisy copy): the cache root and every folder below it are ``0700``, every file ``0600``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.schema import conform_results
from harness.spec import canonical_json
from harness.storage import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_parquet,
    atomic_write_rows,
    read_parquet,
)


def content_key(payload: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``payload``."""
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


@dataclass(frozen=True)
class VariantCache:
    """Cache of released tables keyed by variant key."""

    root: Path

    def _paths(self, key: str) -> tuple[Path, Path]:
        folder = Path(self.root) / "variants" / key[:2]
        return folder / f"{key}.parquet", folder / f"{key}.json"

    def parquet_path(self, key: str) -> Path:
        """Where the variant with ``key`` is (or would be) stored."""
        return self._paths(key)[0]

    def get(self, key: str) -> tuple[pd.DataFrame, dict[str, Any]] | None:
        """Return (table, sidecar) for ``key``, or None when absent or unreadable."""
        data, meta = self._paths(key)
        if not (data.is_file() and meta.is_file()):
            return None
        try:
            return read_parquet(data), json.loads(meta.read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, frame: pd.DataFrame, sidecar: dict[str, Any]) -> None:
        """Store a variant (table first, sidecar last, so a sidecar implies a complete table)."""
        data, meta = self._paths(key)
        atomic_write_parquet(data, frame, private_root=self.root)
        atomic_write_json(meta, sidecar, private_root=self.root)

    def artifact_path(self, key: str, name: str) -> Path:
        """Where the extra table ``name`` of variant ``key`` is stored (see ``BaseGenerator.artifacts``)."""
        return self._paths(key)[0].with_name(f"{key}.{name}.parquet")

    def put_artifact(self, key: str, name: str, parquet_file: Path) -> None:
        """Store an extra table of a variant (written before the variant's sidecar)."""
        atomic_write_bytes(
            self.artifact_path(key, name), Path(parquet_file).read_bytes(), private_root=self.root
        )

    def put_file(self, key: str, parquet_file: Path, sidecar: dict[str, Any]) -> None:
        """Store a variant whose Parquet bytes were already written to ``parquet_file``."""
        data, meta = self._paths(key)
        atomic_write_bytes(data, Path(parquet_file).read_bytes(), private_root=self.root)
        atomic_write_json(meta, sidecar, private_root=self.root)


@dataclass(frozen=True)
class TrialCache:
    """Cache of completed trials' result rows, keyed by trial key (for resume)."""

    root: Path

    def path(self, key: str) -> Path:
        """Where the rows of trial ``key`` are stored."""
        return Path(self.root) / "trials" / key[:2] / f"{key}.parquet"

    def get(self, key: str) -> pd.DataFrame | None:
        """Rows of a completed trial, or None."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            # Rows files carry no pandas metadata (fast to read): the schema's dtypes come back here.
            return conform_results(read_parquet(path))
        except (OSError, ValueError):
            return None

    def put(self, key: str, rows: pd.DataFrame) -> None:
        """Store the rows of a completed trial atomically."""
        atomic_write_rows(self.path(key), rows, private_root=self.root)
