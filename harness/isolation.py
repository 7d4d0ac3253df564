"""Run a function in a killable child process with a time and memory limit.

The parent polls the child's process tree at 10 Hz: it records the peak resident set
size (RSS, summed over the tree) and kills the tree when the wall time exceeds
``timeout_s`` (status ``timeout``) or the RSS exceeds ``max_memory_mb`` (status ``oom``).
The child reports its own ``ru_maxrss`` as a cross-check. Only small results travel
back through the pipe; bulk data is exchanged through files.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import resource
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Literal

import psutil

from harness.errors import ConfigError

Status = Literal["ok", "error", "timeout", "oom"]
POLL_S = 0.1


@dataclass(frozen=True)
class ChildOutcome:
    """What happened in the child.

    Attributes
    ----------
    status : {"ok", "error", "timeout", "oom"}
    value : Any
        The function's return value (``status == "ok"``), else None.
    error : str
        One-line error summary plus the traceback tail, or "" on success.
    error_type : str
        Exception class name raised in the child ("" if none).
    peak_rss_mb : float
        Peak RSS of the child's process tree (polled) or its ``ru_maxrss``, whichever is larger.
    wall_s : float
    """

    status: Status
    value: Any
    error: str
    error_type: str
    peak_rss_mb: float
    wall_s: float


def run_isolated(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    *,
    timeout_s: float | None,
    max_memory_mb: float | None,
    start_method: str = "fork",
) -> ChildOutcome:
    """Call ``fn(*args)`` in a child process under limits.

    Parameters
    ----------
    fn : callable
        Must be importable (module-level) when ``start_method`` is not ``fork``.
    args : tuple
    timeout_s : float or None
        Wall-clock limit; None = unlimited.
    max_memory_mb : float or None
        RSS limit of the child's process tree; None = unlimited.
    start_method : {"fork", "spawn", "forkserver"}

    Returns
    -------
    ChildOutcome
    """
    if timeout_s is not None and timeout_s <= 0:
        raise ConfigError(f"runtime.timeout_s must be > 0 or null; got {timeout_s!r}")
    if max_memory_mb is not None and max_memory_mb <= 0:
        raise ConfigError(f"runtime.max_memory_mb must be > 0 or null; got {max_memory_mb!r}")
    ctx: Any = mp.get_context(start_method)
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(sender, fn, args), daemon=False)
    start = time.perf_counter()
    proc.start()
    sender.close()
    peak_mb = 0.0
    message: tuple[Any, ...] | None = None
    status: Status | None = None
    try:
        handle = psutil.Process(proc.pid)
    except psutil.NoSuchProcess:
        handle = None
    while True:
        if message is None and receiver.poll(POLL_S):
            try:
                message = receiver.recv()
            except EOFError:
                message = None
                proc.join(5)
                break
        if handle is not None:
            peak_mb = max(peak_mb, _tree_rss_mb(handle))
        if message is not None:
            proc.join(30)
            break
        if not proc.is_alive():
            proc.join()
            if receiver.poll(0):
                try:
                    message = receiver.recv()
                except EOFError:
                    message = None
            break
        elapsed = time.perf_counter() - start
        if timeout_s is not None and elapsed > timeout_s:
            status = "timeout"
            break
        if max_memory_mb is not None and peak_mb > max_memory_mb:
            status = "oom"
            break
    wall = time.perf_counter() - start
    if status is not None or proc.is_alive():
        _kill_tree(proc.pid)
        proc.join(10)
    receiver.close()
    if status == "timeout":
        return ChildOutcome(
            "timeout",
            None,
            f"timed out after {timeout_s:g} s (runtime.timeout_s)",
            "TimeoutError",
            peak_mb,
            wall,
        )
    if status == "oom":
        return ChildOutcome(
            "oom", None, f"exceeded {max_memory_mb:g} MB of memory (runtime.max_memory_mb); peak {peak_mb:.0f} MB",
            "MemoryError", peak_mb, wall,
        )  # fmt: skip
    if message is None:
        code = proc.exitcode
        if code is not None and code < 0 and -code == 9:
            return ChildOutcome(
                "oom", None, "worker killed by SIGKILL (likely out of memory)", "MemoryError", peak_mb, wall
            )
        return ChildOutcome(
            "error",
            None,
            f"worker exited with code {code} without a result",
            "ChildProcessError",
            peak_mb,
            wall,
        )
    kind, payload, error_type, child_peak_mb = message
    peak_mb = max(peak_mb, child_peak_mb)
    if kind == "ok":
        return ChildOutcome("ok", payload, "", "", peak_mb, wall)
    if error_type == "MemoryError":
        return ChildOutcome("oom", None, payload, error_type, peak_mb, wall)
    return ChildOutcome("error", None, payload, error_type, peak_mb, wall)


def _child_main(sender: Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Child body: run ``fn``, send the outcome, exit at once.

    The child exits with ``os._exit`` right after sending: multiprocessing would otherwise join
    every non-daemon thread a library left behind (torch / SDV leave such threads), which kept
    SDV trials waiting up to the parent's 30 s join timeout after their result was in. Processes
    the child started (a library's worker pool) are killed first, as the parent's timeout kill did.
    """
    code = 0
    try:
        value = fn(*args)
        message: tuple[Any, ...] = ("ok", value, "", _own_peak_mb())
    except BaseException as exc:
        message = ("error", format_error(exc), type(exc).__name__, _own_peak_mb())
    try:
        sender.send(message)
    except BaseException:
        code = 1
    finally:
        sender.close()
        _kill_descendants()  # e.g. joblib/loky workers a library started: orphans would outlive the trial
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        os._exit(code)


def format_error(exc: BaseException, *, frames: int = 3) -> str:
    """One summary line (``Type: message``) followed by the last ``frames`` traceback lines."""
    summary = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    tail = traceback.format_exception(type(exc), exc, exc.__traceback__)
    lines = [line.rstrip() for chunk in tail[-frames - 1 : -1] for line in chunk.splitlines()]
    return summary + ("\n" + "\n".join(lines) if lines else "")


def _own_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _tree_rss_mb(handle: psutil.Process) -> float:
    total = 0
    try:
        procs = [handle, *handle.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total / 2**20


def _kill_descendants() -> None:
    """Kill every process this process started (recursively); they must not outlive it."""
    try:
        procs = psutil.Process().children(recursive=True)
    except psutil.Error:
        return
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            continue
    psutil.wait_procs(procs, timeout=5)


def _kill_tree(pid: int) -> None:
    try:
        parent = psutil.Process(pid)
        procs = [*parent.children(recursive=True), parent]
    except psutil.Error:
        return
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            continue
    psutil.wait_procs(procs, timeout=5)
