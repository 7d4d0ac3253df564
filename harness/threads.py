"""One thread budget per trial: BLAS/OpenMP pools, numba and torch (no oversubscription
when a parallel launcher runs several trials at once).

numba and torch are limited where they are loaded, never imported for the purpose: importing
numba costs about a second (billed to the first metric a trial times) and starts its threading
layer in the sweep process. Where numba is not loaded yet, ``NUMBA_NUM_THREADS`` is set for the
duration of the block (unless the user set it), so a library that imports numba inside the
block starts with the trial's budget; numba sizes its pool once per process, so that process's
numba then never uses more threads than the first such block allowed. When numba was imported
inside the block the variable stays set for the rest of the process (and its children): numba
re-reads it at every compilation and refuses a value other than its pool's (issue 28: with a
cold numba cache every trial after the first import lost its Anonymeter rows). ``PRIVBENCH_LAZY_IMPORTS=0``
restores the import (the behaviour before issue 15; see :func:`lazy_imports`).

threadpoolctl finds the BLAS/OpenMP libraries by scanning every loaded shared object and
opening the matching ones (about 6 ms a call; a trial enters a budget a dozen times). The
controller is kept per process and rescanned only when the number of loaded shared objects
changes (:func:`_controller`; counting them costs 0.2 ms), so a library loaded later, with an
import or ``dlopen``, is still limited. A forked child inherits it with the libraries it lists.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController

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
        with _controller().limit(limits=threads):
            yield
    finally:
        if numba is not None and previous_numba is not None:
            numba.set_num_threads(previous_numba)
        if env_set and "numba" not in sys.modules:
            # Kept once numba was imported under it: numba re-reads the variable whenever it
            # compiles (``reload_config``), and a value other than the one its thread pool was
            # launched with raises "Cannot set NUMBA_NUM_THREADS to a different value once the
            # threads have been launched" (a cold on-disk cache compiles; a warm one does not).
            os.environ.pop("NUMBA_NUM_THREADS", None)
        if torch is not None and previous_torch is not None:
            torch.set_num_threads(previous_torch)


def pin_numba_pool() -> None:
    """Where numba is loaded, set ``NUMBA_NUM_THREADS`` to the size of its pool (if unset).

    For a process whose environment was replaced after numba started its pool (the warm
    worker's command, which takes its client's environment): numba re-reads the variable at
    every compilation and refuses a value other than its pool's.
    """
    numba = sys.modules.get("numba")
    if numba is not None and "NUMBA_NUM_THREADS" not in os.environ:
        os.environ["NUMBA_NUM_THREADS"] = str(int(numba.config.NUMBA_NUM_THREADS))


def _numba() -> Any:
    """numba if it is loaded (or, with ``PRIVBENCH_LAZY_IMPORTS=0``, imported now), else None."""
    if lazy_imports():
        return sys.modules.get("numba")
    import numba

    return numba


def warm_thread_budget() -> None:
    """Scan the loaded libraries now, so processes forked next inherit the controller."""
    _controller()


_CACHED: tuple[int, ThreadpoolController] | None = None
_PHDR_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


def _controller() -> ThreadpoolController:
    """This process's threadpoolctl controller, rescanned when a shared object was loaded or unloaded."""
    global _CACHED
    loaded = _loaded_objects()
    if _CACHED is None or loaded is None or _CACHED[0] != loaded:
        controller = ThreadpoolController()
        _CACHED = None if loaded is None else (loaded, controller)
        return controller
    return _CACHED[1]


def _loaded_objects() -> int | None:
    """How many shared objects the process has loaded (``dl_iterate_phdr``), or None where unknown."""
    try:
        iterate = ctypes.CDLL(None).dl_iterate_phdr
    except (AttributeError, OSError):  # not glibc / ELF (macOS, Windows): no cache
        return None
    count = 0

    def visit(info: int, size: int, data: int) -> int:
        nonlocal count
        count += 1
        return 0

    iterate(_PHDR_CALLBACK(visit), None)
    return count
