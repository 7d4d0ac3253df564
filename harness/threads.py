"""One thread budget per trial: BLAS/OpenMP pools, numba and torch (no oversubscription
when a parallel launcher runs several trials at once).

numba and torch are limited where they are loaded, never imported for the purpose: importing
numba costs about a second (billed to the first metric a trial times) and starts its threading
layer in the sweep process. Where numba is not loaded yet, ``NUMBA_NUM_THREADS`` is set for the
duration of the block (unless the user set it), so a library that imports numba inside the
block starts with the trial's budget; numba reads it once per process, so that process's numba
then never uses more threads than the first such block allowed. ``PRIVBENCH_LAZY_IMPORTS=0``
restores the import (the behaviour before issue 15; see :func:`lazy_imports`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import threadpool_limits

LAZY_IMPORTS_ENV = "PRIVBENCH_LAZY_IMPORTS"


def lazy_imports() -> bool:
    """False when ``PRIVBENCH_LAZY_IMPORTS=0``: heavy modules imported as before issue 15.

    The switch exists for ``benchmarks/bench_trial_overhead`` (old and new import behaviour
    side by side); results do not depend on it.
    """
    return os.environ.get(LAZY_IMPORTS_ENV, "1") != "0"


@contextmanager
def limit_threads(threads: int) -> Iterator[None]:
    """Limit BLAS/OpenMP pools, numba's parallel regions and torch's intra-op pool to ``threads``."""
    threads = int(threads)
    numba = _numba()
    previous_numba = None
    env_set = False
    if numba is not None:
        previous_numba = numba.get_num_threads()
        available = int(getattr(numba.config, "NUMBA_NUM_THREADS", 1))
        numba.set_num_threads(max(1, min(threads, available)))
    elif "NUMBA_NUM_THREADS" not in os.environ:
        os.environ["NUMBA_NUM_THREADS"] = str(max(1, threads))
        env_set = True
    torch = sys.modules.get("torch")
    previous_torch = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        with threadpool_limits(limits=threads):
            yield
    finally:
        if numba is not None and previous_numba is not None:
            numba.set_num_threads(previous_numba)
        if env_set:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        if torch is not None and previous_torch is not None:
            torch.set_num_threads(previous_torch)


def _numba() -> Any:
    """numba if it is loaded (or, with ``PRIVBENCH_LAZY_IMPORTS=0``, imported now), else None."""
    if lazy_imports():
        return sys.modules.get("numba")
    import numba

    return numba
