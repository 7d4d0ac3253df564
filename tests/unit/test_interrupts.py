"""A Ctrl-C swallowed where Python ignores exceptions is still honoured (``harness.interrupts``)."""

from __future__ import annotations

import os
import signal

import pytest

from harness import interrupts


def swallowed_interrupt() -> None:
    """SIGINT raised where the exception is lost (as in an at-fork hook or a ``__del__``)."""
    try:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # the handler runs between bytecodes
            pass
    except KeyboardInterrupt:
        pass


def test_a_swallowed_interrupt_is_raised_at_the_next_check() -> None:
    before = signal.getsignal(signal.SIGINT)
    with interrupts.catching():
        interrupts.check()  # nothing yet
        swallowed_interrupt()
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
    assert signal.getsignal(signal.SIGINT) is before  # restored
    interrupts.check()  # forgotten once the command is over


def test_without_the_block_sigint_is_pythons_own() -> None:
    swallowed_interrupt()  # the default handler raises; nothing remembers it
    interrupts.check()
