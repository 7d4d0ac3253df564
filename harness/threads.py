"""One thread budget per trial: BLAS/OpenMP pools, numba and torch (no oversubscription
when a parallel launcher runs several trials at once)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits


@contextmanager
def limit_threads(threads: int) -> Iterator[None]:
    """Limit BLAS/OpenMP pools, numba's parallel regions and torch's intra-op pool to ``threads``."""
    import numba

    previous_numba = numba.get_num_threads()
    available = int(getattr(numba.config, "NUMBA_NUM_THREADS", 1))
    numba.set_num_threads(max(1, min(int(threads), available)))
    torch = sys.modules.get("torch")
    previous_torch = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(int(threads))
    try:
        with threadpool_limits(limits=int(threads)):
            yield
    finally:
        numba.set_num_threads(previous_numba)
        if torch is not None and previous_torch is not None:
            torch.set_num_threads(previous_torch)
