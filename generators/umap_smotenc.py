"""UMAP-SMOTENC: SMOTE-NC in a 2-D supervised UMAP embedding, decoded by UMAP's inverse transform.

``spec/generators.md`` §5.2; Almeida & Bacao, *UMAP-SMOTENC* (seed paper
``002_c8ae6a68da26419b.txt``, §3.3, Fig. 4, §4.4); reference ``gdalmeida99/UMAP-SMOTENC``
(``UMAP_SMOTENC.py``, ``generative_functions.py::smotenc_umap_model``), re-implemented
from the specification over umap-learn and imbalanced-learn.

umap-learn and pynndescent compile their kernels with numba on first use. pynndescent
marks most of them ``cache=True``; umap-learn marks almost none, so every fresh trial
process would recompile them. :func:`enable_numba_cache` switches numba's on-disk cache
on for every module-level kernel of both packages (what ``cache=True`` does), so only the
first process pays their compilation (the CLI points ``NUMBA_CACHE_DIR`` at
``~/.cache/privbench/numba``). Two kinds of kernel still compile in every process, because
numba cannot cache code that receives a jitted function as an argument: the per-epoch
kernel of UMAP's inverse transform (umap-learn re-jits it on every call; about 1–2 s) and
pynndescent's NN-descent, which UMAP uses from 4,096 rows on (10–20 s per process, and each
process adds its code to the cache directory again; ``umap_knn="exact"`` avoids it).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler
from threadpoolctl import threadpool_limits

from generators.smotenc import (
    allocate,
    assemble,
    check_class_sizes,
    class_counts,
    class_labels,
    feature_columns,
    feature_frame,
    make_sampler,
    require_classification,
)
from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_bool, check_choice, check_int
from harness.seeding import MAX_SEED

MODES: tuple[str, ...] = ("fixed", "reference")
"""Values of the ``mode`` alias of ``reference_quirks``."""
KNN_METHODS: tuple[str, ...] = ("auto", "exact")
"""Values of ``umap_knn``."""
APPROXIMATE_FROM = 4096
"""umap-learn switches from exact to NN-descent neighbours at this many rows."""
NUMBA_PACKAGES: tuple[str, ...] = ("umap", "pynndescent")
"""Packages whose numba kernels :func:`enable_numba_cache` caches on disk."""


class UmapSmoteNC(BaseGenerator):
    """UMAP-SMOTENC (``spec/generators.md`` §5.2; paper ``002_…`` §3.3).

    Fit:

    1. min–max scale the numeric features (fit on the training table);
    2. fit a supervised ``umap.UMAP(n_neighbors, min_dist, n_components,
       random_state=seed)`` on them with ``y`` = the class labels, and embed the training
       rows (``transform`` after ``fit``, as the reference);
    3. latent table = the embedding coordinates followed by the categorical columns as
       strings (categorical columns are not part of the UMAP graph).

    Sample:

    4. SMOTE-NC (``k_neighbors=smote_k``; SMOTE when there is no categorical column) with
       ``sampling_strategy = {c: 2·n_c}``; only the new rows are kept: ``n_c`` per class;
    5. UMAP ``inverse_transform`` of their coordinates, then the scaler's inverse;
    6. integer columns rounded half to even ("rounded to the nearest unit", §3.3), or
       truncated with ``reference_quirks``; columns in training order.

    ``sample(n)`` spreads ``n`` new rows over the classes in proportion to their counts
    (largest remainders); ``sample()`` has the training size and class counts. The first
    ``sample`` after ``fit`` uses the trial seed as SMOTE-NC's ``random_state`` (as the
    reference); later calls draw fresh seeds from ``rng_``.

    Parameters
    ----------
    umap_n_neighbors : int
        UMAP ``n_neighbors`` (umap-learn default 15; the paper keeps the defaults, §5.3).
    umap_min_dist : float
        UMAP ``min_dist`` (default 0.1).
    n_components : int
        Embedding dimension (2 in the paper); at least 2 (the inverse transform
        triangulates the embedding).
    smote_k : int
        SMOTE-NC ``k_neighbors`` in the latent space; every class needs more than
        ``smote_k`` rows (else :class:`InfeasibleConfigError`).
    umap_n_epochs : int or None
        UMAP ``n_epochs``; None = umap-learn's default (500 epochs up to 10,000 rows, else
        200; the inverse transform runs a third of them, or 100 / 30 by default).
    umap_knn : {"auto", "exact"}
        UMAP's nearest neighbours. ``auto``: umap-learn's own choice, exact below 4,096
        rows and pynndescent's approximate NN-descent from 4,096 rows on (the reference).
        ``exact``: exact neighbours from scikit-learn at every size, passed to UMAP as
        ``precomputed_knn`` (identical to ``auto`` below 4,096 rows). NN-descent kernels take
        the metric as an argument, which numba cannot cache on disk: with ``auto`` every
        trial process on 4,096+ rows recompiles them (and adds their code to numba's cache
        directory again); ``exact`` avoids that, at the cost of an exact search, slow on
        many high-dimensional rows. Default ``exact`` (a decision: the issue requires that
        trial processes do not pay numba compilation; ``auto`` reproduces the reference).
    reference_quirks : bool
        True truncates integer columns toward zero (the reference's ``astype(int)``).
    mode : {"fixed", "reference"}, optional
        Alias of ``reference_quirks`` (``spec/generators.md`` §1.3); must agree with it.

    Notes
    -----
    Needs a class label (regression targets raise :class:`InfeasibleConfigError`),
    at least one numeric feature and no missing numeric value. UMAP runs single-threaded
    with ``random_state`` set, so a seed gives identical output; its inverse transform is
    seeded by umap-learn's fixed ``transform_seed`` (42), as in the reference.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic", needs_target=True)

    def __init__(
        self,
        umap_n_neighbors: int = 15,
        umap_min_dist: float = 0.1,
        n_components: int = 2,
        smote_k: int = 5,
        umap_n_epochs: int | None = None,
        umap_knn: str = "exact",
        reference_quirks: bool = False,
        mode: str | None = None,
    ) -> None:
        self.umap_n_neighbors = umap_n_neighbors
        self.umap_min_dist = umap_min_dist
        self.n_components = n_components
        self.smote_k = smote_k
        self.umap_n_epochs = umap_n_epochs
        self.umap_knn = umap_knn
        self.reference_quirks = reference_quirks
        self.mode = mode

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        check_int("umap_n_neighbors", self.umap_n_neighbors, 2)
        check_int("n_components", self.n_components, 2)
        check_int("smote_k", self.smote_k, 1)
        if self.umap_n_epochs is not None:
            check_int("umap_n_epochs", self.umap_n_epochs, 1)
        check_choice("umap_knn", self.umap_knn, KNN_METHODS)
        dist = self.umap_min_dist
        if isinstance(dist, bool) or not isinstance(dist, (int, float)) or not 0 <= dist <= 1:
            raise ConfigError(f"`umap_min_dist` must be a number in [0, 1]; got {dist!r}")
        check_bool("reference_quirks", self.reference_quirks)
        if self.mode is not None:
            if self.mode not in MODES:
                raise ConfigError(f"`mode` must be one of {', '.join(MODES)} or null; got {self.mode!r}")
            if self.reference_quirks and self.mode == "fixed":
                raise ConfigError("`mode` is 'fixed' but `reference_quirks` is true; set one of them")

    @property
    def reference(self) -> bool:
        """True when the reference code's behaviour is requested (``reference_quirks`` or ``mode``)."""
        return bool(self.reference_quirks) or self.mode == "reference"

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        self.target_ = require_classification(spec, "umap_smotenc")
        self.labels_ = class_labels(train, self.target_)
        self.numeric_, self.categorical_ = feature_columns(spec, train, "umap_smotenc")
        if not self.numeric_:
            raise InfeasibleConfigError(
                f"umap_smotenc embeds the numeric features with UMAP; dataset {spec.name!r} has none"
            )
        self.counts_ = class_counts(self.labels_)
        check_class_sizes(self.counts_, self.counts_, self.smote_k, "smote_k")

        start = time.perf_counter()
        self.scaler_ = MinMaxScaler()
        scaled = self.scaler_.fit_transform(train[list(self.numeric_)].to_numpy(dtype=np.float64))
        _, codes = np.unique(self.labels_, return_inverse=True)
        self.umap_ = make_umap(
            n_neighbors=self.umap_n_neighbors,
            min_dist=self.umap_min_dist,
            n_components=self.n_components,
            n_epochs=self.umap_n_epochs,
            random_state=self.seed_ % MAX_SEED,
            precomputed_knn=exact_knn(scaled, self.umap_n_neighbors) if self.umap_knn == "exact" else None,
        )
        with quiet_umap():
            self.umap_.fit(scaled, y=codes)
            embedding = np.asarray(self.umap_.transform(scaled), dtype=np.float64)
        self.latent_ = feature_frame(embedding, train, self.categorical_)
        self.seconds_ = {"umap_fit": time.perf_counter() - start}
        self.n_sample_calls_ = 0

    # ------------------------------------------------------------------ sample
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        new = dict(self.counts_) if n_rows is None else allocate(self.counts_, n_rows)
        self.n_sample_calls_ += 1
        seed = self.seed_ % MAX_SEED if self.n_sample_calls_ == 1 else int(self.rng_.integers(MAX_SEED))

        start = time.perf_counter()
        sampler = make_sampler(
            self.smote_k, self.counts_, new, self.n_components, len(self.categorical_), seed
        )
        L_res, y_res = sampler.fit_resample(self.latent_, self.labels_)
        L_new = pd.DataFrame(L_res).iloc[self.n_train_ :].reset_index(drop=True)
        y_new = np.asarray(y_res)[self.n_train_ :]
        coords = L_new.iloc[:, : self.n_components].to_numpy(dtype=np.float64)
        self.latent_new_ = L_new  # the new rows in the latent space (diagnostics, tests)
        smote_s = time.perf_counter() - start

        start = time.perf_counter()
        # one BLAS thread: the Delaunay step of the inverse transform makes one tiny LAPACK
        # call per simplex, which a threaded BLAS slows down by orders of magnitude when the
        # cores are busy (600 rows: 3 ms vs 1-9 s measured with 2 OpenBLAS threads on 2 cores)
        with quiet_umap(), threadpool_limits(limits=1, user_api="blas"):
            scaled = np.asarray(self.umap_.inverse_transform(coords), dtype=np.float64)
        numeric = self.scaler_.inverse_transform(scaled)
        inverse_s = time.perf_counter() - start

        out = assemble(
            self.spec_,
            numeric=numeric,
            numeric_columns=self.numeric_,
            categorical=L_new.iloc[:, self.n_components :],
            categorical_columns=self.categorical_,
            target=self.target_,
            labels=y_new,
            truncate=self.reference,
        )
        self.details_ = {
            "mode": "reference" if self.reference else "fixed",
            "sampler": type(sampler).__name__,
            "class_counts": {str(c): int(v) for c, v in self.counts_.items()},
            "new_rows": {str(c): int(v) for c, v in new.items()},
            "umap": {
                "n_neighbors": int(self.umap_n_neighbors),
                "min_dist": float(self.umap_min_dist),
                "n_components": int(self.n_components),
                "n_epochs": self.umap_n_epochs,
                "knn": self.umap_knn,
                "random_state": self.seed_ % MAX_SEED,
            },
            "smote_k": int(self.smote_k),
            "smote_random_state": seed,
            "seconds": {**self.seconds_, "smote": smote_s, "inverse_transform": inverse_s},
        }
        return out

    def details(self) -> dict[str, Any]:
        """Rows per class, UMAP and SMOTE-NC settings and the time split (UMAP fit, SMOTE-NC, inverse)."""
        return dict(getattr(self, "details_", {}))


# ====================================================================== umap + numba
def make_umap(
    *,
    n_neighbors: int,
    min_dist: float,
    n_components: int,
    n_epochs: int | None,
    random_state: int,
    precomputed_knn: tuple[np.ndarray, np.ndarray] | None = None,
) -> Any:
    """A seeded ``umap.UMAP`` (single-threaded: umap-learn ignores ``n_jobs`` with a seed)."""
    import umap

    enable_numba_cache()
    extra: dict[str, Any] = {}
    if precomputed_knn is not None:
        extra["precomputed_knn"] = (*precomputed_knn, None)
    return umap.UMAP(
        n_neighbors=n_neighbors,
        min_dist=min_dist,
        n_components=n_components,
        n_epochs=n_epochs,
        random_state=random_state,
        n_jobs=1,
        **extra,
    )


def exact_knn(X: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact ``(indices, distances)`` of each row's ``n_neighbors`` nearest rows (itself included).

    None below :data:`APPROXIMATE_FROM` rows, where umap-learn computes exact neighbours
    itself. int32 / float32, as umap-learn's own neighbour search returns them.
    """
    from sklearn.neighbors import NearestNeighbors

    if len(X) < APPROXIMATE_FROM:
        return None
    dists, indices = NearestNeighbors(n_neighbors=n_neighbors).fit(X).kneighbors(X)
    return indices.astype(np.int32), dists.astype(np.float32)


def enable_numba_cache(packages: tuple[str, ...] = NUMBA_PACKAGES) -> int:
    """Turn on numba's on-disk cache for the module-level kernels of ``packages``.

    The same as decorating them with ``cache=True``: numba stores the machine code of each
    compiled signature (in ``NUMBA_CACHE_DIR`` if set, else the package's ``__pycache__``,
    else a user-wide directory) and later processes load it instead of compiling. Must run
    after the packages are imported and before their kernels first compile; kernels
    already cached are left alone. Kernels that take another jitted function as an argument
    miss the cache in every new process (the argument's type names the function's address,
    a numba limitation): pynndescent's NN-descent (see ``umap_knn``) and the epoch kernel of
    UMAP's inverse transform.

    Returns
    -------
    int
        Number of kernels switched on (0 when already done in this process).
    """
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    enabled = 0
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in packages:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher) and isinstance(getattr(value, "_cache", None), NullCache):
                value.enable_caching()
                enabled += 1
    return enabled


@contextmanager
def quiet_umap() -> Iterator[None]:
    """Silence two expected notices: numba's "cannot cache" (kernels with dynamic globals)
    and umap-learn's "no search index" for exact precomputed neighbours (``transform`` is
    only called on the training rows, which umap-learn answers from the embedding)."""
    from numba.core.errors import NumbaWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Cannot cache compiled function", category=NumbaWarning)
        warnings.filterwarnings("ignore", message=r"precomputed_knn\[2\]")
        yield
