"""Targets of the membership-inference metrics and the attacker's population.

The outlier rule is the ``spec/metrics.md`` P8 decision (Stadler et al. attack outliers and
random records): a record's outlier score is the number of its continuous attributes outside
their [2.5 %, 97.5 %] percentile range in the population. The audit breaks ties by rarity: the
number of population records sharing the record's categorical values (fewer first), so that
on a table without continuous columns the outliers are its rarest combinations — the
worst-case canaries of DP auditing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.record_keys import content_hashes, reference, user_key
from harness.spec import DatasetSpec
from metrics.privacy.mia_features import numeric_values

OUTLIER_QUANTILES = (2.5, 97.5)


def outside_counts(population: pd.DataFrame, spec: DatasetSpec) -> np.ndarray:
    """Per record, the number of continuous attributes outside their [2.5 %, 97.5 %] range."""
    outside = np.zeros(len(population), dtype=np.int64)
    for col in (c for c in spec.table_columns if spec.column(c).is_numeric):
        values = numeric_values(population[col])
        finite = values[np.isfinite(values)]
        if len(finite) == 0:
            continue
        low, high = np.percentile(finite, OUTLIER_QUANTILES)
        with np.errstate(invalid="ignore"):
            outside += ((values < low) | (values > high)).astype(np.int64)
    return outside


def combination_counts(population: pd.DataFrame, spec: DatasetSpec) -> np.ndarray:
    """Per record, how many population records share its categorical values (itself included)."""
    categorical = [c for c in spec.table_columns if not spec.column(c).is_numeric]
    if not categorical:
        return np.ones(len(population), dtype=np.int64)
    keys = pd.util.hash_pandas_object(population[categorical].astype(str), index=False)
    return keys.map(keys.value_counts()).to_numpy(dtype=np.int64)


def select_targets(
    population: pd.DataFrame,
    spec: DatasetSpec,
    n_outliers: int,
    n_random: int,
    rng: np.random.Generator,
    min_rest: int,
) -> tuple[list[int], list[int]]:
    """Positions of the outlier and the random targets in ``population``.

    Outliers: the largest outlier score, then the rarest categorical combination, then a random
    permutation; a record is an outlier only when its score is positive or its combination
    is unique. Random: uniform among the rest, leaving at least ``min_rest`` non-targets.
    """
    n = len(population)
    outside = outside_counts(population, spec)
    rarity = combination_counts(population, spec)
    order = np.lexsort((rng.permutation(n), rarity, -outside))
    eligible = (outside > 0) | (rarity == 1)
    outliers = [int(i) for i in order[:n_outliers] if eligible[i]]
    remaining = np.setdiff1d(np.arange(n), outliers)
    count = min(n_random, max(len(remaining) - min_rest, 0))
    randoms = sorted(int(i) for i in rng.choice(remaining, size=count, replace=False))
    if not outliers and not randoms:
        raise IncomputableMetricError("no membership-inference target (no outlier and too few rows)")
    return outliers, randoms


@dataclass(frozen=True)
class Population:
    """The attacker's population in canonical row order, with where each row came from.

    ``split`` and ``position`` stay inside the metric (tests read them): they say whether a
    record was in the training data, which is exactly what a shareable output must not say.
    """

    frame: pd.DataFrame
    split: np.ndarray
    position: np.ndarray
    content_hash: np.ndarray

    @classmethod
    def build(cls, train: pd.DataFrame, control: pd.DataFrame | None) -> Population:
        """Training (and control) rows, sorted by content hash (any input order gives the same)."""
        parts = [train] + ([control] if control is not None else [])
        frame = pd.concat(parts, ignore_index=True)
        split = np.array(["train"] * len(train) + ["control"] * (len(frame) - len(train)))
        position = np.r_[np.arange(len(train)), np.arange(len(frame) - len(train))]
        hashes = content_hashes(frame)
        order = np.argsort(hashes, kind="stable")
        return cls(
            frame=frame.iloc[order].reset_index(drop=True),
            split=split[order],
            position=position[order],
            content_hash=hashes[order],
        )

    def record(self, row: int) -> dict[str, Any]:
        """How outputs name row ``row``: its keyed reference (:mod:`harness.record_keys`) only.

        No split, no position and no public hash: given a report and a candidate record, a
        reader without the user's key can neither find the record nor tell whether it was
        trained on. ``privbench records`` resolves the references for the key's owner.
        """
        return {"record": reference(int(self.content_hash[row]), user_key())}


def draw_rows(frame: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``size`` rows of ``frame`` drawn without replacement, in their original order."""
    rows = np.sort(rng.choice(len(frame), size=size, replace=False))
    return frame.iloc[rows].reset_index(drop=True)


def with_target(raw: pd.DataFrame, target: pd.DataFrame) -> pd.DataFrame:
    """The raw table with the target record appended (an IN game's training table)."""
    return pd.concat([raw, target], ignore_index=True)
