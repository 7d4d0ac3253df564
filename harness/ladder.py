"""The known-leakage ladder: does a privacy metric see leakage? (tracker issue 14)

A privacy metric earns its place in a default suite only if it rates releases whose leakage
is known in the right order. The ladder's rungs, from most to least leakage, are releases
made by registered generators:

=========================  ==============================================================
``identity``               the training table T itself
``noisy_copy_10`` … ``_90``  T with each cell replaced, with probability p = 0.1, 0.3, 0.5,
                           0.9, by a draw from its column's marginal (``generators.noisy_copy``)
``independent_marginals``  every column resampled independently: only the marginals leak
                           (p = 1 of the noisy copies, in distribution)
``real_holdout``           new individuals (a sample of the control split): no record of T
                           leaks; the metric's *floor*
=========================  ==============================================================

:func:`ladder_verdicts` judges each (metric, variant) from the rows of a run of these
releases (a ``privbench run`` of ``experiment=leakage_ladder``, or rows built in a test).

Rules (``risk`` is the value oriented so that larger means riskier: the value for
``minimise`` metrics, its negative for ``maximise``, value − target for ``target``):

1. **Floor.** Risks at or below the floor — the risk of ``real_holdout`` — count as the
   floor (``clipped risk`` = max(risk, floor)): a release that a metric rates safer than new
   individuals is "no leakage seen", not an error. (Distance metrics rate a scrambled table
   farther from T than new real records are; that is saturation, not mis-ordering.)
2. **Raw data seen.** The clipped risk of ``identity`` exceeds the floor by more than the
   tolerance, and no rung's clipped risk exceeds identity's by more than the tolerance.
3. **Monotone.** Along ``identity``, p = 0.1, 0.3, 0.5, 0.9, ``independent_marginals`` no
   clipped risk exceeds its predecessor's by more than the tolerance.

The tolerance of a comparison is the larger of the two rungs' summed noise and ``rel_tol``
(default 10 %) of the span between identity's risk and the floor; a rung's noise is the
larger of its mean confidence-interval half-width (where the metric gives intervals) and
``z`` (default 2) standard errors of its mean over the run's blocks (split seeds, folds, gen
seeds; zero with one block). The **resolution** is the largest p whose noisy copy
is still rated above the floor by more than the tolerance: how fine the leakage the metric
can see.

A metric whose outputs cannot pass (a diagnostic with ``goal: none``, or one that measures
the release alone rather than what it reveals about T) declares the failing outputs in its
class attribute ``ladder_exempt`` (output pattern → reason); the report marks those columns
and the ladder test checks that every other output passes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

import numpy as np
import pandas as pd

RUNGS: tuple[tuple[str, float | None], ...] = (
    ("identity", 0.0),
    ("noisy_copy_10", 0.1),
    ("noisy_copy_30", 0.3),
    ("noisy_copy_50", 0.5),
    ("noisy_copy_90", 0.9),
    ("independent_marginals", 1.0),
    ("real_holdout", None),
)
"""(generator, perturbation rate p) from most to least leakage; ``None`` marks the floor."""

LADDER_TEXT = (
    "Releases whose leakage is known by construction, scored by the same metrics: the raw training data "
    "(identity); noisy copies of it with each cell replaced, with probability p, by a draw from its column's "
    "marginal (noisy_copy_10 … _90: p = 0.1 … 0.9); independent marginals (only the marginals leak); and new "
    "individuals (real_holdout, the floor: nothing of the training data leaks). A metric orders the ladder when "
    "it rates the raw data above the floor and never rates a rung riskier than a rung with more leakage, beyond "
    "its noise (its confidence intervals or the spread over the run's blocks, and at least 10 % of the "
    "raw-to-floor span); ratings at or below the floor count "
    "as the floor. Resolution: the largest p it still rates above the floor — the finest leakage it sees."
)
FLOOR = "real_holdout"
LEAKING: tuple[str, ...] = tuple(name for name, p in RUNGS if p is not None)
REL_TOL = 0.10
Z_NOISE = 2.0


def risk_of(value: float, goal: str, target_value: float | None) -> float:
    """Orient a metric value so that larger means riskier (NaN for ``goal: none``)."""
    if goal == "minimise":
        return float(value)
    if goal == "maximise":
        return -float(value)
    if goal == "target" and target_value is not None and math.isfinite(target_value):
        return float(value) - float(target_value)
    return math.nan


@dataclass(frozen=True)
class LadderVerdict:
    """How one metric output rates the ladder in one dataset."""

    dataset: str
    metric: str
    variant: str
    goal: str
    values: Mapping[str, float]
    risks: Mapping[str, float]
    clipped: Mapping[str, float]
    tolerance: float
    raw_seen: bool
    monotone: bool
    resolution: float | None
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def column(self) -> str:
        """``metric`` or ``metric/variant`` (the report's column name)."""
        return self.metric if not self.variant else f"{self.metric}/{self.variant}"

    @property
    def orders(self) -> bool:
        """True when the output sees the raw data and orders the ladder."""
        return self.raw_seen and self.monotone


def _half_width(row: pd.Series) -> float:
    low, high = row.get("ci_low"), row.get("ci_high")
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return 0.0
    return float(high - low) / 2.0


def ladder_verdicts(
    results: pd.DataFrame, *, rel_tol: float = REL_TOL, z: float = Z_NOISE
) -> list[LadderVerdict]:
    """Judge every privacy output of a ladder run (see the module docstring for the rules).

    Parameters
    ----------
    results : DataFrame
        Rows of the results schema holding the ladder's generators (``RUNGS``); ok rows of
        family ``privacy`` are used, averaged over the blocks (split seeds, folds, gen
        seeds, QI sets) of a dataset.
    rel_tol : float
        Share of the identity–floor span tolerated as noise.
    z : float
        With several blocks, differences within ``z`` standard errors of the difference of
        two block means are tolerated as noise.

    Returns
    -------
    list of LadderVerdict
        One per (dataset, metric, variant) that has a value for every rung.
    """
    ok = results[(results["status"] == "ok") & (results["family"] == "privacy")].copy()
    ok = ok[ok["generator"].isin([name for name, _ in RUNGS]) & np.isfinite(ok["value"].astype(float))]
    ok["half"] = ok.apply(_half_width, axis=1) if len(ok) else pd.Series(dtype=float)
    verdicts: list[LadderVerdict] = []
    keys = ["dataset", "metric", "variant"]
    for (dataset, metric, variant), group in ok.groupby(keys, sort=True):
        stats = group.groupby("generator").agg(
            value=("value", "mean"), half=("half", "mean"), sd=("value", "std"), n=("value", "size")
        )
        if not all(name in stats.index for name, _ in RUNGS):
            continue
        goal = str(group["goal"].iloc[0])
        target = group["target_value"].iloc[0]
        target_value = None if pd.isna(target) else float(target)
        values = {name: float(stats.loc[name, "value"]) for name, _ in RUNGS}
        se = stats["sd"].fillna(0.0) / np.sqrt(stats["n"])
        noise = {name: max(float(stats.loc[name, "half"]), z * float(se[name])) for name, _ in RUNGS}
        verdicts.append(
            _judge(str(dataset), str(metric), str(variant), goal, target_value, values, noise, rel_tol)
        )
    return verdicts


def _judge(
    dataset: str,
    metric: str,
    variant: str,
    goal: str,
    target_value: float | None,
    values: Mapping[str, float],
    noise: Mapping[str, float],
    rel_tol: float,
) -> LadderVerdict:
    risks = {name: risk_of(value, goal, target_value) for name, value in values.items()}
    if any(math.isnan(r) for r in risks.values()):
        return LadderVerdict(
            dataset, metric, variant, goal, values, risks, risks, math.nan, False, False, None,
            (f"goal {goal!r}: the output has no risk direction",),
        )  # fmt: skip
    floor = risks[FLOOR]
    clipped = {name: max(risk, floor) for name, risk in risks.items()}
    span = clipped["identity"] - floor

    def tol(a: str, b: str) -> float:
        return max(noise[a] + noise[b], rel_tol * abs(span))

    def riskier(a: str, b: str) -> str:
        return f"{a} ({values[a]:.4g}) is rated riskier than {b} ({values[b]:.4g})"

    problems: list[str] = []
    raw_seen = span > tol("identity", FLOOR)
    if not raw_seen:
        problems.append(
            f"identity ({values['identity']:.4g}) is not rated riskier than new individuals "
            f"({values[FLOOR]:.4g}) beyond the noise ({tol('identity', FLOOR):.2g})"
        )
    for name in LEAKING[2:]:  # the next rung is checked by the monotonicity rule
        if clipped[name] > clipped["identity"] + tol(name, "identity"):
            raw_seen = False
            problems.append(riskier(name, "identity"))
    monotone = True
    for before, after in zip(LEAKING, LEAKING[1:]):
        if clipped[after] > clipped[before] + tol(before, after):
            monotone = False
            problems.append(riskier(after, before))
    resolution = None
    for name, p in RUNGS:
        if p is not None and 0 < p < 1 and clipped[name] - floor > tol(name, FLOOR):
            resolution = p
    return LadderVerdict(
        dataset, metric, variant, goal, values, risks, clipped, rel_tol * abs(span), raw_seen, monotone,
        resolution, tuple(problems),
    )  # fmt: skip


def exemption(variant_column: str, exempt: Mapping[str, str]) -> str | None:
    """The documented reason why ``variant`` (an output name) cannot order the ladder, if any.

    ``exempt`` maps output-name patterns (``fnmatch`` style; ``""`` is a single-output
    metric's output, ``"*"`` every output) to reasons.
    """
    for pattern, reason in exempt.items():
        if fnmatchcase(variant_column, pattern):
            return reason
    return None


def verdict_table(verdicts: Iterable[LadderVerdict]) -> pd.DataFrame:
    """One row per verdict: dataset, column, the value of every rung, tolerance, checks, resolution."""
    rows = []
    for v in verdicts:
        row: dict[str, object] = {"dataset": v.dataset, "metric": v.column, "goal": v.goal}
        row.update({name: v.values[name] for name, _ in RUNGS})
        row.update(
            {
                "tolerance": v.tolerance,
                "raw_seen": v.raw_seen,
                "monotone": v.monotone,
                "orders": v.orders,
                "resolution": v.resolution,
                "problems": "; ".join(v.problems),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)
