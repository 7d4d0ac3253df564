"""``sni``: Shared-Neighbour Identifiability, SNN-DBSCAN on the stacked training split and release.

Specification: ``spec/metrics.md`` P13 (Miletic and Sariyar, "Assessing the Potentials of LLMs
and GANs as State-of-the-Art Tabular Synthetic Data Generation Methods", ``004_…`` §2.3;
reproduction ``spec/reproductions.md`` §13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from sklearn.neighbors import NearestNeighbors

from harness.encoding import TableEncoder, canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.privacy.exact_distances import exact_distances

#: Encoded widths up to this use an exact KD-tree, wider spaces a chunked brute-force search.
KD_TREE_MAX_DIMS = 20
#: Label of noise points in :class:`SnnClustering`.
NOISE = -1
CLUSTER_RULES: tuple[str, ...] = ("mixed", "size")


@dataclass(frozen=True)
class SnnClustering:
    """Result of :func:`snn_dbscan`.

    Attributes
    ----------
    labels : numpy.ndarray
        Cluster id per point (0, 1, ...), :data:`NOISE` for noise.
    core : numpy.ndarray
        Boolean mask of the core points.
    density : numpy.ndarray
        SNN density: number of points with similarity >= ``eps``.
    """

    labels: np.ndarray
    core: np.ndarray
    density: np.ndarray


def knn_graph(points: np.ndarray, k: int, chunk_size: int = 10_000) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest *other* points of every point (Euclidean).

    Parameters
    ----------
    points : numpy.ndarray
        ``(n, d)`` matrix, n > k.
    k : int
        Neighbours per point.
    chunk_size : int
        Query rows per kNN call.

    Returns
    -------
    neighbours : numpy.ndarray
        ``(n, k)`` indices, nearest first; a point is never its own neighbour (an exact
        duplicate is another point).
    distances : numpy.ndarray
        ``(n, k)`` exact Euclidean distances.
    """
    n = len(points)
    algorithm = "kd_tree" if points.shape[1] <= KD_TREE_MAX_DIMS else "brute"
    index = NearestNeighbors(n_neighbors=k + 1, algorithm=algorithm).fit(points)
    nbr_parts, dist_parts = [], []
    for start in range(0, n, chunk_size):
        chunk = points[start : start + chunk_size]
        _, idx = index.kneighbors(chunk)
        own = idx == np.arange(start, start + len(chunk))[:, None]
        # duplicates can push the point itself out of its k + 1 list: then drop the farthest
        own[~own.any(axis=1), -1] = True
        own &= np.cumsum(own, axis=1) == 1  # drop exactly one entry per row
        idx = idx[~own].reshape(len(chunk), k)
        dist = exact_distances(chunk, points, idx)
        order = np.argsort(dist, axis=1, kind="stable")
        nbr_parts.append(np.take_along_axis(idx, order, axis=1))
        dist_parts.append(np.take_along_axis(dist, order, axis=1))
    return np.concatenate(nbr_parts), np.concatenate(dist_parts)


