"""MDAV microaggregation (``spec/generators.md`` §6.7).

Maximum Distance to Average Vector (Domingo-Ferrer & Mateo-Sanz 2002), as used in ``004_…``
*Attribute Disclosure Risk in Smart Meter Data* (k = 2..41). The selected numeric columns
are standardised to z-scores, partitioned into clusters of k..2k−1 records and every value
is replaced by its cluster mean (original units; integer columns rounded half to even).
The algorithm is deterministic: no draw from ``rng_``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.columns import complete_numeric_matrix
from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_column_list

CATEGORICAL_MODES: tuple[str, ...] = ("keep", "mode")


def mdav_labels(z: np.ndarray, k: int) -> np.ndarray:
    """Cluster label of every row of ``z`` (n × p) by MDAV with minimum cluster size ``k``.

    Steps of §6.7: while |R| ≥ 3k, cluster the record r farthest from the centroid of R
    with its k−1 nearest records, then the record s farthest from r likewise; if
    2k ≤ |R| < 3k one more cluster around the record farthest from the centroid and the
    rest as the last cluster; else the rest is one cluster. Distances are squared
    Euclidean, computed vectorised over the remaining records (O(n²p/k) in all). Ties are
    broken by position (``argmax``: first; nearest: ``argpartition``, deterministic).

    Returns
    -------
    ndarray of int
        Labels 0..m−1 in order of formation.
    """
    n = len(z)
    labels = np.full(n, -1, dtype=np.int64)
    remaining = np.arange(n)
    label = 0

    def take_cluster(centre_pos: int) -> None:
        # Cluster the record at position ``centre_pos`` of ``remaining`` with its k-1 nearest.
        nonlocal remaining, label
        rows = z[remaining]
        dist = ((rows - rows[centre_pos]) ** 2).sum(axis=1)
        dist[centre_pos] = -1.0  # the centre itself always belongs to its cluster
        members = np.argpartition(dist, k - 1)[:k]
        labels[remaining[members]] = label
        label += 1
        keep = np.ones(len(remaining), dtype=bool)
        keep[members] = False
        remaining = remaining[keep]

    def farthest_from_centroid() -> int:
        rows = z[remaining]
        return int(((rows - rows.mean(axis=0)) ** 2).sum(axis=1).argmax())

    while len(remaining) >= 3 * k:
        r_pos = farthest_from_centroid()
        rows = z[remaining]
        r_row = rows[r_pos].copy()
        s_index = remaining[int(((rows - r_row) ** 2).sum(axis=1).argmax())]
        take_cluster(r_pos)
        s_pos = np.flatnonzero(remaining == s_index)
        if len(s_pos) == 0:  # only with ties: s fell into r's cluster; take the next farthest
            s_pos = np.array([int(((z[remaining] - r_row) ** 2).sum(axis=1).argmax())])
        take_cluster(int(s_pos[0]))
    if len(remaining) >= 2 * k:
        take_cluster(farthest_from_centroid())
    if len(remaining):
        labels[remaining] = label
    return labels


class Mdav(BaseGenerator):
    """MDAV microaggregation of numeric columns (``spec/generators.md`` §6.7).

    Parameters
    ----------
    k : int
        Minimum cluster size (paper range 2–41); every cluster has k..2k−1 records.
    columns : list of str, optional
        Numeric columns to microaggregate; None = the numeric columns of the active QI
        set, or all numeric columns when that set has none (or there is no QI set).
    categorical : {"keep", "mode"}
        ``keep``: categorical columns unchanged; ``mode``: the categorical columns of the
        active QI set (all categorical columns without a QI set) are replaced by the
        cluster's modal category (NA ignored; ties: smallest value as a string).

    Notes
    -----
    **Decisions.** z-scores use the population standard deviation; a constant column gets
    scale 1. Missing values in the selected columns raise :class:`DataError` (impute
    first). Fewer training rows than k is :class:`InfeasibleConfigError`. The harness
    implementation is used (the ``microaggregation`` PyPI package is not installed).
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        releases_original_records=True,  # a cluster of identical records is released unchanged
        supports_missing=False,
        fixed_size=True,
        randomised=False,
    )

    def __init__(self, k: int = 5, columns: list[str] | None = None, categorical: str = "keep") -> None:
        self.k = k
        self.columns = columns
        self.categorical = categorical

    def _validate_params(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 2:
            raise ConfigError(f"`k` must be an integer >= 2; got {self.k!r}")
        check_column_list("columns", self.columns)
        if self.categorical not in CATEGORICAL_MODES:
            raise ConfigError(
                f"`categorical` must be one of {', '.join(map(repr, CATEGORICAL_MODES))}; got {self.categorical!r}"
            )

    def _selected_columns(self) -> list[str]:
        spec = self.spec_
        if self.columns is not None:
            for col in self.columns:
                if not spec.column(col).is_numeric:
                    raise ConfigError(
                        f"mdav: column {col!r} is {spec.kind(col)}; `columns` must name numeric columns"
                    )
            return list(dict.fromkeys(self.columns))
        numeric = set(spec.numeric_columns)
        cols = [c for c in spec.qi if c in numeric] or list(spec.numeric_columns)
        if not cols:
            raise ConfigError(f"mdav: dataset {spec.name!r} has no numeric column to microaggregate")
        return cols

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.columns_ = self._selected_columns()
        x = complete_numeric_matrix(train, self.columns_, "mdav")
        k = int(self.k)
        if len(train) < k:
            raise InfeasibleConfigError(f"k={k} exceeds the {len(train)} training rows")
        scale = x.std(axis=0)
        scale[scale == 0] = 1.0
        z = (x - x.mean(axis=0)) / scale
        labels = mdav_labels(z, k)
        n_clusters = int(labels.max()) + 1
        sizes = np.bincount(labels, minlength=n_clusters)
        means = np.stack(
            [np.bincount(labels, weights=x[:, j], minlength=n_clusters) for j in range(x.shape[1])], 1
        )
        means = means / sizes[:, None]
        z_means = (means - x.mean(axis=0)) / scale
        sse = float(((z - z_means[labels]) ** 2).sum())
        sst = float((z**2).sum())

        out = train.reset_index(drop=True)
        for j, col in enumerate(self.columns_):
            values = means[labels, j]
            out[col] = np.rint(values) if self.spec_.kind(col) == "integer" else values
        self.categorical_columns_: list[str] = []
        if self.categorical == "mode":
            cat = set(self.spec_.categorical_columns)
            self.categorical_columns_ = [c for c in self.spec_.qi if c in cat] or list(
                self.spec_.categorical_columns
            )
            for col in self.categorical_columns_:
                out[col] = _cluster_mode(out[col], labels)
        self.labels_ = labels
        self.out_ = out
        self.details_: dict[str, Any] = {
            "k": k,
            "columns": list(self.columns_),
            "categorical": self.categorical,
            "categorical_columns": list(self.categorical_columns_),
            "n_clusters": n_clusters,
            "min_cluster_size": int(sizes.min()),
            "max_cluster_size": int(sizes.max()),
            "information_loss": {"sse": sse, "sst": sst, "sse_sst": sse / sst if sst > 0 else 0.0},
        }

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.out_.copy(deep=True)

    def details(self) -> dict[str, Any]:
        """Clusters formed and the information loss SSE/SST (z-scores, unrounded means)."""
        return dict(getattr(self, "details_", {}))


def _cluster_mode(values: pd.Series, labels: np.ndarray) -> pd.Series:
    """Each row's cluster's modal non-missing value (ties: smallest as a string); NA if none."""
    frame = pd.DataFrame({"label": labels, "value": values.to_numpy(dtype=object)}).dropna()
    if frame.empty:
        return values
    counts = frame.groupby(["label", "value"], sort=False).size().reset_index(name="n")
    counts["key"] = counts["value"].astype(str)
    counts = counts.sort_values(["label", "n", "key"], ascending=[True, False, True], kind="stable")
    modes = counts.drop_duplicates("label").set_index("label")["value"]
    mapped = pd.Series(labels).map(modes)
    return pd.Series(np.where(mapped.isna(), values.to_numpy(dtype=object), mapped.to_numpy(dtype=object)))
