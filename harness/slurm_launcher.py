"""The SLURM launcher of ``hydra/launcher=slurm``: submitit's, with what a cluster user relies on.

Differences from ``hydra_submitit_launcher``'s ``SlurmLauncher`` (tracker issue 18):

* **completed trials are not submitted**: a job whose directory already holds its
  ``rows.parquet`` with the same overrides (``.hydra/overrides.yaml``) is recorded as already
  done, so a rerun after a cancel submits only what is left (before, each completed job still
  cost a SLURM job that found its rows and exited);
* **a job that ends without output** (cancelled, SLURM time limit, node failure) does not end
  the command with submitit's traceback: it is recorded as a failed trial with SLURM's state, the
  command prints its one-line summary and exits 1, and the same command resumes the rest.

Everything else (executor parameters, array submission, the job body) is submitit's. Hydra
loads launchers only from its ``hydra_plugins`` namespace, so instead of a plugin of its own
privbench replaces the ``launch`` method of submitit's ``SlurmLauncher`` (:func:`install`,
called by ``privbench run``); the job body that runs on the nodes is untouched, and nodes need
nothing but the environment they already had.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher as SubmititSlurmLauncher
from omegaconf import OmegaConf

from harness.collect import ROWS_FILE
from harness.run_status import TrialOutcome, record

log = logging.getLogger("privbench")


def completed(job_dir: Path, overrides: Sequence[str]) -> bool:
    """True when ``job_dir`` holds the rows of a job with exactly these overrides."""
    if not (job_dir / ROWS_FILE).is_file():
        return False
    try:
        recorded = yaml.safe_load((job_dir / ".hydra" / "overrides.yaml").read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(recorded, list) and [str(o) for o in recorded] == [str(o) for o in overrides]


def job_name(number: int) -> str:
    """The job's name in the command's status folder (as :func:`harness.app._job_id` writes it)."""
    return f"{number:06d}"


def install() -> None:
    """Make ``hydra/launcher=slurm`` (submitit's ``SlurmLauncher``) use :func:`launch` (idempotent)."""
    SubmititSlurmLauncher.launch = launch


def launch(
    self: SubmititSlurmLauncher, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
) -> Sequence[JobReturn]:
    """submitit's launch, minus the completed jobs, with lost jobs recorded as failed trials."""
    assert self.config is not None
    sweep_dir = Path(str(self.config.hydra.sweep.dir))
    numbered = [(initial_job_idx + i, list(o)) for i, o in enumerate(job_overrides)]
    pending = [(n, o) for n, o in numbered if not completed(sweep_dir / str(n), o)]
    returns: dict[int, JobReturn] = {}
    for number, overrides in numbered:
        if (number, overrides) not in pending:
            record(job_name(number), TrialOutcome(" ".join(filter_overrides(overrides)), "present"))
            returns[number] = _returned("skipped-existing")
    if len(pending) < len(numbered):
        log.info(
            "%d of %d job(s) already have their rows in %s: not submitted",
            len(numbered) - len(pending), len(numbered), sweep_dir,
        )  # fmt: skip
    if pending:
        returns.update(_submit(self, sweep_dir, pending))
    return [returns[n] for n, _ in numbered]


def _submit(
    self: SubmititSlurmLauncher, sweep_dir: Path, pending: list[tuple[int, list[str]]]
) -> dict[int, JobReturn]:
    import submitit

    init = (
        {f"{self._EXECUTOR}_max_num_timeout": self.params["max_num_timeout"]}
        if "max_num_timeout" in self.params
        else {}
    )
    executor = submitit.AutoExecutor(folder=self.params["submitit_folder"], cluster=self._EXECUTOR, **init)
    queue_keys = set(OmegaConf.structured(BaseQueueConf).keys())
    executor.update_parameters(
        **{
            (key if key in queue_keys else f"{self._EXECUTOR}_{key}"): value
            for key, value in self.params.items()
            if key not in ("submitit_folder", "max_num_timeout")
        }
    )
    sweep_dir.mkdir(parents=True, exist_ok=True)
    log.info("submitting %d job(s) to SLURM; sweep output dir: %s", len(pending), sweep_dir)
    for number, overrides in pending:
        log.info("\t#%d : %s", number, " ".join(filter_overrides(overrides)))
    state = Singleton.get_state()
    args = [(o, "hydra.sweep.dir", n, f"job_id_for_{n}", state) for n, o in pending]
    jobs = executor.map_array(self, *zip(*args))
    out: dict[int, JobReturn] = {}
    for (number, overrides), job in zip(pending, jobs):
        try:
            out[number] = job.results()[0]
        except (submitit.core.utils.UncompletedJobError, submitit.core.utils.FailedJobError) as exc:
            slurm_state = _state(job)
            label = " ".join(filter_overrides(overrides))
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            log.error(
                "job %d (SLURM %s, state %s) produced no result: %s",
                number,
                job.job_id,
                slurm_state,
                reason,
            )
            status = "timeout" if slurm_state.startswith("TIMEOUT") else "error"
            record(job_name(number), TrialOutcome(f"{label} [SLURM {slurm_state}]", status))
            out[number] = _returned(f"slurm-{slurm_state.lower()}")
    return out


def _state(job: Any) -> str:
    try:
        return str(job.state).split()[0] or "UNKNOWN"
    except Exception:
        return "UNKNOWN"


def _returned(value: str) -> JobReturn:
    ret = JobReturn()
    ret.status = JobStatus.COMPLETED
    ret.return_value = value
    return ret
