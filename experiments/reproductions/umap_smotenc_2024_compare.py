"""R-UMAP comparisons: effects per (dataset, run), their intervals, and the claims they decide.

Every comparison of the paper (Tables 2-6, §5) is an *effect oriented so that + is the
paper's direction*, per unit (dataset, split seed, fold), and each effect's name says which
way it was taken: ``UMAP-SMOTENC − SMOTE-NC`` for "UMAP-SMOTENC above SMOTE-NC", ``test set −
SMOTE-NC`` for "SMOTE-NC less private than the test set". A :class:`Part` holds one such
effect (one classifier, one privacy distance, one baseline). A stated finding becomes up to
two claims:

* **on average** (:func:`average_check`) — per part, a two-level bootstrap interval of the
  mean effect over the datasets: datasets resampled with replacement, then the runs within
  each drawn dataset (:func:`nested_interval`). This is what a table's mean states;
* **on every dataset** (:func:`every_check`) — per part and dataset, the bootstrap interval
  over its runs. The paper's Holm-adjusted Wilcoxon p-values are the smallest attainable
  with 8 datasets (3.1e-02 = 4·2/2⁸ for 4 comparisons, 3.9e-02 = 5·2/2⁸ for 5): every one of
  its 8 per-dataset differences has the stated sign. That is what ours can test on 6
  datasets; the p-values themselves need 8 (``holm-p`` checks).

The verdict is the shared rule's (every interval above 0: reproduced; one below: not
reproduced; else inconclusive), with two rules of this module. A part is judged on at least
:data:`MIN_DATASETS` datasets with two runs or more; a claim with a part short of that is not
evaluable unless a part that has enough already goes against it (a claim over several parts
is their conjunction), or, for "every dataset", one dataset already goes against it. And a
trade-off claim whose verdict changes when the inadequate cut-budget CTGAN/TVAE rows enter the
min-max normalisation rests on them (``alternative``: not evaluable).

The runs per dataset are 3 in the protocol run: a percentile interval of 3 values never
extends beyond their range and collapses to a point when they tie. Every interval's name
carries its ``n``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from experiments.reproductions.umap_smotenc_2024_budget import UNIT
from harness.reproduction import Check
from harness.reproduction import uncertainty as unc
from harness.reproduction.verdict import NOT_EVALUABLE, check_verdict

MIN_DATASETS = 3
"""Datasets (with ≥ 2 runs) a part of a claim across datasets needs: half of the six available here."""
ORIENTATION = (
    "each effect is oriented so that + is the paper's direction (its name says which side is subtracted)"
)
AVERAGE_METHOD = "two-level bootstrap (95 %) over datasets, then runs within each drawn dataset"
EVERY_METHOD = (
    "per dataset: percentile bootstrap (95 %) over its runs (n in each name; with n = 3 an interval never "
    "extends beyond the 3 values and is a point when they tie: a weak noise estimate)"
)


@dataclass
class Part:
    """One effect of a claim, per (dataset, split seed, fold), positive in the stated direction.

    ``every``: whether the "every dataset" claim tests this part (the paper's Holm p-values
    cover it). ``ratio``: (numerator, denominator) per unit, when the effect is a ratio of
    means minus one (an improvement in %, a cost ratio) instead of a mean difference.
    """

    name: str
    effect: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))
    every: bool = True
    ratio: tuple[pd.Series, pd.Series] | None = None
    scale: float = 1.0
    _arrays: dict[str, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def arrays(self) -> dict[str, np.ndarray]:
        """Per dataset the (runs × columns) array of the units every column has (computed once)."""
        if self._arrays is None:
            columns = [self.effect] if self.ratio is None else list(self.ratio)
            self._arrays = _matrix(columns)
        return self._arrays

    def datasets(self, minimum_runs: int = 2) -> list[str]:
        """Datasets with at least ``minimum_runs`` units."""
        return sorted(d for d, a in self.arrays().items() if len(a) >= minimum_runs)


def unit_index(frame: pd.DataFrame) -> pd.MultiIndex:
    return pd.MultiIndex.from_frame(frame[list(UNIT)].astype({"dataset": str}))


def by_unit(frame: pd.DataFrame, column: str = "value") -> pd.Series:
    """Mean of ``column`` per (dataset, split seed, fold)."""
    if frame.empty:
        return pd.Series(dtype=float, index=pd.MultiIndex.from_tuples([], names=list(UNIT)))
    data = frame.assign(dataset=frame["dataset"].astype(str))
    return data.groupby(list(UNIT))[column].mean().astype(float)


def covered(series: pd.Series, minimum: int = 2) -> list[str]:
    """Datasets with at least ``minimum`` finite units."""
    clean = series.dropna()
    if clean.empty:
        return []
    counts = clean.groupby(level="dataset").size()
    return sorted(str(d) for d in counts[counts >= minimum].index)


def _matrix(columns: Sequence[pd.Series]) -> dict[str, np.ndarray]:
    """Per dataset the (runs × columns) array of the units every column has."""
    joined = pd.concat(list(columns), axis=1, join="inner") if len(columns) > 1 else columns[0].to_frame()
    values = joined.to_numpy(float)
    keep = np.isfinite(values).all(axis=1)
    if not keep.any():
        return {}
    labels = np.asarray([str(d) for d in joined.index.get_level_values("dataset")])[keep]
    values = values[keep]
    return {d: values[labels == d] for d in sorted(set(labels))}


def nested_draws(
    arrays: list[np.ndarray], stat: Callable[[np.ndarray], np.ndarray], n_boot: int = unc.N_BOOT,
    resample_datasets: bool = True,
) -> tuple[float, np.ndarray]:  # fmt: skip
    """Point estimate and bootstrap draws of ``stat`` (column means -> value) over datasets, then runs.

    ``resample_datasets=False`` keeps the datasets fixed and resamples only the runs within each
    (the noise of a mean over exactly these datasets, e.g. against a tolerance band that already
    absorbs the choice of datasets).
    """
    rng = np.random.default_rng(unc.SEED)
    means = np.stack(
        [a[rng.integers(0, len(a), size=(n_boot, len(a)))].mean(axis=1) for a in arrays]
    )  # datasets × draws × columns
    if resample_datasets:
        picked = rng.integers(0, len(arrays), size=(n_boot, len(arrays)))
        draws = means[picked, np.arange(n_boot)[:, None], :].mean(axis=1)
    else:
        draws = means.mean(axis=0)
    point = np.stack([a.mean(axis=0) for a in arrays]).mean(axis=0)
    return float(stat(point[None, :])[0]), stat(draws)


def _interval(name: str, estimate: float, draws: np.ndarray) -> dict[str, Any]:
    low, high = np.percentile(draws, [2.5, 97.5])
    return unc.interval(name, estimate, float(low), float(high))


def _stat(part: Part) -> Callable[[np.ndarray], np.ndarray]:
    if part.ratio is None:
        return lambda m: part.scale * m[:, 0]
    return lambda m: part.scale * (m[:, 0] / m[:, 1] - 1.0)


def runs_per_dataset(part: Part) -> dict[str, int]:
    """Units with a value per dataset (the effect, or both sides of the ratio)."""
    return {d: len(a) for d, a in part.arrays().items()}


def _runs(counts: Sequence[int]) -> str:
    low, high = min(counts), max(counts)
    return f"n = {low} runs each" if low == high else f"n = {low}-{high} runs each"


def nested_interval(
    part: Part, datasets: Sequence[str], *, resample_datasets: bool = True
) -> dict[str, Any] | None:
    """Two-level bootstrap interval of the part's effect over ``datasets`` (None with < 2)."""
    arrays = [a for d, a in part.arrays().items() if d in set(datasets)]
    if len(arrays) < (2 if resample_datasets else 1):
        return None
    estimate, draws = nested_draws(arrays, _stat(part), resample_datasets=resample_datasets)
    where = (
        f"mean over {len(arrays)} dataset{'s' if len(arrays) != 1 else ''}, {_runs([len(a) for a in arrays])}"
    )
    return _interval(f"{part.name}: {where}", estimate, draws)


