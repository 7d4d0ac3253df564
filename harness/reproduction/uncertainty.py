"""How sure a reproduction claim is: intervals from the run's own replication.

A claim's verdict (:mod:`harness.reproduction.verdict`) is decided by the ``uncertainty`` its
check records, never by a point estimate alone: an ordering of means whose difference lies
inside the spread of its blocks or seeds is *inconclusive*, not reproduced
(``spec/reproductions.md`` §0.1b). The helpers here turn the run's replicated values into that
record::

    {"method": "paired bootstrap over 6 datasets, 95 %", "n": 6,
     "intervals": [{"name": "UMAP-SMOTENC − TVAE", "estimate": 0.03, "low": -0.01, "high": 0.06}]}

``intervals`` hold *effects in the direction the paper states* for orderings and trends (a
positive interval supports the claim, a negative one contradicts it) and *estimates* for
tolerance claims (compared with the band of the check's ``expected``). A statistical test can
decide instead (``decision``: ``holds``, ``opposite`` or ``undecided``), e.g. a Bayesian sign
test's posterior or a Wilcoxon test. The bootstrap resamples blocks (datasets, QI sets, seeds:
whatever the run replicates) with a fixed seed, so a report regenerated from the same rows
gives the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

LEVEL = 0.95
N_BOOT = 4000
SEED = 20261128
DECISIONS: tuple[str, ...] = ("holds", "opposite", "undecided")
DETERMINISTIC: dict[str, Any] = {
    "method": "deterministic (a function of the data and formulas: no noise)",
    "deterministic": True,
}


def interval(name: str, estimate: float, low: float, high: float) -> dict[str, Any]:
    """One interval entry (``name``, ``estimate``, ``low``, ``high``)."""
    return {"name": name, "estimate": float(estimate), "low": float(low), "high": float(high)}


def record(
    method: str, intervals: Sequence[Mapping[str, Any]] = (), *, n: int | None = None, **extra: Any
) -> dict[str, Any]:
    """An ``uncertainty`` record: the method in words, the intervals and the replication ``n``."""
    out: dict[str, Any] = {"method": method, "intervals": [dict(i) for i in intervals]}
    if n is not None:
        out["n"] = int(n)
    out.update(extra)
    return out


def decided_by_test(method: str, decision: str, *, n: int | None = None, **extra: Any) -> dict[str, Any]:
    """An ``uncertainty`` record decided by a statistical test (``holds``/``opposite``/``undecided``)."""
    if decision not in DECISIONS:
        raise ValueError(f"decision must be one of {', '.join(DECISIONS)}; got {decision!r}")
    return record(method, (), n=n, decision=decision, **extra)


def _clean(values: Any) -> np.ndarray:
    array = np.asarray(pd.Series(values, dtype=float).dropna(), dtype=float)
    return array[np.isfinite(array)]


def _percentiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_mean(
    values: Any, name: str = "mean", *, level: float = LEVEL, seed: int = SEED, n_boot: int = N_BOOT
) -> dict[str, Any] | None:
    """Percentile bootstrap interval of the mean of ``values`` (None with fewer than 2 finite values)."""
    data = _clean(values)
    if len(data) < 2:
        return None
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(n_boot, len(data)))].mean(axis=1)
    return interval(name, data.mean(), *_percentiles(means, level))


def paired_difference(
    a: pd.Series, b: pd.Series, name: str, *, level: float = LEVEL, seed: int = SEED, n_boot: int = N_BOOT
) -> dict[str, Any] | None:
    """Interval of mean(``a`` − ``b``) over the blocks both have (the Series' index; None with < 2)."""
    joined = pd.concat([pd.Series(a, dtype=float), pd.Series(b, dtype=float)], axis=1, join="inner").dropna()
    if len(joined) < 2:
        return None
    return bootstrap_mean(joined.iloc[:, 0] - joined.iloc[:, 1], name, level=level, seed=seed, n_boot=n_boot)


def two_sample_difference(
    a: Any, b: Any, name: str, *, level: float = LEVEL, seed: int = SEED, n_boot: int = N_BOOT
) -> dict[str, Any] | None:
    """Interval of mean(``a``) − mean(``b``) from independent resamples (None unless both have ≥ 2)."""
    x, y = _clean(a), _clean(b)
    if len(x) < 2 or len(y) < 2:
        return None
    rng = np.random.default_rng(seed)
    bx = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)
    by = y[rng.integers(0, len(y), size=(n_boot, len(y)))].mean(axis=1)
    return interval(name, x.mean() - y.mean(), *_percentiles(bx - by, level))