def snn_dbscan(points: np.ndarray, k: int, eps: int, min_pts: int, chunk_size: int = 10_000) -> SnnClustering:
    """Shared-nearest-neighbour DBSCAN (Ertöz, Steinbach and Kumar 2003; ``spec/metrics.md`` P13).

    1. kNN graph: every point p is linked to N_k(p), its k nearest other points.
    2. SNN similarity of two linked points (q ∈ N_k(p) or p ∈ N_k(q)) = |N_k(p) ∩ N_k(q)|, plus 1
       when the link is mutual; unlinked pairs have similarity 0. This is the count of R's
       ``dbscan::sNN``/``sNNclust`` (the likely tool of the paper, whose parameter names Eps and
       MinPts it uses), where a point belongs to its own neighbourhood; range [0, k]
       (**Decision**: the paper and the spec say only "number of shared neighbours").
    3. SNN density of p = number of points with similarity >= ``eps``; p is a *core* point if
       1 + density >= ``min_pts``: the point itself counts, as in DBSCAN and R's ``dbscan``
       (the paper: MinPts = 2 makes "noise points ... isolated data points with no near
       neighbors"; the spec's "≥ MinPts points" would need two near neighbours).
    4. Clusters = connected components of the core points joined by similarity >= ``eps``.
    5. A non-core point with similarity >= ``eps`` to some core point is a border point and joins
       the cluster of its *nearest* such core point: the highest similarity, then the smaller
       Euclidean distance, then the lower index (**Decision**: "nearest" is not defined further).
    6. All other points are noise.

    Everything is vectorised: the kNN graph (n·k links), sparse row products for the shared
    counts and :func:`scipy.sparse.csgraph.connected_components`; no n × n dense matrix.

    Parameters
    ----------
    points : numpy.ndarray
        ``(n, d)`` matrix with n > k.
    k : int
        Neighbourhood size of the kNN graph.
    eps : int
        Similarity threshold (shared neighbours).
    min_pts : int
        Minimum number of points (itself included) with similarity >= ``eps`` of a core point.
    chunk_size : int
        Query rows per kNN call.

    Returns
    -------
    SnnClustering
    """
    n = len(points)
    neighbours, _ = knn_graph(points, k, chunk_size)
    rows = np.repeat(np.arange(n), k)
    cols = neighbours.ravel()
    adjacency = sparse.csr_matrix((np.ones(n * k, dtype=np.int32), (rows, cols)), shape=(n, n))

    # undirected links, each once
    low, high = np.minimum(rows, cols), np.maximum(rows, cols)
    pairs = np.unique(low.astype(np.int64) * n + high)
    a, b = pairs // n, pairs % n
    shared = np.asarray(adjacency[a].multiply(adjacency[b]).sum(axis=1)).ravel()
    mutual = (np.asarray(adjacency[a, b]).ravel() > 0) & (np.asarray(adjacency[b, a]).ravel() > 0)
    shared = shared + mutual

    strong = shared >= eps
    a, b, shared = a[strong], b[strong], shared[strong]
    graph = sparse.coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
    graph = (graph + graph.T).tocsr()
    density = np.diff(graph.indptr)
    core = density + 1 >= min_pts  # the point itself counts, as in DBSCAN

    labels = np.full(n, NOISE, dtype=np.int64)
    core_idx = np.flatnonzero(core)
    if len(core_idx):
        _, comp = connected_components(graph[core_idx][:, core_idx], directed=False)
        labels[core_idx] = comp

    # border points: strong links with exactly one core end
    border_of = np.concatenate([a[core[b] & ~core[a]], b[core[a] & ~core[b]]])
    core_end = np.concatenate([b[core[b] & ~core[a]], a[core[a] & ~core[b]]])
    link_shared = np.concatenate([shared[core[b] & ~core[a]], shared[core[a] & ~core[b]]])
    if len(border_of):
        dist = np.sqrt(((points[border_of] - points[core_end]) ** 2).sum(axis=1))
        order = np.lexsort((core_end, dist, -link_shared, border_of))
        first = order[np.unique(border_of[order], return_index=True)[1]]
        labels[border_of[first]] = labels[core_end[first]]
    return SnnClustering(labels=labels, core=core, density=density)


