"""Calibration of privacy metrics: the same metric on the raw data and on a no-leakage release.

A privacy number means little without its range on the same table: an Anonymeter risk of
0.07 is alarming where releasing the raw training rows scores 0.08 and harmless where it
scores 0.85. For every privacy metric of a trial, :func:`calibrate` computes the metric, on
the trial's own data, split and QI set, for two reference releases:

``raw``
    the training split T itself (what the ``identity`` generator releases): the most a
    release can leak;
``none``
    a sample of new individuals (what the ``real_holdout`` generator releases: rows of the
    control split, never seen by any generator): no record of T leaks.

The values are recorded in every privacy row (``calib_raw``, ``calib_none``), so the report
shows each number next to its metric's range on the user's own table. They depend only on
the block (data, split, fold, QI set) and the metric's configuration, not on the generator
under test: they are computed once per block and metric and cached under
``<cache>/calibration`` (content-addressed like the variant cache), so a sweep of many
generators pays for them once. The metric's seed is derived from the block, so every trial
of the block reads the same numbers.

Metrics that refit the generator (``needs_generator``, e.g. the membership-inference
privacy gain) are not calibrated: their reference is part of their own game.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import harness
from harness.cache import content_key
from harness.errors import IncomputableMetricError, InfeasibleConfigError
from harness.instantiate import build_generator
from harness.metric import BaseMetric, as_outputs
from harness.seeding import derive_seed
from harness.spec import DatasetSpec
from harness.storage import atomic_write_json

REFERENCES: dict[str, str] = {"raw": "identity", "none": "real_holdout"}
"""Reference release → the registered generator that produces it."""

CALIBRATION_VERSION = 1
"""Bumped when what a calibration entry holds changes (part of the cache key)."""


@dataclass(frozen=True)
class Block:
    """What a calibration depends on besides the metric: the data, split and QI set of a trial."""

    dataset_digest: str
    max_rows: int | None
    split: Mapping[str, Any]
    split_seed: int
    fold: int
    qi_set: str | None

    def payload(self) -> dict[str, Any]:
        """The block as a JSON-able mapping (part of the cache key)."""
        return {
            "dataset_digest": self.dataset_digest,
            "max_rows": self.max_rows,
            "split": dict(self.split),
            "split_seed": self.split_seed,
            "fold": self.fold,
            "qi_set": self.qi_set,
        }


@dataclass(frozen=True)
class Calibration:
    """Reference values of one metric in one block: ``{reference: {variant: value}}``.

    A reference that could not be computed (no control split, the metric skipped or failed
    on it) maps to an empty dict and its reason is in ``errors``.
    """

    values: Mapping[str, Mapping[str, float]]
    errors: Mapping[str, str]
    cached: bool

    def for_variant(self, variant: str) -> tuple[float, float]:
        """(raw, none) values of ``variant`` (NaN where unavailable)."""
        return (
            float(self.values.get("raw", {}).get(variant, math.nan)),
            float(self.values.get("none", {}).get(variant, math.nan)),
        )


def calibration_seed(block: Block, metric_name: str) -> int:
    """The metric seed of a block's calibration (independent of the generator and gen_seed)."""
    return derive_seed(block.split_seed, "calibration", block.fold, metric_name)


def reference_releases(
    train: pd.DataFrame, control: pd.DataFrame, spec: DatasetSpec, block: Block
) -> dict[str, pd.DataFrame | None]:
    """The raw-data and no-leakage releases of a block, made by their registered generators.

    ``none`` is None when the split has no control rows (``split.kind: none``).
    """
    out: dict[str, pd.DataFrame | None] = {}
    for reference, generator_name in REFERENCES.items():
        generator = build_generator(generator_name)
        needs_control = generator.info().needs_control
        if needs_control and len(control) == 0:
            out[reference] = None
            continue
        seed = derive_seed(block.split_seed, "calibration", block.fold, generator_name)
        generator.fit(train, spec, seed=seed, control=control if needs_control else None)
        out[reference] = generator.sample()
    return out


class CalibrationCache:
    """JSON entries under ``<root>/calibration/<k[:2]>/<k>.json`` (written atomically, private)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root) / "calibration"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None when absent or unreadable."""
        path = self._path(key)
        if not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store an entry."""
        atomic_write_json(self._path(key), entry, private_root=self.root.parent)


def calibrate(
    metric_name: str,
    metric: BaseMetric,
    metric_target: str,
    *,
    block: Block,
    train: pd.DataFrame,
    control: pd.DataFrame,
    test: pd.DataFrame,
    spec: DatasetSpec,
    cache: CalibrationCache | None,
    releases: Callable[[], dict[str, pd.DataFrame | None]] | None = None,
) -> Calibration:
    """The metric's values on the raw-data and no-leakage releases of ``block``.

    Parameters
    ----------
    metric_name : str
        The metric's name in the suite (part of the seed and of the cache key).
    metric : BaseMetric
        The configured metric object (its parameters are part of the cache key).
    metric_target : str
        The metric's ``_target_`` (part of the cache key).
    block : Block
        Data, split and QI set of the trial.
    train, control, test : DataFrame
        The trial's splits.
    spec : DatasetSpec
        The trial's schema (active QI set).
    cache : CalibrationCache or None
        Where entries are read and stored (None: compute, do not store).
    releases : callable, optional
        Returns the block's reference releases (see :func:`reference_releases`); called only
        when the cache misses, so a caller calibrating several metrics can build them once.
        Default: build them.

    Returns
    -------
    Calibration
    """
    key = content_key(
        {
            "calibration": CALIBRATION_VERSION,
            "privbench": harness.__version__,
            "block": block.payload(),
            "metric": metric_name,
            "target": metric_target,
            "params": metric.get_params(),
        }
    )
    if cache is not None:
        entry = cache.get(key)
        if entry is not None:
            return Calibration(entry.get("values", {}), entry.get("errors", {}), cached=True)
    tables = releases() if releases is not None else reference_releases(train, control, spec, block)
    seed = calibration_seed(block, metric_name)
    values: dict[str, dict[str, float]] = {}
    errors: dict[str, str] = {}
    for reference, table in tables.items():
        if table is None:
            values[reference] = {}
            errors[reference] = "no control split: no new individuals to release"
            continue
        try:
            outputs = as_outputs(metric.compute(train, table, spec, control=control, test=test, seed=seed))
        except (IncomputableMetricError, InfeasibleConfigError) as exc:
            values[reference], errors[reference] = {}, f"skipped: {exc}"
            continue
        except Exception as exc:  # a metric failing on a reference must not fail the trial
            values[reference], errors[reference] = {}, f"error: {type(exc).__name__}: {exc}"
            continue
        values[reference] = {variant: float(result.value) for variant, result in outputs.items()}
    if cache is not None and not any(e.startswith("error:") for e in errors.values()):
        entry = {"values": values, "errors": errors, "seed": seed, "dataset": spec.name}
        cache.put(key, entry)  # failures are retried
    return Calibration(values, errors, cached=False)
