"""R-SMOTEDP Figs 4-7: the uncertainty of privacy-gain and accuracy comparisons (issue 27).

**Privacy gain.** A position's PG on a target is the mean over the attack's games (10 in the
protocol) and the run records its SD over those games (``pg_sd``, ≈ 0.3-0.5 per game, so ≈ 0.01-0.04
in the variance of a target's mean). The games are *shared by the targets* of a trial (each game
draws one raw set and one set of OUT tables for all of them), so their noise is correlated across
targets: the spread of the targets' means in the committed run is 20-80 % of the game noise alone.
The noise estimate therefore has two parts, and the bootstrap draws both:

* **targets** — resampled with replacement (paired when both positions were attacked on the same
  targets: same dataset and target counts), which carries each target's own game noise along;
* **games** — one common shock per position and replicate, N(0, mean(SD²/games)): the game noise
  as if it were fully shared by the targets (conservative: the share that is not is counted twice).

A *variance over targets* (the paper's "stability": the spread of the figure's points) is compared
as recorded (estimate: the difference of the sample variances of the targets' means); its interval
resamples the targets and redraws each target's mean from N(mean, SD²/games), subtracting the
added mean(SD²/games) so a replicate keeps the recorded spread's expectation. With 5-15 targets
these intervals are wide: a difference inside them is *within noise*.

**Accuracy.** One generator seed per trial: the only replication is the test split. An accuracy
is a proportion over ``n_test`` rows; two accuracies on the same test split are compared with
the normal interval of their difference (independent binomials: conservative, as the two
classifiers' errors are positively correlated). This covers the test-set sampling only, not the
generator's seed, which the run does not replicate; the method string says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from experiments.reproductions.smote_dp_2025_positions import (
    Accuracy,
    accuracy,
    missing_reason,
    short,
    targets,
)
from harness.reproduction import Check, ReproductionRun, trend, unavailable, within
from harness.reproduction import uncertainty as unc
from harness.reproduction.checks import fmt

N_BOOT = 4000
REAL = "real data (TRTR)"
Z = 1.959963984540054
PG_METHOD = (
    "bootstrap (95 %) over targets{paired} plus a game-noise shock per position (N(0, mean SD²/games), "
    "games shared by the targets)"
)
VAR_METHOD = (
    "bootstrap (95 %) of the variance of the targets' means: targets resampled{paired}, each mean redrawn "
    "from N(mean, SD²/games), the added noise subtracted"
)
ACC_METHOD = (
    "normal interval (95 %) of an accuracy difference from the test-split sizes (binomial; one generator "
    "seed per trial, so the generator's own variability is not covered)"
)


def _se2(frame: pd.DataFrame) -> np.ndarray:
    """Per target: the variance of its game mean (SD² / games)."""
    return frame["sd"].to_numpy(float) ** 2 / frame["games"].to_numpy(float)


def _picks(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, n, size=(N_BOOT, n))


def paired_targets(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether ``a`` and ``b`` hold the same targets (then their comparison is paired)."""
    return len(a) > 0 and list(a.index) == list(b.index)


def _means(frame: pd.DataFrame, picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Replicate means over the picked targets plus one shared game-noise shock per replicate."""
    shock = rng.standard_normal(len(picks)) * math.sqrt(float(_se2(frame).mean()))
    return frame["pg"].to_numpy(float)[picks].mean(axis=1) + shock


def pg_difference(
    a: pd.DataFrame, b: pd.DataFrame, name: str, *, seed: int = unc.SEED
) -> dict[str, Any] | None:
    """Interval of mean PG(a) − mean PG(b) over targets and games (None unless both have ≥ 2 targets)."""
    if len(a) < 2 or len(b) < 2:
        return None
    rng = np.random.default_rng(seed)
    picks_a = _picks(len(a), rng)
    picks_b = picks_a if paired_targets(a, b) else _picks(len(b), rng)
    diffs = _means(a, picks_a, rng) - _means(b, picks_b, rng)
    low, high = np.percentile(diffs, [2.5, 97.5])
    return unc.interval(name, float(a["pg"].mean() - b["pg"].mean()), float(low), float(high))


def target_variance(frame: pd.DataFrame) -> float:
    """Sample variance of the targets' PG means (the spread of a figure's points)."""
    return float(frame["pg"].var(ddof=1)) if len(frame) > 1 else math.nan


def game_noise(frame: pd.DataFrame) -> float:
    """Mean variance of a target's game mean, mean(SD²/games) (what game noise adds to each point)."""
    return float(_se2(frame).mean()) if len(frame) else math.nan