def dataset_intervals(part: Part, datasets: Sequence[str]) -> list[dict[str, Any]]:
    """Per dataset, the bootstrap interval of the part's effect over its runs (``n`` in the name)."""
    out = []
    arrays = part.arrays()
    for dataset in datasets:
        array = arrays.get(dataset)
        if array is None or len(array) < 2:
            continue
        estimate, draws = nested_draws([array], _stat(part))  # one dataset: the runs are resampled
        out.append(_interval(f"{part.name} · {dataset} (n = {len(array)})", estimate, draws))
    return out


def _num(value: float, digits: int) -> str:
    return f"{value:+.{digits}f}"


def _show(entry: dict[str, Any], digits: int = 3) -> str:
    return (
        f"{entry['name']} {_num(entry['estimate'], digits)} "
        f"[{_num(entry['low'], digits)}, {_num(entry['high'], digits)}]"
    )


def point_estimate(part: Part) -> float:
    """The part's effect from the means over its datasets (any number of runs)."""
    arrays = part.arrays()
    return float(_stat(part)(np.stack([a.mean(axis=0) for a in arrays.values()]).mean(axis=0)[None, :])[0])


def _singles(parts: Sequence[Part], digits: int) -> str:
    """Per-dataset intervals (or point estimates) of parts too short for a mean: for reading."""
    singles = [i for p in parts for i in dataset_intervals(p, sorted(p.arrays()))]
    if singles:
        return "per dataset: " + "; ".join(_show(i, digits) for i in singles)
    points = [(p.name, point_estimate(p)) for p in parts if p.arrays()]
    if points:
        return "point estimates (one run: no noise estimate): " + "; ".join(
            f"{name} {_num(v, digits)}" for name, v in points
        )
    return "no value"


