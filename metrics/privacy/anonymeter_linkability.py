"""``anonymeter_linkability``: Anonymeter's linkability attack, seeded and cached.

Specification: ``spec/metrics.md`` P1–P3 (Giomi et al. 2023, "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", Anonymeter 1.1.0). The seeding and caching
plumbing shared with the other Anonymeter metrics is in
:mod:`metrics.privacy.anonymeter_support`.
"""

from __future__ import annotations

import math
import warnings
from typing import ClassVar

import pandas as pd

from harness.encoding import canonical_row_order
from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.privacy.anonymeter_support import (
    cast_like,
    check_confidence_level,
    check_n_attacks,
    check_n_jobs,
    enable_numba_cache,
    risk_result,
    seeded_anonymeter,
)

__all__ = [
    "AnonymeterLinkability",
    "cast_like",
    "enable_numba_cache",
    "seeded_anonymeter",
    "split_aux_columns",
]

AUX_SPLITS: tuple[str, ...] = ("halves", "reference")


class AnonymeterLinkability(BaseMetric):
    """Linkability risk of Anonymeter's ``LinkabilityEvaluator`` (``spec/metrics.md`` P1–P3).

    The attacker holds two vertical slices A and B of a real record (both drawn from the
    active QI set) and links them when their ``n_neighbors`` nearest rows of the release S,
    searched with A's and with B's columns (Anonymeter's Gower-like mixed-type distance),
    share a row. The main attack targets ``n_attacks`` rows of T, the control attack as many
    rows of the control split H, and a random-guess baseline draws neighbours at random.

    The headline value is the risk (r_main − r_control)/(1 − r_control) bound to [0, 1]
    (Wilson rates), with its confidence interval from ``risk().ci``; ``baseline`` is the
    random-guess success rate. ``details`` hold ``rate_main``, ``rate_control``,
    ``rate_baseline`` (each with ``*_error``), the success counts, ``baseline_warning``
    (``rate_baseline >= rate_main``: Anonymeter's "results cannot be trusted"), ``n_attacks``
    and ``aux_cols``. Lower is better.

    Parameters
    ----------
    aux_split : {"halves", "reference"}
        How the QI set Q becomes the attacker's two column sets. ``"halves"`` (default): A = the
        first ⌈|Q|/2⌉ QIs in schema (table) order, B = the rest. ``"reference"``: A = [Q₁],
        B = [Q₂] in the QI set's declared order — what the ε-PrivateSMOTE code effectively did
        by passing the flat QI list (its other QIs are ignored).
    n_attacks : int or None
        Target rows per attack; None means min(|T|, |H|). A larger value is capped at that
        bound (Anonymeter samples targets without replacement) and the cap is recorded.
    n_neighbors : int
        Neighbours per slice (``000_…`` uses 10).
    confidence_level : float
        Confidence level of the Wilson intervals, in (0, 1).
    n_jobs : int
        Anonymeter's neighbour-search threads (joblib convention, -1 = all cores). Default 1:
        the harness sets thread counts per trial.

    Notes
    -----
    * Determinism: Anonymeter draws targets with ``DataFrame.sample`` (numpy's legacy global
      RNG) and baseline links with an unseeded ``np.random.default_rng()``; the attack runs
      inside :func:`seeded_anonymeter` so the result is a function of ``seed``.
    * Row order: T, S and H are put in :func:`~harness.encoding.canonical_row_order` first, so
      the result depends on the tables' rows and the seed only (Anonymeter samples targets by
      position and breaks distance ties by position).
    * S and H are cast to T's dtypes; all columns are passed (only ``aux_cols`` enter the
      distance). Anonymeter scales numeric columns by their range over the two tables
      compared and label-encodes categoricals with NA as a category; a numeric NA scores a
      distance of 1 against NA and NaN (ranked last) against a number (library behaviour).
    * A QI set with fewer than 2 columns raises :class:`IncomputableMetricError`.
    """

    name: ClassVar[str] = "anonymeter_linkability"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    needs_qi: ClassVar[bool] = True
    needs_control: ClassVar[bool] = True

    def __init__(
        self,
        aux_split: str = "halves",
        n_attacks: int | None = None,
        n_neighbors: int = 1,
        confidence_level: float = 0.95,
        n_jobs: int = 1,
    ) -> None:
        self.aux_split = aux_split
        self.n_attacks = n_attacks
        self.n_neighbors = n_neighbors
        self.confidence_level = confidence_level
        self.n_jobs = n_jobs

    def _validate_params(self) -> None:
        check_choice("aux_split", self.aux_split, AUX_SPLITS)
        check_n_attacks(self.n_attacks)
        check_int("n_neighbors", self.n_neighbors, 1)
        check_confidence_level(self.confidence_level)
        check_n_jobs(self.n_jobs)

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> MetricResult:
        from anonymeter.evaluators import LinkabilityEvaluator

        assert control is not None  # needs_control: checked by BaseMetric.compute
        aux_cols = split_aux_columns(spec, self.aux_split)
        if self.n_neighbors > len(synthetic):
            raise IncomputableMetricError(
                f"metric anonymeter_linkability: n_neighbors={self.n_neighbors} exceeds the "
                f"{len(synthetic)} released rows"
            )
        bound = min(len(real), len(control))
        n_attacks = bound if self.n_attacks is None else min(self.n_attacks, bound)
        ori = canonical_row_order(real)
        syn = canonical_row_order(cast_like(synthetic, real))
        ctl = canonical_row_order(cast_like(control, real))

        enable_numba_cache()
        with seeded_anonymeter(seed), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Attack is as good or worse as baseline")
            evaluator = LinkabilityEvaluator(
                ori=ori,
                syn=syn,
                aux_cols=aux_cols,
                n_attacks=n_attacks,
                n_neighbors=self.n_neighbors,
                control=ctl,
            ).evaluate(n_jobs=self.n_jobs)
            results = evaluator.results(confidence_level=self.confidence_level)
        return risk_result(
            results,
            "metric anonymeter_linkability",
            n_attacks=int(n_attacks),
            n_attacks_requested=self.n_attacks,
            aux_cols=[list(aux_cols[0]), list(aux_cols[1])],
            aux_split=self.aux_split,
            n_neighbors=self.n_neighbors,
            confidence_level=self.confidence_level,
        )


# ---------------------------------------------------------------------- helpers
def split_aux_columns(spec: DatasetSpec, aux_split: str) -> tuple[list[str], list[str]]:
    """The attacker's two column sets (A, B) from the active QI set.

    Parameters
    ----------
    spec : DatasetSpec
        ``spec.qi`` is the active QI set.
    aux_split : {"halves", "reference"}
        See :class:`AnonymeterLinkability`.

    Raises
    ------
    IncomputableMetricError
        If the QI set has fewer than two columns.
    """
    qi = list(spec.qi)
    if len(qi) < 2:
        raise IncomputableMetricError(
            f"metric anonymeter_linkability needs a QI set of at least 2 columns; "
            f"QI set {spec.qi_set_name!r} of dataset {spec.name!r} has {len(qi)}"
        )
    if aux_split == "reference":
        return [qi[0]], [qi[1]]
    order = {name: pos for pos, name in enumerate(spec.table_columns)}
    ordered = sorted(qi, key=lambda c: order.get(c, len(order)))
    half = math.ceil(len(ordered) / 2)
    return ordered[:half], ordered[half:]
