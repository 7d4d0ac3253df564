"""Post-randomisation (PRAM) of categorical columns (``spec/generators.md`` §6.8).

Invariant PRAM of ``004_…`` *DISCOLEAF* §3 (Eq. 3–5) and uniform PRAM (keep with
probability 1−θ, else a uniform other category). Every non-missing cell of a selected
column is replaced by a draw from its row of the column's transition matrix P,
independently per record; all draws come from ``rng_``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_column_list

VARIANTS: tuple[str, ...] = ("invariant", "uniform")
DP_UNIT = "local, per column"


def transition_matrix(counts: np.ndarray, theta: float, variant: str) -> np.ndarray:
    """Transition matrix P (rows: from, columns: to) for categories with ``counts`` (all > 0).

    ``invariant``: P(i→i) = 1 − θ·T_k/T_i, P(i→j) = θ·T_k/((c−1)·T_i) with T_k the smallest
    count, so that T·P = T. ``uniform``: P(i→i) = 1 − θ, P(i→j) = θ/(c−1). One category:
    P = [[1]].
    """
    t = np.asarray(counts, dtype=float)
    c = len(t)
    if c == 1:
        return np.ones((1, 1))
    if variant == "invariant":
        change = theta * t.min() / t  # probability of leaving category i
    else:
        change = np.full(c, float(theta))
    p = np.repeat((change / (c - 1))[:, None], c, axis=1)
    np.fill_diagonal(p, 1.0 - change)
    return p


def epsilon0(p: np.ndarray) -> float:
    """ε₀ = log max_{i,j,l} P(c_l | c_i) / P(c_l | c_j); ∞ if a column mixes 0 and > 0 entries."""
    top, bottom = p.max(axis=0), p.min(axis=0)
    if np.any((bottom == 0) & (top > 0)):
        return math.inf
    ratio = np.where(top > 0, top / np.where(bottom > 0, bottom, 1.0), 1.0)
    return float(np.log(ratio.max()))


def epsilon0_invariant(counts: np.ndarray, p: np.ndarray) -> float:
    """Closed form of §6.8 for invariant PRAM: log max(p_{i0i0}/p_{i1i0}, p_{i1i1}/p_{i0i1})."""
    if len(counts) == 1:
        return 0.0
    i0, i1 = np.argsort(-np.asarray(counts), kind="stable")[:2]
    return float(np.log(max(p[i0, i0] / p[i1, i0], p[i1, i1] / p[i0, i1])))


class Pram(BaseGenerator):
    """PRAM of categorical columns (``spec/generators.md`` §6.8).

    Parameters
    ----------
    theta : float
        Change parameter in (0, 1] (grid {0.1, 0.2, 0.3}).
    columns : list of str, optional
        Categorical (or ordinal) columns to randomise; None = the categorical columns of
        the active QI set, or all categorical columns except the target when there is no
        QI set or it has no categorical column.
    variant : {"invariant", "uniform"}
        ``invariant``: Eq. 3–5 of *DISCOLEAF* (expected frequencies preserved);
        ``uniform``: keep with probability 1−θ, else uniform over the other categories.

    Notes
    -----
    **Decisions.** Categories and frequencies are those of the non-missing training values
    (ordered by their string form); missing cells stay missing. ε₀ is reported per column
    for both variants (both are ε₀-local-DP per column, the uniform one being k-ary
    randomised response); ``info().formal_dp`` carries the largest ε₀ once fitted and
    ``epsilon: None`` before (ε₀ depends on the data). ε₀ = ∞ (θ = 1, uniform) is
    reported as ``inf``.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        releases_original_records=True,  # a record keeps all its values with positive probability
        formal_dp={"epsilon": None, "delta": 0.0, "unit": DP_UNIT},
        fixed_size=True,
    )

    def __init__(
        self, theta: float = 0.2, columns: list[str] | None = None, variant: str = "invariant"
    ) -> None:
        self.theta = theta
        self.columns = columns
        self.variant = variant

    def info(self) -> GeneratorInfo:
        """Capability flags; ``formal_dp.epsilon`` is the largest ε₀ once fitted."""
        eps = getattr(self, "eps0_", None)
        if eps is None:
            return self.capabilities
        top = max(eps.values(), default=0.0)
        return GeneratorInfo(
            output_kind="transformed",
            releases_original_records=True,
            formal_dp={"epsilon": top, "delta": 0.0, "unit": DP_UNIT},
            fixed_size=True,
        )

    def _validate_params(self) -> None:
        theta = self.theta
        if isinstance(theta, bool) or not isinstance(theta, (int, float)) or not 0 < theta <= 1:
            raise ConfigError(f"`theta` must be a number in (0, 1]; got {theta!r}")
        check_column_list("columns", self.columns)
        if self.variant not in VARIANTS:
            raise ConfigError(
                f"`variant` must be one of {', '.join(map(repr, VARIANTS))}; got {self.variant!r}"
            )

    def _selected_columns(self) -> list[str]:
        spec = self.spec_
        if self.columns is not None:
            for col in self.columns:
                if not spec.column(col).is_categorical:
                    raise ConfigError(
                        f"pram: column {col!r} is {spec.kind(col)}; `columns` must name categorical columns"
                    )
            return list(dict.fromkeys(self.columns))
        cat = set(spec.categorical_columns)
        cols = [c for c in spec.qi if c in cat] or [c for c in spec.categorical_columns if c != spec.target]
        if not cols:
            raise ConfigError(f"pram: dataset {spec.name!r} has no categorical column to randomise")
        return cols

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.columns_ = self._selected_columns()
        out = train.reset_index(drop=True)
        self.categories_: dict[str, list[Any]] = {}
        self.matrices_: dict[str, np.ndarray] = {}
        self.eps0_: dict[str, float] = {}
        for col in self.columns_:
            values = out[col]
            present = values.notna().to_numpy()
            counts_s = values[present].value_counts()
            order = sorted(counts_s.index, key=str)
            counts = counts_s.loc[order].to_numpy(dtype=float)
            p = transition_matrix(counts, float(self.theta), self.variant)
            self.categories_[col] = list(order)
            self.matrices_[col] = p
            self.eps0_[col] = epsilon0(p)
            if len(order) < 2:
                continue
            codes = pd.Categorical(values[present], categories=order).codes
            cum = np.cumsum(p, axis=1)
            cum[:, -1] = 1.0
            u = self.rng_.random(len(codes))
            new_codes = (u[:, None] >= cum[codes]).sum(axis=1)
            new = values.to_numpy(dtype=object).copy()
            new[present] = np.asarray(order, dtype=object)[new_codes]
            out[col] = new
        self.out_ = out

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.out_.copy(deep=True)

    def details(self) -> dict[str, Any]:
        """ε₀ per column, the transition matrices and their categories."""
        if not hasattr(self, "eps0_"):
            return {}
        return {
            "theta": float(self.theta),
            "variant": self.variant,
            "columns": list(self.columns_),
            "eps0": dict(self.eps0_),
            "eps0_max": max(self.eps0_.values(), default=0.0),
            "categories": {c: [str(v) for v in cats] for c, cats in self.categories_.items()},
            "transition_matrices": {c: p.tolist() for c, p in self.matrices_.items()},
        }