def _variances(frame: pd.DataFrame, picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    se2 = _se2(frame)[picks]
    draws = frame["pg"].to_numpy(float)[picks] + rng.standard_normal(picks.shape) * np.sqrt(se2)
    return draws.var(axis=1, ddof=1) - se2.mean(axis=1)


def variance_difference(
    a: pd.DataFrame, b: pd.DataFrame, name: str, *, seed: int = unc.SEED
) -> dict[str, Any] | None:
    """Interval of variance(b) − variance(a) of the targets' means: positive when ``a`` is the more stable."""
    if len(a) < 3 or len(b) < 3:
        return None
    rng = np.random.default_rng(seed)
    picks_a = _picks(len(a), rng)
    picks_b = picks_a if paired_targets(a, b) else _picks(len(b), rng)
    diffs = _variances(b, picks_b, rng) - _variances(a, picks_a, rng)
    low, high = np.percentile(diffs, [2.5, 97.5])
    return unc.interval(name, target_variance(b) - target_variance(a), float(low), float(high))


def pg_record(
    entries: Sequence[dict[str, Any] | None], frames: Sequence[pd.DataFrame], *, variance: bool = False
) -> dict[str, Any]:
    """The ``uncertainty`` record of PG comparisons (the method names the pairing and the targets)."""
    sizes = sorted({len(f) for f in frames})
    paired = all(paired_targets(frames[0], f) for f in frames[1:]) if frames else False
    text = (VAR_METHOD if variance else PG_METHOD).format(paired=", paired" if paired else "")
    record = unc.record(
        f"{text}; {'/'.join(map(str, sizes))} targets",
        [e for e in entries if e is not None],
        n=min(sizes, default=0),
    )
    if any(e is None for e in entries):
        record["intervals"] = []
        record["note"] = "a side has too few targets for an interval"
    return record


# ---------------------------------------------------------------------- accuracy
def accuracy_difference(a: Accuracy, b: Accuracy, name: str) -> dict[str, Any] | None:
    """Interval of accuracy(a) − accuracy(b) from their test-split sizes (None when one is absent)."""
    if not (a.present and b.present):
        return None
    var = a.value * (1 - a.value) / a.n_test + b.value * (1 - b.value) / b.n_test
    diff = a.value - b.value
    half = Z * math.sqrt(var)
    return unc.interval(name, diff, diff - half, diff + half)


def accuracy_record(entries: Sequence[dict[str, Any] | None], n_test: int, **extra: Any) -> dict[str, Any]:
    """The ``uncertainty`` record of accuracy comparisons."""
    record = unc.record(
        f"{ACC_METHOD}; {n_test:,} test rows", [e for e in entries if e is not None], n=n_test, **extra
    )
    if any(e is None for e in entries):
        record["intervals"] = []
        record["note"] = "an accuracy is missing"
    return record


# ---------------------------------------------------------------------- claim builders
def pg_claim(
    run: ReproductionRun,
    check_id: str,
    claim: str,
    paper: str,
    dataset: str,
    group: str,
    pairs: Sequence[tuple[str, str]],
    *,
    band: tuple[float | None, float | None] | None = None,
    depends_on: Sequence[str] = ("privbayes",),
    reason: str = "",
    if_failed: str = "",
) -> Check:
    """A claim on PG differences ``first − second`` of each pair (targets of ``group`` on ``dataset``).

    Without ``band`` the paper states ``first`` protects better than ``second`` (every effect above
    0); with ``band`` (one pair) the difference is to lie inside it ("similar", "as well as").
    """
    labels = [label for pair in pairs for label in pair]
    frames = {label: targets(run, label, dataset, group) for label in labels}
    absent = [short(label) for label, frame in frames.items() if frame.empty]
    if absent:
        return unavailable(check_id, claim, paper, "trend", missing_reason(run, ", ".join(sorted(set(absent)))),
                           kind="claim")  # fmt: skip
    entries = [pg_difference(frames[a], frames[b], f"{short(a)} − {short(b)}") for a, b in pairs]
    record = pg_record(entries, [frames[label] for label in labels])
    means = {label: float(frames[label]["pg"].mean()) for label in labels}
    observed = "; ".join(f"{short(a)} {fmt(means[a])} vs {short(b)} {fmt(means[b])} (Δ {means[a] - means[b]:+.3f})"
                         for a, b in pairs)  # fmt: skip
    value = {
        "means": means,
        "differences": {f"{short(a)} − {short(b)}": means[a] - means[b] for a, b in pairs},
    }
    evidence = [f"figures/pg_{dataset}.png"]
    if band is not None:
        (a, b), (low, high) = pairs[0], band
        check = within(check_id, claim, paper, means[a] - means[b], low, high, kind="claim", uncertainty=record,
                       reason=reason, if_failed=if_failed, evidence=evidence, depends_on=depends_on)  # fmt: skip
        return replace(check, observed=observed, value=value)
    passed = all(means[a] > means[b] for a, b in pairs)
    return trend(check_id, claim, paper, observed, passed, kind="claim", value=value, uncertainty=record,
                 reason=reason, if_failed=if_failed, evidence=evidence, depends_on=depends_on)  # fmt: skip


def variance_claim(
    run: ReproductionRun,
    check_id: str,
    claim: str,
    paper: str,
    dataset: str,
    pairs: Sequence[tuple[str, str]],
    *,
    group: str = "random",
    depends_on: Sequence[str] = ("privbayes",),
    reason: str = "",
) -> Check:
    """A claim that ``first`` of each pair has the smaller variance of its targets' PG (is more stable)."""
    labels = [label for pair in pairs for label in pair]
    frames = {label: targets(run, label, dataset, group) for label in labels}
    absent = [short(label) for label, frame in frames.items() if frame.empty]
    if absent:
        return unavailable(check_id, claim, paper, "trend", missing_reason(run, ", ".join(sorted(set(absent)))),
                           kind="claim")  # fmt: skip
    if min(len(f) for f in frames.values()) < 3:
        sizes = ", ".join(f"{short(k)} {len(f)}" for k, f in frames.items())
        return unavailable(check_id, claim, paper, "trend", f"too few {group} targets for a variance over targets "
                           f"(needs at least 3 per position; this run has {sizes})", kind="claim")  # fmt: skip
    entries = [
        variance_difference(frames[a], frames[b], f"var {short(b)} − var {short(a)}") for a, b in pairs
    ]
    record = pg_record(entries, [frames[label] for label in labels], variance=True)
    var = {label: target_variance(frames[label]) for label in labels}
    noise = {label: game_noise(frames[label]) for label in labels}
    observed = "; ".join(f"variance of the targets' PG {short(a)} {fmt(var[a], 4)} vs {short(b)} {fmt(var[b], 4)} "
                         f"(Δ {var[b] - var[a]:+.4f})" for a, b in pairs)  # fmt: skip
    words = ", ".join(f"{short(k)} {fmt(noise[k], 4)}" for k in labels)
    return trend(
        check_id, claim, paper, observed, all(var[a] < var[b] for a, b in pairs), kind="claim",
        value={"target_variance": var, "game_noise": noise}, uncertainty=record,
        reason=_join(f"{len(frames[labels[0]])} {group} targets; game noise in each point's variance (mean "
                     f"SD²/games) {words}", reason),
        if_failed="SMOTE preprocessing did not make the per-target PG more uniform", evidence=[f"figures/pg_{dataset}.png"],
        depends_on=depends_on,
    )  # fmt: skip


def accuracy_claim(
    run: ReproductionRun,
    check_id: str,
    claim: str,
    paper: str,
    dataset: str,
    pairs: Sequence[tuple[str, str]],
    *,
    band: tuple[float | None, float | None] | None = None,
    margins: Sequence[float] = (),
    depends_on: Sequence[str] = ("privbayes",),
    reason: str = "",
) -> Check:
    """A claim on accuracy differences ``first − second`` (``second`` may be ``real``: TRTR on the same split).

    Without ``band`` every difference minus its ``margin`` (default 0) is to be above 0; with
    ``band`` (one pair) the difference is to lie inside it.
    """
    acc = {label: accuracy(run, label, dataset) for pair in pairs for label in pair if label != REAL}
    absent = [short(label) for label, a in acc.items() if not a.present]
    if absent:
        return unavailable(check_id, claim, paper, "trend", missing_reason(run, ", ".join(sorted(set(absent)))),
                           kind="claim")  # fmt: skip
    real = next(iter(acc.values()))
    acc[REAL] = Accuracy(real.real, real.n_test, real.real)
    gaps = list(margins) or [0.0] * len(pairs)
    entries = [unc.shift(accuracy_difference(acc[a], acc[b], f"{short(a)} − {short(b)}"), m,
                         f"{short(a)} − {short(b)}" + (f" − {m:g}" if m else "")) for (a, b), m in zip(pairs, gaps)]  # fmt: skip
    record = accuracy_record(entries, real.n_test)
    observed = "; ".join(
        f"{short(a)} {fmt(acc[a].value)} vs {short(b)} {fmt(acc[b].value)}" for a, b in pairs
    )
    value = {short(k): v.value for k, v in acc.items()}
    evidence = ["tables/accuracy.md"]
    if band is not None:
        (a, b), (low, high) = pairs[0], band
        record["intervals"] = [accuracy_difference(acc[a], acc[b], f"{short(a)} − {short(b)}")]
        check = within(check_id, claim, paper, acc[a].value - acc[b].value, low, high, kind="claim",
                       uncertainty=record, reason=reason, evidence=evidence, depends_on=depends_on)  # fmt: skip
        return replace(check, observed=f"{observed} (Δ {acc[a].value - acc[b].value:+.3f})", value=value)
    passed = all(acc[a].value - acc[b].value > m for (a, b), m in zip(pairs, gaps))
    return trend(check_id, claim, paper, observed, passed, kind="claim", value=value, uncertainty=record,
                 reason=reason, evidence=evidence, depends_on=depends_on)  # fmt: skip


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


__all__ = [
    "REAL",
    "accuracy_claim",
    "accuracy_difference",
    "accuracy_record",
    "game_noise",
    "paired_targets",
    "pg_claim",
    "pg_difference",
    "pg_record",
    "target_variance",
    "variance_claim",
    "variance_difference",
]
