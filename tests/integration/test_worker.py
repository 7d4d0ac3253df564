"""The warm worker (``privbench worker``; ``harness.worker_server``) with real processes: a served
command equals an unserved one (files, output, exit codes), a command it must not serve runs
unserved with a note, changed code stops it, Ctrl-C reaches the command, and it stops when idle."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import PRIVBENCH, REPO
from tests.integration.test_process_exit import assert_same_results, normalised

pytestmark = pytest.mark.slow

TRIAL = ("run", "generator=identity", "suite=fast", "profile=quick", "data.max_rows=400")


def short_folder(tmp_path: Path) -> Path:
    """A socket folder with a short path (a Unix socket's path holds at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="pbw-")) / "w"
    (tmp_path / "socket-folder").write_text(str(folder))  # where it went, for a failing test's reader
    return folder


def environment(folder: Path, **extra: str) -> dict[str, str]:
    """The environment of a worker and of the commands it may serve."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIVBENCH_")}
    python_path = os.pathsep.join([str(REPO), *([extra.pop("PYTHONPATH")] if "PYTHONPATH" in extra else [])])
    return {**env, "PRIVBENCH_WORKER_DIR": str(folder), "PYTHONPATH": python_path, **extra}


def privbench(
    env: dict[str, str], cwd: Path, *args: str, **run_time: str
) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(parents=True, exist_ok=True)
    environ = {
        **env,
        "PRIVBENCH_RESULTS_DIR": str(cwd / "results"),
        "PRIVBENCH_CACHE_DIR": str(cwd / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        **run_time,
    }
    return subprocess.run(
        [*PRIVBENCH, *args], cwd=cwd, env=environ, capture_output=True, text=True, timeout=600
    )


def served(env: dict[str, str], cwd: Path) -> int:
    """Commands the running worker has served (from ``privbench worker status``)."""
    status = privbench(env, cwd, "worker", "status")
    assert status.returncode == 0, status.stdout + status.stderr
    return int(status.stdout.split(" command(s) served")[0].rsplit(" ", 1)[-1])


def start(env: dict[str, str], cwd: Path, *args: str) -> None:
    started = privbench(env, cwd, "worker", "start", *args)
    assert started.returncode == 0 and "ready" in started.stdout, started.stdout + started.stderr


def stop(env: dict[str, str], cwd: Path, folder: Path) -> None:
    privbench(env, cwd, "worker", "stop")
    for pid_file in folder.glob("*.pid"):  # a worker that did not answer
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    if folder.parent.name.startswith("pbw-"):
        shutil.rmtree(folder.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Path]]:
    root = tmp_path_factory.mktemp("worker")
    folder = short_folder(root)
    env = environment(folder)
    start(env, root)
    yield env, root
    stop(env, root, folder)


def test_a_served_trial_writes_the_same_files_and_output_as_an_unserved_one(
    worker: tuple[dict[str, str], Path],
) -> None:
    env, root = worker
    before = served(env, root)
    warm = privbench(env, root / "served", *TRIAL)
    assert served(env, root) == before + 1
    cold = privbench(env, root / "unserved", *TRIAL, PRIVBENCH_WORKER="0")
    assert warm.returncode == cold.returncode == 0, warm.stderr + cold.stderr
    assert normalised(warm.stdout, root / "served") == normalised(cold.stdout, root / "unserved")
    assert normalised(warm.stderr, root / "served") == normalised(cold.stderr, root / "unserved")
    assert_same_results(root / "served" / "results", root / "unserved" / "results")


def test_bad_input_gets_the_same_one_line_error_and_exit_code(worker: tuple[dict[str, str], Path]) -> None:
    env, root = worker
    before = served(env, root)
    warm = privbench(env, root / "bad", "run", "generator=identity", "data.max_rows=-3")
    cold = privbench(env, root / "bad", "run", "generator=identity", "data.max_rows=-3", PRIVBENCH_WORKER="0")
    assert served(env, root) == before + 1
    assert warm.returncode == cold.returncode == 2
    assert warm.stderr == cold.stderr and len(warm.stderr.strip().splitlines()) == 1


def test_another_environment_runs_unserved_with_a_note(worker: tuple[dict[str, str], Path]) -> None:
    env, root = worker
    before = served(env, root)
    listed = privbench(env, root / "other", "list", "suites", OMP_NUM_THREADS="3")
    assert listed.returncode == 0 and "fast" in listed.stdout
    assert listed.stderr.strip() == (
        "privbench: not run in the warm worker: environment variable(s) OMP_NUM_THREADS differ"
    )
    assert served(env, root) == before  # and the worker is still there


def long_sweep(env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    """A 40-trial sweep served by the worker, returned once its first trial has written rows."""
    cwd.mkdir()
    environ = {
        **env,
        "PRIVBENCH_RESULTS_DIR": str(cwd / "results"),
        "PRIVBENCH_CACHE_DIR": str(cwd / "cache"),
    }
    seeds = ",".join(str(s) for s in range(40))
    command = subprocess.Popen(
        [*PRIVBENCH, "run", "-m", "generator=identity", "profile=quick", f"gen_seed={seeds}"],
        cwd=cwd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not list((cwd / "results").rglob("rows.parquet")) and time.monotonic() < deadline:
        time.sleep(0.2)  # the first trial is done: the sweep is running in the worker's child
    return command


def nothing_running(env: dict[str, str], cwd: Path, timeout_s: float = 60) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if " 0 running" in privbench(env, cwd, "worker", "status").stdout:
            return True
        time.sleep(0.2)
    return False


def test_ctrl_c_interrupts_the_served_command(worker: tuple[dict[str, str], Path]) -> None:
    env, root = worker
    cwd = root / "interrupted"
    command = long_sweep(env, cwd)
    command.send_signal(signal.SIGINT)
    _, err = command.communicate(timeout=120)
    assert command.returncode == 130, err[-2000:]
    assert "privbench: interrupted" in err
    written = list((cwd / "results").rglob("rows.parquet"))
    assert len(written) < 40
    assert all(set(pd.read_parquet(rows)["status"]) == {"ok"} for rows in written)  # no trial of the Ctrl-C
    assert nothing_running(env, root)


def test_a_command_that_disappears_takes_its_served_run_with_it(worker: tuple[dict[str, str], Path]) -> None:
    env, root = worker
    cwd = root / "killed"
    command = long_sweep(env, cwd)
    command.kill()  # SIGKILL: nothing forwarded; the worker notices the closed connection
    command.communicate(timeout=60)
    assert nothing_running(env, root)
    done = len(list((cwd / "results").rglob("rows.parquet")))
    time.sleep(3)
    assert len(list((cwd / "results").rglob("rows.parquet"))) == done < 40  # the sweep stopped


@pytest.mark.parametrize("change", ["edit a loaded module", "install a package"])
def test_changed_code_makes_the_worker_decline_and_hand_over_to_a_new_one(
    tmp_path: Path, change: str
) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    module = plugins / "my_plugin.py"
    module.write_text("VALUE = 1\n")
    folder = short_folder(tmp_path)
    env = environment(folder, PYTHONPATH=str(plugins), PRIVBENCH_WORKER_PRELOAD="my_plugin")
    start(env, tmp_path)
    try:
        old_pid = next(folder.glob("*.pid")).read_text().strip()
        assert privbench(env, tmp_path, "list", "suites").stderr == ""  # served
        assert served(env, tmp_path) == 1
        if change == "edit a loaded module":
            module.write_text("VALUE = 2  # edited\n")
            changed = module
        else:  # a new package in a folder of the import path (as pip install adds one to site-packages)
            (plugins / "new_package").mkdir()
            changed = plugins
        listed = privbench(env, tmp_path, "list", "suites")
        assert listed.returncode == 0 and "fast" in listed.stdout  # run unserved
        assert listed.stderr.strip() == (
            f"privbench: not run in the warm worker: {changed} changed since the worker started; "
            "it restarts with the new code"
        )
        deadline, status = time.monotonic() + 120, privbench(env, tmp_path, "worker", "status")
        while (status.returncode != 0 or f"pid {old_pid}," in status.stdout) and time.monotonic() < deadline:
            time.sleep(0.2)
            status = privbench(env, tmp_path, "worker", "status")
        assert status.returncode == 0 and f"pid {old_pid}," not in status.stdout, status.stdout
        assert "0 command(s) served" in status.stdout and "stale" not in status.stdout
        assert privbench(env, tmp_path, "list", "suites").stderr == ""  # the new worker serves
        assert served(env, tmp_path) == 1
        assert "code changed, starting a new worker" in next(folder.glob("*.log")).read_text()
    finally:
        stop(env, tmp_path, folder)


def test_an_idle_worker_stops_and_starting_twice_is_harmless(tmp_path: Path) -> None:
    folder = short_folder(tmp_path)
    env = environment(folder)
    # 20 s: long enough for the second `worker start` (a fresh interpreter, seconds on a loaded
    # 2-core machine) to find it running; 3 s raced with that start under load
    start(env, tmp_path, "--idle-minutes", str(20 / 60))
    try:
        again = privbench(env, tmp_path, "worker", "start")
        assert again.returncode == 0 and "already running" in again.stdout
        deadline = time.monotonic() + 120
        while list(folder.glob("*.sock")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not list(folder.glob("*.sock")) and not list(folder.glob("*.pid"))
        assert "idle, stopping" in next(folder.glob("*.log")).read_text()
        stopped = privbench(env, tmp_path, "worker", "stop")
        assert stopped.returncode == 1 and "no warm worker" in stopped.stdout
    finally:
        stop(env, tmp_path, folder)


def test_a_socket_path_too_long_for_unix_sockets_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / ("x" * 120)
    started = privbench(environment(folder), tmp_path, "worker", "start")
    assert started.returncode == 2
    [line] = started.stderr.strip().splitlines()
    assert (
        line.startswith(f"privbench: error: {folder}/worker-")
        and "set PRIVBENCH_WORKER_DIR to a shorter" in line
    )
    assert not folder.exists()


def test_a_folder_others_can_enter_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    env = environment(folder)
    started = privbench(env, tmp_path, "worker", "start")
    assert started.returncode == 2
    assert started.stderr.strip().splitlines() == [
        f"privbench: error: {folder}: the worker's folder must belong to you with mode 0700 "
        "(PRIVBENCH_WORKER_DIR); got owner 0, mode 0o755".replace("owner 0", f"owner {os.getuid()}")
    ]
    assert not list(folder.iterdir())
