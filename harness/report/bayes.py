"""Win/draw/lose with a ROPE and Bayesian tests (``spec/metrics.md`` §3 U2, §6 S1 and S5).

``pct_diff`` and the ROPE outcome follow U2 (``000_…`` §4.1): δ = 100·(R_a − R_b)/|R_b|,
``win`` if δ > rope, ``draw`` if −rope ≤ δ ≤ rope, ``lose`` if δ < −rope (rope = 1 %).
**Decision:** a δ within 1e-9 of a ROPE boundary counts as on the boundary (a draw), so that
e.g. 0.99 against 1.00 — δ = −1.0000000000000009 in floating point — is the draw it is on
paper.

The Bayesian sign test (S1; Benavoli et al. 2017) is computed with ``baycomp.SignTest`` from
the *counts* of lose/draw/win (Dirichlet(n_lose, n_draw + prior, n_win) + 1e-4), seeded;
``mode="reference"`` instead reports the empirical proportions, which is what the ``000_…``
code (``bayesTest.py``) and its Fig. 5 show. The Bayesian signed-rank test (S5) wraps
``baycomp.SignedRankTest`` on block-level means.
"""

from __future__ import annotations

import math
from typing import Literal

import baycomp
import numpy as np
import numpy.typing as npt
import pandas as pd

from harness.errors import ConfigError
from harness.report.goals import oriented_scores

ROPE: float = 1.0
"""Half-width of the ROPE on pct_diff, in percent (``000_…`` §4.1)."""
PRIOR: float = 1.0
"""Prior strength put on the ROPE by the sign test (``baycomp`` default)."""
NSAMPLES: int = 50_000
OUTCOMES: tuple[str, str, str] = ("lose", "draw", "win")
BOUNDARY_TOL: float = 1e-9
Mode = Literal["baycomp", "reference"]


