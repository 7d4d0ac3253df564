"""R-UMAP comparisons: effects per (dataset, run), their intervals, and the claim they decide.

Every comparison of the paper (Tables 2-6, §5) is an *effect in the direction the paper
states* per unit (dataset, split seed, fold): UMAP-SMOTENC's score minus a baseline's, a
baseline's minus the test fold's, ... A :class:`Part` holds one such effect (one classifier,
one privacy column, one baseline). :func:`comparison_check` turns parts into a claim:

* **mean over datasets** — per part, a two-level bootstrap interval of the mean effect:
  datasets resampled with replacement, then the runs within each drawn dataset
  (:func:`nested_interval`; the uncertainty over the datasets as blocks *and* the runs);
* **every dataset** — per part and dataset, the bootstrap interval over its runs. The paper's
  Holm-adjusted Wilcoxon p-values are the smallest attainable with 8 datasets (3.1e-02 =
  4·2/2⁸ for 4 comparisons, 3.9e-02 = 5·2/2⁸ for 5): every one of its 8 per-dataset
  differences has the stated sign. That is what ours can test on 6 datasets; the p-values
  themselves need 8 (``holm-p`` checks).

The verdict is the shared rule's (every interval above 0: reproduced; one below: not
reproduced; else inconclusive), with two rules of this module: a claim is judged on at
least :data:`MIN_DATASETS` datasets with two runs or more (else not evaluable, naming the
runs that would decide it) — except that one dataset in the opposite direction beyond noise
already refutes an "every dataset" claim; and a trade-off claim whose verdict changes when the
inadequate cut-budget CTGAN/TVAE rows enter the min-max normalisation rests on them
(``alternative``: not evaluable).
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
"""Datasets (with ≥ 2 runs) a claim across datasets needs: half of the six available here."""


@dataclass
class Part:
    """One effect of a claim, per (dataset, split seed, fold), positive in the stated direction.

    ``every``: whether the claim states it on every dataset (the Holm p-values) or only on
    average (a table's mean). ``ratio``: (numerator, denominator) per unit, when the effect is
    a ratio of means minus one (an improvement in %, a cost ratio) instead of a mean difference.
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
    arrays: list[np.ndarray], stat: Callable[[np.ndarray], np.ndarray], n_boot: int = unc.N_BOOT
) -> tuple[float, np.ndarray]:
    """Point estimate and bootstrap draws of ``stat`` (column means -> value) over datasets, then runs."""
    rng = np.random.default_rng(unc.SEED)
    means = np.stack(
        [a[rng.integers(0, len(a), size=(n_boot, len(a)))].mean(axis=1) for a in arrays]
    )  # datasets × draws × columns
    picked = rng.integers(0, len(arrays), size=(n_boot, len(arrays)))
    draws = means[picked, np.arange(n_boot)[:, None], :].mean(axis=1)
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


def nested_interval(part: Part, datasets: Sequence[str]) -> dict[str, Any] | None:
    """Two-level bootstrap interval of the part's effect over ``datasets`` (None with < 2)."""
    arrays = [a for d, a in part.arrays().items() if d in set(datasets)]
    if len(arrays) < 2:
        return None
    estimate, draws = nested_draws(arrays, _stat(part))
    return _interval(f"{part.name}: mean over {len(arrays)} datasets", estimate, draws)


def dataset_intervals(part: Part, datasets: Sequence[str]) -> list[dict[str, Any]]:
    """Per dataset, the bootstrap interval of the part's effect over its runs."""
    out = []
    arrays = part.arrays()
    for dataset in datasets:
        array = arrays.get(dataset)
        if array is None or len(array) < 2:
            continue
        estimate, draws = nested_draws([array], _stat(part))  # one dataset: the runs are resampled
        out.append(_interval(f"{part.name} · {dataset}", estimate, draws))
    return out


def _num(value: float, digits: int, signed: bool = True) -> str:
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def evidence(
    parts: Sequence[Part], datasets: Sequence[str], *, digits: int = 3
) -> tuple[list[dict[str, Any]], str]:
    """The intervals of ``parts`` over ``datasets`` and a short text of them."""
    means = [nested_interval(p, datasets) for p in parts]
    per_dataset = [i for p in parts if p.every for i in dataset_intervals(p, datasets)]
    shown = "; ".join(
        f"{p.name} {_num(m['estimate'], digits)} [{_num(m['low'], digits)}, {_num(m['high'], digits)}]"
        for p, m in zip(parts, means)
        if m is not None
    )
    text = f"mean over {len(datasets)} datasets: {shown}" if shown else "no mean over datasets"
    if not shown:  # too few datasets for a mean: show what each has (for reading; not evidence)
        singles = [i for p in parts for i in dataset_intervals(p, sorted(p.arrays()))]
        points = [(p.name, point_estimate(p)) for p in parts if p.arrays()]
        if not singles and points:
            text += "; point estimates (no noise estimate): " + "; ".join(
                f"{name} {_num(value, digits)}" for name, value in points
            )
        if singles:
            text += (
                "; per dataset: "
                + "; ".join(
                    f"{i['name']} {_num(i['estimate'], digits)} [{_num(i['low'], digits)}, {_num(i['high'], digits)}]"
                    for i in singles[:6]
                )
                + ("; …" if len(singles) > 6 else "")
            )
    elif per_dataset:
        beyond = sum(i["low"] > 0 for i in per_dataset)
        opposite = [i["name"] for i in per_dataset if i["high"] < 0]
        text += f"; per dataset: {beyond} of {len(per_dataset)} beyond noise in the stated direction"
        text += f", opposite beyond noise: {', '.join(opposite)}" if opposite else ", none opposite"
    return [m for m in means if m is not None] + per_dataset, text


