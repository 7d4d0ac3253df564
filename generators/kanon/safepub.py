"""``safepub``: differentially private k-anonymisation by random sampling (``spec/generators.md`` §6.4).

The scheme of Li et al. (2012) as implemented by SafePub (Bild et al. 2018) in ARX, in the form
described by ``004_…`` *Utility Analysis of Differentially Private Anonymized Data Based on
Random Sampling* (Sugiyama et al., §2.3–2.6):

1. split ε into ε_anon = (1 − share)·ε and ε_search = share·ε; the sampling rate β must satisfy
   β ≤ β_max = 1 − e^(−ε_anon) (:func:`beta_max`);
2. k = min{k : d(k, β, ε_anon) ≤ δ} + ``arx_k_offset`` (:func:`safepub_k`, paper Eq. 4–5);
3. Bernoulli-sample every training row with probability β;
4. for every node g of the full-domain lattice (§6.2, :class:`~generators.kanon.lattice.Lattice`)
   S_g = suppress(g(D_β), k) and its score ``class_k`` (paper Definition 4,
   :func:`class_k_scores`);
5. draw one node with the exponential mechanism, budget ε_search, among the nodes within the
   suppression limit (:func:`exponential_mechanism`), and release S_g.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binom

from generators.kanon.fulldomain import qi_hierarchies
from generators.kanon.hierarchies import HIERARCHY_SOURCES
from generators.kanon.lattice import Lattice, encode
from generators.kanon.params import choice, validate_share, validate_widths
from generators.kanon.release import GeneralisingGenerator
from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import GeneratorInfo
from harness.params import check_int

SCORES: tuple[str, ...] = ("class_k",)
BETA_MAX = "max"
"""Value of ``beta`` that selects β_max."""
SENSITIVITY_K = "k"
"""Value of ``score_sensitivity`` that selects k (the validated sensitivity of ``class_k``)."""
NMAX = 4000
"""Default largest class size n' searched by :func:`safepub_k` (ample for k <= 200)."""
DP_UNIT = "original_records"


# ====================================================================== privacy parameters
def beta_max(epsilon_anon: float) -> float:
    """Largest sampling rate for ε_anon: β_max = 1 − e^(−ε_anon) (Li et al., Theorem 6).

    ``004_…`` Eq. (3) gives ε ≥ −ln(1 − β) + ε_search; the paper prints β_max = 1 − e^(ε_anon)
    in §2.3 and §2.5 (sign lost) and the correct form in §2.4.
    """
    return float(-math.expm1(-float(epsilon_anon)))


def _check_number(name: str, value: Any, low: float, high: float, *, closed_high: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"`{name}` must be a number; got {value!r}")
    number = float(value)
    inside = low < number <= high if closed_high else low < number < high
    if not math.isfinite(number) or not inside:
        bound = f"({low:g}, {high:g}]" if closed_high else f"({low:g}, {high:g})"
        if math.isinf(high):
            bound = f"> {low:g}"
        raise ConfigError(f"`{name}` must be a finite number in {bound}; got {value!r}")
    return number


def _tail_suffix_max(epsilon: float, beta: float, nmax: int) -> tuple[float, np.ndarray]:
    """γ and ``s[m] = max_{m <= n' <= nmax} P(X > γ n')`` with X ~ Binomial(n', β)."""
    gamma = (math.exp(epsilon) - 1.0 + beta) / math.exp(epsilon)
    n = np.arange(nmax + 1)
    tail = binom.sf(np.floor(gamma * n), n, beta)  # P(X > γn) = P(X > ⌊γn⌋)
    return gamma, np.maximum.accumulate(tail[::-1])[::-1]


def _first_class_size(k: np.ndarray, gamma: float) -> np.ndarray:
    """⌈k/γ − 1⌉ (never below 0), the smallest n' in d(k)."""
    return np.maximum(np.ceil(k / gamma - 1.0 - 1e-12), 0).astype(np.int64)


