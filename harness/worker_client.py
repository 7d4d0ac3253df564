"""A ``privbench`` command's side of the warm worker, and ``privbench worker start|stop|status``.

:func:`run_in_worker` is the console script's first step: when a worker of this user,
interpreter and checkout is listening (:mod:`harness.worker_server`), the command is handed
to it and this process only waits, forwarding signals; otherwise (no worker, a declined
request, ``PRIVBENCH_WORKER=0``) it returns None and the command runs here as always. This
module imports nothing heavy: an unserved command pays a ``stat`` for it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from harness.worker_protocol import (
    CHECKOUT,
    WORKER_ENV,
    client_context,
    log_path,
    owned_socket,
    private_dir,
    receive_message,
    send_message,
    socket_path,
)

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""Signals a served command passes on to the worker's child running it."""
START_TIMEOUT_S = 300.0
MAX_SOCKET_PATH = 107
"""Bytes of a Unix socket's path on Linux (``sun_path`` holds 108 with the terminating NUL)."""


def run_in_worker(argv: list[str], context: dict[str, Any] | None = None) -> int | None:
    """Run ``privbench ARGV`` in the warm worker; its exit code, or None when not served.

    Parameters
    ----------
    argv : list of str
        The command's arguments (without the program name).
    context : dict, optional
        :func:`harness.worker_protocol.client_context` of the command (default: taken now,
        once a worker is found; nothing may have changed the process before).
    """
    if os.environ.get(WORKER_ENV, "1").strip() == "0" or (argv and argv[0] == "worker"):
        return None
    connection = _connect()
    if connection is None:
        return None
    if context is None:
        context = client_context()
    with connection:
        try:
            send_message(connection, {"op": "run", "argv": argv, "context": context}, fds=[0, 1, 2])
            reply, _ = receive_message(connection)
        except OSError:  # a closed standard stream, a worker that just went away
            return None
        if "declined" in reply:
            print(f"privbench: not run in the warm worker: {reply['declined']}", file=sys.stderr)
            return None
        group = int(reply["pid"])
        previous = {number: signal.signal(number, _forward_to(group)) for number in FORWARDED}
        try:
            reply, _ = receive_message(connection)
        except ConnectionError:
            print("privbench: error: the warm worker ended without the command's exit code", file=sys.stderr)
            return 1
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
    return int(reply["exit"])


def _forward_to(group: int) -> Any:
    def forward(number: int, frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, number)

    return forward


def _connect() -> socket.socket | None:
    path = socket_path()
    if not owned_socket(path):
        return None
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(str(path))
    except OSError:  # a socket file left by a worker that died
        connection.close()
        return None
    return connection


def _ask(operation: str) -> dict[str, Any] | None:
    """The worker's answer to ``status`` or ``stop``; None when no worker answers."""
    connection = _connect()
    if connection is None:
        return None
    with connection:
        try:
            send_message(connection, {"op": operation})
            reply, _ = receive_message(connection)
        except OSError:
            return None
    return reply


def worker_status() -> dict[str, Any] | None:
    """The running worker's status (pid, commands served and running, ...); None when none runs."""
    return _ask("status")


def worker_command(action: str, idle_minutes: float, startup_environment: dict[str, str]) -> int:
    """``privbench worker start|stop|status``; returns the exit code.

    Parameters
    ----------
    action : {"start", "stop", "status"}
    idle_minutes : float
        ``start``: minutes without a command after which the worker stops.
    startup_environment : dict
        The environment the command started with (the worker must start in the one its
        commands will have, before privbench set its own defaults).
    """
    if action == "status":
        status = _ask("status")
        if status is None:
            print("privbench: no warm worker is running for this interpreter and checkout")
            return 1
        print(_describe(status))
        return 0
    if action == "stop":
        if _ask("stop") is None:
            print("privbench: no warm worker is running for this interpreter and checkout")
            return 1
        _wait_gone(socket_path())
        print("privbench: warm worker stopped")
        return 0
    if idle_minutes <= 0:
        from harness.errors import ConfigError

        raise ConfigError(f"worker start --idle-minutes must be > 0; got {idle_minutes:g}")
    status = _ask("status")
    if status is not None and status.get("changed") is None:
        print(f"privbench: a warm worker is already running: {_describe(status)}")
        return 0
    if status is not None:  # code changed: replace it
        _ask("stop")
        _wait_gone(socket_path())
    return _start(idle_minutes, startup_environment)


def _start(idle_minutes: float, environment: dict[str, str]) -> int:
    path = socket_path()
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        from harness.errors import ConfigError

        raise ConfigError(
            f"{path}: the worker's socket path has {len(os.fsencode(path))} bytes, Unix sockets allow "
            f"{MAX_SOCKET_PATH}; set PRIVBENCH_WORKER_DIR to a shorter folder"
        )
    private_dir()  # created, or refused (another owner, open mode) before anything starts
    log = log_path()
    start = time.monotonic()
    process = spawn_worker(idle_minutes, environment)
    while time.monotonic() - start < START_TIMEOUT_S:
        if process.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
            print(f"privbench: error: the warm worker did not start: {tail[0]} (log: {log})", file=sys.stderr)
            return 1
        status = _ask("status")
        if status is not None:
            print(
                f"privbench: warm worker ready in {time.monotonic() - start:.1f} s (pid {status['pid']}); "
                f"commands of this interpreter, checkout and environment start warm until it has been "
                f"idle {idle_minutes:g} min or `privbench worker stop`"
            )
            return 0
        time.sleep(0.1)
    process.kill()
    print(
        f"privbench: error: the warm worker did not answer within {START_TIMEOUT_S:g} s (log: {log})",
        file=sys.stderr,
    )
    return 1


def spawn_worker(idle_minutes: float, environment: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start ``python -m harness.worker_server`` detached, in ``environment``, logging to :func:`log_path`."""
    with open(log_path(), "ab") as log, open(os.devnull, "rb") as devnull:
        return subprocess.Popen(
            [sys.executable, "-m", "harness.worker_server", "--idle-minutes", f"{idle_minutes:g}"],
            cwd=CHECKOUT, env=environment, stdin=devnull, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip


def _wait_gone(path: Path, timeout_s: float = 30.0) -> None:
    end = time.monotonic() + timeout_s
    while path.exists() and time.monotonic() < end:
        time.sleep(0.05)


def _describe(status: dict[str, Any]) -> str:
    age_min = (time.time() - float(status["started"])) / 60
    changed = (
        f"; stale: {status['changed']} changed (it stops at the next command)"
        if status.get("changed")
        else ""
    )
    return (
        f"warm worker pid {status['pid']}, up {age_min:.1f} min, {status['served']} command(s) served, "
        f"{status['running']} running, stops after {float(status['idle_s']) / 60:g} min idle; "
        f"socket {status['socket']}{changed}"
    )


__all__ = ["FORWARDED", "run_in_worker", "worker_command", "worker_status"]
