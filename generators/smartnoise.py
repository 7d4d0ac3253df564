"""DP generators through smartnoise-synth (``spec/generators.md`` §7.4, §7.5): ``dpgan``,
``pategan``, ``mst`` and ``aim``.

:class:`SmartnoiseGenerator` owns what the four share: the smartnoise ``TableTransformer`` built
from the :class:`DatasetSpec`, the missing-value policy, the budget split and the conversion
back to the spec's dtypes. :class:`Dpgan`, :class:`Pategan`, :class:`Mst` and :class:`Aim` own only
their parameters and the call of the library model. ``smartnoise-synth`` (with opendp, opacus,
torch, mbi and jax) is the optional extra ``privbench[dp]``; it is imported in ``fit``. The
transformer is built in :mod:`generators.dp_transform`, the public domain of ``strict`` mode
comes from :mod:`generators.dp_domain`.

How ε is spent
--------------
The configured ``epsilon`` is the **total** budget of a fit. It is split in two:

* ``preprocessor_eps`` (default 0) — only spent when a numeric column has no public bounds
  (see below) and ``preprocessor_eps > 0``: smartnoise then estimates the bounds of those k
  columns with its DP ``approx_bounds`` (pure ε, δ = 0), ``preprocessor_eps / k`` per column
  (``TableTransformer.allocate_privacy_budget``), and subtracts what it spent from the
  synthesizer's budget (``Synthesizer._get_train_data``). When every numeric column has bounds
  nothing is spent and the synthesizer gets the whole ε.
* the synthesizer — ``epsilon − preprocessor spent``, with the configured ``delta``:

  - ``mst``: converts (ε, δ) to a zCDP budget ρ (``cdp_rho``: the ρ of a Gaussian mechanism
    whose (ε, δ)-DP curve meets the target, found by opendp's binary search); ρ/3 measures all
    1-way marginals (Gaussian, σ = sqrt(3 / (2ρ))), ρ/3 selects a maximum spanning tree of
    2-way marginals with the exponential mechanism (r − 1 draws), ρ/3 measures the selected
    2-way marginals.
  - ``aim``: the same ρ; 90 % of each round's share goes to Gaussian measurements and 10 % to
    the exponential-mechanism selection of the worst-approximated workload marginal; the 1-way
    marginals are measured first; rounds run until ρ is exhausted (the last round spends the
    remainder exactly). ``delta`` must be > 0 (δ = 0 gives ρ = 0). The one-way phase is charged
    0.9·ρ/``rounds`` per encoded column, so with fewer ``rounds`` than encoded columns it alone
    exceeds ρ (smartnoise then draws NaN noise); the wrapper refuses that configuration.
  - ``dpgan``: DP-SGD on the discriminator (opacus 0.14, noise multiplier 3.5, per-sample
    clipping norm 1, sampling rate ``batch_size / n``, RDP accountant; both discriminator steps
    of a batch — fake and real — are counted). The library checks the budget only *before*
    each epoch, so its last epoch can overspend; the wrapper computes with the same accountant
    the largest number of epochs ≤ ``n_iter`` whose cumulative ε stays ≤ the synthesizer's
    budget and passes that as ``epochs`` (the library's check then never triggers), so the
    spent ε never exceeds the budget. ``details()["epsilon_spent"]`` is the accountant's value.
  - ``pategan``: PATE (Laplace noise on teacher votes, scale 1 / 1e-3 as in the library) with
    the library's data-dependent moments accountant. The library checks the budget before each
    iteration (overspending in its last one) and fails below 1000 training rows (it builds
    ``int(n / 1000)`` teachers); the wrapper runs a port of its loop with two fixes: at least
    one teacher (``max(1, n // teacher_size)``) and the accountant checked before each student
    query (a query that would exceed the budget is not used and training stops). ``n_iter``
    caps the number of generator iterations. The accountant minimises over the moment orders
    1..``moment_orders`` (library: 100), so budgets below log(1/δ) / ``moment_orders`` are
    infeasible (:class:`InfeasibleConfigError`, trial skipped).

Neighbouring relation: all four are calibrated for **add/remove** neighbours (marginals with L2
sensitivity 1 and exponential-mechanism scores of sensitivity 1 in MST / AIM; DP-SGD's
subsampled Gaussian; one teacher per record in PATE). The record count n is treated as public:
MST / AIM estimate with the exact total, δ defaults to 1/n² (GANs), the batch size, sampling
rate and number of teachers depend on n, and the release has n rows unless ``n_rows`` is set.

``info().formal_dp`` is ``{"epsilon": ε total, "delta": δ, "unit": "original_records",
"neighbours": "add_remove", "end_to_end": bool}`` plus ``reason`` when ``end_to_end`` is false:
the guarantee covers the whole fit only in ``strict`` mode (and never for ``pategan``, whose
accountant is data-dependent). ``details()["budget"]`` records the split (preprocessor total and
per column, synthesizer) and the spent values the libraries report. ``epsilon: null`` ("privacy
off") is refused: none of the four smartnoise models has a non-private mode (use a large ε).

Strict mode (``strict: true``)
------------------------------
Every piece of the domain comes from the dataset spec (:mod:`generators.dp_domain`): numeric
bounds from the columns' ``bounds`` (the ``bounds`` parameter, also public, may override them;
no preprocessor ε is spent), categorical levels from ``domain`` / ``categories`` (levels absent
from training may be released), and whether a column is nullable (a label level / null flag)
from ``nullable``. Training values outside the bounds are clamped; categories outside the public
levels and missing values in columns not declared nullable are a :class:`DataError`;
``missing: impute`` is refused (data-dependent). A spec column without its public domain is a
one-line :class:`ConfigError` (``validate_spec``). The GANs cannot model nullable numeric columns
(refused at validation). Outside the domain, strict mode changes nothing: the mechanisms, n as
public, DPGAN's accountant (it assumes Poisson sampling; the batches are shuffled fixed-size
batches) and PATE-GAN's data-dependent accountant remain as described.

What the DP claim does not cover without ``strict`` (``details()["dp_caveats"]``, ``formal_dp["reason"]``)
---------------------------------------------------------------------------------------------
* **Numeric bounds.** Bounds come, per numeric column, from the ``bounds`` parameter (public,
  costs nothing), else — with ``preprocessor_eps > 0`` — from smartnoise's DP estimate, else
  (the default, ``preprocessor_eps: 0``) from the training minimum and maximum: then "bounds
  learned from data: DP claim excludes bounds". Values outside the bounds are clamped by
  smartnoise; numeric output always lies within them. A column with lower == upper gets
  upper = lower + 1.
* **Category domains.** Each categorical column's levels are the levels observed in the training
  split (as smartnoise's own ``LabelTransformer`` does; the harness also requires that no unseen
  category is released), and so is whether a column has missing values. The claim assumes
  these domains are public.
* ``missing: impute`` uses the training median / mode (not private; ``details()["imputed"]``
  records them).
* ``pategan``: the moments accountant is data-dependent (as in PATE-GAN); the spent ε it reports
  is itself not released privately.

Encoding
--------
``mst`` / ``aim`` (smartnoise style ``cube``): categorical and ordinal columns →
``LabelTransformer``; numeric columns → ``BinTransformer`` with ``n_bins`` equal-width bins
between the bounds (integer columns: at most ``upper − lower + 1`` bins); output values are bin
midpoints (smartnoise), integers then rounded half to even. ``dpgan`` / ``pategan`` (style
``gan``): categorical → label + one-hot; numeric → ``MinMaxTransformer`` to [−1, 1] (output is
clipped to the bounds by its inverse). Datetime columns are modelled as numbers
(nanoseconds since the epoch). Transformers whose bounds are known are fitted on the domain
(never on the data) before the library sees them, so smartnoise does not refit them. In
``strict`` mode integer bins derive from the public bounds, so the encoded domain (and AIM's
``rounds`` check) does not depend on the data.

Missing values (``missing``)
----------------------------
``model`` (default): smartnoise's nullable encodings — a missing categorical value is one more
level, a missing numeric value (mst / aim) a null flag next to the bin; released as missing.
The GANs cannot model missing numeric values (their null flag is a continuous output that the
library never decodes as missing): such a column is refused with a :class:`DataError`.
``impute``: numeric → training median, categorical → training mode. ``refuse``: any missing
value raises a one-line :class:`DataError` naming the column(s).

Determinism
-----------
``random``, numpy's legacy RNG and torch are seeded with the trial seed right before the
library fit, and with a derived seed before each ``sample`` (same seed → same output whatever
was sampled before). mbi (MST/AIM estimation and sampling) and the exponential mechanisms draw
from numpy's legacy RNG. The remaining private generators are patched for the duration of the
fit: opendp's Gaussian noise in MST/AIM (``gaussian_noise``, OS randomness, not seedable) is
replaced by ``numpy.random.Generator.normal`` seeded from the trial seed unless
``secure_noise: true`` (then the output is not reproducible: ``deterministic=False``); opacus'
noise generator in DPGAN (seeded from ``os.urandom``) is seeded from the trial seed. The GANs
are trained on the CPU (smartnoise would pick CUDA when available), so with the same seed and
thread count the output is bit-identical.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar
from unittest import mock

import numpy as np
import pandas as pd

from generators.dp_domain import (
    DOMAIN_FROM_DATA,
    DP_UNIT,
    N_PUBLIC_CAVEAT,
    check_public_domain,
    fit_to_domain,
    formal_dp_record,
    public_domain,
    widen_categories,
)
from generators.dp_transform import build_transformer, numeric_bounds, numeric_columns
from generators.dp_transform import import_optional as _import
from harness.errors import ConfigError, DataError, InfeasibleConfigError, PrivbenchError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_bool, check_choice, check_int
from harness.seeding import derive_seed, seed_everything
from harness.spec import DatasetSpec

MISSING_POLICIES: tuple[str, ...] = ("model", "impute", "refuse")
NEIGHBOURS = "add_remove"
"""The relation all four are calibrated for (unit-sensitivity marginals, DP-SGD, PATE)."""
DPGAN_NOISE_MULTIPLIER = 3.5
"""Fixed in ``snsynth.pytorch.nn.dpgan.DPGAN.train`` (with clipping norm 1.0)."""
DPGAN_ALPHAS: tuple[float, ...] = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))
"""The RDP orders DPGAN gives its ``PrivacyEngine``."""
PATE_LAP_SCALE = 1e-3
"""``noise_multiplier`` of ``snsynth.pytorch.nn.pategan.PATEGAN.train`` (Laplace scale 1/1e-3)."""
BOUNDS_CAVEAT = "bounds learned from data: DP claim excludes bounds"
LEVELS_CAVEAT = "category domains (levels, presence of missing values) read from the training data"
IMPUTE_CAVEAT = "imputation values (median / mode) computed from the training data"
PATE_CAVEAT = "PATE moments accountant is data-dependent (the reported spent epsilon is not private)"

__all__ = [
    "BOUNDS_CAVEAT",
    "Aim",
    "Dpgan",
    "Mst",
    "Pategan",
    "SmartnoiseGenerator",
    "build_transformer",
    "dpgan_epochs",
    "dpgan_epsilon",
    "numeric_bounds",
]


def _check_number(name: str, value: Any, *, positive: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"`{name}` must be a number; got {value!r}")
    if not math.isfinite(float(value)) or (float(value) <= 0 if positive else float(value) < 0):
        raise ConfigError(f"`{name}` must be a finite number {'> 0' if positive else '>= 0'}; got {value!r}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# ====================================================================== base class
class SmartnoiseGenerator(BaseGenerator):
    """Shared fit/sample of the smartnoise wrappers (see the module docstring).

    Subclasses set ``synth_name`` and ``style``, store their parameters in ``__init__`` and
    implement :meth:`_create` (and optionally :meth:`_fit_library`).
    """

    requires: ClassVar[tuple[str, tuple[str, ...]] | None] = ("dp", ("snsynth", "opendp"))

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")
    synth_name: ClassVar[str] = ""
    style: ClassVar[str] = "cube"
    epsilon: Any
    delta: Any
    preprocessor_eps: Any
    bounds: Any
    missing: Any
    strict: Any

    # ------------------------------------------------------------------ parameters
    def _deterministic(self) -> bool:
        return True

    def info(self) -> GeneratorInfo:
        """Flags; ``formal_dp`` names the relation and whether the guarantee covers the whole fit."""
        return GeneratorInfo(
            output_kind="synthetic",
            formal_dp=formal_dp_record(
                self._epsilon_total(),
                self._delta_value(),
                neighbours=NEIGHBOURS,
                not_end_to_end=self._not_end_to_end(),
                unit=DP_UNIT,
            ),  # fmt: skip
            supports_missing=self.missing != "refuse",
            deterministic=self._deterministic(),
        )

    def _not_end_to_end(self) -> list[str]:
        """What the fit reads from the training data outside the accounted mechanisms."""
        out: list[str] = []
        if not self.strict:
            if not hasattr(self, "bounds_"):
                out.append(f"{DOMAIN_FROM_DATA} (strict: false)")
            else:
                if any(b["source"] == "data" for b in self.bounds_.values()):
                    out.append(BOUNDS_CAVEAT)
                out.append(LEVELS_CAVEAT)
                if self.imputed_:
                    out.append(IMPUTE_CAVEAT)
        out.extend(self._mechanism_gaps())
        return out

    def _mechanism_gaps(self) -> list[str]:
        """Gaps of the DP mechanism itself (PATE's data-dependent accountant)."""
        return []

    def _epsilon_total(self) -> float | None:
        eps = self.epsilon
        return float(eps) if isinstance(eps, (int, float)) and not isinstance(eps, bool) else None

    def _delta_value(self) -> float | None:
        delta = getattr(self, "delta_", None)
        if delta is not None:
            return float(delta)
        return float(self.delta) if self.delta is not None else None

    def _validate_params(self) -> None:
        if self.epsilon is None:
            raise ConfigError(
                f"`epsilon` must be a number > 0; smartnoise {self.synth_name!r} has no non-private mode "
                "(epsilon: null), use a large epsilon (e.g. 10000) instead"
            )
        _check_number("epsilon", self.epsilon, positive=True)
        if self.delta is not None:
            _check_number("delta", self.delta, positive=True)
            if float(self.delta) >= 1:
                raise ConfigError(f"`delta` must be in (0, 1); got {self.delta!r}")
        _check_number("preprocessor_eps", self.preprocessor_eps, positive=False)
        if float(self.preprocessor_eps) >= float(self.epsilon):
            raise ConfigError(
                f"`preprocessor_eps` must be smaller than `epsilon` (it is part of the total); "
                f"got preprocessor_eps {self.preprocessor_eps!r} and epsilon {self.epsilon!r}"
            )
        check_choice("missing", self.missing, MISSING_POLICIES)
        check_bool("strict", self.strict)
        if self.strict and self.missing == "impute":
            raise ConfigError(
                "`strict: true` does not allow missing: impute (the median / mode would be read from the "
                "data); use missing: model with `nullable: true` in the dataset spec, or missing: refuse"
            )
        self._validate_bounds()

    def _validate_spec(self, spec: DatasetSpec) -> None:
        if self.bounds is not None:
            numeric = set(numeric_columns(spec))
            for col in self.bounds:
                if col not in numeric:
                    raise ConfigError(
                        f"`bounds` names column {col!r}, which is not a numeric column of dataset {spec.name!r}"
                    )
        if not self.strict:
            return
        check_public_domain(spec, self.synth_name, config_bounds=self.bounds)
        if self.style == "gan" and self.missing == "model":
            numeric_na = [c for c in numeric_columns(spec) if spec.column(c).nullable]
            if numeric_na:
                raise ConfigError(
                    f"{self.synth_name} strict mode: dataset {spec.name!r} declares numeric column(s) "
                    f"{', '.join(map(repr, numeric_na))} nullable, which smartnoise's GANs cannot model; "
                    "set missing: refuse or declare them not nullable"
                )

    def _validate_bounds(self) -> None:
        if self.bounds is None:
            return
        if not isinstance(self.bounds, Mapping) and not hasattr(self.bounds, "items"):
            raise ConfigError(
                f"`bounds` must be null or a mapping {{column: [lower, upper]}}; got {self.bounds!r}"
            )
        for col, pair in self.bounds.items():
            ok = (
                isinstance(pair, (list, tuple))
                and len(pair) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair)
                and all(math.isfinite(float(v)) for v in pair)
                and float(pair[0]) < float(pair[1])
            )
            if not ok:
                raise ConfigError(
                    f"`bounds` of column {col!r} must be [lower, upper] with lower < upper; got {pair!r}"
                )

    def _default_delta(self, n: int) -> float:
        raise NotImplementedError

    # ------------------------------------------------------------------ fit
    def _prepare(self, train: pd.DataFrame) -> pd.DataFrame:
        """Training table as the library gets it: missing-value policy applied, numbers as floats."""
        spec = self.spec_
        na_cols = [c for c in spec.table_columns if train[c].isna().any()]
        self.imputed_: dict[str, dict[str, Any]] = {}
        if na_cols and self.missing == "refuse":
            raise DataError(
                f"{type(self).__name__}: column(s) {', '.join(map(repr, na_cols))} have missing values and "
                "`missing` is 'refuse'; set missing: impute or model, or remove them in preprocessing"
            )
        if na_cols and self.missing == "model" and self.style == "gan":
            numeric_na = [c for c in na_cols if spec.kind(c) not in ("categorical", "ordinal")]
            if numeric_na:
                raise DataError(
                    f"{type(self).__name__}: numeric column(s) {', '.join(map(repr, numeric_na))} have missing "
                    "values, which smartnoise's GANs cannot model; set missing: impute or refuse"
                )
        out = {}
        for col in spec.table_columns:
            values = train[col]
            kind = spec.kind(col)
            if kind == "datetime":
                values = pd.Series(
                    np.where(values.isna(), np.nan, pd.to_datetime(values).astype("int64")), name=col
                ).astype(float)
            elif kind in ("continuous", "integer"):
                values = values.astype(float)
            if values.isna().any() and self.missing == "impute":
                n_missing = int(values.isna().sum())
                if kind in ("categorical", "ordinal"):
                    counts = values.value_counts()
                    fill: Any = sorted(counts.index[counts == counts.max()])[0] if len(counts) else "missing"
                else:
                    fill = float(values.median()) if values.notna().any() else 0.0
                    if kind == "integer":
                        fill = float(np.rint(fill))
                values = values.fillna(fill)
                self.imputed_[col] = {"n": n_missing, "value": fill if isinstance(fill, str) else float(fill)}
            if kind in ("categorical", "ordinal"):
                values = values.astype(object).where(values.notna(), None)
            out[col] = values.reset_index(drop=True)
        return pd.DataFrame(out, columns=list(spec.table_columns))

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        _import("snsynth")
        spec = self.spec_
        domain = None
        if self.strict:
            domain = public_domain(spec, self.synth_name, config_bounds=self.bounds)
            train = fit_to_domain(train, domain, spec, self.synth_name)
            widen_categories(self, domain)
        data = self._prepare(train)
        n = len(data)
        self.delta_ = float(self.delta) if self.delta is not None else self._default_delta(n)
        eps_total = float(self.epsilon)
        if domain is not None:
            self.bounds_ = {
                c: {"lower": d.low, "upper": d.high, "source": d.source}
                for c, d in domain.items()
                if d.is_numeric
            }
        else:
            estimate = float(self.preprocessor_eps) > 0
            self.bounds_ = numeric_bounds(spec, data, self.bounds, estimate_with_dp=estimate)
        transformer = build_transformer(
            spec, data, style=self.style, bounds=self.bounds_, n_bins=self._n_bins(), domain=domain
        )
        dp_cols = [c for c, b in self.bounds_.items() if b["source"] == "dp"]
        pre_eps = float(self.preprocessor_eps) if dp_cols else 0.0
        self.synth_epsilon_planned_ = eps_total - pre_eps
        synth = self._create(eps_total, n)
        seed_everything(self.seed_)  # torch / jax are imported now: seed right before the fit
        self.library_details_: dict[str, Any] = {}
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                with self._patched():
                    self._fit_library(synth, data, transformer, pre_eps)
        except PrivbenchError:
            raise
        except ValueError as exc:
            raise InfeasibleConfigError(
                f"{self.synth_name} (smartnoise) could not fit: {_first_line(exc)}"
            ) from None
        spent_pre = float(synth._transformer.odometer.spent[0])
        self.synth_ = synth
        self.budget_ = {
            "epsilon_total": eps_total,
            "delta": self.delta_,
            "preprocessor_epsilon": spent_pre,
            "preprocessor_per_column": {c: spent_pre / len(dp_cols) for c in dp_cols} if spent_pre else {},
            "synthesizer_epsilon": float(synth.epsilon),
            "synthesizer_delta": self.delta_,
        }
        if not math.isclose(spent_pre + float(synth.epsilon), eps_total, rel_tol=1e-9, abs_tol=1e-12):
            raise RuntimeError(
                f"{type(self).__name__}: budget split {spent_pre} + {synth.epsilon} does not sum to epsilon {eps_total}"
            )

    def _n_bins(self) -> int:
        return 20

    def _create(self, epsilon: float, n: int) -> Any:
        raise NotImplementedError

    def _fit_library(self, synth: Any, data: pd.DataFrame, transformer: Any, pre_eps: float) -> None:
        synth.fit(data, transformer=transformer, preprocessor_eps=pre_eps)

    @contextlib.contextmanager
    def _patched(self) -> Iterator[None]:
        """Library patches active during the fit (seeded noise); none by default."""
        yield

    # ------------------------------------------------------------------ sample
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        seed_everything(derive_seed(self.seed_, "smartnoise_sample"))
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            raw = self._sample_library(n)
        frame = pd.DataFrame(raw)
        frame.columns = list(self.spec_.table_columns)
        out = {}
        for col in self.spec_.table_columns:
            values = frame[col].reset_index(drop=True)
            kind = self.spec_.kind(col)
            if kind in ("categorical", "ordinal"):
                out[col] = values.astype(object).where(values.notna(), np.nan)
            else:
                numeric = pd.to_numeric(values, errors="coerce").astype(float)
                out[col] = pd.to_datetime(numeric, unit="ns") if kind == "datetime" else numeric
        return pd.DataFrame(out, columns=list(self.spec_.table_columns))

    def _sample_library(self, n: int) -> Any:
        return self.synth_.sample(n)

    # ------------------------------------------------------------------ details
    def details(self) -> dict[str, Any]:
        if not hasattr(self, "budget_"):
            return {"model": self.synth_name}
        from_data = [c for c, b in self.bounds_.items() if b["source"] == "data"]
        caveats = [*self._not_end_to_end(), N_PUBLIC_CAVEAT, *self._extra_caveats()]
        return {
            "model": self.synth_name,
            "budget": dict(self.budget_),
            "neighbours": NEIGHBOURS,
            "strict": bool(self.strict),
            "end_to_end": not self._not_end_to_end(),
            "bounds": {c: dict(b) for c, b in self.bounds_.items()},
            "bounds_from_data": from_data,
            "missing": self.missing,
            "imputed": {c: dict(v) for c, v in self.imputed_.items()},
            "dp_caveats": caveats,
            **self.library_details_,
        }

    def _extra_caveats(self) -> list[str]:
        return []