@dataclass
class Judged:
    """What :func:`judge_average` / :func:`judge_every` found."""

    record: dict[str, Any]
    observed: str
    short: str
    passed: bool
    datasets: list[str]


def judge_average(parts: Sequence[Part], *, scope: str, min_datasets: int = MIN_DATASETS, digits: int = 3,
                  method: str = AVERAGE_METHOD) -> Judged:  # fmt: skip
    """Per part, the interval of the mean over the datasets it covers (≥ ``min_datasets``)."""
    intervals, shown, short, datasets = [], [], [], set()
    for part in parts:
        mine = part.datasets()
        if len(mine) < min_datasets:
            short.append(part)
            continue
        datasets |= set(mine)
        entry = nested_interval(part, mine)
        if entry is not None:
            intervals.append(entry)
            shown.append(_show(entry, digits))
    observed = "; ".join(shown)
    if short:
        observed += ("; " if observed else "") + _singles(short, digits)
    record = unc.record(f"{method}; {ORIENTATION}", intervals, n=len(datasets))
    refuted = any(i["high"] < 0 for i in intervals)
    reason = ""
    if short and not refuted:
        have = sorted({d for p in short for d in p.datasets()})
        reason = (
            (f"{scope}; " if scope else "")
            + f"judged on {len(have)} dataset(s) with ≥ 2 runs ({', '.join(have) or 'none'}) for "
            + ", ".join(p.name for p in short)
            + f"; a mean across datasets needs ≥ {min_datasets}"
        )
    passed = bool(parts) and all(p.arrays() and point_estimate(p) > 0 for p in parts)
    seen = sorted({d for p in parts for d in p.datasets()})  # every dataset read, covered or short
    return Judged(record, observed or "no value", reason, passed, seen)


def judge_every(
    parts: Sequence[Part], *, scope: str, min_datasets: int = MIN_DATASETS, digits: int = 3
) -> Judged:
    """Per part and dataset, the interval over its runs; all above 0 on ≥ ``min_datasets`` datasets."""
    chosen = [p for p in parts if p.every] or list(parts)
    intervals = [i for p in chosen for i in dataset_intervals(p, p.datasets())]
    counts = [len(p.datasets()) for p in chosen]
    datasets = sorted({d for p in chosen for d in p.datasets()})
    record = unc.record(f"{EVERY_METHOD}; {ORIENTATION}", intervals, n=min(counts) if counts else 0)
    beyond = sum(i["low"] > 0 for i in intervals)
    opposite = [i for i in intervals if i["high"] < 0]
    within = [i for i in intervals if i["low"] <= 0 <= i["high"]]
    observed = f"{beyond} of {len(intervals)} (part, dataset) intervals above 0 beyond noise"
    if opposite:
        observed += "; opposite beyond noise: " + "; ".join(_show(i, digits) for i in opposite)
    if within:
        observed += "; within noise: " + "; ".join(_show(i, digits) for i in within)
    if not intervals:
        observed = _singles(chosen, digits)
    reason = ""
    if (not counts or min(counts) < min_datasets) and not opposite:
        reason = (
            (f"{scope}; " if scope else "")
            + f"judged on {min(counts) if counts else 0} dataset(s) with ≥ 2 runs ({', '.join(datasets) or 'none'}), "
            f"a claim on every dataset needs ≥ {min_datasets}"
        )
    passed = bool(chosen) and all(
        p.arrays() and all(float(_stat(p)(a.mean(axis=0)[None, :])[0]) > 0 for a in p.arrays().values())
        for p in chosen
    )
    return Judged(record, observed, reason, passed, datasets)


def _verdict(record: dict[str, Any], not_evaluable: str) -> str:
    return check_verdict(kind="claim", level="trend", passed=True, uncertainty=record, expected=None,
                         not_evaluable=not_evaluable)[0]  # fmt: skip


