"""The core install without the optional extras: privbench runs, and a generator that needs an
extra says which one (issue 16, "a lighter install").

The extras' libraries are made absent for a real ``privbench`` subprocess by a
``sitecustomize`` module first on its ``PYTHONPATH``: an import finder that answers "no module
named ..." for torch, JAX, SDV and smartnoise (as on a machine that installed only the core) and
writes every attempt to import them to a log, so the test also sees whether the core even tries.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from harness.collect import collect
from tests.conftest import PRIVBENCH, REPO

ABSENT = (
    "torch", "jax", "jaxlib", "sdv", "ctgan", "snsynth", "opendp", "mbi", "opacus",  # extras sdv, dp
    "submitit", "hydra_plugins.hydra_submitit_launcher",  # extra cluster
)  # fmt: skip

SITECUSTOMIZE = f"""
import os, sys

ABSENT = {ABSENT!r}


class _Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ABSENT or name in ABSENT or name.startswith(tuple(a + "." for a in ABSENT)):
            with open(os.environ["PRIVBENCH_ABSENT_LOG"], "a") as log:
                log.write(name + "\\n")
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Absent())
"""


def _core_only(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ``privbench ARGS`` with the extras' modules absent; also return the blocked imports."""
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log = tmp_path / "absent.log"
    log.write_text("")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(shim), str(REPO)]),
        "PRIVBENCH_ABSENT_LOG": str(log),
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PRIVBENCH_PROGRESS": "0",
    }
    proc = subprocess.run(
        [*PRIVBENCH, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    return proc, log.read_text().split()


def test_core_runs_without_the_extras(tmp_path: Path) -> None:
    proc, attempts = _core_only(
        tmp_path, "run", "generator=independent_marginals", "dataset=adult", "data.max_rows=400", "suite=fast"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = [p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir()]
    rows = collect([run_dir])
    assert (rows["status"] == "ok").all() and len(rows) > 5
    tried = sorted(set(attempts) - {"hydra_plugins.hydra_submitit_launcher"})  # Hydra's plugin scan looks
    assert tried == [], f"the core tried to import {tried}"


def test_a_generator_of_a_missing_extra_names_it(tmp_path: Path) -> None:
    proc, _ = _core_only(
        tmp_path, "run", "generator=sdv_gaussian_copula", "dataset=adult", "data.max_rows=400"
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("privbench: error:")]
    assert "needs the optional extra privbench[sdv] (torch, sdv not installed)" in line, line
    assert "pip install 'privbench[sdv]'" in line
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results" / "default").exists() or not any(
        (tmp_path / "results" / "default").iterdir()
    )


def test_list_marks_generators_whose_extra_is_missing(tmp_path: Path) -> None:
    proc, _ = _core_only(tmp_path, "list", "generators")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    assert lines["sdv_ctgan"].endswith("[needs privbench[sdv]: not installed]")
    assert lines["mst"].endswith("[needs privbench[dp]: not installed]")
    assert lines["dpgan"].endswith("[needs privbench[dp]: not installed]")
    assert "not installed" not in lines["privbayes"] and "not installed" not in lines["eps_private_smote"]


def test_installed_extras_are_not_flagged() -> None:
    """In this environment (every extra installed) nothing is reported missing."""
    from generators.sdv_models import SdvGaussianCopula
    from generators.smartnoise import Dpgan, Mst

    assert SdvGaussianCopula.missing_extra() is None
    assert Mst.missing_extra() is None and Dpgan.missing_extra() is None


def test_the_slurm_launcher_without_its_extra_names_it(tmp_path: Path) -> None:
    proc, _ = _core_only(tmp_path, "run", "-m", "generator=identity", "hydra/launcher=slurm")
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        "privbench: error: hydra/launcher=slurm needs the optional extra privbench[cluster] (submitit, "
        "hydra-submitit-launcher not installed): pip install 'privbench[cluster]'"
    )
