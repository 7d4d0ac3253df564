"""The memory a SLURM job of privbench trials asks for, from the peaks measured in earlier runs.

Every trial records the peak resident set of its child processes (``peak_rss_mb`` in its rows,
:mod:`harness.isolation`). When ``hydra.launcher.mem_gb`` is null, the SLURM job asks for

    ``ceil((mem_headroom × peak + JOB_PROCESS_MB) / 1024)`` GB,

where ``peak`` is the largest peak measured for the planned trials' (dataset, generator) pairs
in the results of earlier runs of the same experiment (the sibling sweep directories, the
resumed one included). A planned pair without a measurement assumes ``runtime.max_memory_mb``
(privbench's own limit of a trial, when set) or :data:`UNMEASURED_PEAK_MB`. The issue that
asked for this measured trials peaking at 223 MB under a default request of 16 GB, which made
a 20 GB node run one trial at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from harness.collect import ROWS_FILE

#: Memory of the job's own process (interpreter, harness and its libraries), beside the trial's
#: child processes that ``peak_rss_mb`` measures (a job process that had run SDV trials held
#: about 510 MB here).
JOB_PROCESS_MB = 1024.0

#: Assumed peak of a trial nothing was measured for: above the largest peak of the committed
#: protocol runs (2,525 MB: UMAP-SMOTENC on the full Adult training split).
UNMEASURED_PEAK_MB = 3072.0

#: At most this many result files are read (the newest first): enough to cover the pairs of a
#: pilot sweep; 351 files took 2.5 s on the loaded 2-core development machine.
MAX_FILES = 1000


@dataclass(frozen=True)
class MemoryRequest:
    """The memory of one SLURM job and how it was sized."""

    gb: int
    measured_peak_mb: float
    assumed_peak_mb: float | None
    measured_pairs: int
    unmeasured_pairs: int

    def describe(self) -> str:
        """One line for the command's log."""
        parts = []
        if self.measured_pairs:
            parts.append(
                f"peak RSS {self.measured_peak_mb:,.0f} MB measured in earlier runs "
                f"({self.measured_pairs} dataset/generator pair(s))"
            )
        if self.unmeasured_pairs:
            parts.append(
                f"{self.assumed_peak_mb:,.0f} MB assumed for {self.unmeasured_pairs} pair(s) never measured"
            )
        return f"SLURM memory per job: {self.gb} GB ({'; '.join(parts)}; set hydra.launcher.mem_gb to choose)"


def job_pair(overrides: Sequence[str]) -> tuple[str | None, str | None]:
    """The (dataset, generator) a job's overrides choose (None where the experiment's default applies)."""
    chosen: dict[str, str] = {}
    for text in overrides:
        key, _, value = text.partition("=")
        chosen[key.lstrip("+~")] = value
    return chosen.get("dataset"), chosen.get("generator")


def measured_peaks(roots: Iterable[Path], max_files: int = MAX_FILES) -> dict[tuple[str, str], float]:
    """The largest ``peak_rss_mb`` per (dataset, generator) in the result files under ``roots``."""
    files = {f for root in roots if root.is_dir() for f in root.glob(f"**/{ROWS_FILE}")}
    newest = sorted(files, key=lambda f: f.stat().st_mtime, reverse=True)[:max_files]
    peaks: dict[tuple[str, str], float] = {}
    for path in newest:
        try:
            table = pq.read_table(path, columns=["dataset", "generator", "peak_rss_mb"]).to_pydict()
        except (OSError, ValueError, KeyError):
            continue  # an unreadable or older file says nothing about memory
        for dataset, generator, peak in zip(table["dataset"], table["generator"], table["peak_rss_mb"]):
            if peak is None or isinstance(peak, float) and math.isnan(peak):
                continue
            key = (str(dataset), str(generator))
            peaks[key] = max(peaks.get(key, 0.0), float(peak))
    return peaks


def memory_request(
    pairs: Iterable[tuple[str | None, str | None]],
    peaks: dict[tuple[str, str], float],
    headroom: float,
    trial_limit_mb: float | None = None,
) -> MemoryRequest:
    """Size one job's memory for trials of these (dataset, generator) pairs (module docstring)."""
    planned = set(pairs)
    known = [peaks[p] for p in planned if p[0] is not None and p[1] is not None and p in peaks]
    unmeasured = len(planned) - len(known)
    measured = max(known, default=0.0)
    assumed = (float(trial_limit_mb) if trial_limit_mb else UNMEASURED_PEAK_MB) if unmeasured else None
    peak = max(measured, assumed or 0.0)
    gb = max(1, math.ceil((headroom * peak + JOB_PROCESS_MB) / 1024.0))
    return MemoryRequest(gb, measured, assumed, len(known), unmeasured)