def pct_diff(value: npt.ArrayLike, baseline: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Percentage difference 100·(value − baseline)/|baseline| (U2), element-wise.

    Equals the paper's 100·(R_a − R_b)/R_b for positive baselines; the absolute value keeps
    "above the baseline" positive for a negative baseline (as ``metrics.utility.pct_diff``).

    Parameters
    ----------
    value : array-like of float
        R_a, the solution under comparison.
    baseline : array-like of float
        R_b, broadcast against ``value``.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        If a baseline is 0 (the percentage is undefined).
    """
    a, b = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(baseline, dtype=float))
    if np.any(b == 0):
        raise ValueError("pct_diff: a baseline value is 0, the percentage difference is undefined")
    return np.asarray(100.0 * (a - b) / np.abs(b), dtype=float)


def rope_outcome(delta: npt.ArrayLike, rope: float = ROPE, goal: str = "maximise") -> npt.NDArray[np.str_]:
    """Classify percentage differences as ``win``, ``draw`` or ``lose`` (U2).

    Parameters
    ----------
    delta : array-like of float
        :func:`pct_diff` values.
    rope : float
        ROPE half-width in percent.
    goal : {"maximise", "minimise"}
        For ``minimise`` (error scores) a difference below −rope is the win.

    Returns
    -------
    ndarray of str

    Raises
    ------
    ValueError
        If a difference is NaN, the rope is negative or the goal is not maximise/minimise.
    """
    signed = _signed(delta, goal)
    _check_rope(rope)
    if np.isnan(signed).any():
        raise ValueError("rope_outcome: a percentage difference is NaN")
    out = np.full(signed.shape, "draw", dtype=object)
    out[signed > rope + BOUNDARY_TOL] = "win"
    out[signed < -rope - BOUNDARY_TOL] = "lose"
    return out.astype(str)


def rope_counts(delta: npt.ArrayLike, rope: float = ROPE, goal: str = "maximise") -> tuple[int, int, int]:
    """Counts (n_lose, n_draw, n_win) of :func:`rope_outcome`."""
    outcomes = rope_outcome(delta, rope, goal)
    return int(np.sum(outcomes == "lose")), int(np.sum(outcomes == "draw")), int(np.sum(outcomes == "win"))


def win_draw_lose(
    scores: pd.DataFrame,
    baseline: str | pd.Series,
    goal: str = "maximise",
    *,
    rope: float = ROPE,
) -> pd.DataFrame:
    """Win/draw/lose counts of every treatment against a baseline, over blocks (U2).

    Parameters
    ----------
    scores : DataFrame
        A block matrix (rows = blocks, columns = treatments; :func:`harness.report.ranking.metric_blocks`).
        Blocks may be datasets or finer units (e.g. ``blocks=("dataset", "split_seed", "fold")``).
    baseline : str or Series
        The baseline treatment (a column, compared with every other column), or a baseline
        value per block (indexed like ``scores``; every column is compared with it).
    goal : {"maximise", "minimise"}
        Metric goal.
    rope : float
        ROPE half-width in percent.

    Returns
    -------
    DataFrame
        One row per compared treatment: ``treatment``, ``baseline`` (name, or ``""`` for a
        Series), ``n`` (blocks where both have a value), ``lose``, ``draw``, ``win``,
        ``mean_pct_diff``.

    Raises
    ------
    ConfigError
        If ``baseline`` names no column.
    ValueError
        If a baseline value is 0.
    """
    if isinstance(baseline, str):
        treatments = [str(c) for c in scores.columns]
        if baseline not in treatments:
            raise ConfigError(
                f"unknown baseline treatment {baseline!r}; expected one of: {', '.join(treatments)}"
            )
        reference = scores[baseline]
        others = [c for c in scores.columns if str(c) != baseline]
        name = baseline
    else:
        reference = baseline.reindex(scores.index)
        others = list(scores.columns)
        name = ""
    records = []
    for other in others:
        pair = pd.DataFrame({"x": scores[other], "b": reference}).dropna()
        delta = pct_diff(pair["x"].to_numpy(), pair["b"].to_numpy())
        n_lose, n_draw, n_win = rope_counts(delta, rope, goal)
        records.append(
            {
                "treatment": str(other),
                "baseline": name,
                "n": len(pair),
                "lose": n_lose,
                "draw": n_draw,
                "win": n_win,
                "mean_pct_diff": float(np.mean(delta)) if len(delta) else math.nan,
            }
        )
    return pd.DataFrame.from_records(
        records, columns=["treatment", "baseline", "n", "lose", "draw", "win", "mean_pct_diff"]
    )


def sign_test_counts(
    n_lose: int,
    n_draw: int,
    n_win: int,
    *,
    rope: float = ROPE,
    prior: float = PRIOR,
    mode: Mode = "baycomp",
    seed: int = 0,
    nsamples: int = NSAMPLES,
) -> dict[str, float]:
    """Bayesian sign test from lose/draw/win counts (S1 steps 4–6).

    ``mode="baycomp"``: ``baycomp.SignTest.probs(x, y, rope, prior=prior, random_state=seed)``
    with y − x a vector holding ``n_lose`` differences below −rope, ``n_draw`` zeros and
    ``n_win`` differences above rope — the posterior is Dirichlet(n_lose + 1e-4,
    n_draw + 1e-4 + prior, n_win + 1e-4), and P(outcome) is the share of posterior samples in
    which that component is the largest.
    ``mode="reference"``: the empirical proportions n_lose/n, n_draw/n, n_win/n (the
    ``000_…`` code's "proportion of probability"; **Reference quirk** of S1).

    Parameters
    ----------
    n_lose, n_draw, n_win : int
        Counts (non-negative; at least one positive).
    rope : float
        ROPE half-width (> 0): it only places the synthetic differences.
    prior : float
        Prior strength on the ROPE.
    mode : {"baycomp", "reference"}
    seed : int
        Seed of the posterior sampling.
    nsamples : int
        Posterior samples.

    Returns
    -------
    dict
        ``n``, ``n_lose``, ``n_draw``, ``n_win``, ``p_lose``, ``p_draw``, ``p_win``.

    Raises
    ------
    ConfigError
        For negative or all-zero counts, a non-positive rope, a negative prior or an unknown
        mode.
    """
    counts = (int(n_lose), int(n_draw), int(n_win))
    if min(counts) < 0 or sum(counts) == 0:
        raise ConfigError(f"sign test counts must be non-negative and not all zero; got {counts}")
    if not rope > 0:
        raise ConfigError(f"sign test `rope` must be positive; got {rope!r}")
    if prior < 0:
        raise ConfigError(f"sign test `prior` must be non-negative; got {prior!r}")
    n = sum(counts)
    base = {"n": n, "n_lose": counts[0], "n_draw": counts[1], "n_win": counts[2]}
    if mode == "reference":
        return {**base, "p_lose": counts[0] / n, "p_draw": counts[1] / n, "p_win": counts[2] / n}
    if mode != "baycomp":
        raise ConfigError(f"sign test `mode` must be 'baycomp' or 'reference'; got {mode!r}")
    step = 2.0 * rope
    diff = np.concatenate([np.full(counts[0], -step), np.zeros(counts[1]), np.full(counts[2], step)])
    probs = baycomp.SignTest.probs(np.zeros(n), diff, rope, prior=prior, nsamples=nsamples, random_state=seed)
    p_lose, p_draw, p_win = (float(p) for p in probs)
    return {**base, "p_lose": p_lose, "p_draw": p_draw, "p_win": p_win}


def bayes_sign_test(
    delta: npt.ArrayLike,
    *,
    rope: float = ROPE,
    prior: float = PRIOR,
    goal: str = "maximise",
    mode: Mode = "baycomp",
    seed: int = 0,
    nsamples: int = NSAMPLES,
) -> dict[str, float]:
    """Bayesian sign test of percentage differences against the ROPE (S1).

    Parameters
    ----------
    delta : array-like of float
        δ = pct_diff(solution, reference), e.g. a technique against the oracle per dataset.
    rope, prior, mode, seed, nsamples
        As in :func:`sign_test_counts`.
    goal : {"maximise", "minimise"}
        For ``minimise`` a negative δ is the win.

    Returns
    -------
    dict
        As :func:`sign_test_counts`.
    """
    n_lose, n_draw, n_win = rope_counts(delta, rope, goal)
    return sign_test_counts(
        n_lose, n_draw, n_win, rope=rope, prior=prior, mode=mode, seed=seed, nsamples=nsamples
    )


def bayes_sign_tests(
    deltas: pd.DataFrame,
    *,
    by: str = "technique",
    delta: str = "delta",
    rope: float = ROPE,
    prior: float = PRIOR,
    goal: str = "maximise",
    mode: Mode = "baycomp",
    seed: int = 0,
    nsamples: int = NSAMPLES,
) -> pd.DataFrame:
    """One Bayesian sign test per group of a long δ frame (Fig. 5 of ``000_…``).

    Parameters
    ----------
    deltas : DataFrame
        Long frame with a group column ``by`` and a δ column ``delta``, e.g. the output of
        :func:`harness.report.optimisation.oracle_deltas`. NaN δ are left out.
    by, delta : str
        Column names.
    rope, prior, goal, mode, seed, nsamples
        As in :func:`bayes_sign_test`; every group uses the same seed.

    Returns
    -------
    DataFrame
        One row per group (sorted): ``by``, ``n``, ``n_lose``, ``n_draw``, ``n_win``,
        ``p_lose``, ``p_draw``, ``p_win``, ``mode``.

    Raises
    ------
    ConfigError
        If a column is missing.
    """
    missing = [c for c in (by, delta) if c not in deltas.columns]
    if missing:
        raise ConfigError(f"bayes_sign_tests: column(s) {', '.join(missing)} not in the frame")
    records = []
    for group, rows in deltas.groupby(by, sort=True):
        values = pd.to_numeric(rows[delta], errors="coerce").dropna().to_numpy(dtype=float)
        if len(values) == 0:
            continue
        res = bayes_sign_test(
            values, rope=rope, prior=prior, goal=goal, mode=mode, seed=seed, nsamples=nsamples
        )
        records.append({by: group, **res, "mode": mode})
    columns = [by, "n", "n_lose", "n_draw", "n_win", "p_lose", "p_draw", "p_win", "mode"]
    return pd.DataFrame.from_records(records, columns=columns)


def bayes_signed_rank(
    scores: pd.DataFrame,
    control: str,
    goal: str = "maximise",
    target_value: float | None = None,
    *,
    rope: float = 0.0,
    prior: float = 0.5,
    seed: int = 0,
    nsamples: int = NSAMPLES,
) -> pd.DataFrame:
    """Bayesian signed-rank test of every treatment against a control on block-level means (S5).

    ``baycomp.SignedRankTest`` with x = the control's and y = the treatment's oriented
    scores (larger is better) over the blocks where both have a value; ``rope`` is in score
    units.

    Parameters
    ----------
    scores : DataFrame
        A block matrix.
    control : str
        The control treatment (column).
    goal, target_value
        Metric goal (scores are oriented so that a positive difference favours the treatment).
    rope : float
        ROPE half-width in the units of the score (0: no ROPE, ``p_draw`` is 0).
    prior : float
        Prior strength of the pseudo-observation at 0 (``baycomp`` default 0.5).
    seed, nsamples
        Posterior sampling.

    Returns
    -------
    DataFrame
        One row per other treatment: ``treatment``, ``control``, ``n``, ``p_lose`` (control
        better), ``p_draw``, ``p_win`` (treatment better).

    Raises
    ------
    ConfigError
        If ``control`` is not a column, or ``rope`` is negative.
    """
    treatments = [str(c) for c in scores.columns]
    if control not in treatments:
        raise ConfigError(f"unknown control treatment {control!r}; expected one of: {', '.join(treatments)}")
    if rope < 0:
        raise ConfigError(f"`rope` must be non-negative; got {rope!r}")
    oriented = pd.DataFrame(
        oriented_scores(scores.to_numpy(dtype=float), goal, target_value),
        index=scores.index,
        columns=scores.columns,
    )
    records = []
    for other in [c for c in scores.columns if str(c) != control]:
        pair = oriented[[control, other]].dropna()
        x, y = pair[control].to_numpy(dtype=float), pair[other].to_numpy(dtype=float)
        p_lose = p_draw = p_win = math.nan
        if len(pair) >= 2:
            probs = baycomp.SignedRankTest.probs(
                x, y, rope, prior=prior, nsamples=nsamples, random_state=seed
            )
            if rope > 0:
                p_lose, p_draw, p_win = (float(p) for p in probs)
            else:
                p_lose, p_win = (float(p) for p in probs)
                p_draw = 0.0
        records.append(
            {
                "treatment": str(other),
                "control": control,
                "n": len(pair),
                "p_lose": p_lose,
                "p_draw": p_draw,
                "p_win": p_win,
            }
        )
    return pd.DataFrame.from_records(
        records, columns=["treatment", "control", "n", "p_lose", "p_draw", "p_win"]
    )


def _signed(delta: npt.ArrayLike, goal: str) -> npt.NDArray[np.float64]:
    arr = np.asarray(delta, dtype=float)
    if goal == "maximise":
        return arr
    if goal == "minimise":
        return -arr
    raise ValueError(f"ROPE outcomes need goal maximise or minimise; got {goal!r}")


def _check_rope(rope: float) -> None:
    if not rope >= 0:
        raise ValueError(f"`rope` must be non-negative; got {rope!r}")
