"""Job states of a SLURM cluster with or without accounting, for submitit.

submitit (1.5) learns whether a job ended from ``sacct``. Without SLURM accounting (no
``slurmdbd``, common on small clusters) ``sacct`` fails, submitit logs a warning at every poll,
and a job that ended without writing its result (cancelled, timed out, killed for memory) stays
``UNKNOWN`` — the submitting command waits for it forever. :class:`StateWatcher` asks ``sacct``
first and, when it fails, reads the states from ``scontrol show job`` (which holds a finished job
for ``MinJobAge`` seconds, 300 by default); a job that ``scontrol`` no longer knows and that has
not written its result is reported as :data:`ENDED`, so the command ends with that job among its
failed trials instead of waiting. One log line says that accounting is unavailable.
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Iterable

from submitit.slurm.slurm import SlurmInfoWatcher

log = logging.getLogger("privbench")

#: The state given to a job that slurmctld no longer holds and that wrote no result.
ENDED = "ENDED"

#: scontrol's answer for a job id it does not hold (never submitted, or purged after MinJobAge).
_UNKNOWN_JOB = "Invalid job id specified"


#: ``ArrayTaskId`` of the record that stands for an array's tasks that never started (SLURM's NO_VAL).
_NO_TASK = "4294967294"


def expand_task_ids(spec: str) -> list[str] | None:
    """The task ids of a ``scontrol`` ``ArrayTaskId`` field (``"3"``, ``"2-4"``, ``"1,5-6%2"``);
    None when the field names no task (the record of an array's never-started tasks)."""
    ids: list[str] = []
    for part in spec.split("%")[0].split(","):
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()) or part == _NO_TASK:
            return None
        ids.extend(str(i) for i in range(int(first), int(last or first) + 1))
    return ids


def rest_key(array: str) -> str:
    """The key :func:`parse_scontrol` gives the state of an array's tasks that are not listed one by one."""
    return f"{array}_*"


def parse_scontrol(text: str) -> dict[str, dict[str, str]]:
    """Job states from ``scontrol -o show job ID`` (one line per job, array task or task range).

    Returns
    -------
    dict
        submitit's job id (``"123"``, or ``"123_4"`` for task 4 of array 123) -> ``{"JobID",
        "State", "NodeList"}``, as submitit reads them from ``sacct``; the record of an array's
        tasks that never started (a cancelled array's rest, whose task ids scontrol no longer
        lists) under :func:`rest_key`.
    """
    states: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
        if "JobId" not in fields:
            continue
        state = fields.get("JobState", "UNKNOWN")
        array, tasks = fields.get("ArrayJobId"), fields.get("ArrayTaskId")
        if array and tasks:
            ids = expand_task_ids(tasks)
            keys = [rest_key(array)] if ids is None else [f"{array}_{task}" for task in ids]
        else:
            keys = [fields["JobId"]]
        for key in keys:
            states[key] = {"JobID": key, "State": state, "NodeList": fields.get("NodeList", "")}
    return states


class StateWatcher(SlurmInfoWatcher):
    """submitit's SLURM watcher, with ``scontrol`` when ``sacct`` cannot answer (module docstring)."""

    def __init__(self, delay_s: int = 60) -> None:
        super().__init__(delay_s=delay_s)
        self.accounting: bool | None = None  # unknown until sacct was tried

    def update(self) -> None:
        """Read the states of the registered unfinished jobs (sacct, else scontrol)."""
        pending = self._registered - self._finished
        arrays = sorted({job_id.split("_")[0] for job_id in pending})
        if not arrays:
            return
        self._num_calls += 1
        info = self._from_sacct(arrays) if self.accounting is not False else None
        if info is None:
            info = self._from_scontrol(arrays, pending)
        self._info_dict.update(info)
        self._last_status_check = time.time()
        for job_id in pending:
            if self.is_done(job_id, mode="cache"):
                self._finished.add(job_id)

    def _from_sacct(self, arrays: Iterable[str]) -> dict[str, dict[str, str]] | None:
        command = ["sacct", "-o", "JobID,State,NodeList", "--parsable2"]
        for array in arrays:
            command += ["-j", array]
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as exc:
            self._no_accounting(str(exc))
            return None
        if proc.returncode != 0:
            self._no_accounting((proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[0])
            return None
        self.accounting = True
        return self.read_info(proc.stdout)

    def _no_accounting(self, reason: str) -> None:
        if self.accounting is None:
            log.info(
                "SLURM accounting is not available (sacct: %s): job states are read from scontrol", reason
            )
        self.accounting = False

    def _from_scontrol(self, arrays: Iterable[str], pending: set[str]) -> dict[str, dict[str, str]]:
        info: dict[str, dict[str, str]] = {}
        for array in arrays:
            try:
                proc = subprocess.run(
                    ["scontrol", "-o", "show", "job", array], capture_output=True, text=True, timeout=60
                )
            except (OSError, subprocess.SubprocessError):
                continue  # states stay as they were; polled again later
            if proc.returncode != 0 and _UNKNOWN_JOB not in proc.stderr:
                continue  # slurmctld unreachable: not a verdict on the job
            held = parse_scontrol(proc.stdout)
            rest = held.pop(rest_key(array), {"State": ENDED, "NodeList": ""})
            info.update(held)
            for job_id in pending:
                if job_id.split("_")[0] == array and job_id not in held:
                    info[job_id] = {**rest, "JobID": job_id}
        return info
