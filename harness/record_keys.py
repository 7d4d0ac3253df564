"""Keyed references to real records: shareable outputs name a record without disclosing it.

A privacy audit reports per-record exposure ("which targets leak most"). A reference derived
from the record's content with a public function (such as pandas' ``hash_pandas_object``, whose
key is fixed) lets anyone who holds a candidate person's record compute it, find it in a
report and learn that the person was a target of this run. So a record is referred to by
HMAC-SHA256 under the user's own secret key, of the record's content hash: the owner can
recompute it (``privbench records``, :mod:`harness.records_command`), nobody else can.

The key is 32 random bytes in ``$PRIVBENCH_KEY_FILE`` (default
``$XDG_CONFIG_HOME/privbench/record_key``, ``~/.config/privbench/record_key``), created on first
use with mode ``0600`` in a ``0700`` folder. It is never written to results, and clearing the
caches keeps it (references in older results stay resolvable). Results written under two keys
carry different references for the same record; reproducible to the byte for one user.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

import numpy as np
import pandas as pd

from harness.errors import ConfigError

KEY_BYTES = 32
REFERENCE_HEX = 16  # 64 bits: no collision among the targets of any table this harness handles


def key_file() -> Path:
    """Where the user's record key lives (``$PRIVBENCH_KEY_FILE`` or the XDG config folder)."""
    explicit = os.environ.get("PRIVBENCH_KEY_FILE")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "privbench" / "record_key"


def user_key() -> bytes:
    """The user's record key, created (``0600``, atomically; parallel workers agree) if missing."""
    path = key_file()
    if not path.exists():
        _create_key(path)
    data = path.read_bytes()
    if len(data) < KEY_BYTES:
        raise ConfigError(
            f"{path}: record key has {len(data)} bytes; expected {KEY_BYTES} (delete it to make a new one)"
        )
    return data[:KEY_BYTES]


def _create_key(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)  # fails when another process made it first: theirs is kept
    finally:
        temp.unlink(missing_ok=True)


def content_hashes(frame: pd.DataFrame) -> np.ndarray:
    """Per row, pandas' 64-bit content hash (public: the input of :func:`reference`, never output)."""
    return pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)


def reference(content_hash: int, key: bytes) -> str:
    """The keyed reference of one record: HMAC-SHA256(key, content hash), 16 hex digits."""
    digest = hmac.new(key, int(content_hash).to_bytes(8, "little"), hashlib.sha256)
    return digest.hexdigest()[:REFERENCE_HEX]


def references(frame: pd.DataFrame, key: bytes | None = None) -> list[str]:
    """Keyed references of every row of ``frame`` (the user's key unless ``key`` is given)."""
    key = user_key() if key is None else key
    return [reference(int(h), key) for h in content_hashes(frame)]


def distinct(refs: list[str]) -> list[str]:
    """``refs`` with repeats told apart in order (``ref``, ``ref#2``, …): identical rows of a
    table share a content, hence a reference, but are distinct targets."""
    seen: dict[str, int] = {}
    out = []
    for ref in refs:
        seen[ref] = seen.get(ref, 0) + 1
        out.append(ref if seen[ref] == 1 else f"{ref}#{seen[ref]}")
    return out
