"""What the warm worker accepts (``harness.worker_protocol``): contexts, folders, messages."""

from __future__ import annotations

import copy
import os
import socket
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.worker_protocol import (
    RUN_TIME_VARIABLES,
    client_context,
    context_differences,
    owned_socket,
    private_dir,
    receive_message,
    send_message,
    socket_path,
)


def test_the_same_context_is_served_and_run_time_variables_may_differ() -> None:
    mine = client_context()
    theirs = copy.deepcopy(mine)
    assert context_differences(mine, theirs) is None
    theirs["environment"].update({name: "elsewhere" for name in RUN_TIME_VARIABLES})
    theirs["cwd"], theirs["umask"], theirs["path0"] = "/", 0o077, "/somewhere"  # applied, not compared
    assert context_differences(mine, theirs) is None


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("executable", "/usr/bin/python3.12", "executable differs"),
        ("flags", [[], ["error"], []], "the interpreter's options (-O, -W, -X ...) differ"),
        ("path", ["/elsewhere"], "the import path (sys.path) differs"),
        ("uid", 12345, "uid differs"),
        ("limits", {"RLIMIT_AS": [1, 1]}, "resource limits differ"),
        ("nice", 19, "nice differs"),
    ],
)
def test_what_shapes_a_process_before_main_must_be_equal(key: str, value: object, reason: str) -> None:
    mine = client_context()
    theirs = {**copy.deepcopy(mine), key: value}
    assert context_differences(mine, theirs) == reason


def test_any_other_environment_difference_is_named() -> None:
    mine = client_context()
    theirs = copy.deepcopy(mine)
    theirs["environment"].update({"OMP_NUM_THREADS": "7", "A": "1", "B": "2", "C": "3"})
    theirs["environment"].pop("PATH", None)
    reason = context_differences(mine, theirs)
    assert reason is not None and reason.startswith("environment variable(s) A, B, C and ")
    assert reason.endswith(" more differ")
    mine["environment"]["ONLY_MINE"] = "x"
    assert "ONLY_MINE" in str(context_differences(mine, copy.deepcopy(client_context())))


def test_the_folder_is_private_and_sockets_elsewhere_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    private = tmp_path / "private"
    monkeypatch.setenv("PRIVBENCH_WORKER_DIR", str(private))
    assert private_dir() == private and (private.stat().st_mode & 0o777) == 0o700
    path = socket_path()
    assert path.parent == private and path.suffix == ".sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    try:
        assert owned_socket(path)
        private.chmod(0o755)
        assert not owned_socket(path)  # others could have put it there
        with pytest.raises(ConfigError, match="mode 0700"):
            private_dir()
        private.chmod(0o700)
        path.unlink()
        path.write_text("not a socket")
        assert not owned_socket(path)
    finally:
        listener.close()


def test_messages_carry_file_descriptors() -> None:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    read_end, write_end = os.pipe()
    try:
        big = {"argv": ["run", "x" * 100_000], "n": 3}
        send_message(a, big, fds=[write_end])
        message, fds = receive_message(b, max_fds=3)
        assert message == big and len(fds) == 1
        os.write(fds[0], b"through the passed descriptor")
        os.close(fds[0])
        assert os.read(read_end, 100) == b"through the passed descriptor"
        a.close()
        with pytest.raises(ConnectionError):
            receive_message(b)
    finally:
        for fd in (read_end, write_end):
            os.close(fd)
        b.close()
