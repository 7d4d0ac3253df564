"""``tcap``: Target Correct Attribution Probability of a release.

Specification: ``spec/metrics.md`` P11 (Little et al., *The Production of Bespoke Synthetic
Teaching Datasets Without Access to the Original Data*, §6.1; Kolb et al., *Synthetic Data:
Comparing Utility and Risk in Microdata and Tables*, §3.2; Taub et al. 2018).

An intruder knows the key values of a real person and looks them up in the release S. Only
key combinations k whose S records all share one target value t_k (WEAP = 1, l-diversity 1)
are used; every attacked real record with keys k is predicted t_k. TCAP is the share of
those predictions that are correct.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import Family, Goal, MetricResult
from harness.params import check_bool, check_choice, check_column_list
from harness.spec import DatasetSpec
from metrics.privacy.key_target import KeyTargetMetric

NONMATCH: tuple[str, ...] = ("undefined", "zero")
ATTACKED: tuple[str, ...] = ("train", "control")


@dataclass(frozen=True)
class TcapScore:
    """TCAP of one target against one attacked table.

    Attributes
    ----------
    tcap : float
        Correct predictions / matched records (``nonmatch="undefined"``) or / all attacked
        records (``"zero"``); 0 when nothing is matched (no attribution is possible).
    defined : bool
        False when no attacked record matched a kept key combination (``tcap`` is then 0).
    baseline : float
        B = Σ_j p_j², p_j the target's marginal proportions in the attacked table.
    tcap_calibrated : float
        (tcap − B)/(1 − B); 0 when B = 1 (a single target level: nothing to disclose).
    tcap_ratio : float
        Kept key combinations whose matched attacked records all have t_k, over all kept
        combinations (Kolb et al. Eq. 2); 0 when none is kept.
    n_attacked, n_matched, n_correct : int
        Attacked records, those matched to a kept combination, those predicted correctly.
    n_kept, n_kept_correct : int
        Key combinations with WEAP = 1 in S, and those counted in ``tcap_ratio``'s numerator.
    nonmatch : str
        The denominator convention used.
    """

    tcap: float
    defined: bool
    baseline: float
    tcap_calibrated: float
    tcap_ratio: float
    n_attacked: int
    n_matched: int
    n_correct: int
    n_kept: int
    n_kept_correct: int
    nonmatch: str

    def as_dict(self) -> dict[str, Any]:
        """The score as a JSON-serialisable dict."""
        return asdict(self)


def calibrate(tcap: float, baseline: float) -> float:
    """Scale TCAP against the marginal-guessing baseline: (tcap − B)/(1 − B).

    Parameters
    ----------
    tcap, baseline : float
        TCAP and B, both in [0, 1].

    Returns
    -------
    float
        In (−∞, 1]; 0 when B = 1.
    """
    if baseline >= 1.0:
        return 0.0
    return (tcap - baseline) / (1.0 - baseline)


def marginal_baseline(values: pd.Series) -> float:
    """B = Σ_j p_j² of a variable's marginal proportions (missing values form a level).

    Parameters
    ----------
    values : Series

    Returns
    -------
    float
    """
    p = values.value_counts(dropna=False, normalize=True).to_numpy(dtype=float)
    return float(np.sum(p**2))


def tcap_score(
    released: pd.DataFrame,
    attacked: pd.DataFrame,
    keys: Sequence[str],
    target: str,
    *,
    nonmatch: str = "undefined",
) -> TcapScore:
    """TCAP, its baseline, calibrated value and Kolb et al.'s TCAP ratio.

    Parameters
    ----------
    released : DataFrame
        The released table S.
    attacked : DataFrame
        The real table attacked: T, or the holdout H.
    keys : sequence of str
        Key columns known to the intruder.
    target : str
        The target column (not a key).
    nonmatch : {"undefined", "zero"}
        "undefined": TCAP is over matched records only (the reported variant); "zero":
        unmatched records count as wrong (denominator |A|).

    Returns
    -------
    TcapScore

    Notes
    -----
    Missing values are a level of their own in keys and target. Hash-based counting,
    O(|S| + |A|).
    """
    check_choice("nonmatch", nonmatch, NONMATCH)
    keys = list(keys)
    if not keys:
        raise ConfigError("`keys` must name at least one column")
    if target in keys:
        raise ConfigError(f"target {target!r} must not be one of the keys")
    absent = [c for c in [*keys, target] if c not in released.columns or c not in attacked.columns]
    if absent:
        raise ConfigError(f"column(s) {', '.join(absent)} absent from the released or attacked table")
    n_s, n_a = len(released), len(attacked)
    if n_s == 0 or n_a == 0:
        raise ValueError("the released and attacked tables must both have rows")
    cols = [*keys, target]
    pooled = pd.concat(
        [released[cols].reset_index(drop=True), attacked[cols].reset_index(drop=True)], ignore_index=True
    )
    k = pooled.groupby(keys, dropna=False, sort=False).ngroup().to_numpy(dtype=np.int64)
    n_k = int(k.max()) + 1
    t = _codes(pooled[target])
    k_s, k_a, t_s, t_a = k[:n_s], k[n_s:], t[:n_s], t[n_s:]

    # WEAP = 1 <=> exactly one distinct target level among the S records with keys k
    n_t = int(t.max()) + 1
    cells = np.unique(k_s * n_t + t_s)
    cell_k, cell_t = cells // n_t, cells % n_t
    n_levels = np.bincount(cell_k, minlength=n_k)
    kept = n_levels == 1
    predicted = np.full(n_k, -1, dtype=np.int64)
    single = kept[cell_k]
    predicted[cell_k[single]] = cell_t[single]

    matched = kept[k_a]
    correct = matched & (t_a == predicted[k_a])
    n_matched, n_correct = int(matched.sum()), int(correct.sum())
    if nonmatch == "zero":
        tcap, defined = n_correct / n_a, True
    else:
        defined = n_matched > 0
        tcap = n_correct / n_matched if defined else 0.0

    m_k = np.bincount(k_a[matched], minlength=n_k)
    c_k = np.bincount(k_a[correct], minlength=n_k)
    n_kept = int(kept.sum())
    n_kept_correct = int((kept & (m_k > 0) & (c_k == m_k)).sum())
    baseline = marginal_baseline(attacked[target])
    return TcapScore(
        tcap=float(tcap),
        defined=defined,
        baseline=baseline,
        tcap_calibrated=calibrate(float(tcap), baseline),
        tcap_ratio=n_kept_correct / n_kept if n_kept else 0.0,
        n_attacked=n_a,
        n_matched=n_matched,
        n_correct=n_correct,
        n_kept=n_kept,
        n_kept_correct=n_kept_correct,
        nonmatch=nonmatch,
    )


def _codes(values: pd.Series) -> np.ndarray:
    codes, uniques = pd.factorize(values)
    codes = np.asarray(codes, dtype=np.int64)
    codes[codes < 0] = len(uniques)  # missing values: a level of their own
    return codes


def multi_target_scores(
    released: pd.DataFrame,
    attacked: pd.DataFrame,
    columns: Sequence[str],
    *,
    nonmatch: str = "undefined",
) -> dict[str, TcapScore]:
    """TCAP with each of ``columns`` in turn as target and the others as keys.

    Parameters
    ----------
    released, attacked : DataFrame
    columns : sequence of str
        At least two columns.
    nonmatch : {"undefined", "zero"}

    Returns
    -------
    dict of str to TcapScore
        One score per column (its mean is the ``multi_target`` summary).
    """
    columns = list(dict.fromkeys(columns))
    if len(columns) < 2:
        raise ConfigError(f"multi-target TCAP needs at least two columns; got {columns!r}")
    return {
        c: tcap_score(released, attacked, [k for k in columns if k != c], c, nonmatch=nonmatch)
        for c in columns
    }


class Tcap(KeyTargetMetric):
    """Target Correct Attribution Probability (``spec/metrics.md`` P11). Lower is better.

    Outputs, per target t
    ---------------------
    ``tcap:<t>``
        TCAP in [0, 1]; ``baseline`` = B (marginal guessing in the attacked table).
    ``tcap_calibrated:<t>``
        (TCAP − B)/(1 − B), in (−∞, 1].
    ``tcap_ratio:<t>``
        Kolb et al.'s share of WEAP = 1 key combinations whose attacked records all carry the
        predicted value.
    ``multi_target``
        With ``multi_target: true``: mean TCAP over the keys and targets, each in turn the
        target with the others as keys (Little et al. Table 11); per-column values in details.

    Parameters
    ----------
    keys : list of str, optional
        Key columns; None = the active QI set.
    targets : list of str, optional
        Targets; None = the dataset's ``sensitive`` columns, or its target when it declares
        none (columns that are keys are skipped).
    nonmatch : {"undefined", "zero"}
        Denominator: matched records (reported variant) or every attacked record.
    attacked : {"train", "control"}
        The real table attacked: T (the data synthesised) or the holdout H ("Holdout → S"
        comparison). With ``train`` and a control split, the holdout TCAP is added to the
        details as ``tcap_control``.
    multi_target : bool
        Also report the ``multi_target`` mean.

    Notes
    -----
    **Decision:** when no attacked record matches a WEAP = 1 combination, TCAP
    (``nonmatch: undefined``) is reported as 0 with ``defined: false`` in the details: no
    attribution can be made, so nothing is disclosed (the metric never returns NaN).
    """

    name: ClassVar[str] = "tcap"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = -np.inf
    max_value: ClassVar[float] = 1.0

    def __init__(
        self,
        keys: list[str] | None = None,
        targets: list[str] | None = None,
        nonmatch: str = "undefined",
        attacked: str = "train",
        multi_target: bool = False,
    ) -> None:
        self.keys = keys
        self.targets = targets
        self.nonmatch = nonmatch
        self.attacked = attacked
        self.multi_target = multi_target

    def _validate_params(self) -> None:
        check_column_list("keys", self.keys)
        check_column_list("targets", self.targets)
        if self.keys is not None and len(set(self.keys)) != len(self.keys):
            raise ConfigError(f"`keys` must not repeat a column; got {self.keys!r}")
        check_choice("nonmatch", self.nonmatch, NONMATCH)
        check_choice("attacked", self.attacked, ATTACKED)
        check_bool("multi_target", self.multi_target)

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
        targets = self.target_columns(spec, keys)
        has_control = control is not None and len(control) > 0
        if self.attacked == "control":
            if not has_control:
                raise IncomputableMetricError(
                    f"metric {self.name} with attacked=control needs a control split"
                )
            assert control is not None
            table = control
        else:
            table = real
        out: dict[str, MetricResult] = {}
        for target in targets:
            score = tcap_score(synthetic, table, keys, target, nonmatch=self.nonmatch)
            details: dict[str, Any] = {"target": target, "keys": keys, "attacked": self.attacked}
            details.update(score.as_dict())
            if self.attacked == "train" and has_control:
                assert control is not None
                holdout = tcap_score(synthetic, control, keys, target, nonmatch=self.nonmatch)
                details["tcap_control"] = holdout.tcap
                details["tcap_control_defined"] = holdout.defined
            out[f"tcap:{target}"] = MetricResult(value=score.tcap, baseline=score.baseline, details=details)
            out[f"tcap_calibrated:{target}"] = MetricResult(
                value=score.tcap_calibrated,
                baseline=0.0,
                details={"target": target, "tcap": score.tcap, "baseline": score.baseline},
            )
            out[f"tcap_ratio:{target}"] = MetricResult(
                value=score.tcap_ratio,
                details={
                    "target": target,
                    "n_kept": score.n_kept,
                    "n_kept_correct": score.n_kept_correct,
                },
            )
        if self.multi_target:
            columns = list(dict.fromkeys([*keys, *targets]))
            scores = multi_target_scores(synthetic, table, columns, nonmatch=self.nonmatch)
            values = {c: s.tcap for c, s in scores.items()}
            out["multi_target"] = MetricResult(
                value=float(np.mean(list(values.values()))),
                baseline=float(np.mean([s.baseline for s in scores.values()])),
                details={"tcap": values, "baseline": {c: s.baseline for c, s in scores.items()}},
            )
        return out
