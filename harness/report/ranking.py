"""Rank-based comparison statistics: Friedman, Nemenyi CD, Wilcoxon–Holm (``spec/metrics.md`` §6 S2–S4).

Every statistic works on a *block matrix*: a DataFrame with one row per block (a dataset by
default, or any declared block) and one column per treatment (a generator variant), holding
the block-level mean score (**Decision** of S2: several runs of a cell are averaged before
ranking). :func:`metric_blocks` builds it from the long results table; :func:`block_matrix`
from any long frame (e.g. the per-unit trade-off scores of :mod:`harness.report.tradeoff`).

Ranks respect the metric goal (rank 1 = best; ties get the average rank). Blocks in which a
treatment has no value are left out of the Friedman test and the CD diagram and counted in
the result (never dropped silently); the pairwise Wilcoxon tests use every block where both
treatments have a value and report that number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from harness.errors import ConfigError
from harness.report.goals import has_direction, oriented_scores
from harness.report.prepare import prepare

DEFAULT_ALPHA: float = 0.05
EXACT_MAX_N: int = 25
"""The exact Wilcoxon distribution is used up to this many non-zero differences without ties (S3)."""


def select_metric(results: pd.DataFrame, metric: str, variant: str | None = None) -> pd.DataFrame:
    """The prepared rows of one (metric, variant) pair.

    Parameters
    ----------
    results : DataFrame
        The long results table (``harness.schema.RESULT_COLUMNS``), or the output of
        :func:`harness.report.prepare.prepare` (used as is, to prepare a table once).
    metric : str
        The ``metric`` column value.
    variant : str, optional
        The ``variant`` column value. None selects the metric's only variant (an error when
        it has several).

    Returns
    -------
    DataFrame
        The rows of :func:`harness.report.prepare.prepare` for the pair, every status.

    Raises
    ------
    ConfigError
        If the metric or variant does not occur in ``results``, or ``variant`` is None and the
        metric has several variants.
    """
    frame = results if _is_prepared(results) else prepare(results)
    rows = frame[frame["metric"] == metric]
    if rows.empty:
        present = ", ".join(sorted(set(frame["metric"]) - {""})) or "(none)"
        raise ConfigError(f"metric {metric!r} is not in the results; metrics present: {present}")
    variants = sorted(set(rows["variant"]))
    if variant is None:
        if len(variants) != 1:
            raise ConfigError(f"metric {metric!r} has several variants; name one of: {', '.join(variants)}")
        variant = variants[0]
    rows = rows[rows["variant"] == variant]
    if rows.empty:
        raise ConfigError(
            f"metric {metric!r} has no variant {variant!r} in the results; variants present: {', '.join(variants)}"
        )
    return rows


def metric_goal(results: pd.DataFrame, metric: str, variant: str | None = None) -> tuple[str, float | None]:
    """The goal and target value of a (metric, variant) pair, from its ok rows where there are any.

    Returns
    -------
    (goal, target_value)
        ``target_value`` is None unless the goal is ``target``.

    Raises
    ------
    ConfigError
        As :func:`select_metric`.
    """
    return rows_goal(select_metric(results, metric, variant))


def rows_goal(rows: pd.DataFrame) -> tuple[str, float | None]:
    """The goal and target value of prepared rows of one (metric, variant), from ok rows first."""
    rows = rows.sort_values("status", key=lambda s: s != "ok", kind="stable")
    goals = [g for g in rows["goal"] if g]
    goal = goals[0] if goals else "none"
    targets = rows["target_value"].dropna()
    target = float(targets.iloc[0]) if goal == "target" and len(targets) else None
    return goal, target


def block_matrix(
    frame: pd.DataFrame,
    *,
    value: str = "value",
    treatment: str = "label",
    blocks: Sequence[str] = ("dataset",),
) -> pd.DataFrame:
    """Block-level means of a long frame: rows = blocks, columns = treatments.

    Parameters
    ----------
    frame : DataFrame
        A long frame with the ``blocks`` columns, the ``treatment`` column and the ``value``
        column. Non-finite values are ignored.
    value, treatment : str
        Column names of the score and of the treatment.
    blocks : sequence of str
        Columns whose combinations are the blocks.

    Returns
    -------
    DataFrame
        Mean score per (block, treatment); NaN where a treatment has no finite value in a
        block. The index is the block (a MultiIndex for several block columns); columns and
        rows are sorted.

    Raises
    ------
    ConfigError
        If a named column is missing.
    """
    blocks = list(blocks)
    if not blocks:
        raise ConfigError("block_matrix: `blocks` must name at least one column")
    missing = [c for c in [*blocks, treatment, value] if c not in frame.columns]
    if missing:
        raise ConfigError(f"block_matrix: column(s) {', '.join(missing)} not in the frame")
    values = pd.to_numeric(frame[value], errors="coerce").astype(float)
    keep = np.isfinite(values)
    data = frame.loc[keep, [*blocks, treatment]].assign(_value=values[keep])
    data[treatment] = data[treatment].astype(str)
    means = data.groupby([*blocks, treatment], sort=True)["_value"].mean()
    wide = means.unstack(treatment)
    wide.columns = pd.Index([str(c) for c in wide.columns], name=treatment)
    return wide.sort_index().sort_index(axis=1).astype(float)


def metric_blocks(
    results: pd.DataFrame,
    metric: str,
    variant: str | None = None,
    *,
    treatment: str = "label",
    blocks: Sequence[str] = ("dataset",),
) -> pd.DataFrame:
    """Block matrix of one (metric, variant) pair of the results table (ok rows only).

    Parameters
    ----------
    results : DataFrame
        The long results table.
    metric, variant
        As in :func:`select_metric`.
    treatment : str
        ``label`` (generator variant, default) or ``generator`` (technique), or any column of
        the prepared table.
    blocks : sequence of str
        Block columns (default: datasets).

    Returns
    -------
    DataFrame
        As :func:`block_matrix`.

    Raises
    ------
    ConfigError
        If the pair is not in the results or has no ok finite value.
    """
    rows = select_metric(results, metric, variant)
    ok = rows[(rows["status"] == "ok") & np.isfinite(rows["value"])]
    if ok.empty:
        raise ConfigError(
            f"metric {metric!r} variant {rows['variant'].iloc[0]!r} has no ok value in the results"
        )
    return block_matrix(ok, value="value", treatment=treatment, blocks=blocks)


def rank_matrix(
    scores: pd.DataFrame, goal: str = "maximise", target_value: float | None = None
) -> pd.DataFrame:
    """Ranks of the treatments within each block (1 = best; ties get the average rank).

    Parameters
    ----------
    scores : DataFrame
        A block matrix (rows = blocks, columns = treatments).
    goal : {"maximise", "minimise", "target"}
        The metric goal; ``target`` needs ``target_value``.
    target_value : float, optional

    Returns
    -------
    DataFrame
        Same shape; NaN scores get NaN ranks and the others are ranked among themselves.

    Raises
    ------
    ConfigError
        If the goal has no direction.
    """
    oriented = _oriented(scores, goal, target_value)
    ranks = (-oriented).rank(axis=1, method="average", na_option="keep")
    return ranks.astype(float)


@dataclass(frozen=True)
class FriedmanResult:
    """Mean ranks and Friedman test (Table 2 of ``002_…``).

    Attributes
    ----------
    ranks : DataFrame
        One row per treatment, best mean rank first: ``treatment``, ``mean_rank``, ``sd_rank``
        (ddof = 1 over blocks), ``n_blocks``.
    statistic, pvalue : float
        ``scipy.stats.friedmanchisquare`` (NaN when every block is all ties).
    alpha : float
    significant : bool
        ``pvalue < alpha``.
    n_blocks : int
        Complete blocks used.
    dropped_blocks : list of str
        Blocks left out because a treatment had no value there.
    """

    ranks: pd.DataFrame
    statistic: float
    pvalue: float
    alpha: float
    significant: bool
    n_blocks: int
    dropped_blocks: list[str] = field(default_factory=list)


def friedman(
    scores: pd.DataFrame,
    goal: str = "maximise",
    target_value: float | None = None,
    *,
    alpha: float = DEFAULT_ALPHA,
) -> FriedmanResult:
    """Friedman test over blocks with the mean rank ± sd of every treatment (S2).

    Parameters
    ----------
    scores : DataFrame
        A block matrix (:func:`metric_blocks`, :func:`block_matrix`).
    goal, target_value
        The metric goal (rank 1 = best).
    alpha : float
        Significance level.

    Returns
    -------
    FriedmanResult

    Raises
    ------
    ConfigError
        If there are fewer than 3 treatments or fewer than 2 complete blocks, or the goal
        has no direction.
    """
    _check_alpha(alpha)
    complete, dropped = _complete_blocks(scores)
    k = complete.shape[1]
    if k < 3:
        raise ConfigError(f"friedman needs at least 3 treatments; got {k}")
    if len(complete) < 2:
        raise ConfigError(f"friedman needs at least 2 complete blocks; got {len(complete)}")
    ranks = rank_matrix(complete, goal, target_value)
    table = _rank_table(ranks)
    oriented = _oriented(complete, goal, target_value)
    if (oriented.nunique(axis=1) <= 1).all():
        statistic, pvalue = math.nan, math.nan
    else:
        res = stats.friedmanchisquare(*[oriented[c].to_numpy() for c in oriented.columns])
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    return FriedmanResult(
        ranks=table,
        statistic=statistic,
        pvalue=pvalue,
        alpha=alpha,
        significant=bool(pvalue < alpha) if math.isfinite(pvalue) else False,
        n_blocks=len(complete),
        dropped_blocks=dropped,
    )


def nemenyi_q(k: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Critical value q_α of the Nemenyi test for ``k`` treatments (Demšar 2006, Table 5a).

    q_α = studentized range quantile (1 − α; k groups; ∞ degrees of freedom) / √2.

    Raises
    ------
    ConfigError
        If ``k < 2`` or ``alpha`` is not in (0, 1).
    """
    _check_alpha(alpha)
    if k < 2:
        raise ConfigError(f"nemenyi_q needs at least 2 treatments; got {k}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def critical_difference(k: int, n_blocks: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Nemenyi critical difference CD = q_α·√(k(k + 1)/(6N)) (S4).

    Raises
    ------
    ConfigError
        If ``k < 2`` or ``n_blocks < 1``.
    """
    if n_blocks < 1:
        raise ConfigError(f"critical_difference needs at least 1 block; got {n_blocks}")
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n_blocks))


@dataclass(frozen=True)
class CDResult:
    """Critical-difference diagram data (S4).

    Attributes
    ----------
    ranks : DataFrame
        ``treatment``, ``mean_rank``, ``sd_rank``, ``n_blocks``; best first.
    cd : float
        Nemenyi critical difference.
    q_alpha : float
    alpha : float
    n_blocks : int
    cliques : list of tuple of str
        Maximal groups of treatments, consecutive in mean rank, whose mean ranks differ by
        less than ``cd`` (not significantly different); groups of one are left out.
    friedman : FriedmanResult
        The omnibus test the diagram should follow (significant or not).
    """

    ranks: pd.DataFrame
    cd: float
    q_alpha: float
    alpha: float
    n_blocks: int
    cliques: list[tuple[str, ...]]
    friedman: FriedmanResult


def cd_diagram(
    scores: pd.DataFrame,
    goal: str = "maximise",
    target_value: float | None = None,
    *,
    alpha: float = DEFAULT_ALPHA,
) -> CDResult:
    """Nemenyi critical difference and cliques after a Friedman test (S4).

    Two treatments differ significantly when their mean ranks differ by at least the CD
    (Demšar 2006). The Friedman result is included: by convention the diagram is only
    interpreted when it is significant.

    Parameters
    ----------
    scores : DataFrame
        A block matrix; incomplete blocks are left out.
    goal, target_value, alpha
        As in :func:`friedman`.

    Returns
    -------
    CDResult

    Raises
    ------
    ConfigError
        As :func:`friedman`.
    """
    omnibus = friedman(scores, goal, target_value, alpha=alpha)
    table = omnibus.ranks
    k, n = len(table), omnibus.n_blocks
    q = nemenyi_q(k, alpha)
    cd = q * math.sqrt(k * (k + 1) / (6.0 * n))
    return CDResult(
        ranks=table,
        cd=cd,
        q_alpha=q,
        alpha=alpha,
        n_blocks=n,
        cliques=cliques(table.set_index("treatment")["mean_rank"], cd),
        friedman=omnibus,
    )


def cliques(mean_ranks: pd.Series, cd: float) -> list[tuple[str, ...]]:
    """Maximal runs of treatments (sorted by mean rank) whose rank range is below ``cd``.

    Parameters
    ----------
    mean_ranks : Series
        Mean rank by treatment.
    cd : float
        Critical difference.

    Returns
    -------
    list of tuple of str
        Each clique in rank order, best clique first; runs of one treatment and runs inside
        another run are left out.
    """
    ordered = mean_ranks.sort_values(kind="stable")
    names = [str(n) for n in ordered.index]
    values = ordered.to_numpy(dtype=float)
    runs: list[tuple[int, int]] = []
    for start in range(len(values)):
        end = start
        while end + 1 < len(values) and values[end + 1] - values[start] < cd:
            end += 1
        if end > start and not any(s <= start and end <= e for s, e in runs):
            runs.append((start, end))
    return [tuple(names[s : e + 1]) for s, e in runs]


def wilcoxon_holm(
    scores: pd.DataFrame,
    control: str,
    goal: str = "maximise",
    target_value: float | None = None,
    *,
    alpha: float = DEFAULT_ALPHA,
) -> pd.DataFrame:
    """Two-sided Wilcoxon signed-rank tests of a control against every other treatment, Holm-adjusted (S3).

    The paired samples are the block-level means of the blocks where both treatments have a
    value. ``scipy.stats.wilcoxon`` with ``method="exact"`` when there are at most
    :data:`EXACT_MAX_N` non-zero differences and no ties among their absolute values,
    otherwise ``"asymptotic"``; zero differences are dropped (``zero_method="wilcox"``).
    When every difference is zero the p-value is 1. The Holm adjustment
    (``statsmodels`` ``multipletests(method="holm")``) is over the comparisons that have a
    p-value.

    Parameters
    ----------
    scores : DataFrame
        A block matrix.
    control : str
        The treatment (column) everything is compared with.
    goal, target_value
        The metric goal; only used for ``better`` (the test is two-sided).
    alpha : float
        Significance level of the adjusted p-values.

    Returns
    -------
    DataFrame
        One row per other treatment (in column order): ``treatment``, ``control``, ``n``
        (paired blocks), ``mean``, ``sd`` (of the treatment's block means), ``control_mean``,
        ``statistic``, ``method``, ``p_value``, ``p_holm``, ``significant`` and ``better``
        (``control``, ``treatment`` or ``tie``: which has the better mean oriented score over
        the paired blocks).

    Raises
    ------
    ConfigError
        If ``control`` is not a column, or there is no other treatment.
    """
    _check_alpha(alpha)
    treatments = [str(c) for c in scores.columns]
    if control not in treatments:
        raise ConfigError(f"unknown control treatment {control!r}; expected one of: {', '.join(treatments)}")
    others = [t for t in treatments if t != control]
    if not others:
        raise ConfigError("wilcoxon_holm needs at least one treatment besides the control")
    oriented = _oriented(scores, goal, target_value) if has_direction(goal, target_value) else None
    records = []
    for other in others:
        pair = scores[[control, other]].dropna()
        x, y = pair[other].to_numpy(dtype=float), pair[control].to_numpy(dtype=float)
        statistic, pvalue, method = _wilcoxon(x, y)
        better = ""
        if oriented is not None and len(pair):
            o = oriented.loc[pair.index]
            gap = float(o[other].mean() - o[control].mean())
            better = "treatment" if gap > 0 else "control" if gap < 0 else "tie"
        records.append(
            {
                "treatment": other,
                "control": control,
                "n": len(pair),
                "mean": float(np.mean(x)) if len(x) else math.nan,
                "sd": float(np.std(x, ddof=1)) if len(x) > 1 else math.nan,
                "control_mean": float(np.mean(y)) if len(y) else math.nan,
                "statistic": statistic,
                "method": method,
                "p_value": pvalue,
                "better": better,
            }
        )
    table = pd.DataFrame.from_records(records)
    table["p_holm"] = holm(table["p_value"].to_numpy(dtype=float))
    table["significant"] = table["p_holm"] < alpha
    columns = [
        "treatment",
        "control",
        "n",
        "mean",
        "sd",
        "control_mean",
        "statistic",
        "method",
        "p_value",
        "p_holm",
        "significant",
        "better",
    ]
    return table[columns]


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values; NaN entries stay NaN and are not counted as comparisons."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        out[finite] = multipletests(p[finite], method="holm")[1]
    return out


def _wilcoxon(x: np.ndarray, y: np.ndarray) -> tuple[float, float, str]:
    if len(x) == 0:
        return math.nan, math.nan, ""
    diff = x - y
    nonzero = diff[diff != 0]
    if len(nonzero) == 0:
        return math.nan, 1.0, "all_zero"
    abs_d = np.abs(nonzero)
    exact = len(nonzero) <= EXACT_MAX_N and len(np.unique(abs_d)) == len(abs_d)
    method = "exact" if exact else "asymptotic"
    res = stats.wilcoxon(x, y, zero_method="wilcox", alternative="two-sided", method=method)
    return float(res.statistic), float(res.pvalue), method


def _oriented(scores: pd.DataFrame, goal: str, target_value: float | None) -> pd.DataFrame:
    if not has_direction(goal, target_value):
        raise ConfigError(
            f"ranking needs a goal of maximise, minimise or target with a target value; got {goal!r}"
        )
    values = oriented_scores(scores.to_numpy(dtype=float), goal, target_value)
    return pd.DataFrame(values, index=scores.index, columns=scores.columns)


def _complete_blocks(scores: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    mask = scores.notna().all(axis=1)
    dropped = [_block_name(b) for b in scores.index[~mask]]
    return scores[mask], dropped


def _is_prepared(frame: pd.DataFrame) -> bool:
    return all(c in frame.columns for c in ("label", "column", "trial_id", "trial_status"))


def _block_name(block: object) -> str:
    if isinstance(block, tuple):
        return "/".join(str(b) for b in block)
    return str(block)


def _rank_table(ranks: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(
        {
            "treatment": [str(c) for c in ranks.columns],
            "mean_rank": ranks.mean(axis=0).to_numpy(dtype=float),
            "sd_rank": ranks.std(axis=0, ddof=1).to_numpy(dtype=float),
            "n_blocks": ranks.notna().sum(axis=0).to_numpy(dtype=int),
        }
    )
    return table.sort_values(["mean_rank", "treatment"], kind="stable").reset_index(drop=True)


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"`alpha` must be in (0, 1); got {alpha!r}")
