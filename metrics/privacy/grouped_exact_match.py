"""``grouped_exact_match``: ``exact_match``'s matches and EUC within replicates.

Source: ``004_…`` *Asymptotic Utility of Spectral Anonymization*, §3.2 ("Matches" and
EUC_A); ``spec/metrics.md`` P6 (``matches_tol``, ``euc_mean``) applied to each of the M
simulated data sets of a stacked table (``spec/reproductions.md`` §9): a released row is
compared only with the training rows of its own replicate (the groups of ``by``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_column_list
from harness.spec import DatasetSpec
from metrics.replicates import float_matrix, group_positions, numeric_group_columns

BRUTE_FORCE_PAIRS = 2_500
"""Groups with at most this many (training, release) pairs are searched by brute force."""
CHUNK_ENTRIES = 2**22
"""Pairwise distances held at once by the brute-force search (≈ 32 MB of float64)."""


class GroupedExactMatch(BaseMetric):
    """Near-exact copies of training rows within each replicate (groups of ``by``).

    For every group m present in both T and S and every release row i of m,
    d_i = min_j ‖x_{m,i,A} − x_{m,j}‖₂ over the training rows j of the same group (numeric
    columns except ``by``, original units; exact search: batched brute force for small
    groups, a k-d tree per group otherwise). Per group,
    Matches_m = share of its release rows with d_i < ``delta`` and EUC_m = mean d_i.

    Outputs (``variant``):

    ``matches_tol``
        mean over groups of Matches_m (the paper's match proportion; lower is better).
    ``euc_mean``
        EUC_A = mean over groups of EUC_m (higher is better).

    ``details``: the total number of matches and of compared rows (for binomial standard
    errors), the number of groups, and ``matches_per_group`` (how many groups had 0, 1, 2, …
    matches; the histogram of the paper's Fig. 5 divides by n). Release groups without
    training rows of the same label are left out and counted.

    Parameters
    ----------
    by : str, optional
        The replicate label column; None = one group (then this is ``exact_match``'s
        ``matches_tol`` and ``euc_mean`` without NA handling).
    columns : list of str, optional
        Numeric columns; None = every numeric column except ``by``.
    delta : float
        Match threshold (> 0; the paper's δ = 1e-6).
    """

    name: ClassVar[str] = "grouped_exact_match"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf  # euc_mean is a distance; matches_tol lies in [0, 1]

    def __init__(
        self, by: str | None = "replicate", columns: list[str] | None = None, delta: float = 1e-6
    ) -> None:
        self.by = by
        self.columns = columns
        self.delta = delta

    def _validate_params(self) -> None:
        if self.by is not None and (not isinstance(self.by, str) or not self.by):
            raise ConfigError(f"`by` must be null or a column name; got {self.by!r}")
        check_column_list("columns", self.columns)
        number = isinstance(self.delta, (int, float)) and not isinstance(self.delta, bool)
        if not number or not math.isfinite(float(self.delta)) or self.delta <= 0:
            raise ConfigError(f"`delta` must be a number > 0; got {self.delta!r}")

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
        columns = numeric_group_columns(spec, self.by, self.columns)
        release, train = float_matrix(synthetic, columns), float_matrix(real, columns)
        if np.isnan(release).any() or np.isnan(train).any():
            raise IncomputableMetricError(f"metric {self.name}: the numeric columns have missing values")
        groups_s = self._groups(synthetic)
        groups_t = self._groups(real)
        shared = [label for label in groups_s if label in groups_t]
        if not shared:
            raise IncomputableMetricError(f"metric {self.name}: no release group has training rows")
        distances, group = _within_group_nearest(
            [train[groups_t[label]] for label in shared], [release[groups_s[label]] for label in shared]
        )
        sizes = np.bincount(group, minlength=len(shared))
        matches = np.bincount(group, weights=distances < float(self.delta), minlength=len(shared)).astype(
            np.int64
        )
        euc = np.bincount(group, weights=distances, minlength=len(shared)) / sizes
        counts = np.bincount(matches)
        details: dict[str, Any] = {
            "columns": columns,
            "by": self.by,
            "delta": float(self.delta),
            "n_groups": len(shared),
            "n_skipped": len(groups_s) - len(shared),
            "n_rows": int(sizes.sum()),
            "n_matches": int(matches.sum()),
            "matches_per_group": {str(k): int(c) for k, c in enumerate(counts) if c},
        }
        return {
            "matches_tol": MetricResult(float(np.mean(matches / sizes)), details=details),
            "euc_mean": MetricResult(float(np.mean(euc)), details=details, goal="maximise"),
        }

    def _groups(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        if self.by is None:
            return {"all": np.arange(len(frame))}
        return group_positions(frame, self.by)


def _within_group_nearest(
    train: list[np.ndarray], release: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Distance from every release row to the nearest training row of its group, and its group.

    Small groups (|T_g|·|S_g| ≤ :data:`BRUTE_FORCE_PAIRS`) of one shape are searched together by
    brute force, in chunks of about :data:`CHUNK_ENTRIES` pairs: the nearest index comes from the
    expanded ‖s‖² + ‖t‖² − 2 s·t on data centred per group, and its distance is recomputed
    exactly as ‖s − t‖ on the original values (a copy has distance 0, never a cancellation
    residue). Larger groups get an exact k-d tree each.
    """
    distances = [np.empty(0)] * len(release)
    shapes = [(len(t), len(s)) for t, s in zip(train, release)]
    for shape in sorted(set(shapes)):
        which = [g for g, sh in enumerate(shapes) if sh == shape]
        n_t, n_s = shape
        if n_t * n_s > BRUTE_FORCE_PAIRS:
            for g in which:
                distances[g] = np.asarray(cKDTree(train[g]).query(release[g], k=1)[0], dtype=float)
            continue
        step = max(1, CHUNK_ENTRIES // max(1, n_t * n_s))
        for start in range(0, len(which), step):
            chunk = which[start : start + step]
            t = np.stack([train[g] for g in chunk])
            s = np.stack([release[g] for g in chunk])
            centre = t.mean(axis=1, keepdims=True)
            tc, sc = t - centre, s - centre
            squared = (
                (sc**2).sum(-1)[:, :, None] + (tc**2).sum(-1)[:, None, :] - 2 * sc @ tc.transpose(0, 2, 1)
            )
            nearest = np.take_along_axis(t, squared.argmin(axis=2)[:, :, None], axis=1)
            exact = np.sqrt(((s - nearest) ** 2).sum(-1))
            for i, g in enumerate(chunk):
                distances[g] = exact[i]
    group = np.repeat(np.arange(len(release)), [len(part) for part in release])
    return np.concatenate(distances), group
