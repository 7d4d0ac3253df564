"""Ctrl-C that is not lost: an interrupt remembered and honoured at the next trial.

Python turns SIGINT into ``KeyboardInterrupt`` wherever the main thread is. When that is inside
a callback whose exceptions Python ignores (an ``os.register_at_fork`` hook such as logging's,
run each time a trial forks its fit child; a ``__del__``), the exception is printed as
"Exception ignored" and lost, and a sweep went on to its last trial (seen in
``tests/integration/test_worker.py``: about one Ctrl-C in three on an ``identity`` sweep,
whose trials fork often). :func:`catching` records every SIGINT before raising, and
:func:`check` (called when a trial starts, :func:`harness.app.run_job`) raises again for
one that was swallowed, so the command ends with "privbench: interrupted" and exit code 130.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_interrupted = False


def _on_sigint(number: int, frame: FrameType | None) -> None:
    global _interrupted
    _interrupted = True
    raise KeyboardInterrupt


@contextmanager
def catching() -> Iterator[None]:
    """Within the block SIGINT is remembered as well as raised (main thread; else nothing)."""
    global _interrupted
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _interrupted = False
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _interrupted = False


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a SIGINT arrived that nothing has acted on."""
    if _interrupted:
        raise KeyboardInterrupt
