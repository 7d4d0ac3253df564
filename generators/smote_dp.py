"""SMOTE-DP (``spec/generators.md`` §5.3; ``001_…`` §1, §3, §4).

A two-stage pipeline composed from existing generator configs: a non-private generator
G1 that produces "contracting" data (SMOTE-NC with K = 1, one new row per original row,
originals dropped), then a DP generator G2 trained on G1's output with a (possibly large)
budget ε. There is no public reference implementation.

Strict mode is reached through G2: ``g2_params: {strict: true}`` makes G2 take its domain from
the dataset spec (``generators.dp_domain``); the dataset spec is checked at validation
(:meth:`SmoteDP.validate_spec`) and the release may then hold public levels that the training
split lacks. The guarantee stays one about the SMOTE output (``formal_dp["unit"]`` is
``smote_output``, ``end_to_end`` is false).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, PrivbenchError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.instantiate import build_generator
from harness.registry import read_config
from harness.seeding import derive_seed
from harness.spec import DatasetSpec

DEFAULT_G1_PARAMS: dict[str, Any] = {"knn": 1, "mode": "full_synthetic"}
HEURISTIC_NOTE = "paper's heuristic, not a guarantee"
UNIT_GAP = "the guarantee is with respect to the SMOTE output, not the original records"


class SmoteDP(BaseGenerator):
    """SMOTE-DP: ``G2.fit(G1.fit(train).sample(), ε).sample(n)``.

    Parameters
    ----------
    g1 : str
        Config name of the contracting, non-private stage (default ``smotenc``).
    g1_params : mapping or None
        Overrides of G1's YAML parameters; None = ``{knn: 1, mode: full_synthetic}``
        (``001_…`` §4.2.1: K = 1; full-synthetic output is the spec's Decision).
    g2 : str
        Config name of the DP stage (default ``privbayes``); it must have an ``epsilon``
        parameter.
    g2_params : mapping or None
        Overrides of G2's YAML parameters (not ``epsilon``); None = none. SMOTE-DP
        reproductions use ``{histogram_size: 25, k: 1}`` for PrivBayes (spec §5.3 Decision);
        ``{strict: true}`` takes G2's domain from the dataset spec.
    epsilon : float or None
        G2's privacy budget, passed as its ``epsilon`` (the paper's grid {0.1, 1, 50}).
        0 or None switch the noise off where G2 defines them so (PrivBayes does).

    Notes
    -----
    Algorithm: X_S = G1.fit(train).sample() (n rows, class counts kept); G2.fit(X_S) with
    ``epsilon``; ``sample(n)`` = G2.sample(n) (n defaults to the training size). The two
    stages get seeds derived from the generator's seed (``derive_seed(seed, "g1")`` and
    ``derive_seed(seed, "g2")``).

    **Privacy unit.** G2's guarantee holds with respect to neighbouring *SMOTE outputs*,
    not neighbouring original tables: one original record shapes its own synthetic row and
    the rows of every record that picked it as nearest neighbour. The end-to-end guarantee
    with respect to the original records is not established (the paper's Theorem 3.2 argues
    an "effective" α·ε from reduced covariance, which is not a DP proof). ``info()`` reports
    G2's ``formal_dp`` (its spent ε, δ and neighbouring relation) with ``unit: "smote_output"``
    and ``end_to_end: false``.

    **Contraction diagnostics** (spec §5.3.1, in :meth:`details`): on the numeric columns,
    z-scored with the training mean and standard deviation (ddof = 1), ``alpha_hat`` =
    tr(Cov(X_S)) / tr(Cov(X)), the per-column variance ratios, ``mean_shift_l2`` =
    ‖μ_S − μ_X‖₂, ``epsilon_g2`` and ``epsilon_times_alpha`` (the paper's heuristic, not a
    guarantee). Missing values are skipped column by column; constant training columns are
    left out.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(
        self,
        g1: str = "smotenc",
        g1_params: Mapping[str, Any] | None = None,
        g2: str = "privbayes",
        g2_params: Mapping[str, Any] | None = None,
        epsilon: float | None = 50.0,
    ) -> None:
        self.g1 = g1
        self.g1_params = g1_params
        self.g2 = g2
        self.g2_params = g2_params
        self.epsilon = epsilon

    # ------------------------------------------------------------------ stages
    def _stage_config(self, which: str) -> dict[str, Any]:
        name = self.g1 if which == "g1" else self.g2
        overrides = self.g1_params if which == "g1" else self.g2_params
        if overrides is None:
            overrides = DEFAULT_G1_PARAMS if which == "g1" else {}
        if not isinstance(overrides, Mapping):
            raise ConfigError(f"`{which}_params` must be a mapping of parameters or null; got {overrides!r}")
        cfg = {k: v for k, v in read_config("generator", name).items() if k != "check_params"}
        cfg.update(overrides)
        if which == "g2":
            cfg["epsilon"] = self.epsilon
        return cfg

    def _build(self, which: str) -> BaseGenerator:
        name = self.g1 if which == "g1" else self.g2
        try:
            return build_generator(name, self._stage_config(which))
        except PrivbenchError as exc:
            raise ConfigError(f"smote_dp stage {which} ({name!r}): {exc}") from None

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        for which, name in (("g1", self.g1), ("g2", self.g2)):
            if not isinstance(name, str) or not name:
                raise ConfigError(f"`{which}` must be a generator config name; got {name!r}")
        if self.g2_params is not None and isinstance(self.g2_params, Mapping) and "epsilon" in self.g2_params:
            raise ConfigError("`g2_params` must not set epsilon; use the smote_dp parameter `epsilon`")
        eps = self.epsilon
        if eps is not None and (
            isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps < 0
        ):
            raise ConfigError(f"`epsilon` must be a finite number >= 0 (or null); got {eps!r}")
        if "epsilon" not in type(self._build("g2"))._param_names():
            raise ConfigError(f"`g2` must be a DP generator with an epsilon parameter; {self.g2!r} has none")
        self._build("g1")

    def _validate_spec(self, spec: DatasetSpec) -> None:
        self._build("g2").validate_spec(spec)  # e.g. G2's strict mode needs the public domain

    def info(self) -> GeneratorInfo:
        """Flags of the composition: G2's DP budget with unit ``smote_output``."""
        try:
            first, second = self._build("g1").info(), self._build("g2").info()
        except PrivbenchError:
            return self.capabilities  # invalid parameters: fit raises the ConfigError
        dp = None
        if second.formal_dp is not None:
            reasons = [UNIT_GAP, *filter(None, [second.formal_dp.get("reason")])]
            dp = {
                **second.formal_dp,
                "unit": "smote_output",
                "end_to_end": False,
                "reason": "; ".join(reasons),
            }
        return GeneratorInfo(
            output_kind="synthetic",
            formal_dp=dp,
            supports_categorical=first.supports_categorical and second.supports_categorical,
            supports_missing=first.supports_missing and second.supports_missing,
            needs_target=first.needs_target or second.needs_target,
            needs_qi=first.needs_qi or second.needs_qi,
            needs_gpu=first.needs_gpu or second.needs_gpu,
            deterministic=first.deterministic and second.deterministic,
        )

    # ------------------------------------------------------------------ fit / sample
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.g1_ = self._build("g1")
        self.g2_ = self._build("g2")
        self.g1_.fit(train, self.spec_, seed=derive_seed(self.seed_, "g1"))
        smote = self.g1_.sample()
        self.n_smote_ = len(smote)
        self.contraction_ = contraction(train, smote, list(self.spec_.numeric_columns))
        self.g2_.fit(smote, self.spec_, seed=derive_seed(self.seed_, "g2"))
        # G2 in strict mode may release public levels absent from training (as G2 itself allows)
        widened = self.g2_.training_categories_
        self.training_categories_ = {
            col: seen | widened.get(col, frozenset()) for col, seen in self.training_categories_.items()
        }

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.g2_.sample(self.n_train_ if n_rows is None else n_rows)

    def details(self) -> dict[str, Any]:
        """Contraction diagnostics (spec §5.3.1) and the stages' own details."""
        if not getattr(self, "fitted_", False):
            return {}
        alpha = self.contraction_["alpha_hat"]
        eps = 0.0 if self.epsilon is None else float(self.epsilon)
        return {
            **self.contraction_,
            "epsilon_g2": eps,
            "epsilon_times_alpha": None if alpha is None else eps * alpha,
            "epsilon_times_alpha_note": HEURISTIC_NOTE,
            "privacy_unit": "smote_output",
            "n_smote_rows": self.n_smote_,
            "g1": {"name": self.g1, "params": self.g1_.get_params(), "details": self.g1_.details()},
            "g2": {"name": self.g2, "params": self.g2_.get_params(), "details": self.g2_.details()},
        }


