"""A private one-node SLURM cluster for integration tests (fixture ``slurm_cluster``).

The fixture starts its own ``munged``, ``slurmctld`` and ``slurmd`` as root, with every file in
a pytest temporary directory: the munge key, socket, pid, seed and log files, ``slurm.conf``,
the controller's state and the node's spool directory, and the controller and node ports are
free ports picked at start. It never reads or touches a system-wide SLURM or munge that might
already run on the machine. While the fixture is active ``SLURM_CONF`` points at the private
``slurm.conf``, so ``sbatch``/``squeue``/``scancel``/``sacct`` (submitit's calls included) and
``privbench`` subprocesses talk to this cluster; teardown cancels its jobs, stops the daemons by
PID (SIGTERM, then SIGKILL) and restores ``SLURM_CONF``. Like many small clusters it has no
accounting (no ``slurmdbd``): ``sacct`` fails, and privbench reads job states from ``scontrol``
(:mod:`harness.slurm_watcher`).

Requirements: root on Debian (CI's machines). When ``slurmctld``, ``slurmd`` or ``munged`` is
missing it installs them with ``apt-get install slurm-wlm munge`` (about 25 s). Anywhere it
cannot run (not root, not Debian, apt-get failing, daemons not coming up) the test FAILS with a
one-line reason; it never skips silently.

Escape hatch for developers' laptops: ``PRIVBENCH_SLURM_TEST=skip`` makes the fixture skip the
SLURM tests instead, with that reason stated in pytest's summary (``-ra``)::

    PRIVBENCH_SLURM_TEST=skip python -m pytest tests/integration
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SKIP_ENV = "PRIVBENCH_SLURM_TEST"
PARTITION = "cpu"
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "sinfo")
SBIN_PATH = "/usr/sbin:/sbin:/usr/bin:/bin"
START_TIMEOUT_S = 60.0
PR_SET_PDEATHSIG = 1


@dataclass
class SlurmCluster:
    """The running private cluster: its configuration, partition, logs and daemon processes."""

    root: Path
    conf: Path
    partition: str
    node: str
    logs: dict[str, Path]
    munge_socket: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def log_tails(self, lines: int = 15) -> str:
        """The last ``lines`` lines of every daemon's log, for failure messages."""
        parts = []
        for name, path in self.logs.items():
            text = path.read_text(errors="replace").splitlines()[-lines:] if path.exists() else ["(no log)"]
            parts.append(f"--- {name} ({path}) ---\n" + "\n".join(text))
        return "\n".join(parts)

    def run(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        """Run a SLURM client command (``squeue``, ``scancel``, ...) against this cluster."""
        env = {**os.environ, "SLURM_CONF": str(self.conf)}
        return subprocess.run(list(args), env=env, capture_output=True, text=True, timeout=timeout)


def _which(name: str) -> str | None:
    """The path of ``name`` on PATH or in the sbin directories (not on a non-root PATH)."""
    return shutil.which(name) or shutil.which(name, path=SBIN_PATH)


def _missing() -> list[str]:
    return [name for name in (*DAEMONS, *CLIENTS) if _which(name) is None]


def _cannot_run(reason: str) -> None:
    """Fail (never skip silently) with a one-line reason; skip only when asked to."""
    if os.environ.get(SKIP_ENV, "").lower() == "skip":
        pytest.skip(f"SLURM integration test skipped: {SKIP_ENV}=skip ({reason})")
    pytest.fail(
        f"SLURM integration test cannot run: {reason}; set {SKIP_ENV}=skip to skip it on purpose",
        pytrace=False,
    )


def ensure_slurm_installed() -> None:
    """Install ``slurm-wlm`` and ``munge`` with apt-get when missing (root on Debian only)."""
    if os.environ.get(SKIP_ENV, "").lower() == "skip":
        pytest.skip(f"SLURM integration test skipped: {SKIP_ENV}=skip")
    missing = _missing()
    if not missing:
        return
    what = f"{', '.join(missing)} not installed"
    if os.geteuid() != 0:
        _cannot_run(f"{what} and not root (it needs root on Debian to install and run slurm-wlm and munge)")
    if not Path("/etc/debian_version").exists() or _which("apt-get") is None:
        _cannot_run(f"{what} and this is not Debian with apt-get (install slurm-wlm and munge)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "slurm-wlm", "munge"]
    proc = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:  # stale or empty package lists (a fresh container): update once, retry
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, text=True, timeout=600)
        proc = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        _cannot_run(f"apt-get install slurm-wlm munge failed ({proc.returncode}): {last}")
    if still := _missing():
        _cannot_run(f"{', '.join(still)} still missing after apt-get install slurm-wlm munge")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("", 0))
        return int(sock.getsockname()[1])


