"""What the trials of one ``privbench run`` ended as: one line for the user, the exit status.

Jobs may run in the command's process (Hydra's basic launcher), in local worker processes
(joblib) or on other machines (submitit), so each job records its outcome as a small JSON file
in a folder named by ``$PRIVBENCH_STATUS_DIR`` (under the results directory, which a cluster's
nodes share); the command reads them when the launcher returns.

A trial *failed* when its generator ended in ``error``, ``timeout`` or ``oom``, or a metric
did; it was *skipped* when its generator does not apply to the data (``skipped``: SMOTE on a
table with categorical columns, an infeasible ratio). ``privbench run`` exits 1 when a trial
failed, 0 otherwise; the summary line names skipped trials either way.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.storage import atomic_write_json

STATUS_DIR_ENV = "PRIVBENCH_STATUS_DIR"
FAILED = ("error", "timeout", "oom")
COST_METRICS = ("fit_seconds", "sample_seconds", "peak_rss_mb")
SHOWN = 3


@dataclass(frozen=True)
class TrialOutcome:
    """How one job ended.

    Attributes
    ----------
    label : str
        The job's overrides.
    generator : str
        Status of the generator's fit and sample (``ok``, ``skipped``, ``error``, ``timeout``,
        ``oom``) or ``present`` (results already there, not run again).
    failed_metrics : int
        Metric results of the trial that ended in error, timeout or oom.
    """

    label: str
    generator: str
    failed_metrics: int = 0

    @property
    def failed(self) -> bool:
        return self.generator in FAILED or self.failed_metrics > 0


def new_status_dir(results_root: Path) -> Path:
    """A fresh folder for the job outcomes of one command."""
    return (Path(results_root) / ".cache" / "status" / uuid.uuid4().hex).resolve()


def outcome_of(rows: pd.DataFrame, label: str) -> TrialOutcome:
    """The outcome of a trial from its result rows."""
    cost = rows[rows["metric"].isin(COST_METRICS)]
    generator = str(cost["status"].iloc[0]) if len(cost) else _worst(rows["status"])
    metrics = rows[~rows["metric"].isin(COST_METRICS) & (rows["metric"] != "(trial)")]
    failed = int(metrics["status"].isin(FAILED).sum()) if generator == "ok" else 0
    return TrialOutcome(label=label, generator=generator, failed_metrics=failed)


def record(job: str, outcome: TrialOutcome) -> None:
    """Write a job's outcome where the command will read it (nothing without ``$PRIVBENCH_STATUS_DIR``)."""
    folder = os.environ.get(STATUS_DIR_ENV)
    if folder:
        atomic_write_json(
            Path(folder) / f"{job}.json",
            {
                "label": outcome.label,
                "generator": outcome.generator,
                "failed_metrics": outcome.failed_metrics,
            },
        )


def read_outcomes(folder: Path) -> list[TrialOutcome]:
    """Every outcome recorded in ``folder`` (unreadable files are left out)."""
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text())
            out.append(TrialOutcome(str(data["label"]), str(data["generator"]), int(data["failed_metrics"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return out


def summary(outcomes: Iterable[TrialOutcome], planned: int | None = None) -> tuple[str, int]:
    """The one-line summary of a command's trials and its exit status (1 when a trial failed)."""
    outcomes = list(outcomes)
    counts = Counter("failed" if o.failed else o.generator for o in outcomes)
    order = ["ok", "present", "skipped", "failed"]
    words = {"present": "already done"}
    parts = [f"{counts[k]} {words.get(k, k)}" for k in order if counts.get(k)]
    parts += [f"{n} {k}" for k, n in sorted(counts.items()) if k not in order]
    line = f"privbench: {len(outcomes)} trial(s): " + (", ".join(parts) or "none ran")
    if planned is not None and planned > len(outcomes):
        line += f"; {planned - len(outcomes)} did not report (killed or lost: run the same command again)"
    failed = [o for o in outcomes if o.failed]
    skipped = [o for o in outcomes if o.generator == "skipped"]
    common = set.intersection(*(set(o.label.split()) for o in outcomes)) if len(outcomes) > 1 else set()
    for name, group in (("failed", failed), ("skipped", skipped)):
        if group:
            shown = "; ".join(_describe(o, common) for o in group[:SHOWN])
            more = f" (+{len(group) - SHOWN} more)" if len(group) > SHOWN else ""
            line += f"; {name}: {shown}{more}"
    if failed or skipped:
        line += " (details: privbench report RUN_DIR, tables/failures.csv)"
    return line, 1 if failed else 0


def _describe(outcome: TrialOutcome, common: set[str]) -> str:
    """The job's overrides that differ between the command's jobs, with what went wrong."""
    label = " ".join(t for t in outcome.label.split() if t not in common) or outcome.label
    if outcome.generator in FAILED:
        return f"{label} [{outcome.generator}]"
    if outcome.failed_metrics:
        return f"{label} [{outcome.failed_metrics} metric result(s) failed]"
    return label


def _worst(statuses: pd.Series) -> str:
    order = ["ok", "skipped", "error", "timeout", "oom"]
    values = [s for s in statuses.astype(str) if s in order]
    return max(values, key=order.index) if values else "ok"