# ====================================================================== marginal models
JAX_CACHE_ENV = "PRIVBENCH_JAX_CACHE"
"""Environment variable naming JAX's persistent compilation cache directory ("" disables it)."""


def enable_jax_compilation_cache() -> str | None:
    """Keep JAX's compiled kernels on disk so later fits and processes reuse them.

    MST and AIM run on ``mbi``, which jit-compiles hundreds of small JAX functions per fit
    (on Adult most of an MST fit is compilation). The cache directory is
    ``$PRIVBENCH_JAX_CACHE`` or ``~/.cache/privbench/jax``; the setting is process-wide and
    changes no result, only the time to reach it.

    Returns
    -------
    str or None
        The cache directory, or None when disabled (``PRIVBENCH_JAX_CACHE=""``).
    """
    import os
    from pathlib import Path

    path = os.environ.get(JAX_CACHE_ENV, str(Path.home() / ".cache" / "privbench" / "jax"))
    if not path:
        return None
    jax = _import("jax")
    if jax.config.jax_compilation_cache_dir != path:
        jax.config.update("jax_compilation_cache_dir", path)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return path


class _MarginalGenerator(SmartnoiseGenerator):
    style: ClassVar[str] = "cube"
    n_bins: Any
    secure_noise: Any

    def _deterministic(self) -> bool:
        return not bool(self.secure_noise)

    def _default_delta(self, n: int) -> float:
        return 1e-9

    def _n_bins(self) -> int:
        return int(self.n_bins)

    def _validate_params(self) -> None:
        super()._validate_params()
        check_int("n_bins", self.n_bins, 2)
        check_bool("secure_noise", self.secure_noise)

    @contextlib.contextmanager
    def _patched(self) -> Iterator[None]:
        enable_jax_compilation_cache()
        if self.secure_noise:
            yield
            return
        mst_mod = _import("snsynth.mst.mst")
        aim_mod = _import("snsynth.aim.aim")
        rng = np.random.default_rng(derive_seed(self.seed_, "smartnoise_gaussian_noise"))

        def gaussian_noise(sigma: float, size: int | None = None) -> Any:
            return rng.normal(0.0, sigma, size)

        with (
            mock.patch.object(mst_mod, "gaussian_noise", gaussian_noise),
            mock.patch.object(aim_mod, "gaussian_noise", gaussian_noise),
        ):
            yield


