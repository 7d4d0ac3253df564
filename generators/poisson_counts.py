"""Count synthesis of a full contingency table (``spec/generators.md`` §7.9).

Source: ``004_…`` *Obtaining (ε, δ)-Differential Privacy Guarantees When Using a Poisson
Mechanism to Synthesize Contingency Tables* (Jackson, Mitra, Francis, Dove), §3–4. The
training rows are counted in the full contingency table over the cross-product of the
levels of the selected columns (K cells, empty cells included), every count is perturbed
by one of four mechanisms, and the noisy table is expanded back to microdata:

* ``poisson``: b_i ~ Poisson(a_i + α) — (ε, δ)-probabilistic DP with δ of Eq. 9;
* ``laplace``: b_i = max(0, rint(a_i + Laplace(0, 1/ε))) — ε-DP (Example 1);
* ``gaussian``: b_i = max(0, rint(a_i + N(0, σ²))) — (ε, δ)-probabilistic DP (Example 2);
* ``multinomial_dirichlet``: p ~ Dirichlet(a + α), b ~ Multinomial(n, p) — ε-DP iff
  α ≥ n/(e^ε − 1) (Example 3).

All draws come from ``rng_``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_choice, check_column_list, check_int

MECHANISMS: tuple[str, ...] = ("poisson", "laplace", "gaussian", "multinomial_dirichlet")
DP_UNIT = "original_records"
"""Neighbouring tables differ by one record, i.e. one cell count differs by one (paper §2)."""
NOT_END_TO_END: dict[str, Any] = {
    "end_to_end": False,
    "reason": "the cells are built from the levels present in the training rows and numeric columns "
    "are cut at the training rows' quantiles, without budget (the paper treats the table's "
    "margins as public); a record with a level of its own is released only when it is in",
}
"""The paper's guarantee is about the counts of a public table; the domain is read from the data
(``mia_audit`` measures it: a canary with a level of its own gets a bound far above ε)."""


# ---------------------------------------------------------------------- privacy accounting
def poisson_delta(epsilon: float, alpha: float) -> float:
    """δ of the Poisson mechanism (Eq. 9): 1 − F_{Poisson(1+α)}(⌊(1 + ε)/ln((1 + α)/α)⌋).

    Valid for ε ≥ 1 (then the lower inequality of Definition 1 always holds; the paper leaves
    0 < ε < 1 open) and α > 0. The worst case a_k = 1 is the paper's, found by simulation.
    """
    if epsilon < 1 or alpha <= 0:
        raise ValueError(f"Eq. 9 needs epsilon >= 1 and alpha > 0; got epsilon={epsilon}, alpha={alpha}")
    bound = math.floor((1.0 + epsilon) / math.log((1.0 + alpha) / alpha))
    return float(stats.poisson.sf(bound, 1.0 + alpha))


def gaussian_delta(epsilon: float, sigma: float) -> float:
    """δ of the Gaussian mechanism (Example 2): 1 − [Φ(σε − 1/(2σ)) − Φ(−σε − 1/(2σ))]."""
    shift = 1.0 / (2.0 * sigma)
    inside = stats.norm.cdf(sigma * epsilon - shift) - stats.norm.cdf(-sigma * epsilon - shift)
    return float(1.0 - inside)


def dirichlet_min_alpha(epsilon: float, n: int) -> float:
    """Smallest pseudocount for ε-DP of the multinomial-Dirichlet synthesiser: n/(e^ε − 1)."""
    return float(n / math.expm1(epsilon))


def dirichlet_epsilon(alpha: float, n: int) -> float:
    """ε actually achieved by the multinomial-Dirichlet synthesiser: ln((n + α)/α)."""
    return float(math.log1p(n / alpha))


# ---------------------------------------------------------------------- contingency table
def table_size(radices: list[int]) -> int:
    """Number of cells K of the cross-product (exact Python integer, no overflow)."""
    return math.prod(int(r) for r in radices)


def contingency_counts(codes: list[np.ndarray], radices: list[int]) -> np.ndarray:
    """Counts a of the full table: mixed-radix cell code per row, then ``np.bincount``.

    Parameters
    ----------
    codes : list of ndarray
        Level index of every row, one integer array per column (``0 <= code < radix``).
    radices : list of int
        Number of levels per column; the table has ``prod(radices)`` cells.

    Returns
    -------
    ndarray of int64
        Count per cell, in C order of the level indices (last column fastest).
    """
    k = table_size(radices)
    if not codes:
        return np.zeros(1, dtype=np.int64)
    flat = np.ravel_multi_index(tuple(np.asarray(c, dtype=np.int64) for c in codes), tuple(radices))
    return np.bincount(flat, minlength=k).astype(np.int64)


class PoissonCounts(BaseGenerator):
    """Noisy contingency-table synthesis (``spec/generators.md`` §7.9).

    Parameters
    ----------
    mechanism : {"poisson", "laplace", "gaussian", "multinomial_dirichlet"}
        Count perturbation (module docstring).
    alpha : float
        Pseudocount α > 0 added to every cell (``poisson``, ``multinomial_dirichlet``; not used
        by ``laplace`` / ``gaussian``). Grid {0.1, 0.2, 0.5, 1}.
    epsilon : float
        ε > 0 for which the guarantee is reported (``poisson``: δ of Eq. 9, needs ε ≥ 1);
        the noise scale of ``laplace`` (Laplace(0, 1/ε)). Grid {1.5, 2, 2.5, 3}.
    max_cells : int
        Refuse (:class:`InfeasibleConfigError`, trial ``skipped``) when the table has more cells.
    sigma : float
        Noise SD of the ``gaussian`` mechanism.
    columns : list of str, "all" or None
        Columns of the contingency table. None = the active QI set (all table columns when the
        dataset has none); ``"all"`` = every table column.
    bins : int
        Numeric (``integer`` / ``continuous``) selected columns are discretised into at most
        ``bins`` quantile bins of the training values (empty bins dropped); each bin is
        released as the median of its training values (rounded for ``integer`` columns).

    Notes
    -----
    **Decisions.**

    * The method is for all-categorical data. Categorical / ordinal columns use their
      observed training levels; numeric columns are discretised (``bins``); a missing value
      is one more level of its column, so missingness is synthesised too. ``datetime``
      columns are refused.
    * **Columns outside** ``columns`` **are withheld**: released as all-missing. The rows are
      synthesised from noisy counts, so no value of a withheld column can be attached to them
      without leaving the DP guarantee; select every column (``columns: all``) to release a
      full table when the table size allows it (Adult's 15 columns do not: K ≈ 10⁹).
    * The domain (levels, bin edges and representatives) is read from the training data and
      treated as public; the (ε, δ) guarantee covers the counts only, as in the paper.
    * The noisy counts b are drawn once, in ``fit``. ``sample(None)`` expands b (random size,
      E = n + α·K for ``poisson``) in shuffled order; ``sample(n)`` draws n rows from the cell
      frequencies b / Σb (post-processing, the guarantee is unchanged).
    * ``multinomial_dirichlet``: the paper prints the condition as max_i α_i ≥ n/(e^ε − 1);
      its derivation needs it for every cell (min_i α_i). With one constant α both read
      α ≥ n/(e^ε − 1). When it fails, ``formal_dp`` reports the ε the mechanism does achieve,
      ln((n + α)/α), and ``details()["dp"]["condition_met"]`` is False.
    """

    def __init__(
        self,
        mechanism: str = "poisson",
        alpha: float = 1.0,
        epsilon: float = 2.0,
        max_cells: int = 10_000_000,
        sigma: float = 1.0,
        columns: list[str] | str | None = None,
        bins: int = 5,
    ) -> None:
        self.mechanism = mechanism
        self.alpha = alpha
        self.epsilon = epsilon
        self.max_cells = max_cells
        self.sigma = sigma
        self.columns = columns
        self.bins = bins

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        check_choice("mechanism", self.mechanism, MECHANISMS)
        for key in ("alpha", "epsilon", "sigma"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ConfigError(f"`{key}` must be a positive finite number; got {value!r}")
        if self.mechanism == "poisson" and self.epsilon < 1:
            raise ConfigError(
                f"`epsilon` must be >= 1 for mechanism 'poisson' (Eq. 9 gives δ only for ε >= 1); "
                f"got {self.epsilon!r}"
            )
        max_cells: Any = self.max_cells
        if isinstance(max_cells, float) and max_cells.is_integer():
            max_cells = int(max_cells)
        check_int("max_cells", max_cells, 1)
        check_int("bins", self.bins, 1)
        if self.columns != "all":
            if isinstance(self.columns, str):
                raise ConfigError(
                    f"`columns` must be null, 'all' or a list of column names; got {self.columns!r}"
                )
            check_column_list("columns", self.columns)

    def info(self) -> GeneratorInfo:
        """Capability flags; ``formal_dp`` per mechanism (data-dependent for the Dirichlet one)."""
        return GeneratorInfo(output_kind="synthetic", formal_dp=self._formal_dp())

    def _formal_dp(self) -> dict[str, Any]:
        eps = float(self.epsilon)
        if self.mechanism == "poisson":
            try:
                delta: float | None = poisson_delta(eps, float(self.alpha))
            except ValueError:
                delta = None  # invalid parameters; refused by _validate_params
            return {
                "epsilon": eps,
                "delta": delta,
                "unit": DP_UNIT,
                "notion": "probabilistic",
                **NOT_END_TO_END,
            }
        if self.mechanism == "gaussian":
            delta = gaussian_delta(eps, float(self.sigma))
            return {
                "epsilon": eps,
                "delta": delta,
                "unit": DP_UNIT,
                "notion": "probabilistic",
                **NOT_END_TO_END,
            }
        if self.mechanism == "laplace":
            return {"epsilon": eps, "delta": 0.0, "unit": DP_UNIT, "notion": "pure", **NOT_END_TO_END}
        n = getattr(self, "n_train_", None)
        if n is None:  # the guarantee depends on n
            return {"epsilon": None, "delta": 0.0, "unit": DP_UNIT, "notion": "pure", **NOT_END_TO_END}
        met = float(self.alpha) >= dirichlet_min_alpha(eps, n)
        achieved = eps if met else dirichlet_epsilon(float(self.alpha), n)
        return {"epsilon": achieved, "delta": 0.0, "unit": DP_UNIT, "notion": "pure", **NOT_END_TO_END}

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return n_rows  # natural size is random

    # ------------------------------------------------------------------ fit
    def _selected_columns(self) -> list[str]:
        spec = self.spec_
        table = list(spec.table_columns)
        if self.columns == "all":
            cols = table
        elif self.columns is None:
            cols = list(spec.qi) or table
        else:
            unknown = [c for c in self.columns if c not in table]
            if unknown:
                raise ConfigError(
                    f"poisson_counts: `columns` names unknown column(s) {', '.join(map(repr, unknown))}; "
                    f"expected columns of dataset {spec.name!r}"
                )
            cols = list(dict.fromkeys(self.columns))
        dates = [c for c in cols if spec.kind(c) == "datetime"]
        if dates:
            raise ConfigError(
                f"poisson_counts: datetime column(s) {', '.join(map(repr, dates))} cannot be tabulated; "
                "leave them out of `columns`"
            )
        return [c for c in table if c in set(cols)]  # table order

    def _levels(self, values: pd.Series, col: str) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Level values (NaN last if missing occurs), the level index per row, and bin info."""
        missing = values.isna().to_numpy()
        info: dict[str, Any] = {}
        if self.spec_.column(col).is_numeric:
            present = values.to_numpy(dtype=float)[~missing]
            if present.size == 0:  # all missing: the column has the single level NaN
                present = np.zeros(0)
            probs = np.linspace(0.0, 1.0, int(self.bins) + 1)
            edges = np.unique(np.quantile(present, probs)) if present.size else np.zeros(1)
            raw = np.searchsorted(edges[1:-1], present, side="right")
            used, inner_codes = np.unique(raw, return_inverse=True)  # drop empty bins
            reps = np.array([np.median(present[inner_codes == j]) for j in range(len(used))])
            if self.spec_.kind(col) == "integer":
                reps = np.rint(reps)
            levels: np.ndarray = reps.astype(float)
            lower = np.concatenate([[edges[0]], edges[1:-1]])[used]
            info = {"lower_edges": lower.tolist(), "representatives": reps.tolist()}
        else:
            present_values = values[~missing]
            levels = np.array(sorted(present_values.unique(), key=str), dtype=object)
            inner_codes = pd.Categorical(present_values, categories=levels).codes.astype(np.int64)
        codes = np.full(len(values), len(levels), dtype=np.int64)
        codes[~missing] = inner_codes
        if missing.any():
            levels = np.append(levels, np.nan)  # the missing level, last
        return levels, codes, info

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.columns_ = self._selected_columns()
        self.withheld_ = [c for c in self.spec_.table_columns if c not in set(self.columns_)]
        self.levels_: dict[str, np.ndarray] = {}
        self.bins_: dict[str, dict[str, Any]] = {}
        codes: list[np.ndarray] = []
        for col in self.columns_:
            levels, col_codes, bin_info = self._levels(train[col], col)
            self.levels_[col] = levels
            codes.append(col_codes)
            if bin_info:
                self.bins_[col] = bin_info
        radices = [len(self.levels_[c]) for c in self.columns_]
        k = table_size(radices)
        max_cells = int(self.max_cells)
        if k > max_cells:
            shape = " x ".join(f"{c}={r}" for c, r in zip(self.columns_, radices))
            raise InfeasibleConfigError(
                f"poisson_counts: the contingency table has K={k:,} cells ({shape}), above "
                f"max_cells={max_cells:,}; select fewer columns via `columns` or lower `bins`"
            )
        self.radices_ = radices
        self.k_ = k
        a = contingency_counts(codes, radices)
        self.counts_ = self._perturb(a)

    def _perturb(self, a: np.ndarray) -> np.ndarray:
        """Noisy counts b (int64) from the original counts a by the configured mechanism."""
        rng = self.rng_
        alpha = float(self.alpha)
        if self.mechanism == "poisson":
            return rng.poisson(a + alpha).astype(np.int64)
        if self.mechanism == "laplace":
            noisy = a + rng.laplace(0.0, 1.0 / float(self.epsilon), size=a.shape)
            return np.maximum(0, np.rint(noisy)).astype(np.int64)
        if self.mechanism == "gaussian":
            noisy = a + rng.normal(0.0, float(self.sigma), size=a.shape)
            return np.maximum(0, np.rint(noisy)).astype(np.int64)
        # multinomial_dirichlet: p ~ Dirichlet(a + α) via normalised gammas, b ~ Multinomial(n, p)
        gammas = rng.standard_gamma(a + alpha)
        p = gammas / gammas.sum()
        return rng.multinomial(int(a.sum()), p).astype(np.int64)

    # ------------------------------------------------------------------ sample
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        b = self.counts_
        total = int(b.sum())
        if n_rows is not None:
            if total == 0:
                raise InfeasibleConfigError(
                    f"poisson_counts: the noisy table is empty (all {self.k_:,} counts are 0); "
                    f"cannot draw n_rows={n_rows}"
                )
            b = self.rng_.multinomial(n_rows, b / total)
        cells = np.repeat(np.arange(len(b), dtype=np.int64), b)
        cells = self.rng_.permutation(cells)
        out: dict[str, Any] = {}
        if self.columns_:
            indices = np.unravel_index(cells, tuple(self.radices_))
            decoded = {c: self.levels_[c][idx] for c, idx in zip(self.columns_, indices)}
        else:
            decoded = {}
        for col in self.spec_.table_columns:
            if col in decoded:
                out[col] = decoded[col]
            else:  # withheld; object NaN keeps the categorical conversion on its fast path
                kind = object if self.spec_.column(col).is_categorical else float
                out[col] = np.full(len(cells), np.nan, dtype=kind)
        self.last_rows_ = len(cells)
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ reporting
    def details(self) -> dict[str, Any]:
        """Table size K, n, expected and released size, and the (ε, δ) accounting."""
        if not hasattr(self, "counts_"):
            return {}
        n = int(self.n_train_)
        alpha = float(self.alpha)
        eps = float(self.epsilon)
        expected: float | None
        if self.mechanism == "poisson":
            expected = n + alpha * self.k_
        elif self.mechanism == "multinomial_dirichlet":
            expected = float(n)
        else:
            expected = None  # E[max(0, rint(a + noise))] has no closed form
        dp: dict[str, Any] = dict(self._formal_dp())
        if self.mechanism == "poisson":
            dp["formula"] = "delta = 1 - F_Poisson(1+alpha)(floor((1+epsilon)/ln((1+alpha)/alpha))) (Eq. 9)"
        elif self.mechanism == "gaussian":
            dp["formula"] = "1 - delta = Phi(sigma*eps - 1/(2 sigma)) - Phi(-sigma*eps - 1/(2 sigma))"
        elif self.mechanism == "laplace":
            dp["formula"] = "Laplace(0, 1/epsilon) noise on counts of sensitivity 1: epsilon-DP"
        else:
            need = dirichlet_min_alpha(eps, n)
            dp.update(
                {
                    "formula": "epsilon-DP iff alpha >= n/(e^epsilon - 1)",
                    "configured_epsilon": eps,
                    "min_alpha": need,
                    "condition_met": alpha >= need,
                    "achieved_epsilon": dirichlet_epsilon(alpha, n),
                }
            )
        return {
            "mechanism": self.mechanism,
            "alpha": alpha,
            "epsilon": eps,
            "sigma": float(self.sigma),
            "columns": list(self.columns_),
            "withheld_columns": list(self.withheld_),
            "levels": {c: int(r) for c, r in zip(self.columns_, self.radices_)},
            "bins": self.bins_,
            "K": int(self.k_),
            "n": n,
            "expected_rows": expected,
            "noisy_total": int(self.counts_.sum()),
            "released_rows": getattr(self, "last_rows_", None),
            "dp": dp,
        }
