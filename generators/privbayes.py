"""DataSynthesizer and PrivBayes (``spec/generators.md`` §7.1, §7.2).

Two configs share this module:

* ``datasynthesizer`` (:class:`DataSynthesizerGenerator`): DataSynthesizer's three modes
  (``random``, ``independent``, ``correlated``), ε = 0 (no noise) by default, k = 2, and
  DataSynthesizer's own noise scales (``accounting: datasynthesizer``).
* ``privbayes`` (:class:`PrivBayes`): the correlated mode with ε > 0 (default ε = 1, k = 1),
  i.e. PrivBayes (Zhang et al. 2017), calibrated so that the configured ε is the ε spent
  under the declared neighbouring relation (``accounting: calibrated``, ``neighbours:
  replace_one``, PrivBayes' own definition).

The algorithm on encoded tables is in :mod:`generators.dp_bayesnet`, the sensitivities and
noise scales in :mod:`generators.dp_accounting`, the public domain of ``strict`` mode in
:mod:`generators.dp_domain`, the library backend in :mod:`generators.dp_datasynthesizer`.

Backends
--------
``backend="numpy"`` (default) is a vectorised port of DataSynthesizer 0.1.13's algorithm
(``DataDescriber`` + ``lib/PrivBayes.py`` + ``DataGenerator``) that draws only from
``self.rng_``. ``backend="datasynthesizer"`` runs the library itself on files in a private
temporary directory, with the global ``random`` / ``numpy.random`` seeded from the
generator's seed right before describing and before generating; it has only the library's
scales (``accounting: datasynthesizer``) and reads the domain from the data (no ``strict``).

Why a port is the default (fit + sample on full Adult, 48,842 rows x 15 columns, ε = 1,
one core): the library takes 136 s at k = 1 and 1,195 s (20 min) at k = 2, the port 1.6 s
and 2.8 s. The library computes each candidate's mutual information on string-joined
parent labels (a row-wise Python ``apply``) and forks ``os.cpu_count()`` worker processes
at every network step, which oversubscribes the CPUs under the parallel launchers. For
ε = 0 the port and the library learn the same network and the same conditional tables
from the same root (``tests/unit/test_privbayes.py``). The library backend replaces the worker
pool by an in-process ``map`` (the workers are pure, so the results are unchanged) and
silences the library's progress prints.

How ε is spent (correlated mode, ε > 0)
---------------------------------------
* ε₁ = ε/2 — structure learning (``greedy_bayes``): the root is drawn uniformly (no data
  used); each of the d − 1 further attributes is chosen with the exponential mechanism with
  ε₁/(d − 1): the (child, parents) candidate with mutual information I is drawn with
  probability ∝ exp(I / (2Δ)).
* ε₂ = ε/2 — conditional distributions (``noisy_conditionals``): d − k noisy joint count tables
  (one (k+1)-way table over the root and the first k children, then one per further child over
  child + parents) each get Laplace noise on every cell of the full (binned) domain; negative
  counts are set to 0, then each conditional is normalised (uniform when all its cells are 0).
* Independent mode, ε > 0: each of the d histograms gets Laplace noise with ε/d.
* Random mode uses no records beyond the domain and no ε.

The scales depend on ``neighbours`` and ``accounting`` (derivations in
:mod:`generators.dp_accounting`; n rows, d columns, K the largest min(|dom child|, |dom parents|)
of a step, g(n) = (n + 1)·log(n + 1) − n·log n):

==============================  ==============================  ===================  =========
accounting / neighbours          structure Δ (MI units)          count Laplace scale   ε spent
==============================  ==============================  ===================  =========
calibrated / replace_one         (d − 1)·S_Lemma1(n)/ε₁           2(d − k)/ε₂          ε
calibrated / add_remove          (d − 1)·(g(n) + log K)/(n·ε₁)     (d − k)/ε₂           ε
datasynthesizer / replace_one    (d − 1)·S_Lemma1(n)/ε₁           (d − k)/ε₂           1.5·ε
==============================  ==============================  ===================  =========

(S_Lemma1 is PrivBayes' Lemma 1: its binary case when the child or the single parent has at
most two codes — in the domain for ``calibrated``, observed for ``datasynthesizer``.) Before this
accounting existed the port always ran the last row and recorded ε: under replace-one a
configured ε = 1 spent 1.5. Independent mode: Laplace (c/n)/(ε/d) on probabilities, c = 2
(replace_one, and DataSynthesizer's) or 1 (add_remove), spent ε. With one column there is no
structure step: ``calibrated`` gives the counts the whole ε, DataSynthesizer's scales spend ε.
``info().formal_dp`` reports the **spent** ε with ``neighbours``, ``end_to_end`` (false unless
``strict``, with the reason) and, when it differs, ``epsilon_configured``; ``details()
["accounting"]`` records the split, sensitivities and scales, ``details()["dp_caveats"]`` what the
guarantee does not cover.

Strict mode (``strict: true``)
------------------------------
The domain comes from the dataset spec (:mod:`generators.dp_domain`): categorical levels from
``domain`` / ``categories`` (released even when absent from training), numeric bin edges from
``bounds`` (integer columns whose bounds hold at most ``category_threshold`` integers are
categorical over those integers), the missing bin from ``nullable``; training values are
clamped to the bounds, out-of-domain categories and undeclared missing values are errors.
Lemma 1's binary case is read from the domain. The fit is then ε-DP end to end under
``neighbours`` (``replace_one`` treats n as public; under ``add_remove`` the fit does not read
n outside the accounted draws — ``k = 0`` is refused — but a release of n_rows = None rows
discloses n). Strict needs ``backend: numpy`` and ``accounting: calibrated``.

What the guarantee does not cover (``strict: false``, the default)
-----------------------------------------------------------------
The domain is read from the data without noise: categories, numeric min/max (hence the bin
edges), whether a column has missing values, and whether a numeric column has at most
``category_threshold`` distinct values (then it is modelled as categorical); the guarantee
holds only when these are public (``formal_dp["end_to_end"]`` is false). In correlated mode the
library backend also perturbs each attribute's marginal with the full ε (its correlated
describer calls the independent-mode describer); those marginals enter the output only as a
fallback for parent configurations outside the table, which the full-domain tables never
leave, and the description file holding them is not released. The port skips that step.

Deviations of the port from the library (each a fix of library behaviour)
-------------------------------------------------------------------------
* Exponential mechanism: the library computes ``exp(score)`` without subtracting the
  maximum; for large n·ε (e.g. n ≈ 50,000, ε = 50) the scores overflow to ``inf`` and the
  library then draws uniformly among the overflowed candidates instead of favouring the
  best one. The port uses the stable form exp(score − max score).
* Independent mode models missing values with an extra bin (like correlated mode); the
  library's independent-mode generator never emits missing values.
* Random mode draws numeric values uniformly within the column's training range (integers
  inclusive; strict: the public bounds); the library uses the fixed range [0, 100] for every
  numeric column. Both backends use the port's random mode.
* ``k = 0`` selects k automatically as the library does (``calculate_k``, which uses
  ε = 0.1 whatever ε is); the library's solver permanently turns every later Python warning
  into an error (``warnings.filterwarnings("error")``), the port scopes that filter.
* Ties in mutual information (ε = 0) go to the first candidate in the library's
  enumeration order after rounding to 12 decimals, so float summation order cannot flip
  them (the library takes the exact maximum); the calibrated draws (ε > 0) use the exact scores.
* Columns whose training values are all missing are released as all missing (the library
  fails on them).

Numeric values are drawn uniformly within their sampled bin (DataSynthesizer's behaviour,
``spec/generators.md`` §7.1 pitfalls); integer columns are then rounded half to even.
Schema kinds map explicitly to DataSynthesizer's attribute types: categorical / ordinal →
categorical String, integer → Integer, continuous → Float (datetime → Float on the epoch
in nanoseconds, converted back); no column is a candidate key (identifier columns are
dropped by the loader).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.dp_accounting import ACCOUNTING, NEIGHBOURS, PrivBayesBudget, mi_sensitivity
from generators.dp_bayesnet import (
    MI_DECIMALS,
    Attribute,
    auto_k,
    describe_attributes,
    describe_public_attributes,
    draw_codes,
    from_raw_values,
    greedy_bayes,
    mutual_information,
    noisy_conditionals,
    normalise_rows,
    sample_network,
)
from generators.dp_datasynthesizer import LibraryBackend
from generators.dp_domain import (
    DOMAIN_FROM_DATA,
    check_public_domain,
    fit_to_domain,
    formal_dp_record,
    public_domain,
    widen_categories,
)
from harness.errors import ConfigError, DataError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_bool, check_choice, check_int
from harness.spec import DatasetSpec

MODES: tuple[str, ...] = ("random", "independent", "correlated")
BACKENDS: tuple[str, ...] = ("numpy", "datasynthesizer")
DOMAIN_CAVEAT = (
    f"{DOMAIN_FROM_DATA} (categories, numeric min/max and bin edges, missing-value bins, "
    "which numeric columns are categorical): strict: false"
)

__all__ = [
    "MI_DECIMALS",
    "Attribute",
    "DataSynthesizerGenerator",
    "PrivBayes",
    "auto_k",
    "greedy_bayes",
    "mi_sensitivity",
    "mutual_information",
    "noisy_conditionals",
]


# ====================================================================== generators
class DataSynthesizerGenerator(LibraryBackend, BaseGenerator):
    """DataSynthesizer (``spec/generators.md`` §7.1): random, independent or correlated mode.

    Parameters
    ----------
    mode : {"random", "independent", "correlated"}
        ``correlated``: Bayesian network with at most ``k`` parents (PrivBayes when ε > 0);
        ``independent``: every column from its own histogram; ``random``: uniform over
        each column's categories or training range.
    k : int
        Maximum number of parents (correlated mode). 0 = DataSynthesizer's automatic choice
        (a function of n; refused with ``neighbours: add_remove``).
    epsilon : float or None
        Privacy budget; 0 or None = no noise (DataSynthesizer's convention).
    histogram_size : int
        Equal-width bins of numeric columns (≥ 2).
    category_threshold : int
        Numeric columns with at most this many distinct values (strict: integer columns whose
        bounds hold at most this many integers) are modelled as categorical; categorical schema
        columns always are.
    backend : {"numpy", "datasynthesizer"}
        The vectorised port (default) or the library itself (see the module docstring).
    neighbours : {"replace_one", "add_remove"}
        The neighbouring relation the guarantee is stated for (``formal_dp["neighbours"]``).
    accounting : {"datasynthesizer", "calibrated"}
        ``datasynthesizer`` (this config's default): DataSynthesizer's own noise scales, whose
        reported ε is the spent one (1.5·ε in correlated mode, replace-one only);
        ``calibrated``: scales derived from ``neighbours`` so that spent ε = configured ε.
    strict : bool
        Take the whole domain from the dataset spec (public) instead of the training data
        (needs ``backend: numpy`` and, with ε > 0, ``accounting: calibrated``).

    Notes
    -----
    The module docstring states how ε is spent and how the port differs from the library.
    ``details()`` records the learned network, the ε split and accounting, the Laplace scale,
    the bins and the caveats of the guarantee.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")
    config_name: ClassVar[str] = "datasynthesizer"

    def __init__(
        self,
        mode: str = "correlated",
        k: int = 2,
        epsilon: float | None = 0.0,
        histogram_size: int = 20,
        category_threshold: int = 20,
        backend: str = "numpy",
        neighbours: str = "replace_one",
        accounting: str = "datasynthesizer",
        strict: bool = False,
    ) -> None:
        self.mode = mode
        self.k = k
        self.epsilon = epsilon
        self.histogram_size = histogram_size
        self.category_threshold = category_threshold
        self.backend = backend
        self.neighbours = neighbours
        self.accounting = accounting
        self.strict = strict

    # ------------------------------------------------------------------ parameters
    def _mode(self) -> str:
        return self.mode

    @property
    def epsilon_(self) -> float:
        """ε as a float (None → 0)."""
        return 0.0 if self.epsilon is None else float(self.epsilon)

    def _private(self) -> bool:
        """ε > 0 outside random mode: the fit is a DP mechanism."""
        return self.epsilon_ > 0 and self._mode() != "random"

    def budget(self, d: int) -> PrivBayesBudget:
        """The noise scales and spent ε of a fit on ``d`` columns (ε > 0 outside random mode)."""
        return PrivBayesBudget(self.epsilon_, str(self.neighbours), str(self.accounting), self._mode(), d)

    def info(self) -> GeneratorInfo:
        """Capability flags; ``formal_dp`` (the **spent** ε) is set when ε > 0 outside random mode."""
        if not self._private():
            return self.capabilities
        budget = self.budget(getattr(self, "n_columns_", 2))  # before the fit: d > 1 assumed
        extra: dict[str, Any] = {}
        if self.accounting != "calibrated":
            extra["accounting"] = self.accounting
        if not math.isclose(budget.spent, budget.epsilon):
            extra["epsilon_configured"] = budget.epsilon
        dp = formal_dp_record(
            budget.spent, 0.0, neighbours=str(self.neighbours),
            not_end_to_end=() if self.strict else (DOMAIN_CAVEAT,), **extra,
        )  # fmt: skip
        return GeneratorInfo(output_kind="synthetic", formal_dp=dp)

    def _validate_params(self) -> None:
        if self._mode() not in MODES:
            raise ConfigError(f"`mode` must be one of {', '.join(MODES)}; got {self._mode()!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(
                f"`backend` must be one of {', '.join(BACKENDS)} (dpart and synthcity are not "
                f"available in this build); got {self.backend!r}"
            )
        eps = self.epsilon
        if eps is not None and (
            isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps < 0
        ):
            raise ConfigError(f"`epsilon` must be a finite number >= 0 (0 or null = no noise); got {eps!r}")
        check_int("k", self.k, 0)
        check_int("histogram_size", self.histogram_size, 2)
        check_int("category_threshold", self.category_threshold, 0)
        check_choice("neighbours", self.neighbours, NEIGHBOURS)
        check_choice("accounting", self.accounting, ACCOUNTING)
        check_bool("strict", self.strict)
        self._validate_combination()

    def _validate_combination(self) -> None:
        private = self._private()
        if self.accounting == "datasynthesizer" and self.neighbours != "replace_one":
            raise ConfigError(
                "`accounting: datasynthesizer` scales the structure step for replace-one neighbours only "
                "(PrivBayes Lemma 1); set neighbours: replace_one or accounting: calibrated"
            )
        if self.strict and self.backend == "datasynthesizer":
            raise ConfigError(
                "`strict: true` needs backend: numpy (the library reads the domain from the data)"
            )
        if self.strict and private and self.accounting == "datasynthesizer":
            raise ConfigError(
                "`strict: true` needs accounting: calibrated (DataSynthesizer's binary test reads the data)"
            )
        if private and self.backend == "datasynthesizer" and self.accounting != "datasynthesizer":
            raise ConfigError(
                "`backend: datasynthesizer` runs the library's own noise scales; set accounting: "
                "datasynthesizer (or backend: numpy)"
            )
        if private and self.neighbours == "add_remove" and self._mode() == "correlated" and self.k == 0:
            raise ConfigError(
                "`k: 0` chooses k from the number of rows, which add/remove neighbours keep private; set k >= 1"
            )

    def _validate_spec(self, spec: DatasetSpec) -> None:
        if self.strict:
            check_public_domain(spec, self.config_name)

    def config_notes(self) -> list[str]:
        """ε = 0 (or null) is the non-private mode: said before the run, not only in the rows."""
        if self.epsilon_ == 0:
            return [
                f"{type(self).__name__}: epsilon {self.epsilon!r} means privacy off: no noise is added and the "
                "release is not differentially private (DataSynthesizer's 'BayesianNet'); set epsilon > 0 for DP"
            ]
        return []

    # ------------------------------------------------------------------ fit / sample
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        mode = self._mode()
        eps = self.epsilon_
        n, d = train.shape
        if self._private() and n < 2:
            raise DataError(f"{type(self).__name__} with epsilon > 0 needs at least 2 training rows; got {n}")
        self.n_columns_ = d
        if self.strict:
            domain = public_domain(self.spec_, self.config_name)
            train = fit_to_domain(train, domain, self.spec_, self.config_name)
            self.attributes_ = describe_public_attributes(
                domain, list(train.columns), self.histogram_size, self.category_threshold
            )
            widen_categories(self, domain)
        else:
            kinds = {c: self.spec_.kind(c) for c in train.columns}
            self.attributes_ = describe_attributes(train, kinds, self.histogram_size, self.category_threshold)
        self.network_: list[tuple[str, list[str]]] = []
        self.k_used_: int | None = None
        self.epsilon_split_: dict[str, float] = {}
        self.laplace_scale_: float | None = None
        self.n_tables_: int | None = None
        self.structure_log_: list[dict[str, Any]] = []
        self.model_: Any = None
        self.n_samples_ = 0
        if mode == "random":
            return
        if self.backend == "datasynthesizer":
            self._fit_library(train)
            return
        budget = self.budget(d) if eps else None
        codes = np.column_stack([a.encode(train[a.name]) for a in self.attributes_])
        cards = [a.card for a in self.attributes_]
        if mode == "independent":
            scale = budget.marginal_scale(n) if budget else 0.0
            self.model_ = [self._noisy_marginal(codes[:, j], cards[j], n, scale) for j in range(d)]
            if budget:
                self.epsilon_split_ = {"marginals": eps}
                self.laplace_scale_ = scale
            return
        k = self.k or auto_k(d, n)
        self.k_used_ = k
        root = int(self.rng_.integers(d))
        eps1 = budget.structure_epsilon if budget else 0.0
        eps2 = budget.conditionals_epsilon if budget else 0.0
        calibration = budget.structure_calibration() if budget else None
        network = (
            greedy_bayes(
                codes, cards, k, eps1, self.rng_, root=root, calibration=calibration, log=self.structure_log_
            )
            if d > 1
            else []
        )
        sensitivity = (
            1.0 if budget is None or budget.accounting == "datasynthesizer" else budget.count_sensitivity
        )
        self.model_ = noisy_conditionals(
            network, root, codes, cards, eps2, self.rng_, count_sensitivity=sensitivity
        )
        self.n_tables_ = self.model_.n_marginals
        names = [a.name for a in self.attributes_]
        self.root_ = names[root]
        self.network_ = [(names[c], [names[p] for p in ps]) for c, ps in network]
        if budget:
            self.epsilon_split_ = {"structure": eps1, "conditionals": eps2}
            self.laplace_scale_ = self.model_.laplace_scale

    def _noisy_marginal(self, codes: np.ndarray, card: int, n: int, scale: float) -> np.ndarray:
        dist = np.bincount(codes, minlength=card) / n
        if scale:
            dist = dist + self.rng_.laplace(0.0, scale, size=card)
        return normalise_rows(dist[None, :])[0]

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        mode = self._mode()
        if mode == "random":
            return self._sample_random(n)
        if self.backend == "datasynthesizer":
            return self._sample_library(n)
        d = len(self.attributes_)
        if mode == "independent":
            codes = np.column_stack(
                [draw_codes(np.broadcast_to(p, (n, len(p))), self.rng_) for p in self.model_]
            )
        else:
            codes = sample_network(self.model_, n, d, self.rng_)
        return pd.DataFrame(
            {a.name: a.decode(codes[:, j], self.rng_) for j, a in enumerate(self.attributes_)}
        )

    def _sample_random(self, n: int) -> pd.DataFrame:
        out = {}
        for a in self.attributes_:
            if a.n_bins == 0:
                out[a.name] = pd.Series(np.full(n, np.nan))
            elif a.categorical:
                out[a.name] = pd.Series(a.values[self.rng_.integers(0, a.n_bins, size=n)])
            elif a.kind == "integer":
                low, high = math.ceil(a.low), math.floor(a.high)
                out[a.name] = pd.Series(self.rng_.integers(low, high + 1, size=n).astype(float))
            else:
                out[a.name] = from_raw_values(pd.Series(self.rng_.uniform(a.low, a.high, size=n)), a.kind)
        return pd.DataFrame(out)

    # ------------------------------------------------------------------ diagnostics
    def details(self) -> dict[str, Any]:
        """The learned network, ε split and accounting, Laplace scale, bins and caveats of the last fit."""
        if not getattr(self, "fitted_", False):
            return {}
        private = self._private()
        budget = self.budget(self.n_columns_) if private else None
        draws = [[e["candidates"], min(e["delta"]), max(e["delta"])] for e in self.structure_log_]
        return {
            "mode": self._mode(),
            "backend": self.backend,
            "epsilon": self.epsilon_,
            "epsilon_split": dict(self.epsilon_split_),
            "laplace_scale": self.laplace_scale_,
            "neighbours": self.neighbours,
            "strict": bool(self.strict),
            "accounting": budget.to_json(self.n_tables_, self.n_train_) if budget else None,
            "structure_draws": draws,  # [candidates, min Δ, max Δ] per exponential-mechanism draw
            "dp_caveats": self._caveats() if private else [],
            "k": self.k_used_,
            "root": getattr(self, "root_", None),
            "bayesian_network": [[child, list(parents)] for child, parents in self.network_],
            "bins": {a.name: a.to_json() for a in self.attributes_},
        }

    def _caveats(self) -> list[str]:
        out = [] if self.strict else [DOMAIN_CAVEAT]
        if self.accounting == "datasynthesizer" and self._mode() == "correlated":
            out.append(
                "accounting: datasynthesizer: counts carry add/remove noise while the structure uses "
                "replace-one sensitivity; the recorded epsilon is the spent one under replace-one"
            )
        if self.neighbours == "add_remove":
            out.append(
                "add/remove neighbours keep n private: a release of n_rows = null rows discloses the training size"
            )
        if self.backend == "datasynthesizer" and self._mode() == "correlated":
            out.append(
                "the library also perturbs every marginal with the full epsilon; they are neither released "
                "nor used for the output"
            )
        return out


class PrivBayes(DataSynthesizerGenerator):
    """PrivBayes (``spec/generators.md`` §7.2): DataSynthesizer's correlated mode with ε > 0.

    Parameters
    ----------
    epsilon : float or None
        Privacy budget, spent half on the structure (exponential mechanism) and half on the
        conditionals (Laplace); 0 or None = noise off (GreedyBayes, the "BayesianNet" of
        ``001_…`` §4.2.1), as PrivBayes / DataSynthesizer define it.
    k : int
        Maximum number of parents (``001_…`` reproductions: 1 with 25 bins).
    histogram_size, category_threshold, backend
        As :class:`DataSynthesizerGenerator`.
    neighbours : {"replace_one", "add_remove"}
        Default ``replace_one`` (PrivBayes' definition: same n, one record replaced).
    accounting : {"calibrated", "datasynthesizer"}
        Default ``calibrated``: spent ε = configured ε under ``neighbours``;
        ``datasynthesizer`` reproduces the library's noise (and reports the spent 1.5·ε).
    strict : bool
        Public domain from the dataset spec (see the module docstring).
    """

    config_name: ClassVar[str] = "privbayes"

    def __init__(
        self,
        epsilon: float | None = 1.0,
        k: int = 1,
        histogram_size: int = 20,
        category_threshold: int = 20,
        backend: str = "numpy",
        neighbours: str = "replace_one",
        accounting: str = "calibrated",
        strict: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.k = k
        self.histogram_size = histogram_size
        self.category_threshold = category_threshold
        self.backend = backend
        self.neighbours = neighbours
        self.accounting = accounting
        self.strict = strict

    def _mode(self) -> str:
        return "correlated"