class SharedNeighbourIdentifiability(BaseMetric):
    """Shared-Neighbour Identifiability (SNI; ``spec/metrics.md`` P13).

    T and S are stacked in the shared encoding E (``spec/metrics.md`` §0.2, fitted on T and S)
    and clustered with SNN-DBSCAN (:func:`snn_dbscan`; the paper's Eps = 3, MinPts = 2, and
    k = 10, a **Decision** of the spec: the paper does not give k). A cluster is *at risk* when
    it has fewer than ``min_cluster_size`` points, real and synthetic together, and, with
    ``cluster_rule: mixed`` (default), holds at least one real and one synthetic record: the
    paper flags "any cluster containing fewer than five data points, comprising both original
    and synthetic records", motivated by the risk of an original record and its nearest
    synthetic records sharing a sparse region. ``cluster_rule: size`` flags every small cluster
    (the spec's literal reading).

    Outputs (result ``variant``; in [0, 1]):

    ``sni`` (lower is better)
        #S points in at-risk clusters / |S| (the paper: "the percentage of synthetic data deemed
        at risk, i.e., those belonging to a risky cluster, relative to the total number of
        synthetic records"). Noise points belong to no cluster and are not at risk: the spec's
        "SNI with noise excluded".
    ``sni_noise_at_risk`` (goal ``none``, report only)
        The spec's **Decision** variant: S noise points count as at risk too. It is not a risk
        ordering: a release of random rows is mostly isolated points and scores high, so it
        carries no direction.

    ``details`` hold the cluster, core, border and noise counts (all points and S only).

    Parameters
    ----------
    n_neighbors : int
        k of the kNN graph (>= 2; spec 10).
    eps : int
        SNN similarity threshold, in shared neighbours (1 <= eps <= k; paper 3).
    min_pts : int
        Minimum points (itself included) within similarity ``eps`` of a core point (>= 1; paper 2).
    min_cluster_size : int
        Clusters with fewer points are at risk (>= 1; paper 5).
    cluster_rule : {"mixed", "size"}
        ``mixed``: an at-risk cluster must also hold real and synthetic records (paper);
        ``size``: every small cluster is at risk.
    chunk_size : int
        Query rows per kNN call.

    Notes
    -----
    Rows of T and of S are put in a canonical (content-hash) order first, so the kNN tie-breaking
    and therefore the value do not depend on the order of the rows. Cost: one kNN search over
    |T| + |S| points (KD-tree up to 20 encoded dimensions, brute force otherwise) and O(n·k²)
    sparse work.
    """

    name: ClassVar[str] = "sni"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(
        self,
        n_neighbors: int = 10,
        eps: int = 3,
        min_pts: int = 2,
        min_cluster_size: int = 5,
        cluster_rule: str = "mixed",
        chunk_size: int = 10_000,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.eps = eps
        self.min_pts = min_pts
        self.min_cluster_size = min_cluster_size
        self.cluster_rule = cluster_rule
        self.chunk_size = chunk_size

    def _validate_params(self) -> None:
        check_int("n_neighbors", self.n_neighbors, 2)
        check_int("eps", self.eps, 1)
        if self.eps > self.n_neighbors:
            raise ConfigError(
                f"`eps` must be at most n_neighbors={self.n_neighbors} (the most neighbours two points "
                f"can share); got {self.eps!r}"
            )
        check_int("min_pts", self.min_pts, 1)
        check_int("min_cluster_size", self.min_cluster_size, 1)
        check_choice("cluster_rule", self.cluster_rule, CLUSTER_RULES)
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
    ) -> dict[str, MetricResult]:
        n_real, n_syn = len(real), len(synthetic)
        if n_real + n_syn <= self.n_neighbors:
            raise IncomputableMetricError(
                f"metric sni needs more than n_neighbors={self.n_neighbors} points; got "
                f"{n_real} training + {n_syn} released rows"
            )
        real = canonical_row_order(real)
        synthetic = canonical_row_order(synthetic)
        encoder = TableEncoder(spec, columns="all").fit(real, synthetic)
        if encoder.n_features == 0:
            raise IncomputableMetricError(f"metric sni: dataset {spec.name!r} has no columns")
        points = np.vstack([encoder.transform(real), encoder.transform(synthetic)])
        result = snn_dbscan(points, self.n_neighbors, self.eps, self.min_pts, self.chunk_size)
        at_risk = at_risk_points(result.labels, n_real, self.min_cluster_size, self.cluster_rule)

        labels = result.labels
        clustered = labels != NOISE
        n_clusters = int(labels.max()) + 1 if clustered.any() else 0
        noise_syn = int(np.count_nonzero(~clustered[n_real:]))
        risky_syn = int(np.count_nonzero(at_risk[n_real:]))
        details: dict[str, Any] = {
            "n_train": n_real,
            "n_synthetic": n_syn,
            "n_features": encoder.n_features,
            "n_neighbors": int(self.n_neighbors),
            "eps": int(self.eps),
            "min_pts": int(self.min_pts),
            "min_cluster_size": int(self.min_cluster_size),
            "cluster_rule": self.cluster_rule,
            "n_clusters": n_clusters,
            "n_at_risk_clusters": int(len(np.unique(labels[at_risk]))),
            "n_core": int(np.count_nonzero(result.core)),
            "n_border": int(np.count_nonzero(clustered & ~result.core)),
            "n_noise": int(np.count_nonzero(~clustered)),
            "n_noise_synthetic": noise_syn,
            "n_synthetic_at_risk": risky_syn,
            "n_real_at_risk": int(np.count_nonzero(at_risk[:n_real])),
        }
        return {
            "sni": MetricResult(value=risky_syn / n_syn, details=details),
            "sni_noise_at_risk": MetricResult(
                value=(risky_syn + noise_syn) / n_syn, details=details, goal="none"
            ),
        }


def at_risk_points(labels: np.ndarray, n_real: int, min_cluster_size: int, rule: str) -> np.ndarray:
    """Mask of the points in at-risk clusters (noise excluded).

    Parameters
    ----------
    labels : numpy.ndarray
        Cluster labels of the stacked points, real rows first, :data:`NOISE` for noise.
    n_real : int
        Number of real rows at the top of ``labels``.
    min_cluster_size : int
        Clusters with fewer points are small.
    rule : {"mixed", "size"}
        ``mixed``: small clusters holding at least one real and one synthetic point;
        ``size``: every small cluster.

    Returns
    -------
    numpy.ndarray
        Boolean mask over ``labels``.
    """
    clustered = labels != NOISE
    if not clustered.any():
        return np.zeros(len(labels), dtype=bool)
    n_clusters = int(labels.max()) + 1
    sizes = np.bincount(labels[clustered], minlength=n_clusters)
    risky = sizes < min_cluster_size
    if rule == "mixed":
        is_real = np.arange(len(labels)) < n_real
        reals = np.bincount(labels[clustered & is_real], minlength=n_clusters)
        synths = np.bincount(labels[clustered & ~is_real], minlength=n_clusters)
        risky &= (reals > 0) & (synths > 0)
    out = np.zeros(len(labels), dtype=bool)
    out[clustered] = risky[labels[clustered]]
    return out