def safepub_delta(k: int, epsilon: float, beta: float, nmax: int = NMAX) -> float:
    """d(k, β, ε) of ``004_…`` Eq. (4): max over n' ≥ ⌈k/γ − 1⌉ of Σ_{j > γn'}^{n'} f(j; n', β),
    with γ = (e^ε − 1 + β)/e^ε; n' is searched up to ``nmax``.

    Parameters
    ----------
    k : int
        Anonymisation parameter, >= 1.
    epsilon : float
        ε_anon.
    beta : float
        Sampling rate in (0, 1).
    nmax : int
        Largest n' searched.

    Returns
    -------
    float
        The failure probability bound (0 when ⌈k/γ − 1⌉ > ``nmax``).
    """
    gamma, suffix = _tail_suffix_max(epsilon, beta, nmax)
    start = int(_first_class_size(np.array([k]), gamma)[0])
    return float(suffix[start]) if start <= nmax else 0.0


def safepub_k(epsilon: float, beta: float, delta: float, nmax: int = NMAX, offset: int = 1) -> int:
    """k from (ε_anon, β, δ): min{k >= 1 : d(k, β, ε) <= δ} + ``offset`` (``004_…`` Eq. 5).

    Vectorised over n' (one ``binom.sf`` call) and k (one gather), so a whole table of cells
    takes milliseconds.

    Parameters
    ----------
    epsilon : float
        ε_anon, > 0.
    beta : float
        Sampling rate in (0, 1).
    delta : float
        δ in (0, 1).
    nmax : int
        Largest n' searched (``spec/generators.md`` §6.4: 4,000 is ample for k <= 200).
    offset : int
        Added to the formula's k (ARX's k is the formula's + 1; Table 1 of ``004_…``).

    Returns
    -------
    int

    Raises
    ------
    ConfigError
        For parameters out of range, or when ``nmax`` is too small for a reliable k.
    """
    epsilon = _check_number("epsilon_anon", epsilon, 0.0, math.inf, closed_high=False)
    beta = _check_number("beta", beta, 0.0, 1.0, closed_high=False)
    delta = _check_number("delta", delta, 0.0, 1.0, closed_high=False)
    check_int("nmax", nmax, 1)
    check_int("arx_k_offset", offset, 0)
    gamma, suffix = _tail_suffix_max(epsilon, beta, int(nmax))
    ks = np.arange(1, int(gamma * (nmax + 1)) + 1)
    start = _first_class_size(ks, gamma)
    inside = start <= nmax
    ks, start = ks[inside], start[inside]
    ok = suffix[start] <= delta
    # d(k) truncated at nmax is only trustworthy when the first n' of the answer is well below nmax
    if not ok.any() or start[int(np.argmax(ok))] > nmax // 2:
        raise ConfigError(
            f"`nmax`={nmax} is too small for epsilon_anon={epsilon:g}, beta={beta:g}, delta={delta:g}: "
            "k needs class sizes beyond nmax/2; raise `nmax` or `delta`"
        )
    return int(ks[int(np.argmax(ok))]) + int(offset)