def _check(
    id: str, claim: str, paper: str, judged: Judged, alt: Judged | None, *, tag: str, alternative_keys: Sequence[str],
    alternative_what: str, depends_on: Sequence[str], evidence_paths: Sequence[str], reason: str,
) -> Check:  # fmt: skip
    not_evaluable = judged.short
    keys = list(depends_on)
    if alt is not None and not not_evaluable:
        ours, theirs = _verdict(judged.record, ""), _verdict(alt.record, alt.short)
        if ours != theirs and theirs != NOT_EVALUABLE:
            not_evaluable = (
                f"the verdict rests on the normalisation set: {ours} without {alternative_what} in the trade-off's "
                f"normalisation, {theirs} with them ({alt.observed})"
            )
            keys += list(alternative_keys)
        elif alternative_what:
            reason = "; ".join(
                p for p in (reason, f"the same verdict with {alternative_what} in the normalisation") if p
            )
    if tag and not not_evaluable:
        claim = f"{claim} [{tag}]"
    return Check(
        id, claim, paper, judged.observed, "trend", judged.passed,
        "; ".join(p for p in (reason, f"datasets: {', '.join(judged.datasets) or 'none'}") if p),
        "every effect above 0 (the paper's direction)",
        {i["name"]: i["estimate"] for i in judged.record["intervals"]}, tuple(evidence_paths), kind="claim",
        uncertainty=judged.record, depends_on=tuple(dict.fromkeys(keys)), not_evaluable=not_evaluable,
    )  # fmt: skip


def average_check(
    id: str, claim: str, paper: str, parts: Sequence[Part], *, scope: str = "", tag: str = "",
    alternative: Sequence[Part] | None = None, alternative_keys: Sequence[str] = (), alternative_what: str = "",
    depends_on: Sequence[str] = (), evidence_paths: Sequence[str] = (), reason: str = "",
    min_datasets: int = MIN_DATASETS,
) -> Check:  # fmt: skip
    """The claim on average over the datasets (see the module docstring)."""
    judged = judge_average(parts, scope=scope, min_datasets=min_datasets)
    alt = None if alternative is None else judge_average(alternative, scope=scope, min_datasets=min_datasets)
    return _check(id, claim, paper, judged, alt, tag=tag, alternative_keys=alternative_keys,
                  alternative_what=alternative_what, depends_on=depends_on, evidence_paths=evidence_paths,
                  reason=reason)  # fmt: skip


def every_check(
    id: str, claim: str, paper: str, parts: Sequence[Part], *, scope: str = "", tag: str = "",
    alternative: Sequence[Part] | None = None, alternative_keys: Sequence[str] = (), alternative_what: str = "",
    depends_on: Sequence[str] = (), evidence_paths: Sequence[str] = (), reason: str = "",
    min_datasets: int = MIN_DATASETS,
) -> Check:  # fmt: skip
    """The claim on every dataset (see the module docstring)."""
    judged = judge_every(parts, scope=scope, min_datasets=min_datasets)
    alt = None if alternative is None else judge_every(alternative, scope=scope, min_datasets=min_datasets)
    return _check(id, claim, paper, judged, alt, tag=tag, alternative_keys=alternative_keys,
                  alternative_what=alternative_what, depends_on=depends_on, evidence_paths=evidence_paths,
                  reason=reason)  # fmt: skip


def split_checks(
    id: str, claim: str, paper: str, parts: Sequence[Part], *, every_parts: Sequence[Part] | None = None,
    every_paper: str = "", alternative: Sequence[Part] | None = None,
    alternative_every: Sequence[Part] | None = None, where: str = "", **kwargs: Any,
) -> list[Check]:  # fmt: skip
    """``[average, every dataset]``: ids ``id`` and ``id-every-dataset``.

    ``where`` restricts the wording ("where GC learns: dry_bean, …"): it is part of the claim's
    title, so the summary that lists the titles says on which datasets "every dataset" was judged.
    """
    average = f"on average over the datasets {where}" if where else "on average over the datasets"
    every = f"on every dataset {where}" if where else "on every dataset"
    return [
        average_check(id, f"{claim}, {average}", paper, parts, alternative=alternative, **kwargs),
        every_check(
            f"{id}-every-dataset", f"{claim}, {every}", every_paper or paper,
            list(every_parts if every_parts is not None else parts), alternative=alternative_every, **kwargs,
        ),
    ]  # fmt: skip


__all__ = [
    "AVERAGE_METHOD",
    "EVERY_METHOD",
    "MIN_DATASETS",
    "ORIENTATION",
    "Judged",
    "Part",
    "average_check",
    "by_unit",
    "covered",
    "dataset_intervals",
    "every_check",
    "judge_average",
    "judge_every",
    "nested_draws",
    "nested_interval",
    "point_estimate",
    "runs_per_dataset",
    "split_checks",
    "unit_index",
]
