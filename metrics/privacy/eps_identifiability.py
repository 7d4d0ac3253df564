"""``eps_identifiability``: share of training records closer to the release than to other training records.

Specification: ``spec/metrics.md`` P12 (Yoon et al. 2020, as used by Miletic and Sariyar,
"Assessing the Potentials of LLMs and GANs as State-of-the-Art Tabular Synthetic Data Generation
Methods", ``004_…`` §2.3; reproduction ``spec/reproductions.md`` §13).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from harness.encoding import TableEncoder, canonical_row_order
from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_int
from harness.spec import DatasetSpec
from metrics.privacy.exact_distances import exact_distances

#: Encoded widths up to this use an exact KD-tree, wider spaces a chunked brute-force search.
KD_TREE_MAX_DIMS = 20


class EpsIdentifiability(BaseMetric):
    """ε-identifiability I(T, S) (``spec/metrics.md`` P12).

    1. Space: the shared encoding E (``spec/metrics.md`` §0.2; every column, fitted on T with
       S's categories), each column's block multiplied by w_j = 1/H_j, where H_j is the
       Shannon entropy (nats) of column j in T: over its categories (NA one of them) for a
       categorical column, over ``n_bins`` equal-width bins of T's range (NA its own bin) for a
       numeric one (**Decision** of the spec: the paper does not say how numeric entropies are
       discretised). A constant column (H_j = 0) gets w_j = 0: it cannot tell records apart.
    2. For every T record x_i: r_i = Euclidean distance to its nearest *other* T record (an
       exact duplicate gives r_i = 0), r̂_i = distance to its nearest S record.
    3. I = (1/|T|)·Σ_i 1[r̂_i < r_i] (strict, as the paper's δ(r̂_i < r_i)); the release is
       "ε-identifiable" for every ε > I.

    Output: one value I in [0, 1], lower is better. A copy of T scores the share of T records
    without an exact duplicate in T (near 1); a release far from T scores 0. ``details`` hold the
    column weights and entropies and the counts.

    T is queried in chunks of ``chunk_size`` rows against kNN indices on T (k = 2, the record
    itself and its nearest other) and on S (k = 1); an |T| × |S| matrix is never formed.
    Distances are recomputed exactly from the returned indices, so exact duplicates are 0.

    Parameters
    ----------
    n_bins : int
        Equal-width bins of a numeric column for its entropy (>= 2; spec 20).
    chunk_size : int
        Query rows per kNN call.

    Notes
    -----
    The paper's reference (Yoon et al.'s ``identifiability``) also weights by 1/entropy but
    leaves the encoding and discretisation open; values are comparable across releases of the
    same T, not across datasets.
    """

    name: ClassVar[str] = "eps_identifiability"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(self, n_bins: int = 20, chunk_size: int = 10_000) -> None:
        self.n_bins = n_bins
        self.chunk_size = chunk_size

    def _validate_params(self) -> None:
        check_int("n_bins", self.n_bins, 2)
        check_int("chunk_size", self.chunk_size, 1)

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> MetricResult:
        if len(real) < 2:
            raise IncomputableMetricError(
                f"metric eps_identifiability needs at least 2 training rows; got {len(real)}"
            )
        # canonical order: the neighbour search's tie-breaking cannot depend on the row order
        real = canonical_row_order(real)
        synthetic = canonical_row_order(synthetic)
        encoder = TableEncoder(spec, columns="all").fit(real, synthetic)
        if encoder.n_features == 0:
            raise IncomputableMetricError(f"metric eps_identifiability: dataset {spec.name!r} has no columns")
        train = encoder.transform(real)
        weights, entropies = column_weights(real, spec, encoder, train, self.n_bins)
        used = weights > 0
        if not used.any():
            raise IncomputableMetricError(
                f"metric eps_identifiability: every column of dataset {spec.name!r} is constant in T"
            )
        train = train[:, used] * weights[used]
        release = encoder.transform(synthetic)[:, used] * weights[used]

        r_real = np.concatenate(list(self._nearest(train, train, exclude_self=True)))
        r_synth = np.concatenate(list(self._nearest(release, train, exclude_self=False)))
        closer = r_synth < r_real
        details: dict[str, Any] = {
            "n_train": len(real),
            "n_synthetic": len(synthetic),
            "n_identifiable": int(np.count_nonzero(closer)),
            "n_train_duplicates": int(np.count_nonzero(r_real == 0.0)),
            "n_features": int(used.sum()),
            "n_bins": int(self.n_bins),
            "column_entropy": {c: float(h) for c, h in entropies.items()},
            "column_weight": {c: (0.0 if h <= 0 else 1.0 / h) for c, h in entropies.items()},
            "median_r": float(np.median(r_real)),
            "median_r_hat": float(np.median(r_synth)),
        }
        return MetricResult(value=float(np.mean(closer)), details=details)

    def _nearest(
        self, index_rows: np.ndarray, query: np.ndarray, *, exclude_self: bool
    ) -> Iterator[np.ndarray]:
        """Per chunk of ``query``: exact distance to the nearest row of ``index_rows`` (other than itself)."""
        k = 2 if exclude_self else 1
        algorithm = "kd_tree" if index_rows.shape[1] <= KD_TREE_MAX_DIMS else "brute"
        index = NearestNeighbors(n_neighbors=k, algorithm=algorithm).fit(index_rows)
        for start in range(0, len(query), self.chunk_size):
            chunk = query[start : start + self.chunk_size]
            _, idx = index.kneighbors(chunk)
            dist = exact_distances(chunk, index_rows, idx)
            if exclude_self:
                own = idx == np.arange(start, start + len(chunk))[:, None]
                dist = np.where(own, np.inf, dist)
            yield dist.min(axis=1)


def column_weights(
    real: pd.DataFrame, spec: DatasetSpec, encoder: TableEncoder, encoded: np.ndarray, n_bins: int
) -> tuple[np.ndarray, dict[str, float]]:
    """Per-feature weights 1/H_j of the encoded space (0 where H_j = 0) and each column's entropy.

    Parameters
    ----------
    real : DataFrame
        The training split T (entropies come from it only).
    spec : DatasetSpec
    encoder : TableEncoder
        Fitted encoder; every feature belongs to one column of ``encoder.columns_used``.
    encoded : numpy.ndarray
        ``encoder.transform(real)``.
    n_bins : int
        Equal-width bins over T's range for numeric (and datetime) columns.

    Returns
    -------
    weights : numpy.ndarray
        One weight per encoded feature.
    entropies : dict of str to float
        Shannon entropy (nats) of each used column.
    """
    names = encoder.feature_names
    weights = np.zeros(len(names))
    entropies: dict[str, float] = {}
    pos = 0
    for column in encoder.columns_used:
        if spec.kind(column) in ("continuous", "integer", "datetime"):
            width = 2 if pos + 1 < len(names) and names[pos + 1] == f"{column}__isna" else 1
            scaled = encoded[:, pos]  # min-max with T's range: T lies in [0, 1]
            bins = np.minimum(np.floor(scaled * n_bins), n_bins - 1).astype(np.int64)
            bins = np.where(real[column].isna().to_numpy(), n_bins, bins)
            counts = np.bincount(bins)
        else:
            prefix = f"{column}="
            width = 0
            while pos + width < len(names) and names[pos + width].startswith(prefix):
                width += 1
            counts = real[column].value_counts(dropna=False).to_numpy()
        h = _entropy(counts)
        entropies[column] = h
        weights[pos : pos + width] = 0.0 if h <= 0 else 1.0 / h
        pos += width
    if pos != len(names):  # pragma: no cover - guards the encoder's layout assumption
        raise RuntimeError(
            f"eps_identifiability: encoded layout not understood ({pos} of {len(names)} features)"
        )
    return weights, entropies


def _entropy(counts: np.ndarray) -> float:
    """Shannon entropy (nats) of a count vector; 0 for a single class."""
    p = counts[counts > 0] / counts.sum()
    h = float(-(p * np.log(p)).sum())
    return h if h > 1e-12 else 0.0
