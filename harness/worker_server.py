"""The warm worker: a local process that has imported what a trial needs and forks per command.

A fresh ``privbench`` process spends about 3 s before its first trial does any work: the
imports of scikit-learn (with SciPy's statistics), pandas, Hydra and Anonymeter (numba,
polars), the first use of Anonymeter's compiled kernels and Hydra's plugin scan (tracker
issue 18; ``benchmarks/bench_trial_overhead.py``). ``privbench worker start`` starts this
module as a background process that does all of that once; while it runs, a ``privbench``
command of the same user, interpreter, checkout and environment (:mod:`harness.worker_protocol`)
hands its arguments, working directory, environment and terminal to the worker, which forks a
child that runs the command exactly as :func:`harness.cli.main` would, writing to the
command's own standard output and error; the command waits and exits with the child's code.

Each command runs in a fresh fork of the worker as it was after its imports: nothing one
command does (caches, globals, loaded plugins) reaches the next. What can make a served
command differ from an unserved one is excluded rather than handled:

- **Changed code**: before serving, the worker compares the modification time and size of
  every module file it has loaded with those it loaded; if one changed (an edit, a
  ``pip install``), it declines, says which file, and hands over to a new worker that imports
  the code anew (same environment and idle limit), and the command runs in its own process as
  usual. A module the command imports later is read from disk by the child.
- **Another context**: another interpreter or interpreter options, import path, user, resource limits or priority,
  or any environment variable that differs, except the few privbench reads only while a
  command runs (:data:`~harness.worker_protocol.RUN_TIME_VARIABLES`): the command runs
  unserved, with a one-line note; the worker stays.
- **Signals**: the command forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to the child's process
  group (a Ctrl-C interrupts the trial and its fit child as it would unserved); when the
  command itself disappears, the child's group gets SIGHUP. Exit codes are the child's
  (128 + N for a child ended by signal N).

The worker accepts connections only from its own user (a 0700 folder, and the peer's
credentials checked on every connection) and stops after ``--idle-minutes`` without a
command, or with ``privbench worker stop``. ``PRIVBENCH_WORKER=0`` makes a command ignore it.
It is for interactive and local work; SLURM jobs already pay the imports once per job
(``trials_per_job``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import select
import signal
import socket
import struct
import sys
import time
import traceback
from pathlib import Path
from typing import Any, NoReturn

from harness.threads import pin_numba_pool
from harness.worker_protocol import (
    CHECKOUT,
    client_context,
    context_differences,
    private_dir,
    receive_message,
    send_message,
    socket_path,
)

PRELOAD_MODULES: tuple[str, ...] = (
    "harness.app", "harness.preflight", "harness.cli", "sklearn.ensemble", "sklearn.neighbors",
    "sklearn.model_selection", "sklearn.linear_model", "scipy.stats", "pyarrow.parquet",
)  # fmt: skip
"""Imported when the worker starts (the harness and the libraries of the shipped suites)."""
PRELOAD_METRICS: tuple[str, ...] = (
    "dcr_nndr", "anonymeter_linkability", "ml_efficacy", "ks_complement", "tv_complement",
)  # fmt: skip
"""Metrics built and warmed up when the worker starts (the default and fast suites)."""
PRELOAD_ENV = "PRIVBENCH_WORKER_PRELOAD"
"""Comma-separated further modules the worker imports at start (e.g. your own plugins)."""

_UCRED = struct.Struct("3i")


class _Stop(Exception):
    """Ends the serving loop."""


class _Restart(_Stop):
    """Ends the serving loop; a new worker with the changed code takes over."""


class ModuleFiles:
    """Modification time and size of every loaded module's file, to notice changed code.

    The folders of the import path are included: installing or removing a package changes
    ``site-packages`` (a new Hydra plugin, a new version beside the loaded one). The checkout's
    own folder is not: files come and go there (``results/``, an editor's save) without
    changing code, and its loaded modules are followed file by file.
    """

    def __init__(self) -> None:
        self.files: dict[str, tuple[int, int]] = {}
        paths = [getattr(module, "__file__", None) for module in list(sys.modules.values())]
        folders = [p for p in sys.path if p and Path(p).resolve() != CHECKOUT]
        for path in [*paths, *folders]:
            if isinstance(path, str) and path and path not in self.files:
                with contextlib.suppress(OSError):
                    status = os.stat(path)
                    self.files[path] = (status.st_mtime_ns, status.st_size)

    def changed(self) -> str | None:
        """The first file that changed or disappeared since the snapshot, else None."""
        for path, (mtime, size) in self.files.items():
            try:
                status = os.stat(path)
            except OSError:
                return path
            if (status.st_mtime_ns, status.st_size) != (mtime, size):
                return path
        return None


def preload() -> None:
    """Import and warm what trials need (:data:`PRELOAD_MODULES`, :data:`PRELOAD_METRICS`)."""
    from harness.gc_policy import pause_for_startup, resume_after_startup

    pause_for_startup()
    try:
        for name in PRELOAD_MODULES:
            importlib.import_module(name)
        from harness.instantiate import build_metric
        from harness.trial_metrics import warm_up

        for metric in PRELOAD_METRICS:
            warm_up(build_metric(metric), threads=1)
        from harness.preflight import compose_job, hydra_context

        with hydra_context():  # Hydra's plugin scan and first composition; its global state is cleared
            compose_job([])
        extra = [m.strip() for m in os.environ.get(PRELOAD_ENV, "").split(",") if m.strip()]
        for name in extra:
            importlib.import_module(name)
    finally:
        resume_after_startup()


class Worker:
    """The serving loop (see the module notes)."""

    def __init__(self, idle_s: float) -> None:
        self.idle_s = idle_s
        self.context = client_context()  # taken before anything is imported or set
        self.started = time.time()
        self.served = 0
        self.sessions: set[int] = set()
        self.path = socket_path()
        self.listener: socket.socket | None = None
        self.files: ModuleFiles | None = None

    def run(self) -> int:
        """Import, listen, serve until idle or stopped; returns the process's exit code."""
        folder = private_dir()
        from harness.cli import setup_environment

        setup_environment()
        preload()
        self.files = ModuleFiles()
        self.listener = self._listen()
        pid_file = folder / f"{self.path.stem}.pid"
        pid_file.write_text(f"{os.getpid()}\n")
        print(f"privbench worker: ready (pid {os.getpid()}, {self.path})", flush=True)
        last = time.monotonic()
        restart = False
        try:
            while True:
                self._reap()
                if self.sessions:
                    last = time.monotonic()
                remaining = self.idle_s - (time.monotonic() - last)
                if remaining <= 0:
                    print("privbench worker: idle, stopping", flush=True)
                    break
                ready, _, _ = select.select([self.listener], [], [], min(remaining, 1.0))
                if not ready:
                    continue
                connection, _ = self.listener.accept()
                with connection:
                    try:
                        self._handle(connection)
                    except _Restart:
                        restart = True
                        break
                    except _Stop:
                        break
                    except Exception as exc:  # a client that went away, a malformed request
                        print(f"privbench worker: a request failed: {type(exc).__name__}: {exc}", flush=True)
                last = time.monotonic()
        finally:
            with contextlib.suppress(OSError):
                if self.path.exists() and self.listener is not None:
                    self.path.unlink()
            with contextlib.suppress(OSError):
                pid_file.unlink()
        if restart:
            self._replace()
        return 0

    def _replace(self) -> None:
        """Start a worker like this one (same environment and idle limit) that imports the code anew."""
        from harness.worker_client import spawn_worker

        print("privbench worker: code changed, starting a new worker", flush=True)
        spawn_worker(self.idle_s / 60, self.context["environment"])

    def _listen(self) -> socket.socket:
        if self.path.exists():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(str(self.path))
            except OSError:
                self.path.unlink()  # a worker that died without cleaning up
            else:
                raise SystemExit(f"privbench worker: another worker already listens on {self.path}")
            finally:
                probe.close()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        os.chmod(self.path, 0o600)
        listener.listen(16)
        return listener

    def _reap(self) -> None:
        for pid in list(self.sessions):
            with contextlib.suppress(ChildProcessError):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if not done:
                    continue
            self.sessions.discard(pid)

    def _handle(self, connection: socket.socket) -> None:
        raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
        _, uid, _ = _UCRED.unpack(raw)
        if uid != os.getuid():
            return  # another user: no answer
        message, fds = receive_message(connection, max_fds=3)
        try:
            operation = message.get("op")
            if operation == "status":
                send_message(connection, self._status())
                return
            if operation == "stop":
                send_message(connection, {"stopping": True})
                raise _Stop
            if operation != "run" or len(fds) != 3:
                send_message(connection, {"declined": "malformed request"})
                return
            assert self.files is not None
            changed = self.files.changed()
            if changed is not None:
                send_message(
                    connection,
                    {
                        "declined": f"{changed} changed since the worker started; it restarts with the new code",
                        "stopping": True,
                    },
                )
                raise _Restart
            reason = context_differences(self.context, message["context"])
            if reason is not None:
                send_message(connection, {"declined": reason})
                return
            pid = os.fork()
            if pid == 0:
                self._session(connection, message, fds)
            self.sessions.add(pid)
            self.served += 1
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _status(self) -> dict[str, Any]:
        self._reap()
        return {
            "pid": os.getpid(),
            "socket": str(self.path),
            "started": self.started,
            "served": self.served,
            "running": len(self.sessions),
            "children_cpu_s": sum(os.times()[2:4]),  # children user + system: the finished commands
            "idle_s": self.idle_s,
            "changed": None if self.files is None else self.files.changed(),
        }

    def _session(self, connection: socket.socket, message: dict[str, Any], fds: list[int]) -> NoReturn:
        """Child of the worker: fork the command, report its pid, wait, report its exit code."""
        code = 1
        try:
            if self.listener is not None:
                self.listener.close()
            command = os.fork()
            if command == 0:
                connection.close()
                _command(message, fds)
            for fd in fds:
                os.close(fd)
            with contextlib.suppress(OSError):
                os.setpgid(command, command)
            send_message(connection, {"pid": command})
            status = _wait(command, connection)
            exit_code = os.waitstatus_to_exitcode(status)
            send_message(connection, {"exit": exit_code if exit_code >= 0 else 128 - exit_code})
            code = 0
        except BaseException:  # the worker's child must never return into the serving loop
            traceback.print_exc()
        finally:
            os._exit(code)


def _wait(pid: int, connection: socket.socket) -> int:
    """Wait for the command; SIGHUP its process group if the client hangs up first.

    The command's end wakes the wait at once through a process file descriptor (Linux 5.3+;
    elsewhere the wait polls every 20 ms), so a served command ends when its child does.
    """
    try:
        process: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        process = None
    watched: list[Any] = [connection]
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            ready, _, _ = select.select(
                watched + ([process] if process is not None else []),
                [],
                [],
                0.02 if process is None else None,
            )
            if connection in ready and not connection.recv(1):  # the client went away
                watched = []
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGHUP)
    finally:
        if process is not None:
            os.close(process)