# ====================================================================== search
def class_k_scores(lattice: Lattice, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate every lattice node for SafePub.

    Parameters
    ----------
    lattice : Lattice
        The lattice of the sampled rows (its ``k`` is the anonymisation parameter).
    labels : ndarray of int
        Class-attribute code (0 … C − 1) of every encoded row.

    Returns
    -------
    n_suppressed, n_classes, score : ndarray of int, one entry per node of ``lattice.nodes``
        Rows in classes smaller than k; released classes; ``class_k`` = released rows whose
        class value is the majority value of their equivalence class (``004_…`` Def. 4;
        ties do not matter, only the majority count does).
    """
    enc = lattice.encoded
    m = len(enc.weights)
    n_values = int(labels.max()) + 1 if len(labels) else 1
    per_combo = (
        np.bincount(enc.row_combo * n_values + labels, minlength=m * n_values)
        .astype(np.float64)
        .reshape(m, n_values)
    )
    offsets = np.arange(n_values, dtype=np.int64)
    n_nodes = len(lattice.nodes)
    n_suppressed = np.zeros(n_nodes, dtype=np.int64)
    n_classes = np.zeros(n_nodes, dtype=np.int64)
    score = np.zeros(n_nodes, dtype=np.int64)
    for i, node in enumerate(lattice.nodes.tolist()):
        key, sizes = lattice.classes(node)
        released = np.flatnonzero(sizes >= lattice.k)
        kept = sizes[key] >= lattice.k
        n_suppressed[i] = int(enc.weights[~kept].sum())
        n_classes[i] = len(released)
        if len(released):
            counts = np.bincount(
                (key[kept, None] * n_values + offsets).ravel(),
                weights=per_combo[kept].ravel(),
                minlength=len(sizes) * n_values,
            ).reshape(len(sizes), n_values)
            score[i] = int(round(counts[released].max(axis=1).sum()))
    return n_suppressed, n_classes, score


def selection_probabilities(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """Exponential-mechanism probabilities ∝ exp(ε·u / (2Δ)) of candidates with utilities ``scores``."""
    logits = float(epsilon) * np.asarray(scores, dtype=np.float64) / (2.0 * float(sensitivity))
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def exponential_mechanism(
    scores: np.ndarray, epsilon: float, sensitivity: float, rng: np.random.Generator
) -> int:
    """Index of one candidate drawn with :func:`selection_probabilities` (one uniform from ``rng``)."""
    cumulative = np.cumsum(selection_probabilities(scores, epsilon, sensitivity))
    return min(
        int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right")), len(cumulative) - 1
    )


# ====================================================================== generator
class SafePub(GeneralisingGenerator):
    """(ε, δ)-DP k-anonymisation by Bernoulli sampling and an exponential-mechanism choice of
    a full-domain generalisation (``spec/generators.md`` §6.4; SafePub).

    Parameters
    ----------
    epsilon : float
        Total privacy budget ε > 0 (paper grid {1, 2, 3}).
    epsilon_search_share : float
        Share of ε spent on the node choice, in (0, 1): ε_search = share·ε, ε_anon = ε − ε_search.
    beta : float or "max"
        Sampling rate in (0, β_max]; ``"max"`` = β_max = 1 − e^(−ε_anon) (SafePub's choice).
    delta : float
        δ in (0, 1).
    suppression_limit : float
        Largest share of the *sampled* rows that may be suppressed, in [0, 1]; nodes above it
        are not candidates.
    score : {"class_k"}
        Utility of a node: Iyengar's classification score (needs the class attribute).
    score_sensitivity : "k" or float
        Sensitivity Δ of the score in the exponential mechanism; ``"k"`` (default) is the
        validated value; any other value is recorded as not validated.
    arx_k_offset : int
        Added to the formula's k (1 matches ARX and Table 1 of ``004_…``).
    nmax : int
        Largest class size n' searched when computing k.
    score_target : str, optional
        Class attribute of ``class_k``; None = the dataset's target.
    qi : str or int, optional
        QI set name or position; None = the trial's active set.
    decode : {"lower", "midpoint"}
        Released value of a numeric interval label (§1.2 rule 6).
    hierarchy : {"arx", "default"}
        Hierarchy source, as in ``kanon_fulldomain``.
    widths : mapping, optional
        Numeric QI → base width or nested widths (e.g. ``{age: 5}`` for the paper's seven
        age levels), as in ``kanon_fulldomain``.

    Notes
    -----
    The release holds the sampled rows that are not suppressed, so its size is random
    (≈ β·n − suppressed). ``info().formal_dp`` carries the configured (ε, δ) with respect to
    the original records; it rests on the score sensitivity (``details()``
    ``score_sensitivity_validated``) and, like SafePub's, on hierarchies that do not depend
    on the data (the §6.0 numeric defaults use the training range).
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        epsilon_search_share: float = 0.1,
        beta: float | str = BETA_MAX,
        delta: float = 1e-4,
        suppression_limit: float = 0.05,
        score: str = "class_k",
        score_sensitivity: float | str = SENSITIVITY_K,
        arx_k_offset: int = 1,
        nmax: int = NMAX,
        score_target: str | None = None,
        qi: str | int | None = None,
        decode: str = "lower",
        hierarchy: str = "arx",
        widths: Mapping[str, Any] | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.epsilon_search_share = epsilon_search_share
        self.beta = beta
        self.delta = delta
        self.suppression_limit = suppression_limit
        self.score = score
        self.score_sensitivity = score_sensitivity
        self.arx_k_offset = arx_k_offset
        self.nmax = nmax
        self.score_target = score_target
        self.qi = qi
        self.decode = decode
        self.hierarchy = hierarchy
        self.widths = widths

    def info(self) -> GeneratorInfo:
        """Capability flags; ``formal_dp`` is the configured (ε, δ)."""
        return GeneratorInfo(
            output_kind="transformed",
            releases_original_records=True,
            formal_dp={
                "epsilon": _plain_number(self.epsilon),
                "delta": _plain_number(self.delta),
                "unit": DP_UNIT,
            },
            needs_target=True,
            needs_qi=True,
            generalised_output=True,
            fixed_size=True,
            randomised=True,
        )

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return None  # ≈ β·n − suppressed: random

    # ------------------------------------------------------------------ parameters
    def _budget(self) -> tuple[float, float, float, float]:
        """(ε, ε_anon, ε_search, β)."""
        epsilon = _check_number("epsilon", self.epsilon, 0.0, math.inf, closed_high=False)
        share = _check_number("epsilon_search_share", self.epsilon_search_share, 0.0, 1.0, closed_high=False)
        eps_search = share * epsilon
        eps_anon = epsilon - eps_search
        top = beta_max(eps_anon)
        if self.beta == BETA_MAX:
            return epsilon, eps_anon, eps_search, top
        if isinstance(self.beta, str):
            raise ConfigError(f"`beta` must be a number in (0, beta_max] or 'max'; got {self.beta!r}")
        beta = _check_number("beta", self.beta, 0.0, 1.0, closed_high=False)
        if beta > top:
            raise ConfigError(
                f"`beta`={beta:g} exceeds beta_max = 1 - exp(-epsilon_anon) = {top:.4f} "
                f"(epsilon_anon={eps_anon:g}); use beta <= {top:.4f} or 'max'"
            )
        return epsilon, eps_anon, eps_search, beta

    def _validate_params(self) -> None:
        _check_number("delta", self.delta, 0.0, 1.0, closed_high=False)
        validate_share("suppression_limit", self.suppression_limit)
        choice("score", self.score, SCORES)
        if self.score_sensitivity != SENSITIVITY_K:
            _check_number("score_sensitivity", self.score_sensitivity, 0.0, math.inf, closed_high=False)
        check_int("arx_k_offset", self.arx_k_offset, 0)
        check_int("nmax", self.nmax, 1)
        if self.score_target is not None and not isinstance(self.score_target, str):
            raise ConfigError(f"`score_target` must be a column name or null; got {self.score_target!r}")
        if self.qi is not None and (isinstance(self.qi, bool) or not isinstance(self.qi, (str, int))):
            raise ConfigError(f"`qi` must be a QI set name, its position or null; got {self.qi!r}")
        self._validate_decode()
        choice("hierarchy", self.hierarchy, HIERARCHY_SOURCES)
        validate_widths(self.widths)
        _, eps_anon, _, beta = self._budget()
        safepub_k(eps_anon, beta, float(self.delta), int(self.nmax), int(self.arx_k_offset))

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        qi = list(spec.with_active_qi(self.qi).qi if self.qi is not None else spec.qi)
        target = self.score_target if self.score_target is not None else spec.target
        if target not in spec.table_columns:
            raise ConfigError(f"`score_target` {target!r} is not a column of dataset {spec.name!r}")
        epsilon, eps_anon, eps_search, beta = self._budget()
        k = safepub_k(eps_anon, beta, float(self.delta), int(self.nmax), int(self.arx_k_offset))
        sensitivity = float(k if self.score_sensitivity == SENSITIVITY_K else self.score_sensitivity)
        hierarchies = qi_hierarchies(spec, train, qi, source=self.hierarchy, widths=self.widths)

        sampled_rows = np.flatnonzero(self.rng_.random(len(train)) < beta)
        if len(sampled_rows) == 0:
            raise InfeasibleConfigError(
                f"Bernoulli sampling with beta={beta:.4f} kept none of the {len(train)} training rows"
            )
        sampled = train.iloc[sampled_rows].reset_index(drop=True)
        encoded = encode(sampled, hierarchies)
        lattice = Lattice(encoded, k, float(self.suppression_limit))
        classes, _ = pd.factorize(sampled[target].astype(object), use_na_sentinel=False)
        n_suppressed, _, scores = class_k_scores(lattice, classes.astype(np.int64))
        candidates = np.flatnonzero(n_suppressed <= lattice.max_suppressed)
        if len(candidates) == 0:
            raise InfeasibleConfigError(
                f"no generalisation of the {len(sampled_rows)} sampled rows is {k}-anonymous within "
                f"suppression_limit={self.suppression_limit}: even the fully generalised table has "
                f"{int(n_suppressed.max())} rows in classes smaller than k"
            )
        probabilities = selection_probabilities(scores[candidates], eps_search, sensitivity)
        pick = int(candidates[exponential_mechanism(scores[candidates], eps_search, sensitivity, self.rng_)])
        node = tuple(int(v) for v in lattice.nodes[pick])
        cls, sizes = lattice.classes(node)
        keep = sizes[cls][encoded.row_combo] >= k
        validated = self.score_sensitivity == SENSITIVITY_K or sensitivity == float(k)
        self._publish(
            sampled,
            qi,
            encoded.row_labels(node),
            keep,
            extra={
                "epsilon": epsilon,
                "epsilon_anon": eps_anon,
                "epsilon_search": eps_search,
                "epsilon_search_share": float(self.epsilon_search_share),
                "beta": beta,
                "beta_max": beta_max(eps_anon),
                "beta_is_max": self.beta == BETA_MAX,
                "delta": float(self.delta),
                "k": k,
                "arx_k_offset": int(self.arx_k_offset),
                "n_train": len(train),
                "n_sampled": len(sampled_rows),
                "sampling_rate": len(sampled_rows) / len(train),
                "suppression_limit": float(self.suppression_limit),
                "score": self.score,
                "score_target": target,
                "score_value": int(scores[pick]),
                "score_max": int(scores[candidates].max()),
                "score_sensitivity": sensitivity,
                "score_sensitivity_validated": validated,
                "selection_probability": float(probabilities[int(np.searchsorted(candidates, pick))]),
                "node": dict(zip(qi, node)),
                "node_height": int(sum(node)),
                "lattice_size": len(lattice.nodes),
                "n_candidates": len(candidates),
                "hierarchy": self.hierarchy,
                "hierarchies": {c: h.describe() for c, h in hierarchies.items()},
            },
        )
        # the release's rows index the sample; report training rows
        self.reid_["source_row"] = sampled_rows[self.reid_["source_row"].to_numpy()].astype(np.int64)


def _plain_number(value: Any) -> Any:
    """``value`` as a float when it is a number (JSON-able ``formal_dp``), else unchanged."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    return value
