"""One-command set-up: ``python3 -m harness.bootstrap {demo,test,setup}``.

Creates ``.venv`` next to ``pyproject.toml`` (if missing), installs privbench with the
pinned versions of ``constraints.txt`` and the optional extras the command needs, then

* ``demo``: runs the demo experiment (seed-paper methods and baselines on Adult) and its report
  (extra ``sdv``: the demo's SDV Gaussian copula needs torch and sdv; no JAX, no dev tools),
* ``test``: runs the test suite (the command CI runs; every extra: ``dev,cluster,sdv,dp``),
* ``setup [EXTRAS]``: stops after installing the core, or the core and the comma-separated
  extras (e.g. ``setup sdv,dp``).

The core (harness, the non-deep generators, metrics, report) needs neither torch nor JAX; a
generator whose extra is missing says which one to install. A later command with more extras
installs the difference into the same ``.venv``.

Uses only the standard library, so it runs on a machine with nothing but Python 3.11.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("PRIVBENCH_VENV", ROOT / ".venv"))
#: The optional extras each command installs.
COMMAND_EXTRAS = {"demo": ("sdv",), "test": ("dev", "cluster", "sdv", "dp"), "setup": ()}
#: Extras whose libraries need torch: its CPU build is installed first.
TORCH_EXTRAS = frozenset({"sdv", "dp"})
STAMP = VENV / ".privbench-installed"


def _bin(name: str) -> Path:
    return VENV / "bin" / name


def _run(cmd: list[str | Path], **kwargs: object) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, **kwargs)  # type: ignore[call-overload]


def setup(extras: tuple[str, ...] = ()) -> None:
    """Create the virtual environment and install privbench with ``extras`` into it (idempotent)."""
    if sys.version_info[:2] < (3, 11):  # noqa: UP036 - users may run it with an older python3
        sys.exit(f"privbench needs Python >= 3.11; this is {sys.version.split()[0]}")
    if not _bin("python").exists():
        print(f"creating virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    fingerprint = "".join((ROOT / f).read_text() for f in ("pyproject.toml", "constraints.txt"))
    installed = _installed_extras(fingerprint)
    wanted = sorted(set(installed or ()) | set(extras))
    if installed is not None and set(extras) <= set(installed):
        return
    pip = [str(_bin("python")), "-m", "pip", "install", "--disable-pip-version-check"]
    _run([*pip, "--upgrade", "pip>=24"])
    if TORCH_EXTRAS & set(wanted):
        # torch first: the CPU build of the pinned version; otherwise pip pulls several GB of CUDA torch
        _run([*pip, "-c", "constraints.txt", "torch==2.13.0"])
    _run([*pip, "-c", "constraints.txt", "-e", f".[{','.join(wanted)}]" if wanted else "."])
    STAMP.write_text(fingerprint + EXTRAS_LINE + ",".join(wanted))


EXTRAS_LINE = "\n# extras: "


def _installed_extras(fingerprint: str) -> list[str] | None:
    """The extras installed for this ``pyproject.toml``/``constraints.txt`` (None: install again)."""
    if not STAMP.exists():
        return None
    text = STAMP.read_text()
    stamped, _, extras = text.partition(EXTRAS_LINE)
    if stamped != fingerprint:
        return None
    return [e for e in extras.split(",") if e] if EXTRAS_LINE in text else ["dev", "cluster", "sdv", "dp"]


def demo() -> None:
    """Run the demo experiment (two workers) and its report; print where the outputs are."""
    results = Path(os.environ.get("PRIVBENCH_RESULTS_DIR", ROOT / "results")) / "demo"
    _run([_bin("privbench"), "run", "-m", "experiment=demo", "hydra/launcher=local"])
    runs = sorted(results.glob("*/sweep.json"), key=lambda p: p.stat().st_mtime) if results.exists() else []
    if not runs:  # a resumed sweep runs in its earlier directory: the newest plan is this run's
        sys.exit("the demo run wrote no results directory")
    _run([_bin("privbench"), "report", runs[-1].parent])


CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def ensure_chromium() -> None:
    """Install Debian's ``chromium`` for the report's HTML test when it is missing.

    The test renders ``report.html`` in headless Chromium. On a Debian/Ubuntu machine where
    this runs as root (or with password-less sudo) the package is installed from the
    distribution's registry; elsewhere a message says how, and the test fails with the same
    advice.
    """
    if os.environ.get("PRIVBENCH_CHROMIUM") or any(shutil.which(n) for n in CHROMIUM_NAMES):
        return
    apt = shutil.which("apt-get")
    if apt is None:
        print("note: no Chromium found and no apt-get; install Chromium for the report HTML test", flush=True)
        return
    prefix: list[str | Path] = []
    if os.geteuid() != 0:
        sudo = shutil.which("sudo")
        if sudo is None or subprocess.run([sudo, "-n", "true"], capture_output=True).returncode != 0:
            print(
                "note: no Chromium found; run `sudo apt-get install chromium` for the report HTML test",
                flush=True,
            )
            return
        prefix = [sudo, "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run([*prefix, apt, "-q", "update"], env=env)
    _run([*prefix, apt, "-q", "install", "-y", "--no-install-recommends", "chromium"], env=env)


PYTEST_WORKERS = ("-n", "auto", "--maxprocesses", "4", "--dist", "worksteal")
"""pytest-xdist: one worker per core (at most 4); idle workers steal queued tests."""


def test() -> None:
    """Run the whole test suite (unit, contract and slow integration tests) on every core."""
    ensure_chromium()
    env = {**os.environ, "PRIVBENCH_PROGRESS": "0"}
    pytest: list[str | Path] = [
        _bin("python"),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--durations=25",
    ]
    _run([*pytest, *PYTEST_WORKERS], env=env)


def main(argv: list[str]) -> None:
    """Dispatch ``demo``, ``test`` or ``setup``."""
    command = argv[0] if argv else "demo"
    if command not in COMMAND_EXTRAS:
        sys.exit("usage: python3 -m harness.bootstrap {demo,test,setup [EXTRAS]}")
    extras = COMMAND_EXTRAS[command]
    if command == "setup" and len(argv) > 1:
        extras = tuple(e for e in argv[1].split(",") if e)
    setup(extras)
    if command == "demo":
        demo()
    elif command == "test":
        test()


if __name__ == "__main__":
    main(sys.argv[1:])
