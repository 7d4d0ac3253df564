"""What a ``privbench`` command and the warm worker say to each other (:mod:`harness.worker_server`).

The worker listens on a Unix socket in a folder only its user can enter
(``$PRIVBENCH_WORKER_DIR``, else ``$XDG_RUNTIME_DIR/privbench-<uid>``, else
``<tmp>/privbench-<uid>``), one socket per Python interpreter and checkout, so two virtual
environments or two clones never share a worker. Messages are length-prefixed JSON; the
request's first message carries the client's standard input, output and error as file
descriptors (``SCM_RIGHTS``), so the command writes to the client's terminal or pipes.

A request states the command's context (:func:`client_context`). The worker serves it only
when everything that can shape a command's behaviour before ``main`` runs equals its own
(:func:`context_differences`): the interpreter and its options, the import path, the user,
resource limits, priority, and the environment except the variables privbench reads while a command runs
(:data:`RUN_TIME_VARIABLES`). The command's working directory, file-creation mask and those
variables are applied in the worker's child.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import socket
import stat
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

WORKER_ENV = "PRIVBENCH_WORKER"
"""``0``: a command never uses a running worker."""
WORKER_DIR_ENV = "PRIVBENCH_WORKER_DIR"
"""Folder of the worker's socket, log and pid file (default: the user's runtime folder)."""

RUN_TIME_VARIABLES: frozenset[str] = frozenset(
    {
        "PWD", "OLDPWD", "_", "SHLVL",  # the shell's bookkeeping
        "PRIVBENCH_RESULTS_DIR", "PRIVBENCH_CACHE_DIR", "PRIVBENCH_PROGRESS", "PRIVBENCH_PROGRESS_S",
        "PRIVBENCH_DEBUG", "PRIVBENCH_VERBOSE", "PRIVBENCH_FAIL_FAST", "PRIVBENCH_CONFIG_DIRS",
        "PRIVBENCH_WORKER", "PRIVBENCH_WORKER_DIR",  # read by the command's client side only
    }
)  # fmt: skip
"""Variables that may differ between the worker and a command: read only while a command runs."""

LIMITS = ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_NOFILE", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC")
"""Resource limits a served command must share with the worker (they are inherited from it)."""

CHECKOUT = Path(__file__).resolve().parent.parent
"""The checkout whose code a worker runs (one worker per interpreter and checkout)."""
_LENGTH = struct.Struct("!I")
MAX_MESSAGE = 16 * 1024 * 1024


def worker_dir() -> Path:
    """The folder of the worker's files (not created here)."""
    given = os.environ.get(WORKER_DIR_ENV)
    if given:
        return Path(given)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())
    return base / f"privbench-{os.getuid()}"


def worker_name() -> str:
    """The worker's file stem for this interpreter and checkout."""
    key = f"{os.path.realpath(sys.executable)}\0{CHECKOUT}"
    return "worker-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def socket_path() -> Path:
    """The worker's socket for this interpreter and checkout."""
    return worker_dir() / f"{worker_name()}.sock"


def log_path() -> Path:
    """The worker's log (its start, requests that failed, why it stopped)."""
    return worker_dir() / f"{worker_name()}.log"


def private_dir() -> Path:
    """:func:`worker_dir`, created with mode 0700; refuses one another user owns or can enter.

    Raises
    ------
    ConfigError
        If the folder belongs to another user or others can read or enter it.
    """
    folder = worker_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = folder.stat()
    if status.st_uid != os.getuid() or status.st_mode & 0o077:
        from harness.errors import ConfigError

        raise ConfigError(
            f"{folder}: the worker's folder must belong to you with mode 0700 ({WORKER_DIR_ENV}); "
            f"got owner {status.st_uid}, mode {oct(status.st_mode & 0o777)}"
        )
    return folder


def owned_socket(path: Path) -> bool:
    """Whether ``path`` is a socket of this user in a private folder (else a client ignores it)."""
    try:
        folder, status = path.parent.stat(), path.lstat()
    except OSError:
        return False
    return (
        stat.S_ISSOCK(status.st_mode)
        and status.st_uid == os.getuid()
        and folder.st_uid == os.getuid()
        and not folder.st_mode & 0o077
    )


def send_message(sock: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    """Send one length-prefixed JSON message, with ``fds`` attached to its first bytes."""
    body = json.dumps(message).encode()
    header = _LENGTH.pack(len(body))
    if fds:
        socket.send_fds(sock, [header], fds)
    else:
        sock.sendall(header)
    sock.sendall(body)


def receive_message(sock: socket.socket, max_fds: int = 0) -> tuple[dict[str, Any], list[int]]:
    """Receive one message and the file descriptors attached to it.

    Raises
    ------
    ConnectionError
        If the peer closed the connection before a whole message arrived.
    """
    if max_fds:
        header, fds, _, _ = socket.recv_fds(sock, _LENGTH.size, max_fds)
    else:
        header, fds = sock.recv(_LENGTH.size), []
    header += _exactly(sock, _LENGTH.size - len(header))
    (length,) = _LENGTH.unpack(header)
    if length > MAX_MESSAGE:
        raise ConnectionError(f"worker message of {length} bytes exceeds {MAX_MESSAGE}")
    message: dict[str, Any] = json.loads(_exactly(sock, length))
    return message, list(fds)


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(left)
        if not chunk:
            raise ConnectionError("the worker connection closed mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def client_context() -> dict[str, Any]:
    """What a command's behaviour depends on before ``main`` runs (sent with a request)."""
    mask = os.umask(0)
    os.umask(mask)
    return {
        "executable": os.path.realpath(sys.executable),
        "path": list(sys.path[1:]),  # compared; [0] is the script's folder or the working directory
        "path0": sys.path[0] if sys.path else "",
        "flags": [list(sys.flags), sorted(sys.warnoptions), sorted(map(str, sys._xoptions.items()))],
        "uid": os.getuid(),
        "gid": os.getgid(),
        "groups": sorted(os.getgroups()),
        "limits": {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS},
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "environment": dict(os.environ),
        "cwd": os.getcwd(),
        "umask": mask,
    }


def context_differences(worker: dict[str, Any], client: dict[str, Any]) -> str | None:
    """Why a command with context ``client`` cannot be served by the worker started in ``worker``.

    Returns None when it can; otherwise a short reason naming what differs.
    """
    for key in ("executable", "flags", "path", "uid", "gid", "groups", "limits", "nice"):
        if worker.get(key) != client.get(key):
            named = {
                "flags": "the interpreter's options (-O, -W, -X ...) differ",
                "path": "the import path (sys.path) differs",
                "limits": "resource limits differ",
            }
            return named.get(key, f"{key} differs")
    mine, theirs = worker["environment"], client["environment"]
    names = sorted(
        name
        for name in set(mine) | set(theirs)
        if name not in RUN_TIME_VARIABLES and mine.get(name) != theirs.get(name)
    )
    if names:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"environment variable(s) {shown} differ"
    return None
