"""``dcr_nndr``: distance to closest record and nearest-neighbour distance ratios.

Specification: ``spec/metrics.md`` P5 (after Almeida et al., UMAP-SMOTENC, ``002_…`` §4.2, §4.4,
Table 6; reference code ``gdalmeida99/UMAP-SMOTENC``, ``pipeline.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from harness.encoding import COLUMNS_MODES, TableEncoder, canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.privacy.exact_distances import exact_distances

#: Encoded widths up to this use an exact KD-tree, wider spaces a chunked brute-force search.
KD_TREE_MAX_DIMS = 20
STATISTICS: tuple[str, ...] = (
    "dcr_mean",
    "nndr_mean",
    "ratio_1_10_mean",
    "dcr_p10",
    "nndr_p10",
    "ratio_1_10_p10",
    "duplicates",
)


class DcrNndr(BaseMetric):
    """Distance to closest record (DCR) and nearest-neighbour distance ratios (NNDR).

    ``spec/metrics.md`` P5. A kNN index is built on the training split T (in the space chosen by
    ``columns``); for every row of the release S, d₁ ≤ … ≤ d_k are the Euclidean distances to
    its ``n_neighbors`` nearest rows of T. Outputs (result ``variant``):

    ``dcr_mean``, ``dcr_p10``
        mean and 10th percentile of d₁;
    ``nndr_mean``, ``nndr_p10``
        of d₁/d₂;
    ``ratio_1_10_mean``, ``ratio_1_10_p10``
        of d₁/d_k (k = 10 by default);
    ``duplicates``
        number of S rows with d₁ = 0 (goal ``minimise``).

    Ratios 0/0 (exact duplicates of several T rows) are NaN and ignored (``nanmean``,
    ``nanpercentile``; their count is ``details["n_nan_ratios"]``); a ratio output is NaN only
    if every term is 0/0. The baseline of every output is the same statistic with the control
    split H as the query set (the paper's "test set baseline"): a release scoring below it is
    closer to T than unseen real records are. Higher is better for the distances and ratios.

    S is queried in chunks of ``chunk_size`` rows, so memory is O(``chunk_size`` · k) on top of
    the encoded T; an |S| × |T| matrix is never formed.

    Parameters
    ----------
    columns : {"all", "numeric"}
        ``"all"`` (default): the shared space E of ``spec/metrics.md`` §0.2 (numeric min–max
        with T's range, categorical one-hot). ``"numeric"``: numeric columns only, min–max
        with T's min/max — the reference space used to reproduce ``002_…``.
    n_neighbors : int
        k, the number of neighbours (d_k enters ``ratio_1_10_*``); at least 2.
    chunk_size : int
        Query rows per kNN call.
    max_rows : int or None
        If set, S and H are each replaced by a seeded subsample of at most this many rows
        (recorded in ``details``; drawn from the tables' canonical row order, so the result
        does not depend on the order of the rows); T is always used whole.

    Notes
    -----
    The kNN search is an exact KD-tree when the encoded space has at most 20 dimensions and a
    brute-force search otherwise (``spec/metrics.md`` P5). The brute-force search ranks by the
    expanded form ‖x‖² − 2x·y + ‖y‖², whose rounding turns an exact duplicate's distance into
    ~1e-8; the k returned distances are therefore recomputed exactly before use, so
    ``duplicates`` counts true zeros.
    """

    name: ClassVar[str] = "dcr_nndr"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf

    def __init__(
        self,
        columns: str = "all",
        n_neighbors: int = 10,
        chunk_size: int = 10_000,
        max_rows: int | None = None,
    ) -> None:
        self.columns = columns
        self.n_neighbors = n_neighbors
        self.chunk_size = chunk_size
        self.max_rows = max_rows

    def _validate_params(self) -> None:
        if self.columns not in COLUMNS_MODES:
            raise ConfigError(f"`columns` must be one of {', '.join(COLUMNS_MODES)}; got {self.columns!r}")
        if not _is_int(self.n_neighbors) or self.n_neighbors < 2:
            raise ConfigError(f"`n_neighbors` must be an integer >= 2; got {self.n_neighbors!r}")
        if not _is_int(self.chunk_size) or self.chunk_size < 1:
            raise ConfigError(f"`chunk_size` must be an integer >= 1; got {self.chunk_size!r}")
        if self.max_rows is not None and (not _is_int(self.max_rows) or self.max_rows < 1):
            raise ConfigError(f"`max_rows` must be null or an integer >= 1; got {self.max_rows!r}")

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
        if len(real) < self.n_neighbors:
            raise IncomputableMetricError(
                f"metric dcr_nndr needs at least n_neighbors={self.n_neighbors} training rows; got {len(real)}"
            )
        if control is not None and len(control) == 0:
            control = None
        seeds = np.random.SeedSequence(seed).spawn(2)
        query = self._subsample(synthetic, seeds[0])
        holdout = None if control is None else self._subsample(control, seeds[1])

        encoder = TableEncoder(spec, columns=self.columns)
        encoder.fit(real, synthetic, *([] if control is None else [control]))
        if encoder.n_features == 0:
            raise IncomputableMetricError(
                f"metric dcr_nndr: dataset {spec.name!r} has no {self.columns} columns"
            )
        train = encoder.transform(real)
        algorithm = "kd_tree" if encoder.n_features <= KD_TREE_MAX_DIMS else "brute"
        index = NearestNeighbors(n_neighbors=self.n_neighbors, algorithm=algorithm).fit(train)

        search = _Search(index=index, train=train, encoder=encoder, exact=algorithm == "kd_tree")
        stats = self._statistics(search, query)
        base = self._statistics(search, holdout) if holdout is not None else None
        details: dict[str, Any] = {
            "columns": self.columns,
            "n_features": encoder.n_features,
            "n_neighbors": self.n_neighbors,
            "algorithm": algorithm,
            "n_train": len(real),
            "n_query": len(query),
            "n_control": None if holdout is None else len(holdout),
        }
        if self.max_rows is not None:
            details.update(max_rows=self.max_rows, subsample_seed=seed)
        out = {}
        for key in STATISTICS:
            extra = {}
            if key.startswith(("nndr", "ratio")):
                extra["n_nan_ratios"] = int(stats[key.rsplit("_", 1)[0] + "_n_nan"])
            out[key] = MetricResult(
                value=stats[key],
                baseline=None if base is None else base[key],
                details={**details, **extra},
                goal="minimise" if key == "duplicates" else None,
            )
        return out

    # ------------------------------------------------------------------ helpers
    def _subsample(self, frame: pd.DataFrame, seed: np.random.SeedSequence) -> pd.DataFrame:
        """At most ``max_rows`` rows, drawn from the canonical row order (order-invariant)."""
        if self.max_rows is None or len(frame) <= self.max_rows:
            return frame
        rows = np.random.default_rng(seed).choice(len(frame), size=self.max_rows, replace=False)
        return canonical_row_order(frame).iloc[np.sort(rows)]

    def _statistics(self, search: _Search, query: pd.DataFrame) -> dict[str, float]:
        d1, d2, dk = (np.concatenate(parts) for parts in zip(*self._distances(search, query)))
        nndr = _safe_ratio(d1, d2)
        ratio = _safe_ratio(d1, dk)
        return {
            "dcr_mean": float(np.mean(d1)),
            "nndr_mean": _nanmean(nndr),
            "ratio_1_10_mean": _nanmean(ratio),
            "dcr_p10": float(np.percentile(d1, 10)),
            "nndr_p10": _nanpercentile(nndr, 10),
            "ratio_1_10_p10": _nanpercentile(ratio, 10),
            "duplicates": float(np.count_nonzero(d1 == 0.0)),
            "nndr_n_nan": np.count_nonzero(np.isnan(nndr)),
            "ratio_1_10_n_nan": np.count_nonzero(np.isnan(ratio)),
        }

    def _distances(self, search: _Search, query: pd.DataFrame) -> Iterator[tuple[np.ndarray, ...]]:
        """Yield (d₁, d₂, d_k) per chunk of ``query`` rows."""
        for start in range(0, len(query), self.chunk_size):
            chunk = search.encoder.transform(query.iloc[start : start + self.chunk_size])
            dist, idx = search.index.kneighbors(chunk)
            if not search.exact:
                dist = exact_distances(chunk, search.train, idx)
                dist.sort(axis=1)
            yield dist[:, 0], dist[:, 1], dist[:, -1]


@dataclass(frozen=True)
class _Search:
    """A fitted kNN index on the encoded T; ``exact`` is False when distances need recomputing."""

    index: NearestNeighbors
    train: np.ndarray
    encoder: TableEncoder
    exact: bool


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den with NaN where den == 0 (then num == 0 too: a 0/0 term)."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _nanmean(values: np.ndarray) -> float:
    return float(np.mean(values[~np.isnan(values)])) if np.any(~np.isnan(values)) else math.nan


def _nanpercentile(values: np.ndarray, q: float) -> float:
    finite = values[~np.isnan(values)]
    return float(np.percentile(finite, q)) if finite.size else math.nan


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