def _command(message: dict[str, Any], fds: list[int]) -> NoReturn:
    """Grandchild of the worker: become the client's command and run it."""
    code = 1
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
            signal.signal(number, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _reopen_standard_streams()
        context = message["context"]
        os.chdir(context["cwd"])
        os.umask(int(context["umask"]))
        os.environ.clear()
        os.environ.update(context["environment"])
        pin_numba_pool()  # the warm-up started numba's pool; its size must stay what numba re-reads
        time.tzset()
        sys.path[:] = [context["path0"], *context["path"]]
        argv = [str(a) for a in message["argv"]]
        sys.argv = ["privbench", *argv]
        _reseed_global_random_state()
        from harness.cli import main
        from harness.process_exit import end_process

        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        end_process(code)
    except BaseException:
        traceback.print_exc()
        with contextlib.suppress(Exception):
            sys.stderr.flush()
    os._exit(code)


def _reopen_standard_streams() -> None:
    """Text streams over the client's descriptors, buffered as Python buffers a terminal or pipe."""
    encoding = sys.stdout.encoding if sys.stdout is not None else "utf-8"  # the worker's locale: the client's
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=encoding)
    out = io.FileIO(1, "w", closefd=False)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(out), encoding=encoding, line_buffering=out.isatty())
    err = io.FileIO(2, "w", closefd=False)
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(err), encoding=encoding, errors="backslashreplace", line_buffering=True
    )


def _reseed_global_random_state() -> None:
    """Fresh unseeded global random states, as a new process would have (not the worker's copy)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(None)


def main(argv: list[str] | None = None) -> int:
    """``python -m harness.worker_server --idle-minutes M`` (started by ``privbench worker start``)."""
    parser = argparse.ArgumentParser(prog="privbench-worker")
    parser.add_argument("--idle-minutes", type=float, default=30.0)
    args = parser.parse_args(argv)
    return Worker(idle_s=60.0 * args.idle_minutes).run()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


__all__ = ["PRELOAD_ENV", "PRELOAD_METRICS", "PRELOAD_MODULES", "ModuleFiles", "Worker", "preload"]
