"""DP class-conditional Gaussian moments (``dp_moments``): the mechanism of SMOTE-DP's Theorem 3.2.

Source: Zhou, Malin & Kantarcioglu, SMOTE-DP (``001_…``), §3.2 (Definition 2, Theorems 3.1 and
3.2, Eqs. 4–5) and §4.1 (Fig. 3: mean and covariance Frobenius errors of DP, SMOTE and SMOTE-DP on
two-class Gaussian data). The paper names no mechanism for Fig. 3; this module is the one its
theory implies, made differentially private.

Derivation from the paper
-------------------------
Definition 2 gives the sensitivity of a release as Δf = max E‖X − X′‖ = ‖μ_X − μ_X′‖ + tr(Σ_X +
Σ_X′): it grows with the *spread* of the data. Eq. 4 adds Lap(Δf/ε) noise; SMOTE contracts the
data (Eq. 3: tr Σ_S < tr Σ_X), so Δf_S = α·Δf with 0 < α < 1 and the same noise scale costs only
α·ε (Theorem 3.2, Eq. 5) — equivalently, at a fixed ε the noise on the SMOTE output is α times
smaller. Fig. 3 scores the mean and the covariance of Gaussian classes, so the released
statistics are per-class means and covariances, and the release is a sample of N(μ̃, Σ̃) per class.

Definition 2 is an expectation over the data, not a worst case: a noise scale read from the
data's covariance is not differentially private. The DP mechanism with the property the theorem
needs clips every record to a ball of radius r around a centre and calibrates the Laplace noise
on r, with r itself a DP quantile of the records' distances to a DP centre (times a public
factor). For Gaussian data that radius is proportional to the spread, so the noise of the mean
scales with r and the noise of the covariance with r² ∝ tr Σ: on a contracted input r_S² / r² ≈ α,
Theorem 3.2's α.
(Domain-calibrated mechanisms — PrivBayes, MST, PATE-GAN — have no such handle: their noise is
fixed by the bins or the gradient clip, whatever the spread.)

Mechanism (per class of ``spec.target``; one group when ``by_class`` is false or there is none)
------------------------------------------------------------------------------------------
Encoding: numeric columns are scaled to [0, 1] by their bounds (values clamped); categorical
columns other than the class are one-hot coordinates (a missing value is one more level), so a
record is x ∈ [0, 1]^D. Budget: ε_c = ε/2 per class, split by ``budget_split`` into the five steps
below; for a class with m records:

1. count: m̃ = m + Lap(1/ε_count); m̂ = max(m̃, 1).
2. centre: c̃ = clip(½ + (Σ(x_i − ½) + Lap(D/(2·ε_centre))^D) / m̂, 0, 1)  (x_i − ½ ∈ [−½, ½]^D:
   L1 sensitivity D/2).
3. radius: r̃ = ``clip_factor`` × the ``clip_quantile`` q of the distances ‖x_i − c̃‖₂, drawn by the
   continuous exponential mechanism on a log scale over [√D·2^−30, √D] (density ∝
   exp(ε_radius·u(t)/2) w.r.t. dt/t, u(t) = −|#{‖x_i − c̃‖ < t} − q·max(m̃, 0)|, sensitivity 1;
   Smith 2011). Default q = 0.5, factor 2: a high quantile (0.9–0.95) is unstable at ε_radius ≈
   0.1 — the empty range above the largest distance then wins the draw in 10–25 % of fits (a
   radius 5–10 times too large) — while the median is within [0.9, 1.6]× its target on
   two_gaussians (1,000 rows per class, ε = 1).
4. mean: z_i = (x_i − c̃)·min(1, r̃/‖x_i − c̃‖); S̃ = Σ z_i + Lap(√D·r̃/ε_mean)^D (‖z‖₁ ≤ √D·r̃).
5. covariance: M̃ = Σ z_i z_iᵀ + Laplace noise of scale (D + 1)·r̃²/(2·ε_covariance) on each entry
   of the upper triangle (diagonal included), mirrored (Σ_{j≤k} |z_j z_k| = (‖z‖₁² + ‖z‖₂²)/2 ≤
   (D + 1)·r̃²/2). Σ̃ = M̃/m̂ − (S̃/m̂)(S̃/m̂)ᵀ projected on the PSD cone; μ̃ = c̃ + S̃/m̂.

Sampling (post-processing): class sizes ~ Multinomial(n, max(m̃_c, 0) normalised), rows ~
N(μ̃_c, Σ̃_c), numeric coordinates clipped to [0, 1] and scaled back (integers rounded), each
one-hot block decoded by its largest coordinate.

Privacy accounting
------------------
Each class's five steps are ε_c-DP under add/remove of one of its records (sequential
composition; the steps see only earlier outputs). Classes partition the records, so replacing
one record removes one from a class and adds one to a (possibly the same) class: the fit is
2·ε_c = ε-DP under ``replace_one`` (n public; the natural release has n rows). ``formal_dp``
records ε, δ = 0, ``neighbours: replace_one`` and ``end_to_end``: true with ``strict: true`` (the
domain — numeric bounds, levels, classes, nullability — from the dataset spec or the ``bounds``
parameter, never the data), false otherwise (bounds, levels and classes read from the training
data, named in ``reason``). Under ``smote_dp`` the guarantee is about the SMOTE output.

Departures from the paper
-------------------------
* Eq. 4 perturbs the records themselves (X^ε = f_S(X) + Y, Y ~ Lap(Δf_s/ε)) with Definition 2's
  expected-distance sensitivity, which is read from the data and is not a DP sensitivity. With a
  worst-case sensitivity from public bounds, per-record noise would be the width of the public
  box over ε whatever the spread, and SMOTE's contraction could not matter; releasing the
  moments Fig. 3 scores, with the spread entering through a DP radius, is the reading under
  which the theorem's premise holds with a real guarantee.
* Definition 2's expected-distance sensitivity is replaced by the worst case over the clipping
  ball (a real DP guarantee); the spread enters through the DP radius, not through the data's
  covariance read without noise. Every sensitivity is computed in the [0, 1]^D box of the
  declared bounds: only ``strict: true`` (bounds, levels and classes from the dataset spec or
  ``bounds``) gives the stated ε end to end; ``strict: false`` scales by the training min/max,
  which is read from the data without budget (``formal_dp.end_to_end`` false).
* Laplace noise (pure ε-DP), as Eq. 4; the Gaussian mechanism would suit high D better.
* Per-class moments (the paper's artificial data have two Gaussian classes); categorical columns
  other than the class are modelled as one-hot coordinates of the same Gaussian — the paper's
  experiment is numeric only, this only makes the generator usable on mixed tables.
* ``details()`` holds diagnostics read from the data (the clipped share, the noise scales):
  they are not part of the release.

The pure functions (sensitivities, the quantile draw, the noisy moments of one class) are in
:mod:`generators.dp_moments_mechanism`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.dp_domain import (
    PublicColumn,
    check_public_domain,
    fit_to_domain,
    formal_dp_record,
    public_domain,
)
from generators.dp_moments_mechanism import STEPS, ClassMoments, private_moments, step_epsilons
from harness.errors import ConfigError, DataError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_bool
from harness.spec import DatasetSpec

DEFAULT_SPLIT: dict[str, float] = {"count": 0.1, "centre": 0.1, "radius": 0.2, "mean": 0.2, "covariance": 0.4}
NEIGHBOURS = "replace_one"
DOMAIN_CAVEAT = "numeric bounds, category levels and classes read from the training data (strict: false)"
_NA = "__missing__"  # group key of a missing class value


# ---------------------------------------------------------------------- encoding
@dataclass(frozen=True)
class Encoding:
    """Columns of the Gaussian: numeric (scaled by bounds) and one-hot blocks of categorical columns."""

    numeric: dict[str, tuple[float, float]]
    levels: dict[str, list[Any]]

    @property
    def width(self) -> int:
        """D, the dimension of an encoded record."""
        return len(self.numeric) + sum(len(v) for v in self.levels.values())

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        """Records in [0, 1]^D (numeric values clamped to their bounds)."""
        parts = []
        for col, (low, high) in self.numeric.items():
            values = pd.to_numeric(frame[col]).to_numpy(dtype=float)
            parts.append(np.clip((values - low) / (high - low), 0.0, 1.0)[:, None])
        for col, levels in self.levels.items():
            keys = _keys(frame[col])
            parts.append(np.stack([keys == _key(level) for level in levels], axis=1).astype(float))
        return np.hstack(parts) if parts else np.zeros((len(frame), 0))

    def decode(self, z: np.ndarray, spec: DatasetSpec) -> dict[str, Any]:
        """Columns from encoded rows: numbers clipped and scaled back, blocks by their argmax."""
        out: dict[str, Any] = {}
        pos = 0
        for col, (low, high) in self.numeric.items():
            values = low + np.clip(z[:, pos], 0.0, 1.0) * (high - low)
            out[col] = np.rint(values) if spec.kind(col) == "integer" else values
            pos += 1
        for col, levels in self.levels.items():
            block = z[:, pos : pos + len(levels)]
            out[col] = [levels[i] for i in np.argmax(block, axis=1)] if len(z) else []
            pos += len(levels)
        return out


def _key(value: Any) -> str:
    return _NA if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def _keys(values: pd.Series) -> np.ndarray:
    return np.array([_key(v) for v in values], dtype=object)


def _level(key: str) -> Any:
    return np.nan if key == _NA else key


# ---------------------------------------------------------------------- generator
class DpMoments(BaseGenerator):
    """Per-class DP mean and covariance with spread-calibrated clipping, released as Gaussian samples.

    Parameters
    ----------
    epsilon : float
        Total budget ε > 0 under replace-one neighbours (ε/2 per class, split by ``budget_split``).
    clip_quantile : float
        q ∈ (0, 1]: the clipping radius is the DP q-quantile of the records' distances to the
        DP centre (larger q: less clipping bias, more noise).
    budget_split : mapping or None
        Shares of ε_c for ``count``, ``centre``, ``radius``, ``mean``, ``covariance`` (positive,
        sum 1); None = ``DEFAULT_SPLIT`` (0.1, 0.1, 0.2, 0.2, 0.4).
    by_class : bool
        Moments per level of the dataset's categorical target (one group when false or when the
        target is missing or numeric).
    bounds : mapping or None
        Public bounds ``{column: [lower, upper]}`` of numeric columns (used by both modes; they
        override the spec's ``bounds``).
    strict : bool
        True: the domain (bounds, levels, classes, nullability) from the dataset spec and
        ``bounds``, never the data; training values are clamped (:mod:`generators.dp_domain`).

    Notes
    -----
    See the module docstring for the mechanism, its derivation from ``001_…`` §3.2 and the
    accounting. Datetime columns are refused; numeric columns with missing values are refused
    (a categorical missing value is a level).
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(
        self,
        epsilon: float = 1.0,
        clip_quantile: float = 0.5,
        clip_factor: float = 2.0,
        budget_split: Mapping[str, float] | None = None,
        by_class: bool = True,
        bounds: Mapping[str, Sequence[float]] | None = None,
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.clip_quantile = clip_quantile
        self.clip_factor = clip_factor
        self.budget_split = budget_split
        self.by_class = by_class
        self.bounds = bounds
        self.strict = strict

    # ------------------------------------------------------------------ parameters
    def split(self) -> dict[str, float]:
        """The budget shares of the five steps."""
        raw = DEFAULT_SPLIT if self.budget_split is None else self.budget_split
        return {step: float(raw[step]) for step in STEPS}

    def _validate_params(self) -> None:
        eps = self.epsilon
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < math.inf:
            raise ConfigError(
                f"`epsilon` must be a positive finite number (no non-private mode); got {eps!r}"
            )
        q = self.clip_quantile
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q <= 1:
            raise ConfigError(f"`clip_quantile` must be a number in (0, 1]; got {q!r}")
        k = self.clip_factor
        if isinstance(k, bool) or not isinstance(k, (int, float)) or not 0 < k < math.inf:
            raise ConfigError(f"`clip_factor` must be a positive finite number; got {k!r}")
        if self.budget_split is not None:
            raw = self.budget_split
            if not hasattr(raw, "items") or set(raw) != set(STEPS):
                raise ConfigError(
                    f"`budget_split` must map exactly {', '.join(STEPS)} to shares; got {raw!r}"
                )
            shares = [raw[s] for s in STEPS]
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in shares):
                raise ConfigError(f"`budget_split` shares must be positive numbers; got {dict(raw)!r}")
            if not math.isclose(sum(float(v) for v in shares), 1.0, abs_tol=1e-9):
                raise ConfigError(
                    f"`budget_split` shares must sum to 1; got {sum(float(v) for v in shares)!r}"
                )
        check_bool("by_class", self.by_class)
        check_bool("strict", self.strict)
        if self.bounds is not None:
            if not hasattr(self.bounds, "items"):
                raise ConfigError(
                    f"`bounds` must be null or a mapping {{column: [lower, upper]}}; got {self.bounds!r}"
                )
            for col, pair in self.bounds.items():
                values = list(pair) if hasattr(pair, "__iter__") and not isinstance(pair, str) else []
                if not (
                    len(values) == 2
                    and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
                    and all(math.isfinite(float(v)) for v in values)
                    and float(values[0]) < float(values[1])
                ):
                    raise ConfigError(
                        f"`bounds` of column {col!r} must be [lower, upper] with lower < upper; got {pair!r}"
                    )

    def _validate_spec(self, spec: DatasetSpec) -> None:
        dates = [c for c in spec.table_columns if spec.kind(c) == "datetime"]
        if dates:
            raise ConfigError(
                f"dp_moments: datetime column(s) {', '.join(map(repr, dates))} are not supported"
            )
        numeric = set(spec.numeric_columns)
        for col in self.bounds or {}:
            if col not in numeric:
                raise ConfigError(
                    f"`bounds` names column {col!r}, which is not a numeric column of dataset {spec.name!r}"
                )
        if self.strict:
            check_public_domain(spec, "dp_moments", config_bounds=self._config_bounds())

    def _config_bounds(self) -> dict[str, list[float]] | None:
        return (
            None if self.bounds is None else {str(c): [float(v) for v in p] for c, p in self.bounds.items()}
        )

    def info(self) -> GeneratorInfo:
        """Flags; ``formal_dp``: ε, δ = 0 under replace-one, end to end only in strict mode."""
        try:
            eps = float(self.epsilon)
        except (TypeError, ValueError):
            return self.capabilities  # invalid; fit raises the ConfigError
        dp = formal_dp_record(
            eps,
            0.0,
            neighbours=NEIGHBOURS,
            not_end_to_end=() if self.strict else (DOMAIN_CAVEAT,),
            notion="pure",
        )
        return GeneratorInfo(output_kind="synthetic", formal_dp=dp)

    # ------------------------------------------------------------------ fit / sample
    def _class_column(self) -> str | None:
        target = self.spec_.target
        if not self.by_class or target is None or not self.spec_.column(target).is_categorical:
            return None
        return target

    def _domain(self, train: pd.DataFrame) -> tuple[pd.DataFrame, Encoding, list[str]]:
        """Clamped training table, the encoding and the class keys (public or from the data)."""
        spec, klass = self.spec_, self._class_column()
        categorical = [c for c in spec.table_columns if spec.column(c).is_categorical and c != klass]
        numeric_na = [c for c in spec.numeric_columns if train[c].isna().any()]
        if numeric_na:
            raise DataError(
                f"dp_moments: numeric column(s) {', '.join(map(repr, numeric_na))} of dataset {spec.name!r} have "
                "missing values, which the Gaussian cannot model; impute or drop them in preprocessing"
            )
        config = self._config_bounds() or {}
        if self.strict:
            domain: dict[str, PublicColumn] = public_domain(spec, "dp_moments", config_bounds=config or None)
            train = fit_to_domain(train, domain, spec, "dp_moments")
            numeric = {c: (float(domain[c].low), float(domain[c].high)) for c in spec.numeric_columns}  # type: ignore[arg-type]
            levels = {c: self._public_levels(domain[c]) for c in categorical}
            classes = [_key(v) for v in self._public_levels(domain[klass])] if klass else []
        else:
            numeric = {}
            for col in spec.numeric_columns:
                if col in config:
                    numeric[col] = (config[col][0], config[col][1])
                else:
                    values = pd.to_numeric(train[col]).to_numpy(dtype=float)
                    numeric[col] = (float(values.min()), float(values.max()))
            levels = {c: self._observed_levels(train[c]) for c in categorical}
            classes = sorted(set(_keys(train[klass]))) if klass else []
        numeric = {c: (lo, hi if hi > lo else lo + 1.0) for c, (lo, hi) in numeric.items()}
        return train, Encoding(numeric, levels), classes

    @staticmethod
    def _public_levels(column: PublicColumn) -> list[Any]:
        return [*(column.levels or ()), *([np.nan] if column.nullable else [])]

    @staticmethod
    def _observed_levels(values: pd.Series) -> list[Any]:
        present = sorted({str(v) for v in values.dropna()})
        return [*present, *([np.nan] if values.isna().any() else [])]

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        train, self.encoding_, classes = self._domain(train)
        klass = self._class_column()
        self.class_column_ = klass
        x = self.encoding_.encode(train)
        eps = step_epsilons(float(self.epsilon), self.split())
        self.step_epsilons_ = eps
        keys = _keys(train[klass]) if klass else np.full(len(train), "all", dtype=object)
        self.moments_: dict[str, ClassMoments] = {}
        for key in classes or ["all"]:
            self.moments_[key] = private_moments(
                x[keys == key], eps, float(self.clip_quantile), float(self.clip_factor), self.rng_
            )
        if self.strict:  # public levels absent from the training split may be released
            self.training_categories_ = {
                col: seen | frozenset(v for v in self._release_levels(col) if isinstance(v, str))
                for col, seen in self.training_categories_.items()
            }

    def _release_levels(self, col: str) -> list[Any]:
        if col == self.class_column_:
            return [_level(k) for k in self.moments_]
        return list(self.encoding_.levels.get(col, []))

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        keys = list(self.moments_)
        weights = np.array([max(self.moments_[k].count, 0.0) for k in keys])
        probs = weights / weights.sum() if weights.sum() > 0 else np.full(len(keys), 1.0 / len(keys))
        sizes = self.rng_.multinomial(n, probs)
        parts, labels = [], []
        for key, size in zip(keys, sizes):
            mom = self.moments_[key]
            values, vectors = np.linalg.eigh(mom.cov)
            root = vectors * np.sqrt(np.maximum(values, 0.0))
            parts.append(mom.mean + self.rng_.standard_normal((int(size), len(mom.mean))) @ root.T)
            labels += [_level(key)] * int(size)
        z = np.vstack(parts) if parts else np.zeros((0, self.encoding_.width))
        columns = self.encoding_.decode(z, self.spec_)
        if self.class_column_ is not None:
            columns[self.class_column_] = labels
        frame = pd.DataFrame({col: columns[col] for col in self.spec_.table_columns})
        order = self.rng_.permutation(len(frame))
        return frame.iloc[order].reset_index(drop=True)

    def details(self) -> dict[str, Any]:
        """Budget split, and per class the noisy count, radius and noise scales (scaled space).

        The clipped share is a diagnostic read from the data, not part of the release.
        """
        if not getattr(self, "fitted_", False):
            return {}
        return {
            "dimension": self.encoding_.width,
            "neighbours": NEIGHBOURS,
            "epsilon_per_class": float(self.epsilon) / 2.0,
            "step_epsilons": self.step_epsilons_,
            "clip_quantile": float(self.clip_quantile),
            "clip_factor": float(self.clip_factor),
            "numeric_bounds": {c: list(b) for c, b in self.encoding_.numeric.items()},
            "classes": {
                str(key): {
                    "noisy_count": mom.count,
                    "radius": mom.radius,
                    "laplace_scales": mom.scales,
                    "clipped_share": mom.clipped_share,
                }
                for key, mom in self.moments_.items()
            },
        }