def difference(a: Any, b: Any, name: str, *, paired: bool = True, **kwargs: Any) -> dict[str, Any] | None:
    """Paired when both are Series sharing ≥ 2 index labels, else two-sample."""
    if paired and isinstance(a, pd.Series) and isinstance(b, pd.Series):
        shared = a.dropna().index.intersection(b.dropna().index)
        if len(shared) >= 2:
            return paired_difference(a, b, name, **kwargs)
    return two_sample_difference(a, b, name, **kwargs)


def ordering(
    samples: Mapping[str, Any], order: Sequence[str], *, paired: bool = True, **kwargs: Any
) -> list[dict[str, Any] | None]:
    """Intervals of ``later − earlier`` for each adjacent pair of ``order`` (the claim: increasing).

    ``samples`` maps each label to its replicated values (a Series indexed by block for a
    paired comparison). An entry is None where a side has fewer than two values.
    """
    return [
        difference(samples.get(hi), samples.get(lo), f"{hi} − {lo}", paired=paired, **kwargs)
        if samples.get(hi) is not None and samples.get(lo) is not None
        else None
        for lo, hi in zip(order, order[1:])
    ]


def spearman_trend(
    frame: pd.DataFrame,
    x: str,
    y: str,
    block: str | Sequence[str] | None = None,
    name: str = "Spearman ρ",
    *,
    increasing: bool = True,
    level: float = LEVEL,
    seed: int = SEED,
    n_boot: int = 2000,
) -> dict[str, Any] | None:
    """Bootstrap interval of Spearman's ρ between ``x`` and ``y``, resampling ``block`` groups.

    The sign is flipped when the claim is a decrease (``increasing=False``) so a positive
    interval supports the claim. Without ``block`` the rows are resampled. None with fewer than
    3 rows or 2 blocks, or when ``x`` does not vary.
    """
    data = frame[[x, y, *([block] if isinstance(block, str) else list(block or ()))]].dropna()
    if len(data) < 3 or data[x].nunique() < 2:
        return None
    sign = 1.0 if increasing else -1.0

    def rho(part: pd.DataFrame) -> float:
        if part[x].nunique() < 2 or part[y].nunique() < 2:
            return 0.0
        return float(part[x].rank().corr(part[y].rank()))

    estimate = sign * rho(data)
    rng = np.random.default_rng(seed)
    if block is None:
        groups = [data.iloc[[i]] for i in range(len(data))]
    else:
        groups = [g for _, g in data.groupby(block, sort=True, dropna=False)]
        if len(groups) < 2:
            return None
    draws = []
    for _ in range(n_boot):
        picked = rng.integers(0, len(groups), size=len(groups))
        draws.append(sign * rho(pd.concat([groups[i] for i in picked], ignore_index=True)))
    return interval(name, estimate, *_percentiles(np.asarray(draws), level))


def wilson(successes: int, n: int, name: str = "rate", *, level: float = LEVEL) -> dict[str, Any] | None:
    """Wilson score interval of a proportion (None when ``n`` is 0)."""
    if n <= 0:
        return None
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - level) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return interval(name, p, max(0.0, centre - half), min(1.0, centre + half))


def shift(entry: dict[str, Any] | None, by: float, name: str | None = None) -> dict[str, Any] | None:
    """``entry`` minus a constant (an estimate's interval turned into an effect against ``by``)."""
    if entry is None:
        return None
    return interval(name or entry["name"], entry["estimate"] - by, entry["low"] - by, entry["high"] - by)


def negate(entry: dict[str, Any] | None, name: str | None = None) -> dict[str, Any] | None:
    """The interval of −effect (a claim stated in the other direction)."""
    if entry is None:
        return None
    return interval(name or entry["name"], -entry["estimate"], -entry["high"], -entry["low"])


def describe(uncertainty: Mapping[str, Any] | None, digits: int = 3) -> str:
    """Short text of an ``uncertainty`` record for the report (intervals, test decision, method)."""
    if not uncertainty:
        return ""
    parts = []
    for entry in uncertainty.get("intervals") or []:
        parts.append(
            f"{entry['name']}: {_num(entry['estimate'], digits)} "
            f"[{_num(entry['low'], digits)}, {_num(entry['high'], digits)}]"
        )
    if uncertainty.get("decision"):
        parts.append(f"test: {uncertainty['decision']}")
    method = str(uncertainty.get("method", ""))
    return "; ".join(parts) + (f" ({method})" if method and parts else method)


def _num(value: Any, digits: int) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(number):
        return "nan"
    if number != 0 and abs(number) < 10 ** (-digits):
        return f"{number:.{max(digits - 1, 1)}e}"
    return f"{number:.{digits}f}"


__all__ = [
    "DECISIONS",
    "DETERMINISTIC",
    "LEVEL",
    "bootstrap_mean",
    "describe",
    "difference",
    "interval",
    "negate",
    "ordering",
    "paired_difference",
    "record",
    "shift",
    "spearman_trend",
    "decided_by_test",
    "two_sample_difference",
    "wilson",
]