def coverage(parts: Sequence[Part], minimum_runs: int = 2) -> list[str]:
    """Datasets where every part has at least ``minimum_runs`` runs."""
    sets = [{d for d, n in runs_per_dataset(p).items() if n >= minimum_runs} for p in parts]
    return sorted(set.intersection(*sets)) if sets else []


def _verdict(record: dict[str, Any], not_evaluable: str) -> str:
    return check_verdict(kind="claim", level="trend", passed=True, uncertainty=record, expected=None,
                         not_evaluable=not_evaluable)[0]  # fmt: skip


def judge(
    parts: Sequence[Part], *, method: str, scope: str, min_datasets: int = MIN_DATASETS, digits: int = 3
) -> tuple[dict[str, Any], str, str, bool, list[str]]:
    """``(uncertainty, observed, not_evaluable, passed, datasets)`` of ``parts``."""
    datasets = coverage(parts)
    intervals, observed = evidence(parts, datasets, digits=digits)
    record = unc.record(method, intervals, n=len(datasets))
    refuted = any(i["high"] < 0 and " · " in i["name"] for i in intervals)
    reason = ""
    if len(datasets) < min_datasets and not refuted:
        reason = (
            (f"{scope}; " if scope else "")
            + f"judged on {len(datasets)} dataset(s) with ≥ 2 runs ({', '.join(datasets) or 'none'}), "
            f"a claim across datasets needs ≥ {min_datasets}"
        )
    return record, observed, reason, point_estimates_agree(parts), datasets


def point_estimate(part: Part) -> float:
    """The part's effect from the means over its datasets (any number of runs)."""
    arrays = part.arrays()
    return float(_stat(part)(np.stack([a.mean(axis=0) for a in arrays.values()]).mean(axis=0)[None, :])[0])


def point_estimates_agree(parts: Sequence[Part]) -> bool:
    """Whether every point estimate is in the stated direction: each part's mean over the datasets
    it has (any number of runs) and, for ``every`` parts, each dataset's mean. No noise involved:
    this is the check's ``passed``, the verdict needs the intervals."""
    seen = False
    for part in parts:
        arrays = part.arrays()
        if not arrays:
            continue
        stat = _stat(part)
        per = [float(stat(a.mean(axis=0)[None, :])[0]) for a in arrays.values()]
        overall = point_estimate(part)
        if overall <= 0 or (part.every and min(per) <= 0):
            return False
        seen = True
    return seen


def comparison_check(
    id: str,
    claim: str,
    paper: str,
    parts: Sequence[Part],
    *,
    scope: str = "",
    tag: str = "",
    alternative: Sequence[Part] | None = None,
    alternative_keys: Sequence[str] = (),
    alternative_what: str = "",
    depends_on: Sequence[str] = (),
    evidence_paths: Sequence[str] = (),
    reason: str = "",
    min_datasets: int = MIN_DATASETS,
    digits: int = 3,
    every: bool = True,
) -> Check:
    """A claim from ``parts`` (see the module docstring).

    ``scope``: why datasets are missing (the not-evaluable reason); ``tag``: where the claim was
    judged, appended to the claim text when it is evaluable; ``alternative``: the same parts with
    the inadequate cut-budget rows in the trade-off's normalisation (``alternative_keys``: their
    failed gates).
    """
    what = "per part: two-level bootstrap (95 %) over datasets then runs" + (
        "; per dataset: bootstrap over its runs" if every and any(p.every for p in parts) else ""
    )
    record, observed, not_evaluable, passed, datasets = judge(
        parts, method=what, scope=scope, min_datasets=min_datasets, digits=digits
    )
    keys = list(depends_on)
    if alternative is not None and not not_evaluable:
        alt_record, alt_observed, alt_reason, _, _ = judge(
            alternative, method=what, scope=scope, min_datasets=min_datasets, digits=digits
        )
        ours, theirs = _verdict(record, ""), _verdict(alt_record, alt_reason)
        if ours != theirs and theirs != NOT_EVALUABLE:
            not_evaluable = (
                f"the verdict rests on {alternative_what}: {ours} without them in the trade-off's "
                f"normalisation, {theirs} with them ({alt_observed})"
            )
            keys += list(alternative_keys)
        elif alternative_what:
            reason = "; ".join(
                p for p in (reason, f"the same verdict with {alternative_what} in the normalisation") if p
            )
    if tag and not not_evaluable:
        claim = f"{claim} [{tag}]"
    return Check(
        id, claim, paper, observed, "trend", passed,
        "; ".join(p for p in (reason, f"datasets: {', '.join(datasets) or 'none'}") if p),
        "every effect above 0 (the paper's direction)",
        {i["name"]: i["estimate"] for i in record["intervals"]}, tuple(evidence_paths), kind="claim",
        uncertainty=record, depends_on=tuple(dict.fromkeys(keys)), not_evaluable=not_evaluable,
    )  # fmt: skip


__all__ = [
    "MIN_DATASETS",
    "Part",
    "by_unit",
    "comparison_check",
    "coverage",
    "covered",
    "dataset_intervals",
    "evidence",
    "judge",
    "nested_draws",
    "nested_interval",
    "point_estimates_agree",
    "runs_per_dataset",
    "unit_index",
]
