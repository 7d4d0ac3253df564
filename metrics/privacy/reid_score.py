"""``reid_score``: re-identification score and k-anonymity profile of a release.

Specification: ``spec/metrics.md`` P4 (DSTA Data Anonymizer blog, seed file ``003_…``,
"Evaluation Criteria": re-identification score, its summary statistics and the
"proportion of rows above k-threshold" plot).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_bool, check_int
from harness.spec import DatasetSpec

DEFAULT_KS: tuple[int, ...] = (2, 5, 10)


class ReidScore(BaseMetric):
    """Re-identification score r(x) = 1/|EC(x)| over the equivalence classes of the release.

    ``spec/metrics.md`` P4. An equivalence class (EC) of a table D is a set of rows with
    equal values on the active QI set Q; NA, ``*`` and generalised labels (``"[20, 30)"``,
    hierarchy labels) are ordinary values, so a generalised release is scored on the labels
    it holds. D is the released table S. Outputs (result ``variant``):

    ``reid_mean`` (headline)
        (1/|D|)·Σ_x 1/|EC(x)| = (number of ECs)/|D|, record-weighted; lower is better.
    ``reid_mean_classes``
        mean over the ECs of 1/|EC|; lower is better.
    ``reid_max``
        max_x 1/|EC(x)| = 1/min |EC|; lower is better.
    ``k_anonymity``
        min |EC| (= 1/``reid_max``); higher is better.
    ``prop_k_anonymous_k{k}``, one per ``k`` in ``ks``
        share of rows whose EC has at least k rows; higher is better.
    ``suppression_rate``, only when |S| < |T|
        (|T| − |S|)/|T|, the share of training rows a row-suppressing anonymiser removed;
        lower is better.

    With ``ranked`` (see below) the outputs carry these directions; by default they are
    reported without one. The baseline of every output except ``suppression_rate`` is the same statistic on the
    training split T (the unprotected table). ``details`` of ``reid_mean`` hold the
    k-threshold curve ``{"k": [1, …, k_max], "release": [...], "train": [...]}``
    (``prop_k_anonymous`` for every k; the blog's Fig. 5 overlays such curves per release).

    Parameters
    ----------
    ks : list of int
        Thresholds k reported as ``prop_k_anonymous_k{k}`` outputs (each >= 1, no repeats).
    k_max : int
        Largest k of the k-threshold curve (>= 1).
    ranked : bool
        Give the outputs the directions of ``spec/metrics.md`` P4 (lower ``reid_*`` and
        ``suppression_rate``, higher ``k_anonymity`` and ``prop_k_anonymous_*``), so reports
        rank releases by them. Meaningful when every compared release is an anonymisation of T
        (one row per person). Default False: every output has goal ``none`` (reported, not
        ranked), because on synthetic releases the ranking is wrong-headed: a table of uniform
        noise has only unique QI combinations and would rank as less private than a copy of T.

    Notes
    -----
    Computed with one ``groupby(Q, dropna=False).size()`` per table; O(n). On fully
    synthetic data the numbers describe the released table only: a unique synthetic QI
    combination need not belong to a real person (``002_…`` §2.3); read them together with
    ``dcr_nndr`` / ``dcr_share``.
    """

    name: ClassVar[str] = "reid_score"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf  # k_anonymity is a class size; the rest lie in [0, 1]
    ladder_exempt: ClassVar[Mapping[str, str]] = {
        "*": (
            "with ranked: true it scores the release's own QI uniqueness, not what the release reveals "
            "about T: on Adult the raw data (reid_mean 0.85) ranks safer than independent marginals "
            "(0.95), whose scrambled QI combinations are all unique; by default its outputs have no "
            "direction (diagnostics)"
        ),
    }
    needs_qi: ClassVar[bool] = True

    def __init__(self, ks: Sequence[int] = DEFAULT_KS, k_max: int = 50, ranked: bool = False) -> None:
        self.ks = ks
        self.k_max = k_max
        self.ranked = ranked

    def _validate_params(self) -> None:
        check_int("k_max", self.k_max, 1)
        check_bool("ranked", self.ranked)
        if isinstance(self.ks, (str, bytes)) or not isinstance(self.ks, Sequence):
            raise ConfigError(f"`ks` must be a list of integers >= 1; got {self.ks!r}")
        for k in self.ks:
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
                raise ConfigError(f"`ks` must be a list of integers >= 1; got {list(self.ks)!r}")
        if len(set(self.ks)) != len(self.ks):
            raise ConfigError(f"`ks` must not repeat a threshold; got {list(self.ks)!r}")

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        qi = list(spec.qi)
        release = ClassProfile.of(synthetic, qi)
        train = ClassProfile.of(real, qi) if len(real) else None
        details: dict[str, Any] = {
            "qi_set": spec.qi_set_name,
            "qi": qi,
            "n_rows": release.n_rows,
            "n_classes": release.n_classes,
            "max_class_size": int(release.sizes.max()),
            "n_train": len(real),
        }

        out: dict[str, MetricResult] = {}

        def emit(
            key: str, stat: Callable[[ClassProfile], float], goal: Goal | None = None, **extra: Any
        ) -> None:
            out[key] = MetricResult(
                value=stat(release),
                baseline=None if train is None else stat(train),
                details={**details, **extra},
                goal=goal if self.ranked else "none",
            )

        ks = list(range(1, int(self.k_max) + 1))
        curve = {
            "k": ks,
            "release": [release.prop_k_anonymous(k) for k in ks],
            "train": None if train is None else [train.prop_k_anonymous(k) for k in ks],
        }
        emit("reid_mean", lambda p: p.reid_mean, k_threshold_curve=curve)
        emit("reid_mean_classes", lambda p: p.reid_mean_classes)
        emit("reid_max", lambda p: p.reid_max)
        emit("k_anonymity", lambda p: p.k_anonymity, goal="maximise")
        for k in map(int, self.ks):
            emit(f"prop_k_anonymous_k{k}", partial(ClassProfile.prop_k_anonymous, k=k), goal="maximise", k=k)
        if len(synthetic) < len(real):
            out["suppression_rate"] = MetricResult(
                value=(len(real) - len(synthetic)) / len(real),
                details=details,
                goal="minimise" if self.ranked else "none",
            )
        return out


class ClassProfile:
    """The equivalence-class sizes of one table on a QI set.

    Parameters
    ----------
    sizes : numpy.ndarray
        Size of every equivalence class (positive integers).
    """

    def __init__(self, sizes: np.ndarray) -> None:
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.n_rows = int(self.sizes.sum())
        self.n_classes = int(self.sizes.size)
        # rows_at_least[k] = number of rows whose class has >= k rows (k = 0 … max size + 1).
        per_size = np.bincount(self.sizes, weights=self.sizes).astype(np.int64)
        self._rows_at_least = np.concatenate([np.cumsum(per_size[::-1])[::-1], [0]])

    @classmethod
    def of(cls, frame: pd.DataFrame, qi: Sequence[str]) -> ClassProfile:
        """Class sizes of ``frame`` on the columns ``qi`` (NA is a value of its own).

        Parameters
        ----------
        frame : DataFrame
            A non-empty table holding the ``qi`` columns.
        qi : sequence of str
            The quasi-identifier columns.

        Returns
        -------
        ClassProfile
        """
        sizes = frame.groupby(list(qi), dropna=False, observed=True, sort=False).size()
        return cls(sizes.to_numpy())

    @property
    def reid_mean(self) -> float:
        """Record-weighted mean of 1/|EC(x)| = number of classes / number of rows."""
        return self.n_classes / self.n_rows

    @property
    def reid_mean_classes(self) -> float:
        """Mean of 1/|EC| over the classes."""
        return float(np.mean(1.0 / self.sizes))

    @property
    def reid_max(self) -> float:
        """Largest re-identification score: 1/min |EC|."""
        return 1.0 / self.k_anonymity

    @property
    def k_anonymity(self) -> int:
        """Smallest class size: the table is k-anonymous for every k up to it."""
        return int(self.sizes.min())

    def prop_k_anonymous(self, k: int) -> float:
        """Share of rows whose class has at least ``k`` rows."""
        if k >= self._rows_at_least.size:
            return 0.0
        return float(self._rows_at_least[k]) / self.n_rows
