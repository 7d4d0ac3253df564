"""``anonymeter_linkability``: Anonymeter's linkability attack, seeded and cached.

Specification: ``spec/metrics.md`` P1–P3 (Giomi et al. 2023, "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", Anonymeter 1.1.0). The seeding and caching
plumbing shared with the other Anonymeter metrics is in
:mod:`metrics.privacy.anonymeter_support`.

Presets (``experiments/metric/``; the file name is the metric name in results):
``anonymeter_linkability`` (``aux_split: qi_rest``, the default) and
``anonymeter_linkability_halves`` (``aux_split: halves``, the default before tracker issue
14). The ε-PrivateSMOTE authors' split (``aux_split: reference``, 10 neighbours) is set
explicitly by ``experiments/experiment/privatesmote_2024.yaml``; it is no registered preset
because it fails the metric contract: on the contract's Adult sample A = [age] and B = [sex]
link nothing, not even on the raw data.
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
    "applied_aux_split",
    "cast_like",
    "enable_numba_cache",
    "seeded_anonymeter",
    "split_aux_columns",
]

AUX_SPLITS: tuple[str, ...] = ("qi_rest", "halves", "reference")
MIN_REST_COLUMNS = 2
"""``qi_rest`` needs at least this many non-QI columns for B; with fewer it splits the QI set
and adds the leftover column to B (see :func:`split_aux_columns`)."""


class AnonymeterLinkability(BaseMetric):
    """Linkability risk of Anonymeter's ``LinkabilityEvaluator`` (``spec/metrics.md`` P1–P3).

    The attacker holds two vertical slices A and B of a real record, in two separate
    tables, and links them when their ``n_neighbors`` nearest rows of the release S, searched
    with A's and with B's columns (Anonymeter's Gower-like mixed-type distance), share a row.
    The main attack targets ``n_attacks`` rows of T, the control attack as many rows of the
    control split H, and a random-guess baseline draws neighbours at random.

    What the attacker knows (``aux_split``, default ``"qi_rest"``): A is an identified
    register of the quasi-identifiers (a voter roll, a census or commercial extract: a name
    next to age, sex, place, …), B is a de-identified record of the same people's other
    attributes (a leaked or shared extract: income, diagnosis, answers, the target). Both
    are realistic holdings and neither alone names anyone's sensitive values; the release is
    the bridge that puts a name on the B record. B keeps the target and the sensitive
    columns: the attacker who holds the sensitive record and wants to name it is the harm
    linkability measures (an attacker guessing a secret from Q alone is
    ``anonymeter_inference``), and dropping them leaves B empty or powerless on many tables
    (loan, COMPAS, the NIST ACS core, every table whose only non-QI column is the target).

    On the raw training table (the ``identity`` release) a target is linked when its QI
    combination is unique in T and its B part is too (ties go to the first row in canonical
    order), so the raw release's risk follows how identifying Q is: measured on the quick
    profile (4,000-row subsample, 300 attacks), 0.82 [0.78, 0.87] on Adult's default QI set
    (75 % of training records unique on Q; ``halves``: 0.03), 0.12 [0.08, 0.16] on Texas (five
    coarse QIs, 3 % unique), 0.23–0.99 on the other bundled tables but two, while independent
    marginals and new real records stay at or below 0.07. Tables whose records have many
    look-alikes on one side (``employee``: under 1 % unique on its non-QI columns;
    ``robin_hood_simulation``: four coarse columns) cannot be linked even from the raw data;
    ``anonymeter_singling_out`` and ``anonymeter_inference`` cover them.

    The headline value is the risk (r_main − r_control)/(1 − r_control) bound to [0, 1]
    (Wilson rates), with its confidence interval from ``risk().ci``; ``baseline`` is the
    random-guess success rate. ``details`` hold ``rate_main``, ``rate_control``,
    ``rate_baseline`` (each with ``*_error``), the success counts, ``baseline_warning``
    (``rate_baseline >= rate_main``: Anonymeter's "results cannot be trusted"), ``n_attacks``,
    ``aux_cols``, ``aux_split`` and ``aux_split_applied`` (differs from ``aux_split`` when
    ``qi_rest`` fell back, see below). Lower is better.

    Parameters
    ----------
    aux_split : {"qi_rest", "halves", "reference"}
        How the table's columns become the attacker's two column sets.

        ``"qi_rest"`` (default): A = the active QI set Q, B = every other column, both in
        table order. When Q leaves fewer than :data:`MIN_REST_COLUMNS` (2) other columns — Q
        covers the table, or the one column left is a class label or a replicate id, which
        cannot tell a record from the others — the QI set is split instead: A = the first
        max(1, ⌊|Q|/2⌋) QIs in table order, B = the other QIs and the leftover column
        (``aux_split_applied = "halves+rest"``; B takes the larger half because the leftover
        column adds little). A table of one column is incomputable.

        ``"halves"``: A = the first ⌈|Q|/2⌉ QIs in table order, B = the other QIs (the
        default before tracker issue 14; preset ``anonymeter_linkability_halves``). On
        Adult's default QI set B is race, sex and native-country, so B's nearest released row
        is an arbitrary pick among hundreds of ties and even the raw data scores ≈ 0.03.

        ``"reference"``: A = [Q₁], B = [Q₂] in the QI set's declared order — what the
        ε-PrivateSMOTE code effectively did by passing the flat QI list (its other QIs are
        ignored; set by the ``privatesmote_2024`` experiment, no preset: see the module
        docstring).
    n_attacks : int or None
        Target rows per attack; None means min(|T|, |H|) (Anonymeter's default is 500). A
        larger value is capped at that bound (Anonymeter samples targets without
        replacement) and the cap is recorded.
    n_neighbors : int
        Neighbours per slice (Anonymeter's default 1; ``000_…`` uses 10).
    confidence_level : float
        Confidence level of the Wilson intervals, in (0, 1).
    n_jobs : int
        Anonymeter's neighbour-search threads (joblib convention, -1 = all cores). Default 1:
        the harness sets thread counts per trial.

    Notes
    -----
    * Anonymeter has no default for ``aux_cols``. ``qi_rest`` follows the split of its
      example notebook (``anonymeter_example.ipynb``, Adult): demographics (race, sex,
      fnlwgt, age, country) on one side, the record's other attributes (workclass,
      education, hours per week, capital gain and loss) on the other; ``qi_rest`` takes the
      dataset's declared QI set as the demographic side and every other column as the other.
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
    * ``halves`` and ``reference`` raise :class:`IncomputableMetricError` for a QI set of
      fewer than 2 columns; every split raises it without a QI set.
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
        aux_split: str = "qi_rest",
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

    def warm_up(self) -> None:
        """Import Anonymeter (numba, polars) before the clock starts: not billed to ``metric_s``."""
        enable_numba_cache()

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
            aux_split_applied=applied_aux_split(spec, self.aux_split),
            n_neighbors=self.n_neighbors,
            confidence_level=self.confidence_level,
        )


# ---------------------------------------------------------------------- helpers
def split_aux_columns(spec: DatasetSpec, aux_split: str) -> tuple[list[str], list[str]]:
    """The attacker's two column sets (A, B) for the active QI set.

    Parameters
    ----------
    spec : DatasetSpec
        ``spec.qi`` is the active QI set; ``spec.table_columns`` the table's columns.
    aux_split : {"qi_rest", "halves", "reference"}
        See :class:`AnonymeterLinkability`.

    Returns
    -------
    tuple of two lists of str
        A and B, disjoint, in table order (``reference``: the QI set's declared order).

    Raises
    ------
    IncomputableMetricError
        Without a QI set; for ``halves`` and ``reference`` with a QI set of fewer than two
        columns; for ``qi_rest`` on a one-column table.
    """
    qi = list(spec.qi)
    what = f"QI set {spec.qi_set_name!r} of dataset {spec.name!r}"
    if not qi:
        raise IncomputableMetricError(
            f"metric anonymeter_linkability needs a QI set; dataset {spec.name!r} has none"
        )
    order = {name: pos for pos, name in enumerate(spec.table_columns)}
    ordered = sorted(qi, key=lambda c: order.get(c, len(order)))
    if aux_split == "qi_rest":
        known = set(qi)
        rest = [c for c in spec.table_columns if c not in known]
        if len(rest) >= MIN_REST_COLUMNS:
            return ordered, rest
        if len(ordered) + len(rest) < 2:
            raise IncomputableMetricError(
                f"metric anonymeter_linkability (aux_split=qi_rest) needs at least 2 columns; {what} "
                f"leaves {len(ordered) + len(rest)}"
            )
        # B gets the larger half of Q: the leftover column (a label, an id) adds little to it.
        half = max(1, len(ordered) // 2)
        return ordered[:half], ordered[half:] + rest
    if len(qi) < 2:
        raise IncomputableMetricError(
            f"metric anonymeter_linkability (aux_split={aux_split}) needs a QI set of at least 2 "
            f"columns; {what} has {len(qi)}"
        )
    if aux_split == "reference":
        return [qi[0]], [qi[1]]
    half = math.ceil(len(ordered) / 2)
    return ordered[:half], ordered[half:]


def applied_aux_split(spec: DatasetSpec, aux_split: str) -> str:
    """``aux_split``, or ``"halves+rest"`` where ``qi_rest`` falls back (too few non-QI columns)."""
    if aux_split != "qi_rest":
        return aux_split
    known = set(spec.qi)
    rest = [c for c in spec.table_columns if c not in known]
    return "qi_rest" if len(rest) >= MIN_REST_COLUMNS else "halves+rest"
