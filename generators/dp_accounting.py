"""ε accounting of PrivBayes (``privbayes``, ``datasynthesizer``): sensitivities and noise scales.

PrivBayes (Zhang et al., TODS 2017) spends ε₁ on the structure (d − 1 exponential-mechanism
draws, ε₁/(d − 1) each, scored by mutual information I) and ε₂ = ε − ε₁ on d − k noisy joint
count tables (Laplace, ε₂/(d − k) each); here ε₁ = ε₂ = ε/2 as in DataSynthesizer. What a
given noise scale costs depends on the **neighbouring relation**:

``replace_one`` (PrivBayes' own definition: D and D' have the same size n and differ in one record)
    * Structure: Lemma 1 of the paper bounds the change of I by
      S(n) = log(n)/n + (n − 1)/n · log(n/(n − 1)) when the child or the (single) parent is
      binary, else S(n) = 2/n · log((n + 1)/2) + (n − 1)/n · log((n + 1)/(n − 1)). A draw
      with weights exp(I / (2Δ)), Δ = (d − 1)·S(n)/ε₁, costs ε₁/(d − 1).
    * Counts: replacing a record moves one count down and one up: L1 sensitivity 2 per table,
      so Laplace scale 2(d − k)/ε₂ on counts costs ε₂ (the paper's Algorithm 1 adds
      Lap(2(d − k)/(n·ε₂)) to probabilities, the same mechanism).
    * Independent mode (d histograms, ε/d each): Laplace 2d/ε on counts (DataSynthesizer's
      2/n / (ε/d) on probabilities) costs ε.

``add_remove`` (D' = D plus one record; n itself is private)
    * Counts: L1 sensitivity 1 per table: scale (d − k)/ε₂ (independent mode: d/ε).
    * Structure: with g(m) = (m + 1)·log(m + 1) − m·log(m), adding a record to an m-row table
      changes the count-scaled score m·I by at most g(m) (from m·H = m·log m − Σ c·log c for
      each of H(X), H(Π), H(X, Π)). The draw on an m-row table uses the weights
      exp(a_m·m·I) with a_m = ε_s / (2·(g(m) + log K)), ε_s = ε₁/(d − 1) and K the largest
      min(|dom child|, |dom Π|) among the step's candidates (I ≤ log K). Because a_m depends on
      m, the loss of a pair (m, m + 1) is at most 2·a_m·g(m) + (a_m − a_{m+1})·(m + 1)·log K;
      with g(m + 1) − g(m) ≤ 1/m and g(m) ≥ g(1) = 2·log 2 > 1 this is ≤ ε_s. In MI units the
      draw uses Δ = (d − 1)·(g(n) + log K)/(n·ε₁). ``k = 0`` (DataSynthesizer's automatic k,
      a function of n) is refused: it would read n without budget.

``accounting: datasynthesizer`` reproduces DataSynthesizer 0.1.13's scales exactly: Lemma 1 for the
structure (binary = at most two codes *observed*) and Laplace (d − k)/ε₂ on counts, i.e. the
add/remove scale. Under ``replace_one`` — the only relation Lemma 1 supports — the conditionals
then cost 2·ε₂ = ε and the whole fit ε/2 + ε = **1.5·ε** (d > 1; a single column has no
structure step and costs ε). Its independent mode (Laplace (2/n)/(ε/d) on probabilities) is
correctly calibrated for ``replace_one`` and costs ε. The reported (formal_dp) ε is the spent one.

``accounting: calibrated`` derives every scale from ``neighbours`` so that the spent ε equals the
configured ε (with one column there is no structure step and the whole ε goes to the counts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

NEIGHBOURS: tuple[str, ...] = ("replace_one", "add_remove")
ACCOUNTING: tuple[str, ...] = ("calibrated", "datasynthesizer")


def mi_sensitivity(n: int, binary: bool) -> float:
    """Sensitivity of mutual information under replacing one of ``n`` records (PrivBayes Lemma 1)."""
    if binary:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return (2 / n) * math.log((n + 1) / 2) + (1 - 1 / n) * math.log(1 + 2 / (n - 1))


def count_scaled_mi_sensitivity(m: int) -> float:
    """g(m) = (m + 1)·log(m + 1) − m·log(m): bound on |(m + 1)·I(D + r) − m·I(D)| for an m-row D."""
    return math.log(m + 1) + (m * math.log1p(1 / m) if m > 0 else 0.0)


def add_remove_mi_delta(n: int, max_card: int) -> float:
    """Δ of one add/remove-calibrated draw in MI units per unit of step budget: (g(n) + log K)/n."""
    return (count_scaled_mi_sensitivity(n) + math.log(max(max_card, 1))) / n


@dataclass(frozen=True)
class StructureCalibration:
    """How the exponential mechanism of the structure step is scaled.

    Attributes
    ----------
    neighbours : {"replace_one", "add_remove"}
    binary_from : {"observed", "domain"}
        Lemma 1's binary case: at most two codes observed in the data (DataSynthesizer) or at
        most two codes in the domain (public; used by ``accounting: calibrated``).
    round_scores : bool
        Round mutual information to 12 decimals before the draw (the port's tie rule for ε = 0,
        kept for DataSynthesizer's accounting; the calibrated draws use the exact scores).
    """

    neighbours: str = "replace_one"
    binary_from: str = "observed"
    round_scores: bool = True

    def deltas(
        self,
        n: int,
        d: int,
        epsilon: float,
        candidates: Sequence[tuple[int, Sequence[int]]],
        cards: Sequence[int],
        observed_binary: Sequence[bool],
    ) -> np.ndarray:
        """Δ of every candidate of one step: the draw weights are exp(I / (2Δ)).

        Parameters
        ----------
        n : int
            Rows of the table.
        d : int
            Columns (d − 1 draws share ``epsilon``).
        epsilon : float
            Budget of the whole structure step (ε₁).
        candidates : sequence of (child, parents)
        cards : sequence of int
            Codes per column (domain cardinality, missing bin included).
        observed_binary : sequence of bool
            Columns with at most two observed codes (DataSynthesizer's binary test).
        """
        if self.neighbours == "add_remove":
            max_card = max(min(cards[c], math.prod(cards[p] for p in ps)) for c, ps in candidates)
            return np.full(len(candidates), (d - 1) * add_remove_mi_delta(n, max_card) / epsilon)
        binary = list(observed_binary) if self.binary_from == "observed" else [c <= 2 for c in cards]
        return np.array(
            [
                (d - 1) * mi_sensitivity(n, binary[c] or (len(ps) == 1 and binary[ps[0]])) / epsilon
                for c, ps in candidates
            ]
        )


@dataclass(frozen=True)
class PrivBayesBudget:
    """Noise scales and spent ε of one PrivBayes / DataSynthesizer fit (see the module docstring).

    Attributes
    ----------
    epsilon : float
        Configured budget (> 0).
    neighbours : {"replace_one", "add_remove"}
    accounting : {"calibrated", "datasynthesizer"}
    mode : {"independent", "correlated"}
    d : int
        Columns.
    """

    epsilon: float
    neighbours: str
    accounting: str
    mode: str
    d: int

    @property
    def count_sensitivity(self) -> float:
        """L1 sensitivity of one count table under ``neighbours``."""
        return 2.0 if self.neighbours == "replace_one" else 1.0

    @property
    def structure_epsilon(self) -> float:
        """ε₁: ε/2 when there is a structure step (d > 1), else 0."""
        return self.epsilon / 2 if self.mode == "correlated" and self.d > 1 else 0.0

    @property
    def conditionals_epsilon(self) -> float:
        """ε₂ the count noise is calibrated with (DataSynthesizer: always ε/2)."""
        if self.mode == "independent":
            return self.epsilon
        if self.accounting == "datasynthesizer":
            return self.epsilon / 2
        return self.epsilon - self.structure_epsilon

    def structure_calibration(self) -> StructureCalibration:
        """The exponential-mechanism scaling of this accounting."""
        if self.accounting == "datasynthesizer":
            return StructureCalibration("replace_one", "observed", True)
        return StructureCalibration(self.neighbours, "domain", False)

    def count_scale(self, n_tables: int) -> float:
        """Laplace scale on the counts of each of ``n_tables`` joint tables (correlated mode)."""
        if self.accounting == "datasynthesizer":
            return n_tables / self.conditionals_epsilon
        return self.count_sensitivity * n_tables / self.conditionals_epsilon

    def marginal_scale(self, n: int) -> float:
        """Laplace scale on the probabilities of each histogram (independent mode, ``n`` rows)."""
        if self.accounting == "datasynthesizer":
            return (2 / n) / (self.epsilon / self.d)
        return (self.count_sensitivity / n) / (self.epsilon / self.d)

    @property
    def spent_conditionals(self) -> float:
        """ε spent by the count noise under ``neighbours`` (DataSynthesizer: 2·ε₂ under replace-one)."""
        if self.mode == "independent":
            return self.epsilon
        if self.accounting == "datasynthesizer":
            return 2.0 * self.conditionals_epsilon
        return self.conditionals_epsilon

    @property
    def spent(self) -> float:
        """Total ε spent under ``neighbours`` (basic composition of the structure and the counts)."""
        return self.structure_epsilon + self.spent_conditionals

    def to_json(self, n_tables: int | None, n: int | None) -> dict[str, Any]:
        """The accounting as recorded in ``details()["accounting"]``."""
        out: dict[str, Any] = {
            "accounting": self.accounting,
            "neighbours": self.neighbours,
            "epsilon_configured": self.epsilon,
            "epsilon_spent": self.spent,
        }
        if self.mode == "independent":
            out["marginals"] = {
                "epsilon": self.epsilon,
                "histograms": self.d,
                "count_sensitivity": 2.0 if self.accounting == "datasynthesizer" else self.count_sensitivity,
                "laplace_scale_probabilities": None if n is None else self.marginal_scale(n),
            }
            return out
        calibration = self.structure_calibration()
        out["structure"] = {
            "epsilon": self.structure_epsilon,
            "draws": max(self.d - 1, 0),
            "sensitivity": (
                "count-scaled mutual information, g(n) + log K (add/remove)"
                if calibration.neighbours == "add_remove"
                else f"PrivBayes Lemma 1 (replace-one; binary = {calibration.binary_from} codes)"
            ),
        }
        out["conditionals"] = {
            "epsilon": self.spent_conditionals,
            "epsilon_calibrated": self.conditionals_epsilon,
            "tables": n_tables,
            "count_sensitivity": self.count_sensitivity,
            "laplace_scale_counts": None if n_tables is None else self.count_scale(n_tables),
        }
        return out
