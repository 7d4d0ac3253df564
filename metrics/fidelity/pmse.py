"""``pmse``: propensity-score mean squared error and its null-standardised forms (synthpop).

Specification: ``spec/metrics.md`` F2 (``004_…`` *Generating Synthetic Data is Complicated*,
Appendix A; *Comparing Utility and Risk in Microdata and Tables*, Appendix B), computed as R
synthpop's ``utility.gen`` does (Snoke et al. 2018; Raab et al. 2021).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.derived import declared_rules
from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_bool, check_choice, check_int
from harness.spec import DatasetSpec

MODELS: tuple[str, ...] = ("cart", "logit")
RESAMP_METHODS: tuple[str, ...] = ("perm", "pairs")
RPART_MAXDEPTH = 30
"""rpart's default ``maxdepth``."""
NO_SPLIT = 1e-8
"""A permuted pMSE below this counts as a tree without splits (synthpop ``nnosplits``)."""


@dataclass(frozen=True)
class _Variable:
    """One predictor of the propensity model (synthpop's data-frame column after its NA handling).

    ``full`` is the one-hot block of a factor (every level) or the single numeric column;
    ``coded`` its treatment coding for the logit design (first level dropped).
    """

    name: str
    full: np.ndarray
    is_factor: bool

    @property
    def coded(self) -> np.ndarray:
        return self.full[:, 1:] if self.is_factor else self.full

    @property
    def n_levels(self) -> int:
        """Levels as synthpop counts them for its parameter check (2 for a numeric column)."""
        return self.full.shape[1] if self.is_factor else 2


def propensity_variables(
    frames: list[pd.DataFrame], spec: DatasetSpec, *, standardise: bool
) -> tuple[list[_Variable], list[str]]:
    """Predictors of the stacked ``frames`` (rows in order), prepared as synthpop ``utility.gen``.

    Columns with at most one distinct non-missing value in every frame are dropped.
    Categorical (``categorical``, ``ordinal``) columns are factors over the levels present in
    the stack, NA a level of its own. Numeric and datetime columns (datetimes in days) enter
    raw (z-scored when ``standardise``: this changes no fitted logit probability); a numeric
    NA is set to 0 and a 0/1 variable ``<name>_NA`` is added.

    Returns
    -------
    variables : list of _Variable
    dropped : list of str
        The single-valued columns left out.
    """
    stacked = pd.concat(frames, ignore_index=True)
    variables: list[_Variable] = []
    dropped: list[str] = []
    for name in spec.table_columns:
        if name not in stacked.columns:
            continue
        if all(f[name].nunique(dropna=True) <= 1 for f in frames):
            dropped.append(name)
            continue
        values = stacked[name]
        missing = values.isna().to_numpy()
        if spec.column(name).is_categorical:
            levels = sorted(values.dropna().unique(), key=str)
            lookup = {v: i for i, v in enumerate(levels)}
            codes = values.map(lookup).to_numpy(dtype=np.float64)
            width = len(levels) + int(missing.any())
            codes[missing] = width - 1
            block = np.zeros((len(values), width))
            block[np.arange(len(values)), codes.astype(np.int64)] = 1.0
            variables.append(_Variable(name, block, is_factor=True))
            continue
        if pd.api.types.is_datetime64_any_dtype(values.dtype):
            x = values.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(np.float64) / 86_400e9
        else:
            x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
        x = np.where(missing, 0.0, x)
        if standardise:
            sd = float(x.std())
            x = (x - float(x.mean())) / (sd if sd > 0 else 1.0)
        variables.append(_Variable(name, x[:, None], is_factor=False))
        if missing.any():
            variables.append(_Variable(f"{name}_NA", missing.astype(np.float64)[:, None], is_factor=False))
    return variables, dropped


