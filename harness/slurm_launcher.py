"""The SLURM launcher of ``hydra/launcher=slurm``: submitit's, with what a cluster user relies on.

Differences from ``hydra_submitit_launcher``'s ``SlurmLauncher`` (tracker issue 18):

* **completed trials are not submitted**: a job whose directory already holds its
  ``rows.parquet`` with the same overrides (``.hydra/overrides.yaml``) is recorded as already
  done, so a rerun after a cancel submits only what is left (before, each completed job still
  cost a SLURM job that found its rows and exited);
* **trials packed into jobs** (``hydra.launcher.trials_per_job``): a SLURM job runs several
  trials one after another, so scheduling, interpreter start-up and imports are paid once per
  job; its time limit is ``timeout_min`` per trial;
* **memory from measured peaks** (``hydra.launcher.mem_gb: null``, the default):
  :mod:`harness.slurm_resources`;
* **a job that ends without output** (cancelled, SLURM time limit, out of memory, node failure)
  does not end the command with submitit's traceback: each of its trials without rows gets a
  status row (``timeout`` for SLURM's time limit, ``error`` otherwise, the SLURM state in
  ``error``), the command prints its one-line summary and exits 1, and the same command submits
  those trials again (a lost job's rows are placeholders: :func:`job_state`);
* **no accounting needed**: job states come from ``scontrol`` when ``sacct`` fails
  (:mod:`harness.slurm_watcher`).

Everything else (executor parameters, array submission, the job body) is submitit's. Hydra
loads launchers only from its ``hydra_plugins`` namespace, so instead of a plugin of its own
privbench replaces the ``launch`` method of submitit's ``SlurmLauncher`` (:func:`install`,
called by ``privbench run``). A SLURM job runs :func:`run_trials`, which calls submitit's own
job body once per trial; importing this module on the node registers the launcher's config node
(:mod:`harness.slurm_config`), which the job body composes again.
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
from omegaconf import DictConfig, OmegaConf, open_dict

from harness import slurm_config
from harness.collect import LOST_MARKER, ROWS_FILE
from harness.errors import PrivbenchError
from harness.run_status import TrialOutcome, record
from harness.slurm_resources import job_pair, measured_peaks, memory_request
from harness.slurm_watcher import StateWatcher
from harness.storage import atomic_write_json, atomic_write_rows

log = logging.getLogger("privbench")

#: How often (at most) the submitting command asks SLURM for the states of its jobs, in seconds.
POLL_DELAY_S = 60


class SlurmJobLost(PrivbenchError):
    """A SLURM job ended without the results of this trial (the error of its placeholder row)."""


#: The error of a lost job's status row starts with this.
LOST_PREFIX = f"{SlurmJobLost.__name__}: "


def job_state(job_dir: Path, overrides: Sequence[str]) -> str:
    """``"done"`` (rows of a job with exactly these overrides), ``"lost"`` (the status row of a
    lost SLURM job, :data:`~harness.collect.LOST_MARKER`: run again) or ``"todo"``."""
    if not (job_dir / ROWS_FILE).is_file():
        return "todo"
    if (job_dir / LOST_MARKER).exists():
        return "lost"
    try:
        recorded = yaml.safe_load((job_dir / ".hydra" / "overrides.yaml").read_text())
    except (OSError, yaml.YAMLError):
        return "todo"
    same = isinstance(recorded, list) and [str(o) for o in recorded] == [str(o) for o in overrides]
    return "done" if same else "todo"


def completed(job_dir: Path, overrides: Sequence[str]) -> bool:
    """True when ``job_dir`` holds the rows of a job with exactly these overrides (not a placeholder)."""
    return job_state(job_dir, overrides) == "done"


def job_name(number: int) -> str:
    """The job's name in the command's status folder (as :func:`harness.app._job_id` writes it)."""
    return f"{number:06d}"


def install() -> None:
    """Make ``hydra/launcher=slurm`` (submitit's ``SlurmLauncher``) use :func:`launch`, and
    submitit's SLURM jobs a :class:`~harness.slurm_watcher.StateWatcher` (idempotent)."""
    import submitit.slurm.slurm as submitit_slurm

    slurm_config.register()
    SubmititSlurmLauncher.launch = launch
    if not isinstance(submitit_slurm.SlurmJob.watcher, StateWatcher):
        submitit_slurm.SlurmJob.watcher = StateWatcher(delay_s=POLL_DELAY_S)


def run_trials(launcher: SubmititSlurmLauncher, calls: list[tuple[Any, ...]]) -> list[JobReturn]:
    """The body of one SLURM job: submitit's job body for each of its trials, one after another.

    Near the job's time limit submitit interrupts the running trial with ``UncompletedJobError``
    (its timeout signal, ``signal_delay_s`` before the limit); Hydra turns that into a failed
    job return. It is raised again here, so the job ends with it and the launcher records every
    trial of the job without rows as timed out (:func:`_lost`).
    """
    from submitit.core.utils import UncompletedJobError

    returns = []
    for call in calls:
        ret = launcher(*call)
        interrupted = getattr(ret, "_return_value", None)
        if ret.status == JobStatus.FAILED and isinstance(interrupted, UncompletedJobError):
            raise interrupted
        returns.append(ret)
    return returns


def launch(
    self: SubmititSlurmLauncher, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
) -> Sequence[JobReturn]:
    """submitit's launch, minus the completed jobs, packed, with lost jobs recorded as failed trials."""
    assert self.config is not None
    sweep_dir = Path(str(self.config.hydra.sweep.dir))
    numbered = [(initial_job_idx + i, list(o)) for i, o in enumerate(job_overrides)]
    states = {n: job_state(sweep_dir / str(n), o) for n, o in numbered}
    pending = [(n, o) for n, o in numbered if states[n] != "done"]
    returns: dict[int, JobReturn] = {}
    for number, overrides in numbered:
        if states[number] == "done":
            record(job_name(number), TrialOutcome(" ".join(filter_overrides(overrides)), "present"))
            returns[number] = _returned("skipped-existing")
        elif states[number] == "lost":  # a status row only: the trial runs again
            (sweep_dir / str(number) / ROWS_FILE).unlink()
            (sweep_dir / str(number) / LOST_MARKER).unlink()
    if len(pending) < len(numbered):
        log.info(
            "%d of %d job(s) already have their rows in %s: not submitted",
            len(numbered) - len(pending), len(numbered), sweep_dir,
        )  # fmt: skip
    if pending:
        returns.update(_submit(self, sweep_dir, pending))
    return [returns[n] for n, _ in numbered]


def _executor(
    self: SubmititSlurmLauncher, sweep_dir: Path, pending: list[tuple[int, list[str]]]
) -> tuple[Any, int]:
    """submitit's executor with the launcher's parameters (privbench's own resolved), and trials per job."""
    import submitit

    params = dict(self.params)
    per_job = max(1, int(params.pop("trials_per_job", 1) or 1))
    headroom = float(params.pop("mem_headroom", 1.5) or 1.5)
    if params.get("mem_gb") is None:
        runtime = self.config.get("runtime") or {}
        request = memory_request(
            (job_pair(o) for _, o in pending),
            measured_peaks([sweep_dir.parent]),
            headroom,
            trial_limit_mb=runtime.get("max_memory_mb"),
        )
        params["mem_gb"] = request.gb
        log.info("%s", request.describe())
    if per_job > 1 and params.get("timeout_min"):
        params["timeout_min"] = int(params["timeout_min"]) * per_job
    init = (
        {f"{self._EXECUTOR}_max_num_timeout": params["max_num_timeout"]}
        if "max_num_timeout" in params
        else {}
    )
    executor = submitit.AutoExecutor(folder=params["submitit_folder"], cluster=self._EXECUTOR, **init)
    queue_keys = set(OmegaConf.structured(BaseQueueConf).keys())
    executor.update_parameters(
        **{
            (key if key in queue_keys else f"{self._EXECUTOR}_{key}"): value
            for key, value in params.items()
            if key not in ("submitit_folder", "max_num_timeout", *slurm_config.OWN_KEYS)
        }
    )
    return executor, per_job


def _submit(
    self: SubmititSlurmLauncher, sweep_dir: Path, pending: list[tuple[int, list[str]]]
) -> dict[int, JobReturn]:
    import submitit

    executor, per_job = _executor(self, sweep_dir, pending)
    sweep_dir.mkdir(parents=True, exist_ok=True)
    chunks = [pending[i : i + per_job] for i in range(0, len(pending), per_job)]
    log.info(
        "submitting %d trial(s) to SLURM as %d job(s); sweep output dir: %s",
        len(pending),
        len(chunks),
        sweep_dir,
    )
    for number, overrides in pending:
        log.info("\t#%d : %s", number, " ".join(filter_overrides(overrides)))
    state = Singleton.get_state()
    calls = [[(o, "hydra.sweep.dir", n, f"job_id_for_{n}", state) for n, o in chunk] for chunk in chunks]
    jobs = executor.map_array(run_trials, [self] * len(chunks), calls)
    out: dict[int, JobReturn] = {}
    for chunk, job in zip(chunks, jobs):
        try:
            out.update(zip((n for n, _ in chunk), job.results()[0]))
        except (submitit.core.utils.UncompletedJobError, submitit.core.utils.FailedJobError) as exc:
            out.update(_lost(self, sweep_dir, chunk, job, exc))
    return out


def _lost(
    self: SubmititSlurmLauncher, sweep_dir: Path, chunk: list[tuple[int, list[str]]], job: Any, exc: Exception
) -> dict[int, JobReturn]:
    """Placeholder rows and failed outcomes for the trials of a lost job that have no rows."""
    slurm_state = _state(job)
    if "timed-out" in str(exc):  # submitit's time-limit signal ended the job before SLURM did
        slurm_state = "TIMEOUT"
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    log.error("SLURM job %s (state %s) produced no result: %s", job.job_id, slurm_state, reason)
    status = "timeout" if slurm_state.startswith("TIMEOUT") else "error"
    out: dict[int, JobReturn] = {}
    for number, overrides in chunk:
        if completed(sweep_dir / str(number), overrides):
            out[number] = _returned("ok")  # finished before the job was lost; its outcome is recorded
            continue
        label = " ".join(filter_overrides(overrides))
        lost = SlurmJobLost(
            f"SLURM job {job.job_id} ended {slurm_state} without this trial's results; "
            "the same command runs it again"
        )
        _write_placeholder(self, sweep_dir, number, overrides, lost, status, (job.job_id, slurm_state))
        record(job_name(number), TrialOutcome(f"{label} [SLURM {slurm_state}]", status))
        out[number] = _returned(f"slurm-{slurm_state.lower()}")
    return out


def _write_placeholder(
    self: SubmititSlurmLauncher,
    sweep_dir: Path,
    number: int,
    overrides: list[str],
    lost: SlurmJobLost,
    status: str,
    slurm: tuple[str, str],
) -> None:
    """The trial's status row, in its job directory with its overrides (as Hydra would write them)."""
    from harness.app import _config_error_rows

    assert self.hydra_context is not None
    cfg: DictConfig = self.hydra_context.config_loader.load_sweep_config(self.config, list(overrides))
    choices = {str(k): v for k, v in dict(cfg.hydra.runtime.choices).items()}
    with open_dict(cfg):
        del cfg["hydra"]
    rows = _config_error_rows(cfg, choices, sweep_dir.name, lost)
    rows["status"] = status
    job_dir = sweep_dir / str(number)
    (job_dir / ".hydra").mkdir(parents=True, exist_ok=True)
    (job_dir / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump([str(o) for o in overrides]))
    atomic_write_json(job_dir / LOST_MARKER, {"slurm_job": slurm[0], "state": slurm[1]})
    atomic_write_rows(job_dir / ROWS_FILE, rows)


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
