"""A progress line while a long stage of a trial runs (fit and sample, one metric).

Nothing is printed for stages that end within the interval; a stage that takes longer logs
``still <stage> (<elapsed>): <trial>`` every interval on privbench's logger, so a sweep of
UMAP-SMOTENC or MST trials is not minutes of silence. The interval is
``$PRIVBENCH_PROGRESS_S`` seconds (default 60; 0 switches the lines off).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger("privbench")
INTERVAL_ENV = "PRIVBENCH_PROGRESS_S"
DEFAULT_INTERVAL_S = 60.0


def interval_s() -> float:
    """Seconds between progress lines (``$PRIVBENCH_PROGRESS_S``; 0 = off)."""
    try:
        return max(0.0, float(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL_S)))
    except ValueError:
        return DEFAULT_INTERVAL_S


def elapsed_text(seconds: float) -> str:
    """``45 s``, ``3 min 05 s``, ``1 h 02 min``."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


@contextmanager
def stage(what: str, trial: str) -> Iterator[None]:
    """Log ``still <what> (<elapsed>): <trial>`` every interval until the block ends."""
    every = interval_s()
    if every <= 0:
        yield
        return
    done = threading.Event()
    start = time.monotonic()

    def beat() -> None:
        while not done.wait(every):
            log.info("still %s (%s): %s", what, elapsed_text(time.monotonic() - start), trial)

    thread = threading.Thread(target=beat, name="privbench-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=1.0)
