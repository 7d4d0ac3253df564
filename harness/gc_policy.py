"""The garbage collector around a command's imports (tracker issue 18).

Importing the scientific stack a trial needs (scikit-learn, SciPy, pandas, Hydra, Anonymeter
with numba and polars) creates some 265,000 tracked objects. With the collector on, CPython
runs a full collection each time the long-lived heap has grown by a quarter, so the imports
scan the growing heap over and over: importing ``harness.app`` took 2.2-2.4 s with the
collector on and 1.9-2.2 s paused (five interleaved pairs on the 2-core machine), and every
later full collection of the process scans those objects again although they live as long
as the process (later imports of scikit-learn's ensembles: 0.19-0.29 s, 0.08-0.21 s frozen).
``benchmarks/bench_trial_overhead.py`` compares whole commands (configuration ``gc paused``).

So a command:

1. pauses the collector when the process starts (:func:`pause_for_startup`);
2. after the harness and its libraries are imported, moves what the imports created
   (modules, classes, functions: objects that live as long as the process) to the
   permanent generation with :func:`gc.freeze`, and turns the collector back on
   (:func:`resume_after_startup`); later collections scan only what trials create. There is
   no collection before the freeze: it cost 0.15 s, as much as the pause saved, to free the
   imports' cyclic garbage (about 1 MB of peak RSS, measured), which stays frozen instead;
3. pauses it again around a metric's first-use imports inside a trial (:func:`paused`; no
   freeze there, the trial's own objects must stay collectable).

Nothing is computed differently: objects are freed by reference counting as before, and
cyclic garbage of the spans paused inside a trial is collected when the collector runs
again. ``PRIVBENCH_GC_PAUSE=0`` leaves the collector as Python sets it (the benchmark's
baseline).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

GC_PAUSE_ENV = "PRIVBENCH_GC_PAUSE"
"""``0`` leaves the garbage collector as Python sets it."""

_startup_pause = False
"""Whether :func:`pause_for_startup` turned the collector off (and nothing turned it on since)."""


def gc_pause_enabled() -> bool:
    """False when ``PRIVBENCH_GC_PAUSE=0``."""
    return os.environ.get(GC_PAUSE_ENV, "1").strip() != "0"


def pause_for_startup() -> None:
    """Turn the collector off for the command's imports (the process's first step)."""
    global _startup_pause
    if gc_pause_enabled() and gc.isenabled():
        gc.disable()
        _startup_pause = True


def resume_after_startup() -> None:
    """End the startup pause: what the imports created frozen, the collector on again.

    Does nothing unless :func:`pause_for_startup` paused the collector, so a caller that
    imports privbench as a library (tests, notebooks) keeps its own collector settings.
    """
    global _startup_pause
    if not _startup_pause:
        return
    _startup_pause = False
    gc.freeze()
    gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block (imports of a metric's libraries), then as before."""
    if not (gc_pause_enabled() and gc.isenabled()):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
