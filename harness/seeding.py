"""Seed derivation and library seeding.

All seeds are derived from configuration values with :class:`numpy.random.SeedSequence`
and stable (hashlib) name hashes, never from the clock or Python's salted ``hash``.
"""

from __future__ import annotations

import hashlib
import random
import sys

import numpy as np

MAX_SEED = 2**31 - 1


def name_to_int(name: str) -> int:
    """Stable 32-bit integer for a string (independent of PYTHONHASHSEED)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def derive_seed(base: int, *names: str | int) -> int:
    """Derive a child seed in ``[0, 2**31 - 1)`` from ``base`` and a path of names.

    Parameters
    ----------
    base : int
        The configured seed (e.g. ``gen_seed``).
    *names : str or int
        Labels of the consumer, e.g. ``("metric", "dcr_nndr")``.

    Returns
    -------
    int
        The same value for the same inputs in every process.
    """
    entropy = [int(base)] + [n if isinstance(n, int) else name_to_int(n) for n in names]
    state = np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)[0]
    return int(state) % MAX_SEED


def seed_everything(seed: int) -> None:
    """Seed ``random``, numpy's legacy global RNG and torch (if already imported).

    Harness code never draws from these; they are seeded for wrapped libraries that do.
    """
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - the legacy global RNG some libraries draw from
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(seed)