class Mst(_MarginalGenerator):
    """MST (McKenna et al.) through smartnoise-synth (``mst``, ``spec/generators.md`` §7.5).

    Parameters
    ----------
    epsilon : float
        Total budget (preprocessor share included).
    delta : float, optional
        δ of the (ε, δ) guarantee (default 1e-9).
    n_bins : int
        Equal-width bins of numeric columns (default 20).
    preprocessor_eps : float
        Share of ``epsilon`` for DP bounds of numeric columns without ``bounds`` (default 0:
        training min / max, flagged).
    bounds : mapping, optional
        Public bounds ``{column: [lower, upper]}`` of numeric columns (no ε spent).
    missing : {"model", "impute", "refuse"}
    secure_noise : bool
        True = opendp's (unseedable) Gaussian sampler; False = seeded numpy noise (default).
    strict : bool
        Take the whole domain (bounds, levels, nullable) from the dataset spec, never from the
        data (see the module docstring); ``bounds`` may still override numeric bounds.
    """

    requires: ClassVar[tuple[str, tuple[str, ...]] | None] = ("dp", ("snsynth", "opendp", "mbi", "jax"))

    synth_name: ClassVar[str] = "mst"

    def __init__(
        self,
        epsilon: float | None = 1.0,
        delta: float | None = 1e-9,
        n_bins: int = 20,
        preprocessor_eps: float = 0.0,
        bounds: Mapping[str, list[float]] | None = None,
        missing: str = "model",
        secure_noise: bool = False,
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_bins = n_bins
        self.preprocessor_eps = preprocessor_eps
        self.bounds = bounds
        self.missing = missing
        self.secure_noise = secure_noise
        self.strict = strict

    def _create(self, epsilon: float, n: int) -> Any:
        return _import("snsynth").Synthesizer.create("mst", epsilon=epsilon, delta=self.delta_)


class Aim(_MarginalGenerator):
    """AIM (McKenna et al., workload-adaptive) through smartnoise-synth (``aim``, §7.5).

    Parameters
    ----------
    epsilon, delta, n_bins, preprocessor_eps, bounds, missing, secure_noise, strict
        As :class:`Mst`.
    rounds : int, optional
        Maximum number of select-measure rounds (library default 16 × number of columns).
    degree : int
        Order of the workload marginals (all ``degree``-way marginals; default 2).
    max_model_size : float
        Size limit of the graphical model in MB (default 80).
    max_cells : int
        Workload marginals with more cells are left out (default 10000).
    """

    synth_name: ClassVar[str] = "aim"

    def __init__(
        self,
        epsilon: float | None = 1.0,
        delta: float | None = 1e-9,
        n_bins: int = 20,
        preprocessor_eps: float = 0.0,
        bounds: Mapping[str, list[float]] | None = None,
        missing: str = "model",
        secure_noise: bool = False,
        rounds: int | None = None,
        degree: int = 2,
        max_model_size: float = 80,
        max_cells: int = 10000,
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_bins = n_bins
        self.preprocessor_eps = preprocessor_eps
        self.bounds = bounds
        self.missing = missing
        self.secure_noise = secure_noise
        self.rounds = rounds
        self.degree = degree
        self.max_model_size = max_model_size
        self.max_cells = max_cells
        self.strict = strict

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.rounds is not None:
            check_int("rounds", self.rounds, 1)
        check_int("degree", self.degree, 1)
        _check_number("max_model_size", self.max_model_size, positive=True)
        check_int("max_cells", self.max_cells, 1)

    def _fit_library(self, synth: Any, data: pd.DataFrame, transformer: Any, pre_eps: float) -> None:
        if self.rounds is not None:
            width = len(transformer.cardinality)
            if int(self.rounds) < width:
                # smartnoise-synth 1.0.8 charges each one-way measurement 0.9·ρ/rounds; with fewer
                # rounds than encoded columns they alone exceed ρ and the last round gets NaN noise.
                raise InfeasibleConfigError(
                    f"aim: `rounds` ({self.rounds}) must be at least the number of encoded columns ({width}); "
                    "otherwise the one-way measurements alone exceed the budget"
                )
        super()._fit_library(synth, data, transformer, pre_eps)

    def _create(self, epsilon: float, n: int) -> Any:
        return _import("snsynth").Synthesizer.create(
            "aim",
            epsilon=epsilon,
            delta=self.delta_,
            rounds=None if self.rounds is None else int(self.rounds),
            degree=int(self.degree),
            max_model_size=float(self.max_model_size),
            max_cells=int(self.max_cells),
        )


# ====================================================================== GANs
class _GanGenerator(SmartnoiseGenerator):
    requires: ClassVar[tuple[str, tuple[str, ...]] | None] = ("dp", ("snsynth", "opendp", "torch", "opacus"))
    style: ClassVar[str] = "gan"
    n_iter: Any
    batch_size: Any

    def _default_delta(self, n: int) -> float:
        return 1.0 / float(n) ** 2  # spec §7.4 Decision (smartnoise's default is 1/(n·sqrt(n)))

    def _validate_params(self) -> None:
        super()._validate_params()
        check_int("n_iter", self.n_iter, 1)
        check_int("batch_size", self.batch_size, 2)

    def _batch(self, n: int) -> int:
        batch = min(int(self.batch_size), n)
        if batch < 2:
            raise InfeasibleConfigError(f"{self.synth_name} needs at least 2 training rows; got {n}")
        return batch

    def _create(self, epsilon: float, n: int) -> Any:
        synth = self._create_gan(epsilon, n)
        synth.device = _import("torch").device("cpu")  # deterministic; smartnoise would pick CUDA
        return synth

    def _create_gan(self, epsilon: float, n: int) -> Any:
        raise NotImplementedError


def dpgan_epsilon(steps: int, sample_rate: float, delta: float) -> float:
    """ε after ``steps`` DP-SGD steps of DPGAN's discriminator (opacus RDP accountant).

    Parameters
    ----------
    steps : int
        Optimizer steps (two per batch in DPGAN).
    sample_rate : float
        ``batch_size / n``.
    delta : float
    """

    if steps == 0:
        return 0.0
    analysis = _import("opacus.privacy_analysis")
    rdp = np.asarray(analysis.compute_rdp(sample_rate, DPGAN_NOISE_MULTIPLIER, 1, list(DPGAN_ALPHAS))) * steps
    eps, _ = analysis.get_privacy_spent(list(DPGAN_ALPHAS), rdp, delta)
    return float(eps)


def dpgan_epochs(n_iter: int, n: int, batch_size: int, epsilon: float, delta: float) -> tuple[int, float]:
    """Largest number of epochs ≤ ``n_iter`` whose DPGAN accountant ε stays ≤ ``epsilon``.

    Returns
    -------
    (epochs, epsilon_spent)
    """
    per_epoch = 2 * (n // batch_size)  # drop_last batches, two discriminator steps each
    rate = batch_size / n
    lo, hi = 0, int(n_iter)
    if dpgan_epsilon(per_epoch * hi, rate, delta) <= epsilon:
        lo = hi
    else:
        while hi - lo > 1:  # invariant: eps(lo) <= epsilon < eps(hi)
            mid = (lo + hi) // 2
            if dpgan_epsilon(per_epoch * mid, rate, delta) <= epsilon:
                lo = mid
            else:
                hi = mid
    return lo, dpgan_epsilon(per_epoch * lo, rate, delta)


class Dpgan(_GanGenerator):
    """DPGAN through smartnoise-synth (``dpgan``, ``spec/generators.md`` §7.4).

    Parameters
    ----------
    epsilon : float
        Total budget (preprocessor share included).
    delta : float, optional
        δ; None = 1/n² (spec Decision).
    n_iter : int
        Maximum number of epochs (fewer when the budget runs out first; default 100).
    batch_size : int
        Default 100 (at most the number of training rows).
    preprocessor_eps, bounds, missing, strict
        As :class:`Mst`.
    """

    synth_name: ClassVar[str] = "dpgan"

    def __init__(
        self,
        epsilon: float | None = 1.0,
        delta: float | None = None,
        n_iter: int = 100,
        batch_size: int = 100,
        preprocessor_eps: float = 0.0,
        bounds: Mapping[str, list[float]] | None = None,
        missing: str = "model",
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.preprocessor_eps = preprocessor_eps
        self.bounds = bounds
        self.missing = missing
        self.strict = strict

    def _create_gan(self, epsilon: float, n: int) -> Any:
        batch = self._batch(n)
        epochs, spent = dpgan_epochs(int(self.n_iter), n, batch, self.synth_epsilon_planned_, self.delta_)
        if epochs == 0:
            raise InfeasibleConfigError(
                f"dpgan: one epoch (noise multiplier {DPGAN_NOISE_MULTIPLIER}, batch {batch} of {n} rows) "
                f"already spends more than the synthesizer budget epsilon={self.synth_epsilon_planned_:g}"
            )
        self.dpgan_plan_ = {"epochs_requested": int(self.n_iter), "epochs_run": epochs,
                            "batch_size_used": batch, "epsilon_spent": spent}  # fmt: skip
        return _import("snsynth").Synthesizer.create(
            "dpgan", epsilon=epsilon, delta=self.delta_, batch_size=batch, epochs=epochs
        )

    @contextlib.contextmanager
    def _patched(self) -> Iterator[None]:
        dpgan_mod = _import("snsynth.pytorch.nn.dpgan")
        noise_seed = derive_seed(self.seed_, "opacus_noise")
        base = dpgan_mod.PrivacyEngine

        class SeededPrivacyEngine(base):  # type: ignore[misc, valid-type]
            """opacus' engine with its noise generator seeded from the trial seed."""

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.seed = noise_seed
                self.random_number_generator = self._set_seed(noise_seed)

        with mock.patch.object(dpgan_mod, "PrivacyEngine", SeededPrivacyEngine):
            yield

    def _fit_library(self, synth: Any, data: pd.DataFrame, transformer: Any, pre_eps: float) -> None:
        super()._fit_library(synth, data, transformer, pre_eps)
        self.library_details_ = {**self.dpgan_plan_, "noise_multiplier": DPGAN_NOISE_MULTIPLIER}

    def _extra_caveats(self) -> list[str]:
        return ["the RDP accountant assumes Poisson sampling; DPGAN draws shuffled fixed-size batches"]


class Pategan(_GanGenerator):
    """PATE-GAN through smartnoise-synth (``pategan``, ``spec/generators.md`` §7.4).

    smartnoise's ``PATEGAN`` is used for the networks, the vote aggregation and the moments
    accountant; its training loop is replaced by a port with the fixes of the module
    docstring (at least one teacher; no overspending).

    Parameters
    ----------
    epsilon : float
        Total budget (preprocessor share included).
    delta : float, optional
        δ; None = 1/n² (spec Decision).
    n_iter : int
        Maximum number of generator iterations (fewer when the budget runs out first).
    batch_size : int
        Default 100.
    teacher_size : int
        Training rows per teacher (library: 1000; at least one teacher).
    teacher_iters, student_iters : int
        Teacher / student updates per iteration (library default 5 each).
    moment_orders : int
        Orders λ = 1..``moment_orders`` of the moments accountant (library: 100). ε is the minimum
        over λ of (α(λ) + log(1/δ)) / λ, so no budget below log(1/δ) / ``moment_orders`` is
        feasible (e.g. ε = 0.1 needs ``moment_orders`` ≥ 10·log(1/δ) ≈ 185 at n = 10,000).
    preprocessor_eps, bounds, missing, strict
        As :class:`Mst`.
    """

    synth_name: ClassVar[str] = "pategan"

    def __init__(
        self,
        epsilon: float | None = 1.0,
        delta: float | None = None,
        n_iter: int = 100,
        batch_size: int = 100,
        teacher_size: int = 1000,
        teacher_iters: int = 5,
        student_iters: int = 5,
        moment_orders: int = 100,
        preprocessor_eps: float = 0.0,
        bounds: Mapping[str, list[float]] | None = None,
        missing: str = "model",
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.teacher_size = teacher_size
        self.teacher_iters = teacher_iters
        self.student_iters = student_iters
        self.moment_orders = moment_orders
        self.preprocessor_eps = preprocessor_eps
        self.bounds = bounds
        self.missing = missing
        self.strict = strict

    def _validate_params(self) -> None:
        super()._validate_params()
        check_int("teacher_size", self.teacher_size, 1)
        check_int("teacher_iters", self.teacher_iters, 1)
        check_int("student_iters", self.student_iters, 1)
        check_int("moment_orders", self.moment_orders, 1)

    def _create_gan(self, epsilon: float, n: int) -> Any:
        return _import("snsynth").Synthesizer.create(
            "pategan",
            epsilon=epsilon,
            delta=self.delta_,
            batch_size=self._batch(n),
            teacher_iters=int(self.teacher_iters),
            student_iters=int(self.student_iters),
        )

    def _fit_library(self, synth: Any, data: pd.DataFrame, transformer: Any, pre_eps: float) -> None:
        train = synth._get_train_data(
            data, style="gan", transformer=transformer, categorical_columns=[], ordinal_columns=[],
            continuous_columns=[], nullable=False, preprocessor_eps=pre_eps,
        )  # fmt: skip
        self.library_details_ = _train_pategan(
            synth,
            np.asarray(train, dtype="float64"),
            n_iter=int(self.n_iter),
            teacher_size=int(self.teacher_size),
            moment_orders=int(self.moment_orders),
        )
        if self.library_details_["iterations"] == 0:
            raise InfeasibleConfigError(
                f"pategan: the first student query already exceeds the synthesizer budget "
                f"epsilon={float(synth.epsilon):g}"
            )

    def _mechanism_gaps(self) -> list[str]:
        return [PATE_CAVEAT]


def _train_pategan(
    synth: Any, data: np.ndarray, *, n_iter: int, teacher_size: int, moment_orders: int
) -> dict[str, Any]:
    """Port of ``PATEGAN.train`` after the preprocessing (see :class:`Pategan`).

    Same networks, optimisers, losses and PATE aggregation as smartnoise-synth 1.0.8; the
    differences are the number of teachers (``max(1, n // teacher_size)``), the iteration cap
    ``n_iter``, the number of moment orders and the budget check before each student query (the library checks before each
    iteration, so its last iteration can overspend). Returns the training details.
    """
    torch = _import("torch")
    nn_mod = _import("snsynth.pytorch.nn.pategan")
    utils = _import("snsynth.pytorch.nn.privacy_utils")
    device = synth.device
    n, dim = data.shape
    k = max(1, n // teacher_size)
    loaders = [
        torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.from_numpy(np.ascontiguousarray(part)).to(device)),
            batch_size=synth.batch_size,
            shuffle=True,
        )
        for part in np.array_split(data, k)
    ]
    generator = nn_mod.Generator(synth.latent_dim, dim, binary=synth.binary).double().to(device)
    generator.apply(utils.weights_init)
    student = nn_mod.Discriminator(dim).double().to(device)
    student.apply(utils.weights_init)
    teachers = [nn_mod.Discriminator(dim).double().to(device) for _ in range(k)]
    for t in teachers:
        t.apply(utils.weights_init)
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
    opt_s = torch.optim.Adam(student.parameters(), lr=1e-4)
    opt_t = [torch.optim.Adam(t.parameters(), lr=1e-4) for t in teachers]
    bce = torch.nn.BCELoss()
    orders = 1 + torch.arange(moment_orders, dtype=torch.float64)
    alphas = torch.zeros(moment_orders, dtype=torch.float64)
    log_delta = math.log(synth.delta)

    def spent(a: Any) -> float:
        return float(torch.min((a - log_delta) / orders))

    def noise(rows: int) -> Any:
        return torch.rand(rows, synth.latent_dim, device=device).double()

    iterations = queries = 0
    exhausted = False
    while iterations < n_iter and not exhausted:
        for _ in range(synth.teacher_iters):
            for teacher, opt, loader in zip(teachers, opt_t, loaders, strict=True):
                real = next(iter(loader))[0]
                opt.zero_grad()
                out_real = teacher(real).view(-1)
                bce(out_real, torch.ones_like(out_real)).backward()
                out_fake = teacher(generator(noise(synth.batch_size))).view(-1)
                bce(out_fake, torch.zeros_like(out_fake)).backward()
                opt.step()
        for _ in range(synth.student_iters):
            fake = generator(noise(synth.batch_size))
            labels, votes = utils.pate(fake, teachers, PATE_LAP_SCALE, device=device)
            candidate = alphas + utils.moments_acc(k, votes, PATE_LAP_SCALE, orders, device=device)
            if spent(candidate) > synth.epsilon:
                exhausted = True
                break
            alphas = candidate
            queries += 1
            out = student(fake.detach()).view(-1)
            loss = bce(out, labels.to(device).view(-1))
            opt_s.zero_grad()
            loss.backward()
            opt_s.step()
        if queries == 0:
            break
        out_g = student(generator(noise(synth.batch_size))).view(-1)
        loss_g = bce(out_g, torch.ones_like(out_g))
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        iterations += 1
    synth.generator = generator
    synth.num_teachers = k
    return {
        "iterations": iterations,
        "iterations_requested": n_iter,
        "student_queries": queries,
        "num_teachers": k,
        "batch_size_used": int(synth.batch_size),
        "budget_exhausted": exhausted,
        "epsilon_spent": spent(alphas) if queries else 0.0,
        "laplace_scale": 1.0 / PATE_LAP_SCALE,
        "moment_orders": moment_orders,
    }
