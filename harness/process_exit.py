"""Ending the ``privbench`` command without the interpreter's module teardown.

When a ``privbench`` process returns from :func:`harness.cli.main`, CPython's finalisation
still tears down every loaded module and collects what they hold: with pandas, scipy,
scikit-learn, Hydra (and numba, polars, Anonymeter after a default-suite trial) that took
0.5-1.0 s of the process's wall time on the 2-core machine, 10-20 % of a one-trial run and
paid again by every SLURM job. Nothing privbench writes depends on it: its files are written
atomically and closed before ``main`` returns.

:func:`exit_process` does what the interpreter's shutdown does that has observable effects,
in the same order, and then ends the process with ``os._exit``:

1. ``threading._shutdown``: the hooks of ``threading._register_atexit`` (thread and process
   pool executors wake their workers) and a join of every non-daemon thread;
2. the ``atexit`` handlers (logging's ``shutdown`` flushes and closes log files,
   ``multiprocessing`` and joblib/loky clean up their children and temporary folders,
   ``weakref.finalize(..., atexit=True)`` finalisers);
3. ``sys.stdout`` and ``sys.stderr`` flushed (a closed pipe is ignored, as the interpreter
   does for ``privbench list | head``).

Skipped: the module teardown and the final garbage collection, i.e. ``__del__`` methods of
objects still alive at exit. ``PRIVBENCH_FAST_EXIT=0`` restores the ordinary exit.
``tests/integration/test_process_exit.py`` checks that the files, the output and the exit
codes of real commands are the same either way.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

FAST_EXIT_ENV = "PRIVBENCH_FAST_EXIT"
"""``0`` turns the fast exit off (the interpreter's ordinary teardown)."""


def fast_exit_enabled() -> bool:
    """False when ``PRIVBENCH_FAST_EXIT=0``."""
    return os.environ.get(FAST_EXIT_ENV, "1").strip() != "0"


def exit_process(code: int) -> NoReturn:
    """End the process with ``code`` after the shutdown steps that matter (module docstring)."""
    if not fast_exit_enabled():
        sys.exit(code)
    end_process(code)


def end_process(code: int) -> NoReturn:
    """The shutdown steps of :func:`exit_process`, then ``os._exit(code)``, whatever the switch says.

    A command served by the warm worker ends this way (:mod:`harness.worker_server`): its
    process is a fork of the worker, whose teardown is not the command's to run.
    """
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream
            stream.flush()
    os._exit(code)
