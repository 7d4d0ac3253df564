"""Statistical support of the verdict: paired tests over blocks and what more blocks would buy.

The verdict (:mod:`harness.report.verdict`) compares methods two at a time on each headline
axis. The paired samples are block means (one dataset's evaluation units: QI set, split seed,
fold; generation seeds when the dataset has a single unit). :func:`pair_tests` runs the
two-sided exact Wilcoxon signed-rank test (:func:`harness.report.ranking.wilcoxon_holm`) on
every pair with enough blocks to reach p < α at all (2/2^N < α, :mod:`harness.report.control`)
and Holm-adjusts over the whole family. :func:`blocks_needed` says how many blocks would detect
a paired difference of the size seen with 80 % power: the paired-t sample size
((z₁₋α/₂ + z₀.₈)·sd/|mean|)² divided by 0.955, the Wilcoxon test's asymptotic relative
efficiency, and never fewer than the blocks any test needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from harness.errors import ConfigError
from harness.report.control import min_attainable_p, min_blocks
from harness.report.goals import oriented_scores
from harness.report.ranking import holm, wilcoxon_holm

POWER = 0.8
WILCOXON_ARE = 0.955
MAX_PLANNED = 200
"""Above this many blocks a difference is called too small to settle by more seeds."""


@dataclass(frozen=True)
class PairTest:
    """One paired comparison of ``a`` with ``b`` on one axis (differences oriented: > 0, ``a`` better)."""

    a: str
    b: str
    axis: str
    n: int
    mean_diff: float
    sd_diff: float
    a_better: int
    b_better: int
    p: float
    p_holm: float
    alpha: float

    @property
    def testable(self) -> bool:
        """Whether the blocks allow a p below α at all."""
        return min_attainable_p(self.n) < self.alpha

    @property
    def significant(self) -> bool:
        """Holm-adjusted p below α."""
        return bool(np.isfinite(self.p_holm) and self.p_holm < self.alpha)

    def winner(self) -> str | None:
        """The significantly better of the two, or None."""
        if not self.significant:
            return None
        return self.a if self.mean_diff > 0 else self.b


def oriented_matrix(scores: pd.DataFrame, goal: str, target: float | None) -> pd.DataFrame:
    """A block matrix with larger-is-better values."""
    values = oriented_scores(scores.to_numpy(dtype=float), goal, target if goal == "target" else None)
    return pd.DataFrame(values, index=scores.index, columns=scores.columns)


def pair_tests(
    matrices: dict[str, pd.DataFrame], pairs: Sequence[tuple[str, str]], alpha: float
) -> list[PairTest]:
    """Exact two-sided Wilcoxon signed-rank tests of every pair on every axis, Holm over the family.

    Parameters
    ----------
    matrices : dict of str to DataFrame
        Axis name → oriented block matrix (rows = blocks, columns = variants).
    pairs : sequence of (str, str)
        The pairs to compare (each once).
    alpha : float
        Significance level.

    Returns
    -------
    list of PairTest
        Pairs with too few blocks have NaN p-values and are not in the Holm family.
    """
    found: list[dict[str, object]] = []
    pvalues: list[float] = []
    for axis, matrix in matrices.items():
        for a, b in pairs:
            if a not in matrix.columns or b not in matrix.columns:
                continue
            both = matrix[[a, b]].dropna()
            diff = (both[a] - both[b]).to_numpy(dtype=float)
            p = math.nan
            if len(diff) and min_attainable_p(len(diff)) < alpha:
                try:
                    p = float(wilcoxon_holm(both, a, "maximise", alpha=alpha)["p_value"].iloc[0])
                except ConfigError:
                    p = math.nan
            found.append(
                {
                    "a": a,
                    "b": b,
                    "axis": axis,
                    "n": len(diff),
                    "mean_diff": float(diff.mean()) if len(diff) else math.nan,
                    "sd_diff": float(diff.std(ddof=1)) if len(diff) > 1 else math.nan,
                    "a_better": int((diff > 0).sum()),
                    "b_better": int((diff < 0).sum()),
                }
            )
            pvalues.append(p)
    adjusted = holm(pvalues) if found else np.array([])
    return [
        PairTest(**f, p=p, p_holm=float(q), alpha=alpha)  # type: ignore[arg-type]
        for f, p, q in zip(found, pvalues, adjusted)
    ]


def blocks_needed(mean_diff: float, sd_diff: float, alpha: float, power: float = POWER) -> int | None:
    """Blocks that would detect a paired difference of this size (module docstring); None for no difference."""
    floor = min_blocks(alpha)
    if not np.isfinite(mean_diff) or mean_diff == 0:
        return None
    if not np.isfinite(sd_diff) or sd_diff == 0:
        return floor
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return max(floor, math.ceil((z * sd_diff / abs(mean_diff)) ** 2 / WILCOXON_ARE))


def unit_word(blocks: Sequence[str], frame: pd.DataFrame) -> str:
    """What one more block is, in words: a split seed, a fold or a generation seed."""
    varying = [c for c in ("split_seed", "fold", "gen_seed") if c in blocks and frame[c].nunique() > 1]
    if "gen_seed" in varying:
        return "generation seed"
    if varying == ["fold"]:
        return "fold"
    return "split seed"


def plural(n: int, word: str) -> str:
    """``1 split seed``, ``3 split seeds``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


__all__ = [
    "MAX_PLANNED",
    "PairTest",
    "blocks_needed",
    "oriented_matrix",
    "pair_tests",
    "plural",
    "unit_word",
]