def _real_memory_mb() -> int:
    """A node memory a bit below the memory available now (so slurmd does not drain the node)."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return max(1024, int(int(line.split()[1]) / 1024 * 0.8))
    return 2048


def write_slurm_conf(root: Path, node: str, munge_socket: Path) -> tuple[Path, dict[str, Path]]:
    """Write a private ``slurm.conf`` under ``root``; return it and the daemons' log paths."""
    for sub in ("state", "spool", "log", "run"):
        (root / sub).mkdir(mode=0o755, exist_ok=True)
    logs = {"slurmctld": root / "log" / "slurmctld.log", "slurmd": root / "log" / "slurmd.log"}
    plugstack = root / "plugstack.conf"  # an empty one: the system's /etc/slurm/plugstack.conf is not ours
    plugstack.write_text("")
    cpus = os.cpu_count() or 1
    lines = [
        "ClusterName=privbench-test",
        f"SlurmctldHost={node}(127.0.0.1)",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'run' / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'run' / 'slurmd.pid'}",
        f"SlurmctldLogFile={logs['slurmctld']}",
        f"SlurmdLogFile={logs['slurmd']}",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
        f"PlugStackConfig={plugstack}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "SchedulerType=sched/backfill",
        "MpiDefault=none",
        "MailProg=/bin/true",
        "ReturnToService=2",
        "MinJobAge=300",
        "KillWait=5",
        f"NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={_real_memory_mb()} State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]
    conf = root / "slurm.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf, logs


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when pytest dies (even by SIGKILL), so no daemon leaks."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _start(name: str, args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """Start daemon ``name`` in the foreground as our child, its output appended to ``log``."""
    binary = _which(name)
    assert binary is not None, name
    with log.open("ab") as out:
        return subprocess.Popen(
            [binary, *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def _stop(proc: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """SIGTERM ``proc`` by its PID, then SIGKILL it if it outlives ``grace_s``."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=grace_s)


def _wait_for(
    cluster: SlurmCluster, what: str, ready: Callable[[], bool], timeout: float = START_TIMEOUT_S
) -> None:
    """Poll ``ready()`` until true; fail with the daemons' log tails on timeout or a dead daemon."""
    deadline = time.monotonic() + timeout
    while not ready():
        dead = [
            f"{name} exited {p.returncode}" for name, p in cluster.processes.items() if p.poll() is not None
        ]
        if dead or time.monotonic() > deadline:
            why = ", ".join(dead) or f"not ready after {timeout:.0f} s"
            pytest.fail(f"private SLURM cluster: {what}: {why}\n{cluster.log_tails()}", pytrace=False)
        time.sleep(0.5)


def _node_idle(cluster: SlurmCluster) -> bool:
    proc = cluster.run("sinfo", "--noheader", "-p", cluster.partition, "-o", "%t", timeout=15)
    return proc.returncode == 0 and proc.stdout.split() == ["idle"]


def start_cluster(root: Path) -> SlurmCluster:
    """Start munged, slurmctld and slurmd with everything under ``root``; return when the node is idle."""
    if os.geteuid() != 0:
        _cannot_run("it runs slurmctld/slurmd/munged as root and this process is not root")
    root.chmod(0o755)  # munged and slurmd refuse group/world-writable directories
    node = socket.gethostname().split(".")[0]
    munge_dir = root / "munge"
    munge_dir.mkdir(mode=0o755)  # munged: "execute permissions for all required" on the socket dir
    key = munge_dir / "munge.key"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
    with os.fdopen(fd, "wb") as handle:
        handle.write(os.urandom(1024))
    munge_socket = munge_dir / "munge.socket"
    conf, logs = write_slurm_conf(root, node, munge_socket)
    logs = {"munged": munge_dir / "munged.log", **logs}
    logs.update({f"{name} output": root / "log" / f"{name}.out" for name in DAEMONS})
    cluster = SlurmCluster(root, conf, PARTITION, node, logs, munge_socket)
    munged = [
        "--foreground",
        "--force",  # the pytest base dir is 0700 (root-only): munged would refuse the socket path
        f"--socket={munge_socket}",
        f"--key-file={key}",
        f"--pid-file={munge_dir / 'munged.pid'}",
        f"--log-file={logs['munged']}",
        f"--seed-file={munge_dir / 'munged.seed'}",
    ]
    try:
        cluster.processes["munged"] = _start("munged", munged, root / "log" / "munged.out")
        _wait_for(cluster, "munged socket", munge_socket.exists, timeout=20)
        # -D: stay in the foreground (our child, stopped by PID); -i: ignore any state (fresh dir anyway)
        cluster.processes["slurmctld"] = _start(
            "slurmctld", ["-D", "-i", "-f", str(conf)], root / "log" / "slurmctld.out"
        )
        cluster.processes["slurmd"] = _start(
            "slurmd", ["-D", "-f", str(conf), "-N", node], root / "log" / "slurmd.out"
        )
        _wait_for(cluster, f"node {node} idle in sinfo", lambda: _node_idle(cluster))
    except BaseException:
        stop_cluster(cluster)
        raise
    return cluster


def stop_cluster(cluster: SlurmCluster) -> None:
    """Cancel the cluster's jobs, then stop slurmd, slurmctld and munged by PID."""
    if (ctld := cluster.processes.get("slurmctld")) is not None and ctld.poll() is None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            cluster.run("scancel", "--full", f"--partition={cluster.partition}", timeout=15)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                queue = cluster.run("squeue", "--noheader", "-h", "-o", "%i", timeout=10)
            except subprocess.TimeoutExpired:
                break
            if queue.returncode != 0 or not queue.stdout.strip():
                break
            time.sleep(0.5)
    for name in ("slurmd", "slurmctld", "munged"):
        if (proc := cluster.processes.get(name)) is not None:
            _stop(proc)


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """A private, running one-node SLURM cluster; ``SLURM_CONF`` points at it while the module runs."""
    ensure_slurm_installed()
    cluster = start_cluster(tmp_path_factory.mktemp("slurm"))
    saved = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(cluster.conf)
    try:
        yield cluster
    finally:
        stop_cluster(cluster)
        if saved is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = saved