def contraction(real: pd.DataFrame, smote: pd.DataFrame, columns: list[str]) -> dict[str, Any]:
    """Contraction of ``smote`` relative to ``real`` on ``columns`` (spec §5.3.1).

    Both tables are z-scored with ``real``'s mean and standard deviation (ddof = 1);
    missing values are skipped per column and columns constant in ``real`` are left out.

    Returns
    -------
    dict
        ``alpha_hat`` (tr Cov(X_S) / tr Cov(X), None without usable columns),
        ``variance_ratios`` (per column), ``mean_shift_l2`` (‖μ_S − μ_X‖₂) and
        ``contraction_columns`` (the columns used).
    """
    used, ratios, shifts, var_real, var_smote = [], {}, [], 0.0, 0.0
    for col in columns:
        x = pd.to_numeric(real[col]).to_numpy(dtype=float)
        s = pd.to_numeric(smote[col]).to_numpy(dtype=float)
        x, s = x[~np.isnan(x)], s[~np.isnan(s)]
        if len(x) < 2 or len(s) < 2:
            continue
        mean, sd = float(x.mean()), float(x.std(ddof=1))
        if not sd > 0:
            continue
        xz, sz = (x - mean) / sd, (s - mean) / sd
        vx, vs = float(xz.var(ddof=1)), float(sz.var(ddof=1))
        used.append(col)
        ratios[col] = vs / vx
        shifts.append(float(sz.mean() - xz.mean()))
        var_real += vx
        var_smote += vs
    return {
        "alpha_hat": var_smote / var_real if used else None,
        "variance_ratios": ratios,
        "mean_shift_l2": float(np.linalg.norm(shifts)) if used else None,
        "contraction_columns": used,
    }
