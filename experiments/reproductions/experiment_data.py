"""An experiment's table and split as its trials build them, for checks on the shipped data.

Checks of deterministic facts of the data (row counts, split sizes, outliers of the training
split) must not depend on the profile's subsample, so they rebuild the experiment's table from
its YAML: the ``dataset`` block deep-merged into the dataset's spec (as Hydra composes it), the
``split`` block and ``split_seed`` 0, with the trial's stratification rule
(``harness.trial.prepare_trial``: the target of a classification task).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pandas as pd

from harness.datasets import load_dataset, load_spec
from harness.registry import read_config
from harness.spec import DatasetSpec
from harness.splits import Split, SplitConfig, make_split


def _block(experiment: str, key: str) -> dict[str, Any]:
    value = read_config("experiment", experiment).get(key) or {}
    return dict(value) if isinstance(value, dict) else {}


@lru_cache(maxsize=4)
def experiment_table(experiment: str, dataset: str) -> tuple[DatasetSpec, pd.DataFrame]:
    """The spec and full table of ``dataset`` with ``experiment``'s ``dataset`` overrides.

    The frame is shared between calls (cached): do not modify it.
    """
    spec = load_spec(dataset, _block(experiment, "dataset"))
    return spec, load_dataset(spec).frame


def experiment_split(experiment: str, spec: DatasetSpec, frame: pd.DataFrame, split_seed: int = 0) -> Split:
    """The split of ``frame`` that ``experiment``'s trials with ``split_seed`` use."""
    y = frame[spec.target] if spec.target is not None and spec.task in ("binary", "multiclass") else None
    return make_split(
        len(frame), SplitConfig.from_dict(_block(experiment, "split")), split_seed=split_seed, y=y
    )