def logit_design(variables: list[_Variable], maxorder: int) -> np.ndarray:
    """Intercept, treatment-coded main effects and (``maxorder`` 1) all two-way interactions.

    The model matrix of R's ``glm(t ~ .)`` / ``glm(t ~ .^2)``; interactions are the products
    of the coded columns of every pair of variables.
    """
    n = variables[0].full.shape[0] if variables else 0
    blocks = [np.ones((n, 1))] + [v.coded for v in variables]
    if maxorder >= 1:
        for a, b in combinations(variables, 2):
            ca, cb = a.coded, b.coded
            blocks.append((ca[:, :, None] * cb[:, None, :]).reshape(n, -1))
    return np.hstack(blocks)


def logit_n_params(variables: list[_Variable], maxorder: int) -> int:
    """synthpop's parameter count: 1 + Σ(L−1) (+ Σ over pairs (L_a−1)(L_b−1) for maxorder 1)."""
    levs = [v.n_levels - 1 for v in variables]
    total = 1 + sum(levs)
    if maxorder >= 1:
        total += sum(a * b for a, b in combinations(levs, 2))
    return total


def identified_columns(x: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    """Indices (sorted) of a maximal set of linearly independent columns of ``x``.

    R's ``glm`` sets aliased coefficients to NA (pivoted QR, tolerance 1e-7) and synthpop
    counts the others as k; fitting on these columns gives the same fitted values and keeps
    IRLS well posed (a pseudo-inverse step diverges on a rank-deficient design).
    """
    from scipy.linalg import qr

    if x.shape[1] == 0:
        return np.arange(0)
    _, r, piv = qr(x, mode="economic", pivoting=True)
    diag = np.abs(np.diag(r))
    rank = int((diag > tol * diag[0]).sum()) if diag.size and diag[0] > 0 else 0
    return np.sort(piv[:rank])


def prune_by_risk(tree: Any, cp: float) -> tuple[np.ndarray, np.ndarray]:
    """rpart-style pruning of a fitted binary ``DecisionTreeClassifier`` (classes 0/1).

    rpart measures a classification tree by its misclassification risk R (wrong
    predictions) and keeps the smallest subtree minimising R(T) + cp·R(root)·|leaves(T)|
    (minimal cost-complexity pruning, Breiman et al.). sklearn's ``ccp_alpha`` prunes by
    Gini impurity instead, which on propensity trees near c prunes far more than rpart
    does; this computes rpart's subtree by one bottom-up pass over the grown tree.

    Returns
    -------
    share : ndarray
        Per node, the share of class 1 among its training rows.
    effective : ndarray of int
        Per node, the leaf of the pruned tree it belongs to (itself when kept).
    """
    t = tree.tree_
    left, right = t.children_left, t.children_right
    count = t.node_count
    weights = t.value[:, 0, :].astype(np.float64)
    weights = weights / weights.sum(axis=1, keepdims=True)
    classes = list(tree.classes_)
    share = weights[:, classes.index(1)] if 1 in classes else np.zeros(count)
    n = t.weighted_n_node_samples.astype(np.float64)
    risk = n * np.minimum(share, 1 - share)
    alpha = cp * risk[0]
    cost = np.empty(count)
    collapse = np.zeros(count, dtype=bool)
    for node in range(count - 1, -1, -1):  # sklearn numbers children after their parent
        if left[node] < 0:
            cost[node] = risk[node] + alpha
            continue
        below = cost[left[node]] + cost[right[node]]
        collapse[node] = risk[node] + alpha <= below
        cost[node] = min(risk[node] + alpha, below)
    effective = np.arange(count)
    for node in range(count):  # parents first
        if left[node] >= 0:
            top = effective[node] if (collapse[node] or effective[node] != node) else -1
            for child in (left[node], right[node]):
                effective[child] = child if top < 0 else top
    return share, effective


def pmse_value(scores: np.ndarray, c: float) -> float:
    """pMSE = (1/N)·Σ(p̂_i − c)²."""
    return float(np.mean((scores - c) ** 2))


def logit_null(k: int, c: float, n: int) -> tuple[float, float]:
    """Null mean and SD of the logit pMSE: (k−1)(1−c)²c/N and √(2(k−1))·(1−c)²c/N."""
    unit = (1 - c) ** 2 * c / n
    return (k - 1) * unit, math.sqrt(2 * (k - 1)) * unit


class Pmse(BaseMetric):
    """Propensity-score MSE of the release against the training split, as synthpop ``utility.gen``.

    ``spec/metrics.md`` F2. T (indicator 0) and S (indicator 1) are stacked (N rows, c =
    |S|/N); a propensity model P(I = 1 | x) is fitted and p̂ are its in-sample fitted values.
    Outputs (result ``variant``; all lower is better):

    ``pmse``
        (1/N)·Σ(p̂ − c)², in [0, c(1 − c)].
    ``pmse_ratio``
        synthpop's S_pMSE = pMSE / E₀, E₀ the null expectation: (k − 1)(1 − c)²c/N for the
        logit (k = rank of the design, R's number of non-aliased coefficients); the mean of
        Σ(p̂ − c)²/N/2 over ``nperms`` refits on permuted indicators (``perm``, synthpop's
        default for CART; the /2 is synthpop's) or the mean pMSE of every pair of synthetic
        copies, halved as synthpop does (``pairs``). Left out when E₀ = 0 (no permuted tree
        split; ``details["n_no_splits"]``). 1 = as good as a correct synthesis; < 10 is
        "acceptable" (Raab et al. 2021).
    ``pmse_standardised``
        (pMSE − E₀)/SD₀ with SD₀ = √(2(k − 1))·(1 − c)²c/N; logit with its theoretical null
        only.

    Parameters
    ----------
    model : {"cart", "logit"}
        ``cart`` (synthpop's default): ``DecisionTreeClassifier`` on one-hot factors and raw
        numbers, ``min_samples_leaf`` (rpart ``minbucket``), ``min_samples_split`` =
        3·``min_samples_leaf`` (rpart's ``minsplit``), depth ≤ 30, then pruned as rpart
        prunes with complexity ``cp`` (misclassification risk, :func:`prune_by_risk`; the
        spec's ``ccp_alpha`` prunes by Gini and far more). ``logit``: statsmodels binomial
        GLM (IRLS, as R's ``glm``) on treatment-coded factors, aliased columns removed.
    maxorder : {0, 1}
        Logit only: 0 = main effects, 1 = all two-way interactions (synthpop's default).
    max_params : int
        Logit only: when synthpop's parameter count exceeds it the metric is incomputable
        (synthpop stops), e.g. ``maxorder: 1`` on Adult.
    maxit : int
        Logit only: IRLS iterations (synthpop ``maxit``).
    cp : float
        CART only: rpart complexity parameter (synthpop default 1e-3): a subtree is kept
        only if it removes at least ``cp``·R(root) misclassifications per extra leaf.
    min_samples_leaf : int
        CART only: synthpop ``minbucket``.
    nperms : int
        Permutations of the ``perm`` null.
    resamp_method : {None, "perm", "pairs"}
        Null expectation: None = synthpop's default (theoretical for logit, ``perm`` for
        CART); ``pairs`` needs ``copies`` ≥ 2.
    copies : int
        The release holds this many synthetic copies stacked in equal consecutive blocks (as
        ``cart_synthpop`` with ``m`` copies writes them); every output is the mean over
        copies (per-copy values in ``details``).
    exclude_derived : bool
        Leave out the columns the dataset declares derived (``preprocess.derived_columns``,
        recomputed on every release by :mod:`harness.derived`): the pMSE of the synthesised
        columns only, as Latner et al. computed it on SD2011(c), whose table lacks ``agegr``
        and ``bmi`` (``details["excluded_columns"]``). No effect on datasets without them.

    Notes
    -----
    Both tables are put in a canonical row order (a content hash) before stacking, so the
    result depends on the rows and the seed only. Permutations and tree ``random_state`` s
    come from ``numpy.random.default_rng(seed)``. Columns single-valued in every table are
    dropped (``details["dropped_columns"]``), as in synthpop.
    """

    name: ClassVar[str] = "pmse"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = -math.inf  # pmse_standardised is negative below its null
    max_value: ClassVar[float] = math.inf

    def __init__(
        self,
        model: str = "cart",
        maxorder: int = 1,
        max_params: int = 400,
        maxit: int = 200,
        cp: float = 1e-3,
        min_samples_leaf: int = 5,
        nperms: int = 50,
        resamp_method: str | None = None,
        copies: int = 1,
        exclude_derived: bool = False,
    ) -> None:
        self.model = model
        self.maxorder = maxorder
        self.max_params = max_params
        self.maxit = maxit
        self.cp = cp
        self.min_samples_leaf = min_samples_leaf
        self.nperms = nperms
        self.resamp_method = resamp_method
        self.copies = copies
        self.exclude_derived = exclude_derived

    def _validate_params(self) -> None:
        check_choice("model", self.model, MODELS)
        if isinstance(self.maxorder, bool) or self.maxorder not in (0, 1):
            raise ConfigError(
                f"`maxorder` must be 0 (main effects) or 1 (two-way interactions); got {self.maxorder!r}"
            )
        check_int("max_params", self.max_params, 1)
        check_int("maxit", self.maxit, 1)
        cp = self.cp
        if isinstance(cp, bool) or not isinstance(cp, (int, float)) or not 0 <= cp < math.inf:
            raise ConfigError(f"`cp` must be a finite number >= 0; got {cp!r}")
        check_int("min_samples_leaf", self.min_samples_leaf, 1)
        check_int("nperms", self.nperms, 1)
        if self.resamp_method is not None:
            check_choice("resamp_method", self.resamp_method, RESAMP_METHODS)
        check_int("copies", self.copies, 1)
        check_bool("exclude_derived", self.exclude_derived)
        if self.resamp_method == "pairs" and self.copies < 2:
            raise ConfigError(f"`resamp_method` 'pairs' needs `copies` >= 2; got copies={self.copies!r}")

    # ------------------------------------------------------------------ model fits
    def _scores(
        self, x: np.ndarray, t: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, int | None]:
        """In-sample propensities and (logit) the number of identified coefficients k."""
        if self.model == "logit":
            import statsmodels.api as sm

            identified = identified_columns(x)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # separation / non-convergence, as synthpop
                fit = sm.GLM(t, x[:, identified], family=sm.families.Binomial()).fit(maxiter=int(self.maxit))
            return np.asarray(fit.fittedvalues, dtype=np.float64), len(identified)
        from sklearn.tree import DecisionTreeClassifier

        tree = DecisionTreeClassifier(
            min_samples_leaf=int(self.min_samples_leaf),
            min_samples_split=3 * int(self.min_samples_leaf),
            max_depth=RPART_MAXDEPTH,
            random_state=int(rng.integers(0, 2**31 - 1)),
        ).fit(x, t)
        share, effective = prune_by_risk(tree, float(self.cp))
        return share[effective[tree.apply(x)]], None

    def _design(self, variables: list[_Variable], rows: np.ndarray) -> np.ndarray:
        if self.model == "logit":
            return logit_design(
                [_Variable(v.name, v.full[rows], v.is_factor) for v in variables], self.maxorder
            )
        return np.hstack([v.full[rows] for v in variables])

    def _compare(
        self,
        variables: list[_Variable],
        syn_rows: np.ndarray,
        real_rows: np.ndarray,
        rng: np.random.Generator,
    ) -> dict[str, Any]:
        """pMSE of one stack (synthetic rows first, as synthpop) and its permutation null if asked."""
        rows = np.concatenate([syn_rows, real_rows])
        x = self._design(variables, rows)
        t = np.concatenate([np.ones(len(syn_rows)), np.zeros(len(real_rows))])
        n, c = len(t), len(syn_rows) / len(t)
        scores, k = self._scores(x, t, rng)
        out: dict[str, Any] = {"pmse": pmse_value(scores, c), "n": n, "c": c}
        if k is not None:
            out["k"] = k
        if self._resamp() == "perm":
            sims = np.array(
                [
                    pmse_value(self._scores(x, rng.permutation(t), rng)[0], c) / 2
                    for _ in range(int(self.nperms))
                ]
            )
            out["null_expectation"] = float(sims.mean())
            out["n_no_splits"] = int((sims < NO_SPLIT).sum())
        elif self._resamp() is None and k is not None:
            mean0, sd0 = logit_null(k, c, n)
            out["null_expectation"], out["null_sd"] = mean0, sd0
        return out

    def _resamp(self) -> str | None:
        if self.resamp_method is not None:
            return str(self.resamp_method)
        return "perm" if self.model == "cart" else None

    # ------------------------------------------------------------------ compute
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
        m = int(self.copies)
        if len(synthetic) % m:
            raise IncomputableMetricError(
                f"metric {self.name}: copies={m} but the release has {len(synthetic)} rows (not a multiple)"
            )
        size = len(synthetic) // m
        parts = [canonical_row_order(synthetic.iloc[i * size : (i + 1) * size]) for i in range(m)]
        frames = [*parts, canonical_row_order(real)]
        excluded = [r.column for r in declared_rules(spec)] if self.exclude_derived else []
        frames = [f.drop(columns=excluded) for f in frames]
        variables, dropped = propensity_variables(frames, spec, standardise=self.model == "logit")
        if not variables:
            raise IncomputableMetricError(
                f"metric {self.name}: no column varies in the training or released table"
            )
        if self.model == "logit":
            n_params = logit_n_params(variables, int(self.maxorder))
            if n_params > int(self.max_params):
                raise IncomputableMetricError(
                    f"metric {self.name}: the logit propensity model (maxorder {self.maxorder}) has {n_params} "
                    f"parameters, more than max_params={self.max_params}; use maxorder 0 or raise max_params"
                )
        bounds = np.cumsum([0] + [len(f) for f in frames])
        rows = [np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        rng = np.random.default_rng(seed)
        per_copy = [self._compare(variables, rows[i], rows[m], rng) for i in range(m)]
        if self._resamp() == "pairs":
            sims = [
                self._compare(variables, rows[i], rows[j], rng)["pmse"] for i, j in combinations(range(m), 2)
            ]
            null = float(np.mean(sims)) / 2  # synthpop: S_pMSE = pMSE·2/mean(pair pMSE)
            for entry in per_copy:
                entry["null_expectation"] = null
            n_no_splits = int(sum(s < NO_SPLIT for s in sims))
        else:
            n_no_splits = int(sum(e.get("n_no_splits", 0) for e in per_copy))

        details: dict[str, Any] = {
            "model": self.model,
            "resamp_method": self._resamp() or "theory",
            "n_variables": len(variables),
            "dropped_columns": dropped,
            "excluded_columns": excluded,
            "n_real": len(real),
            "n_synthetic": len(synthetic),
            "copies": m,
            "per_copy": per_copy,
        }
        if self.model == "logit":
            details["maxorder"] = int(self.maxorder)
            details["n_params"] = logit_n_params(variables, int(self.maxorder))
        else:
            details["cp"] = float(self.cp)
        if self._resamp() is not None:
            details["n_no_splits"] = n_no_splits
            details["nperms"] = (
                int(self.nperms) if self._resamp() == "perm" else len(list(combinations(range(m), 2)))
            )

        pmse = float(np.mean([e["pmse"] for e in per_copy]))
        nulls = [float(e.get("null_expectation", 0.0)) for e in per_copy]
        # baseline of pmse: its null expectation E0 (what a correct synthesis scores)
        out = {"pmse": MetricResult(value=pmse, baseline=float(np.mean(nulls)), details=details)}
        if all(v > 0 for v in nulls):
            ratio = float(np.mean([e["pmse"] / v for e, v in zip(per_copy, nulls)]))
            out["pmse_ratio"] = MetricResult(value=ratio, details=details)
        if all("null_sd" in e and e["null_sd"] > 0 for e in per_copy):
            std = float(np.mean([(e["pmse"] - e["null_expectation"]) / e["null_sd"] for e in per_copy]))
            out["pmse_standardised"] = MetricResult(value=std, details=details)
        return out
