"""Membership-inference attacks of the privacy audit (:mod:`metrics.privacy.mia_audit`).

Each attack maps one synthetic table S and one target record x_t to a score; a higher score
means "x_t was in the generator's training data". The threat model is Stadler, Oprisanu and
Troncoso (USENIX Security 2022) as implemented in TAPAS (Houssiau et al. 2022): the attacker
knows the generator's algorithm, an auxiliary sample A of the population and the target.

``closest_distance``
    −min_j ‖E(s_j) − E(x_t)‖₂ in the shared encoding space E (:mod:`harness.encoding`: min–max
    scaled numbers, one-hot categories). Ties in the distance are broken by the number of
    synthetic rows at that distance (more copies of the closest row → more likely IN), so an
    exact-match count is part of the score (TAPAS ``ClosestDistanceMIA`` with its local
    neighbourhood refinement). No training.
``density_ratio``
    log p̂_S(x_t) − log p̂_A(x_t) with Gaussian kernel density estimates in E, one bandwidth
    (Scott's rule on A), in the spirit of DOMIAS (van Breugel et al., AISTATS 2023): a
    record over-represented in S relative to the population is likely a member. No
    training beyond A.
``shadow_model``
    A random forest on table-level summary features (:mod:`metrics.privacy.mia_features`),
    trained on synthetic tables of shadow fits on A with and without x_t; score = the
    forest's probability of IN (Stadler et al. §5; the ``mia_privacy_gain`` attack).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from sklearn.ensemble import RandomForestClassifier

ATTACKS: tuple[str, ...] = ("closest_distance", "density_ratio", "shadow_model")
TIE_SCALE = 1e-9
"""Weight of the tie-breaking count in ``closest_distance`` (distances differ by far more)."""


@dataclass(frozen=True)
class EncodedTable:
    """One synthetic table as the attacks see it: rows in E and the table's summary features."""

    rows: np.ndarray
    features: np.ndarray | None


def closest_distance_score(squared: np.ndarray) -> float:
    """Score of ``closest_distance`` from the squared distances of S's rows to the target.

    Parameters
    ----------
    squared : ndarray
        ‖E(s_j) − E(x_t)‖² for every synthetic row j.

    Returns
    -------
    float
        −d_min + TIE_SCALE · (rows at d_min) / (|S| + 1); ``-inf`` for an empty table.
    """
    if len(squared) == 0:
        return -np.inf
    smallest = float(squared.min())
    at_min = int(np.count_nonzero(squared <= smallest * (1 + 1e-12) + 1e-24))
    return -float(np.sqrt(smallest)) + TIE_SCALE * at_min / (len(squared) + 1)


def log_kde(squared: np.ndarray, bandwidth: float, dim: int) -> float:
    """log of a Gaussian KDE at the target from the squared distances of the sample to it."""
    if len(squared) == 0:
        return -np.inf
    norm = len(squared) * (2 * np.pi * bandwidth**2) ** (dim / 2)
    return float(logsumexp(-squared / (2 * bandwidth**2)) - np.log(norm))


def scott_bandwidth(reference: np.ndarray) -> float:
    """Scott's rule n^(−1/(d+4)) times the mean per-coordinate standard deviation of A (> 0)."""
    n, dim = reference.shape
    spread = float(np.mean(reference.std(axis=0))) if n > 1 else 1.0
    return max(spread, 1e-3) * n ** (-1.0 / (dim + 4))


def squared_distances(rows: np.ndarray, target: np.ndarray) -> np.ndarray:
    """‖rows_j − target‖² for every row."""
    diff = rows - target[None, :]
    return np.einsum("ij,ij->i", diff, diff)


class TargetAttacks:
    """The three attacks on one target record.

    Parameters
    ----------
    target : ndarray
        E(x_t).
    reference : ndarray
        The attacker's auxiliary sample A in E (never given to the generator under test).
    bandwidth : float
        KDE bandwidth of ``density_ratio``.
    """

    def __init__(self, target: np.ndarray, reference: np.ndarray, bandwidth: float) -> None:
        self.target = target
        self.bandwidth = bandwidth
        self.dim = int(target.shape[0])
        self.log_reference = log_kde(squared_distances(reference, target), bandwidth, self.dim)
        self.forest: RandomForestClassifier | None = None

    def fit_shadow(
        self, tables_in: list[EncodedTable], tables_out: list[EncodedTable], n_estimators: int, seed: int
    ) -> None:
        """Train the shadow-model forest on tables of fits with (IN) and without (OUT) the target."""
        x = np.vstack([_features(t) for t in [*tables_out, *tables_in]])
        y = np.r_[np.zeros(len(tables_out)), np.ones(len(tables_in))]
        self.forest = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1).fit(x, y)

    def scores(self, table: EncodedTable) -> dict[str, float]:
        """The score of every attack on one synthetic table."""
        squared = squared_distances(table.rows, self.target)
        out = {
            "closest_distance": closest_distance_score(squared),
            "density_ratio": log_kde(squared, self.bandwidth, self.dim) - self.log_reference,
        }
        if self.forest is not None:
            out["shadow_model"] = float(self.forest.predict_proba(_features(table)[None, :])[0, 1])
        return out


def _features(table: EncodedTable) -> np.ndarray:
    if table.features is None:
        raise ValueError("the shadow-model attack needs the tables' summary features")
    return table.features
