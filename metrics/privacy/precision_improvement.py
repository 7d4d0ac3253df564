"""``precision_improvement``: inference precision of a unique-QI-match attack over a statistical baseline.

Specification: ``spec/metrics.md`` P15 (``004_…`` *A Comparison of SynDiffix Multi-table Versus
Single-table Synthetic Data*, §4.1, Eq. 2 and Table 2; Francis & Wagner 2024, ref. [9] there).

The attacker knows the quasi-identifiers (QIs) of a real person, looks them up in the release
S and, when exactly one S record matches, reads every other column off that record (SDNIST's
"apparent match" attack). Its precision P_atk per column is set against P_base, the precision
of a model that predicts the column from the QIs of people it was not trained on:

    PI = (P_atk − P_base) / (1 − P_base).

PI ≤ 0 means no inference beyond the statistical baseline; the paper reads PI < 0.5 as anonymous.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import Family, Goal, MetricResult
from harness.params import check_choice, check_column_list, check_int
from harness.spec import DatasetSpec
from metrics.privacy.key_target import KeyTargetMetric

UNIQUE_IN: tuple[str, ...] = ("synthetic", "both")


@dataclass(frozen=True)
class AttackResult:
    """The unique-QI-match attack on every target column.

    Attributes
    ----------
    n_attacked : int
        Real records attacked (all of T).
    n_covered : int
        Those whose QI values match exactly one S record (and, with ``unique_in="both"``,
        are unique in T too): the attack's predictions.
    correct : dict of str to int
        Per target column, covered records whose value equals the matched S record's.
    """

    n_attacked: int
    n_covered: int
    correct: dict[str, int]

    @property
    def coverage(self) -> float:
        """Share of attacked records with a unique match (the paper's *cov*)."""
        return self.n_covered / self.n_attacked if self.n_attacked else 0.0

    def precision(self, column: str) -> float:
        """P_atk of ``column``: correct / covered (0 when nothing is covered)."""
        return self.correct[column] / self.n_covered if self.n_covered else 0.0


def value_codes(*frames: pd.Series) -> list[np.ndarray]:
    """Integer codes of one column in several tables, equal values (and NA = NA) sharing a code.

    Numbers compare as numbers (``40`` equals ``40.0``), everything else as text.
    """
    pooled = pd.concat([s.reset_index(drop=True) for s in frames], ignore_index=True)
    numeric = pd.to_numeric(pooled, errors="coerce")
    if numeric.notna().sum() == pooled.notna().sum():
        key: pd.Series = numeric
    else:
        key = pooled.astype(object).where(pooled.isna(), pooled.astype(str))
    codes = pd.factorize(key, use_na_sentinel=False)[0].astype(np.int64)
    bounds = np.cumsum([0, *(len(s) for s in frames)])
    return [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def unique_match_attack(
    released: pd.DataFrame,
    attacked: pd.DataFrame,
    keys: list[str],
    targets: list[str],
    *,
    unique_in: str = "synthetic",
) -> AttackResult:
    """Attack every record of ``attacked`` through its unique QI match in ``released``.

    Parameters
    ----------
    released : DataFrame
        The release S.
    attacked : DataFrame
        The real records whose QIs the attacker knows (T).
    keys : list of str
        The QI columns.
    targets : list of str
        The columns inferred from the matched record.
    unique_in : {"synthetic", "both"}
        ``"synthetic"`` (``spec/metrics.md`` P15): the QI combination occurs exactly once in
        S. ``"both"``: also exactly once in T (SDNIST's ``unique_matched_percents``).

    Returns
    -------
    AttackResult

    Notes
    -----
    Hash-based, O(|S| + |T|) per column; NA is a value of its own in QIs and targets.
    """
    n_s, n_t = len(released), len(attacked)
    key_codes = np.column_stack([np.concatenate(value_codes(released[k], attacked[k])) for k in keys])
    combo = pd.DataFrame(key_codes).groupby(list(range(len(keys))), sort=False).ngroup().to_numpy()
    k_s, k_t = combo[:n_s], combo[n_s:]
    n_k = int(combo.max()) + 1 if len(combo) else 0
    count_s = np.bincount(k_s, minlength=n_k)
    covered = count_s[k_t] == 1
    if unique_in == "both":
        covered &= np.bincount(k_t, minlength=n_k)[k_t] == 1
    s_row_of_key = np.full(n_k, -1, dtype=np.int64)
    s_row_of_key[k_s] = np.arange(n_s)
    matched_rows = s_row_of_key[k_t[covered]]
    correct = {}
    for column in targets:
        codes_s, codes_t = value_codes(released[column], attacked[column])
        correct[column] = int(np.count_nonzero(codes_t[covered] == codes_s[matched_rows]))
    return AttackResult(n_attacked=n_t, n_covered=int(covered.sum()), correct=correct)


def l1_logistic_regression(c: float, max_iter: int, seed: int) -> Any:
    """``LogisticRegression(penalty="l1", C=c, solver="saga", max_iter=max_iter)`` (paper §4.1).

    scikit-learn >= 1.8 spells the L1 penalty ``l1_ratio=1`` (``penalty`` is deprecated).
    """
    import sklearn
    from sklearn.linear_model import LogisticRegression

    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    penalty: dict[str, Any] = {"l1_ratio": 1.0} if (major, minor) >= (1, 8) else {"penalty": "l1"}
    return LogisticRegression(C=c, solver="saga", max_iter=max_iter, random_state=seed, **penalty)


def baseline_precision(
    real: pd.DataFrame,
    keys: list[str],
    target: str,
    *,
    train_fraction: float,
    c: float,
    max_iter: int,
    max_classes: int,
    seed: int,
) -> float:
    """P_base of ``target``: an L1 logistic regression on one-hot QIs, trained on part of T.

    ``train_fraction`` of T's rows (seeded permutation) train the model; it predicts
    ``target`` on the remaining rows, which it has never seen, so a correct prediction
    compromises nobody (paper §4.1). Returns the precision of those predictions (the model
    predicts every record: correct / predicted).

    Only the ``max_classes`` most frequent target values of the training part are learnt: the
    training rows with another value are left out, so the model predicts one of those values
    (an L1 model with C = 0.01 does not predict rare values anyway, and thousands of classes,
    e.g. an income in dollars, would make the fit needlessly slow). When one value is left,
    it is predicted for every record.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import OneHotEncoder

    n = len(real)
    order = np.random.default_rng(seed).permutation(n)
    n_fit = min(max(int(round(train_fraction * n)), 1), n - 1)
    fit_rows, eval_rows = order[:n_fit], order[n_fit:]
    labels = real[keys].astype(object).where(real[keys].notna(), "<NA>").astype(str)
    (y,) = value_codes(real[target])
    y_fit, y_eval = y[fit_rows], y[eval_rows]
    values, counts = np.unique(y_fit, return_counts=True)
    kept = np.isin(y_fit, values[np.argsort(-counts, kind="stable")[:max_classes]])
    fit_rows, y_fit = fit_rows[kept], y_fit[kept]
    if np.unique(y_fit).size == 1:
        predicted = np.full(len(eval_rows), y_fit[0])
    else:
        encoder = OneHotEncoder(handle_unknown="ignore")
        x_fit = encoder.fit_transform(labels.iloc[fit_rows])
        model = l1_logistic_regression(c, max_iter, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter = 100 is the paper's setting
            warnings.filterwarnings("ignore", message="The number of unique classes is greater than 50%")
            model.fit(x_fit, y_fit)
        predicted = model.predict(encoder.transform(labels.iloc[eval_rows]))
    return float(np.mean(predicted == y_eval))


def precision_improvement(p_atk: float, p_base: float) -> float:
    """PI = (P_atk − P_base)/(1 − P_base) (paper Eq. 2); 0 when P_base = 1 (nothing to infer)."""
    if p_base >= 1.0:
        return 0.0
    return (p_atk - p_base) / (1.0 - p_base)


@dataclass(frozen=True)
class ColumnScore:
    """Baseline, attack precision and PI of one target column."""

    p_base: float
    p_atk: float
    pi: float
    correct: int


class PrecisionImprovement(KeyTargetMetric):
    """Precision Improvement (PI) of a unique-QI-match inference attack (``spec/metrics.md`` P15).

    For every target column c (default: every column that is not a QI):

    1. P_base(c): :func:`baseline_precision` — an L1 logistic regression on one-hot QIs
       trained on ``train_fraction`` (0.7, **Decision** of the spec) of T predicts c on the
       other 30 %.
    2. P_atk(c): :func:`unique_match_attack` — every record of T whose QIs match exactly one
       record of S is predicted the value of that record; P_atk = correct / covered.
    3. PI(c) = (P_atk − P_base)/(1 − P_base).

    Outputs: ``pi_median`` and ``pi_max`` over the target columns (goal ``minimise``, range
    (−∞, 1]) and ``coverage`` = covered / |T| (the paper's *cov*; goal ``minimise``).
    ``details`` holds per-column P_base, P_atk and PI, the number of unique QI matches (the
    paper's QI-match *count*) and the settings.

    Parameters
    ----------
    keys : list of str or None
        QI columns; None = the active QI set (the paper: EDU, SEX, RAC1P, PUMA, OWN_RENT,
        INDP_CAT, HISP, MSP).
    targets : list of str or None
        Inferred columns; None = every column that is not a QI (the paper's 16).
    unique_in : {"synthetic", "both"}
        Where the QI combination must be unique: in S (the spec) or in S and T (SDNIST).
    train_fraction : float
        Share of T that trains the baseline model (0 < f < 1).
    c : float
        Inverse L1 regularisation strength of the baseline model (paper: 0.01).
    max_iter : int
        saga iterations of the baseline model (paper: 100).
    max_classes : int
        Most frequent target values the baseline model learns (training rows with another
        value are left out of its fit).

    Notes
    -----
    **Reference quirks kept** (``yoid2000/sdnist-summary`` ``gather.py``): a column whose
    P_base is 1 has PI 0, and when no record is covered every PI is 0 (no inference was
    made). Values are compared exactly (numbers as numbers, NA = NA), as SDNIST's matching.
    """

    name: ClassVar[str] = "precision_improvement"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = -np.inf
    max_value: ClassVar[float] = 1.0
    needs_qi: ClassVar[bool] = False  # explicit `keys` work without a QI set

    def __init__(
        self,
        keys: list[str] | None = None,
        targets: list[str] | None = None,
        unique_in: str = "synthetic",
        train_fraction: float = 0.7,
        c: float = 0.01,
        max_iter: int = 100,
        max_classes: int = 100,
    ) -> None:
        self.keys = keys
        self.targets = targets
        self.unique_in = unique_in
        self.train_fraction = train_fraction
        self.c = c
        self.max_iter = max_iter
        self.max_classes = max_classes

    def _validate_params(self) -> None:
        check_column_list("keys", self.keys)
        check_column_list("targets", self.targets)
        check_choice("unique_in", self.unique_in, UNIQUE_IN)
        fraction = self.train_fraction
        if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
            raise ConfigError(f"`train_fraction` must be a number in (0, 1); got {fraction!r}")
        if isinstance(self.c, bool) or not isinstance(self.c, (int, float)) or not 0 < self.c < np.inf:
            raise ConfigError(f"`c` must be a finite number > 0; got {self.c!r}")
        check_int("max_iter", self.max_iter, 1)
        check_int("max_classes", self.max_classes, 1)

    def _target_columns(self, spec: DatasetSpec, keys: list[str]) -> list[str]:
        if self.targets is not None:
            return self.target_columns(spec, keys)
        chosen = [c for c in spec.table_columns if c not in keys]
        if not chosen:
            raise IncomputableMetricError(f"metric {self.name}: every column of {spec.name!r} is a QI")
        return chosen

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        keys = self.key_columns(spec)
        targets = self._target_columns(spec, keys)
        if len(real) < 2:
            raise IncomputableMetricError(f"metric {self.name}: the baseline needs at least 2 training rows")
        attack = unique_match_attack(synthetic, real, keys, targets, unique_in=self.unique_in)
        scores: dict[str, ColumnScore] = {}
        for column in targets:
            p_base = baseline_precision(
                real,
                keys,
                column,
                train_fraction=float(self.train_fraction),
                c=float(self.c),
                max_iter=int(self.max_iter),
                max_classes=int(self.max_classes),
                seed=seed,
            )
            p_atk = attack.precision(column)
            pi = precision_improvement(p_atk, p_base) if attack.n_covered else 0.0
            scores[column] = ColumnScore(p_base, p_atk, pi, attack.correct[column])
        pis = np.array([s.pi for s in scores.values()])
        details: dict[str, Any] = {
            "keys": keys,
            "unique_in": self.unique_in,
            "n_attacked": attack.n_attacked,
            "qi_matches": attack.n_covered,
            "p_base_mean": float(np.mean([s.p_base for s in scores.values()])),
            "columns": {c: asdict(s) for c, s in scores.items()},
            "baseline_seed": seed,
        }
        return {
            "pi_median": MetricResult(value=float(np.median(pis)), details=details),
            "pi_max": MetricResult(value=float(np.max(pis)), details=details),
            "coverage": MetricResult(value=attack.coverage, details=details),
        }
