"""What defines a trial (:class:`TrialConfig`) and a trial ready to run (:class:`PreparedTrial`).

Shared by :mod:`harness.trial` (preparing and running a trial), :mod:`harness.trial_variant`
(obtaining its released table) and :mod:`harness.trial_metrics` (its result rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.datasets import LoadedDataset
from harness.errors import ConfigError
from harness.generator import BaseGenerator
from harness.spec import DatasetSpec
from harness.splits import Split, SplitConfig


@dataclass(frozen=True)
class TrialConfig:
    """Everything that defines one trial (built from the composed Hydra config).

    Attributes
    ----------
    experiment, run_id : str
        Experiment name and the run directory's name.
    dataset : str
        Dataset registry name; ``dataset_cfg`` is its (possibly overridden) spec mapping.
    qi_set : str or None
        Active QI set (None = the dataset's first).
    split, split_seed, fold
        The partition.
    generator : str
        Generator registry name; ``generator_cfg`` holds ``_target_`` and parameters.
    gen_seed : int
        The configured generator seed (sub-seeds are derived from it).
    metrics : mapping
        Suite: metric registry name -> config.
    n_rows : int or None
        Rows to sample (None = the generator's natural size).
    max_rows : int or None
        Seeded subsample of the dataset before splitting (quick profiles).
    timeout_s, max_memory_mb : float or None
        Limits of the fit/sample child process.
    start_method : str
        multiprocessing start method of the child.
    threads : int
        BLAS/OpenMP threads per trial (no oversubscription under parallel launchers).
    cache_dir : Path
    use_cache : bool
        Reuse cached variants and completed trials.
    base_dir : Path
        Where relative user data paths resolve.
    calibrate : bool
        Record each privacy metric's value on the raw data and on new individuals
        (``calib_raw``, ``calib_none``; :mod:`harness.calibration`).
    """

    experiment: str
    run_id: str
    dataset: str
    dataset_cfg: Mapping[str, Any]
    generator: str
    generator_cfg: Mapping[str, Any]
    metrics: Mapping[str, Mapping[str, Any]]
    qi_set: str | None = None
    split: SplitConfig = field(default_factory=SplitConfig)
    split_seed: int = 0
    fold: int = 0
    gen_seed: int = 0
    n_rows: int | None = None
    max_rows: int | None = None
    timeout_s: float | None = 3600.0
    max_memory_mb: float | None = None
    start_method: str = "fork"
    threads: int = 1
    cache_dir: Path = Path("results/.cache")
    use_cache: bool = True
    base_dir: Path = Path(".")
    calibrate: bool = True

    def validate(self) -> None:
        """Check the runtime parameters; raise :class:`ConfigError` naming the key."""
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ConfigError(f"runtime.timeout_s must be > 0 or null; got {self.timeout_s!r}")
        if self.max_memory_mb is not None and not self.max_memory_mb > 0:
            raise ConfigError(f"runtime.max_memory_mb must be > 0 or null; got {self.max_memory_mb!r}")
        if self.n_rows is not None and (isinstance(self.n_rows, bool) or int(self.n_rows) < 1):
            raise ConfigError(f"n_rows must be a positive integer or null; got {self.n_rows!r}")
        if self.max_rows is not None and int(self.max_rows) < 10:
            raise ConfigError(f"data.max_rows must be >= 10 or null; got {self.max_rows!r}")
        if int(self.threads) < 1:
            raise ConfigError(f"runtime.threads must be >= 1; got {self.threads!r}")
        if self.start_method not in ("fork", "spawn", "forkserver"):
            raise ConfigError(
                f"runtime.start_method must be fork, spawn or forkserver; got {self.start_method!r}"
            )
        for key in ("split_seed", "gen_seed"):
            value = getattr(self, key)
            if isinstance(value, bool) or int(value) != value or value < 0:
                raise ConfigError(f"{key} must be a non-negative integer; got {value!r}")


@dataclass
class PreparedTrial:
    """A trial with its data loaded and split and its objects built (no generator run yet)."""

    cfg: TrialConfig
    spec: DatasetSpec
    loaded: LoadedDataset
    train: pd.DataFrame
    control: pd.DataFrame
    test: pd.DataFrame
    split: Split
    generator: BaseGenerator
    generator_seed: int
    metric_objects: dict[str, Any]
    variant_key: str
    trial_key: str
