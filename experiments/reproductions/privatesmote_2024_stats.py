"""R-EPS statistics: intervals per dataset, the estimates' own noise, shares over datasets.

The run replicates each comparison over (dataset, QI set) blocks, but the five QI sets of a
dataset share its data, its test split and — for every technique that ignores the QI set — its
released table. So no claim is decided by pooling the 15 blocks as if independent (issue 27,
referee item 11): :func:`dataset_intervals` gives **one interval per dataset** (a t interval
over its QI-set blocks, plus the estimates' own noise: the test split's for an AUC, Anonymeter's
for a linkability), and the verdict rule then asks the claim to hold on *every* dataset. The
effective sample is the number of datasets (three; two in Fig. 5; one, ds3, for the GANs at the
paper's budget), and every ``method`` says so.

Fig. 5 states shares of the paper's 15 datasets; :func:`wilson_share` gives the interval of a
share over this run's datasets, and :func:`blocks_needed` how many datasets a claim would need
when the interval cannot decide.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from harness.reproduction import ReproductionRun
from harness.reproduction import uncertainty as unc
from harness.reproduction.adequacy import class_shares

Z = 1.959963984540054
"""The 97.5 % normal quantile (95 % two-sided)."""


# ---------------------------------------------------------------------- the estimates' own noise
def hanley_mcneil(auc: float, n_pos: int, n_neg: int) -> float:
    """Standard error of a ROC AUC on ``n_pos`` positive and ``n_neg`` negative test rows."""
    if n_pos < 1 or n_neg < 1 or not math.isfinite(auc):
        return math.nan
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc * auc) + (n_neg - 1) * (q2 - auc * auc)) / (
        n_pos * n_neg
    )
    return math.sqrt(max(var, 0.0))


@functools.lru_cache(maxsize=32)
def minority_share(dataset: str) -> float:
    """Share of the minority class of a bundled dataset (0.5 when it cannot be loaded, e.g. in unit tests)."""
    try:
        return float(class_shares(dataset).min())
    except Exception:
        return 0.5


def split_counts(dataset: str, rows: pd.DataFrame) -> tuple[int, int]:
    """Minority and majority rows of the test split (its size from the rows, its shares from the data)."""
    n_test = 0
    for text in rows.get("details", pd.Series(dtype=object)):
        try:
            n_test = int(json.loads(text).get("n_test") or 0) if isinstance(text, str) else 0
        except (json.JSONDecodeError, TypeError, ValueError, AttributeError):
            n_test = 0
        if n_test:
            break
    minority = minority_share(dataset)
    n_pos = max(1, round(minority * n_test)) if n_test else 0
    return n_pos, n_test - n_pos


def _cache(run: ReproductionRun) -> dict[str, Any]:
    cache: dict[str, Any] = run.__dict__.setdefault("_eps_stats", {})
    if cache.get("rows") is not run.results:
        cache.clear()
        cache["rows"] = run.results
    return cache


def auc_se(run: ReproductionRun, dataset: str, auc: float) -> float:
    """Hanley–McNeil standard error of a test AUC on ``dataset`` (0 when the split is unknown)."""
    cache = _cache(run)
    key = f"counts:{dataset}"
    if key not in cache:
        rows = run.results[(run.results["dataset"] == dataset) & (run.results["metric"] == "ml_efficacy")]
        cache[key] = split_counts(dataset, rows.head(50))
    se = hanley_mcneil(auc, *cache[key])
    return se if math.isfinite(se) else 0.0


def trtr_auc(run: ReproductionRun, dataset: str, variant: str) -> float:
    """The original data's best test AUC (TRTR) of ``dataset``: the ``baseline`` of its ``variant`` rows."""
    cache = _cache(run)
    key = f"trtr:{dataset}:{variant}"
    if key not in cache:
        frame = run.results
        rows = frame[
            (frame["dataset"] == dataset) & (frame["variant"] == variant) & (frame["status"] == "ok")
        ]
        values = rows["baseline"].astype(float).dropna() if "baseline" in rows else pd.Series(dtype=float)
        cache[key] = float(values.median()) if len(values) else math.nan
    return float(cache[key])


def linkability_se(run: ReproductionRun) -> pd.Series:
    """Standard error of each linkability estimate, by (dataset, QI set, generator, params): its 95 % CI / 3.92."""
    cache = _cache(run)
    if "link_se" not in cache:
        rows = run.results[(run.results["metric"] == "linkability") & (run.results["status"] == "ok")]
        width = (rows["ci_high"].astype(float) - rows["ci_low"].astype(float)) / (2 * Z)
        keys = [rows[c] for c in ("dataset", "qi_set", "generator", "generator_params")]
        cache["link_se"] = width.groupby(keys).mean()
    return cache["link_se"]


def release_spread(run: ReproductionRun, dataset: str, generator: str, params: str) -> float:
    """How much an AUC of ``generator``'s releases moves on ``dataset``'s test split: the SD over its distinct
    releases there (at the same training budget as ``params``); Hanley–McNeil's SE with fewer than two."""
    from experiments.reproductions.privatesmote_2024_budget import PROTOCOL_BUDGETS
    from experiments.reproductions.privatesmote_2024_common import utility_variant

    cache = _cache(run)
    budget = None
    if generator in PROTOCOL_BUDGETS and isinstance(params, str) and params:
        budget = json.loads(params).get(PROTOCOL_BUDGETS[generator][0])
    key = f"spread:{dataset}:{generator}:{budget}"
    if key not in cache:
        rows = run.rows("ml_efficacy", utility_variant(run), generator=generator, dataset=dataset)
        if budget is not None:
            rows = rows[rows[f"param.{PROTOCOL_BUDGETS[generator][0]}"].astype(float) == float(budget)]
        values = rows.drop_duplicates(["qi_set", "generator_params"])["value"].astype(float).dropna()
        if generator not in ("eps_private_smote", "kanon_fulldomain"):
            values = rows.drop_duplicates("generator_params")["value"].astype(float).dropna()
        cache[key] = (
            float(values.std(ddof=1))
            if len(values) > 1
            else auc_se(run, dataset, float(values.mean()) if len(values) else 0.5)
        )
    return float(cache[key])


def pick_se(run: ReproductionRun, table: pd.DataFrame, path: str, generator: str, column: str) -> pd.Series:
    """The noise the blocks cannot show, per block of ``generator``'s picks on ``path``.

    Where the picks of a dataset take one value in every block (one release repeated over the QI
    sets, or a single block), the spread over blocks says nothing about their noise, so the
    estimate's own noise is used: for ``privacy`` Anonymeter's (its 95 % interval / 3.92), for
    ``utility`` the spread of the technique's releases on the same test split
    (:func:`release_spread`), for ``pct`` the same in % of the original data's AUC. Elsewhere 0:
    the blocks' spread carries the noise.
    """
    picks = table[(table["path"] == path) & (table["generator"] == generator)]
    if picks.empty:
        return pd.Series(dtype=float)
    index = pd.MultiIndex.from_frame(picks[["dataset", "qi_set"]])
    value = picks["privacy" if column == "privacy" else "utility"].astype(float)
    spread = value.groupby(picks["dataset"]).transform(lambda v: float(np.ptp(v)) if len(v) > 1 else 0.0)
    constant = (spread <= 1e-12).to_numpy()
    if column == "privacy":
        se = linkability_se(run)
        keys = zip(picks["dataset"], picks["qi_set"], picks["generator"], picks["generator_params"])
        values = [float(se.get(k, math.nan)) for k in keys]
    else:
        values = [
            release_spread(run, str(d), generator, str(p))
            for d, p in zip(picks["dataset"], picks["generator_params"])
        ]
        if column == "pct":
            from experiments.reproductions.privatesmote_2024_common import utility_variant

            variant = utility_variant(run)
            values = [100 * s / trtr_auc(run, str(d), variant) for s, d in zip(values, picks["dataset"])]
    out = pd.Series(np.where(constant, values, 0.0), index=index, dtype=float)
    return out.fillna(0.0)


def combined(*parts: pd.Series) -> pd.Series:
    """√(Σ se²) on the blocks every part has (independent estimates: conservative for a shared test split)."""
    frame = pd.concat(parts, axis=1, join="inner").fillna(0.0)
    return np.sqrt((frame**2).sum(axis=1))


# ---------------------------------------------------------------------- one interval per dataset
def dataset_intervals(
    effect: pd.Series, name: str, *, se: pd.Series | None = None, shift: float = 0.0
) -> list[dict[str, Any]]:
    """One interval per dataset of the mean ``effect`` over its blocks, minus ``shift``.

    Half-width √((t·s/√k)² + (1.96·se)²): ``s`` the spread of the dataset's k blocks (t with
    k − 1 degrees of freedom), ``se`` the mean standard error the blocks cannot show
    (:func:`pick_se`: a side repeated unchanged over the blocks; shared by them, so not divided
    by √k). A dataset with one block and no standard error has no noise estimate and no interval.
    """
    from scipy.stats import t as student

    out = []
    for dataset, part in effect.dropna().groupby(level=0, sort=True):
        k, mean = len(part), float(part.mean())
        spread = float(part.std(ddof=1)) / math.sqrt(k) if k > 1 else 0.0
        t = float(student.ppf(0.975, k - 1)) if k > 1 else 0.0
        noise = float(se.reindex(part.index).fillna(0.0).mean()) if se is not None and len(se) else 0.0
        if k < 2 and noise <= 0:
            continue
        half = math.hypot(t * spread, Z * noise)
        label = f"{dataset}: {name}" if name else str(dataset)
        out.append(unc.interval(label, mean - shift, mean - shift - half, mean - shift + half))
    return out


def datasets_method(index: pd.Index, what: str = "the mean effect", noise: str = "") -> str:
    """The ``method`` text of :func:`dataset_intervals` over the blocks of ``index``."""
    frame = index.to_frame(index=False) if len(index) else pd.DataFrame(columns=["dataset"])
    datasets = sorted(set(frame.iloc[:, 0].astype(str))) if len(frame) else []
    return (
        f"one interval per dataset ({', '.join(datasets) or 'none'}) of {what} over its QI-set blocks: t interval "
        f"(95 %) of their spread{' plus ' + noise if noise else ''}; the claim must hold on every dataset, so the "
        f"effective sample is {len(datasets)} dataset(s), not {len(index)} blocks (QI sets of one dataset share its "
        "data and test split)"
    )


AUC_NOISE = (
    "for a side that is one release repeated over the blocks, that release's own noise (the spread of the "
    "technique's releases' AUC on the same test split)"
)
LINK_NOISE = (
    "for a side that takes one value in every block, that estimate's own noise (Anonymeter's 95 % interval)"
)


def per_dataset(values: pd.Series, digits: int = 3, *, signed: bool = True) -> str:
    """Means per dataset of a block-indexed series, as text (``ds3 +0.12, ds55 -0.03``)."""
    if values.empty:
        return "no block"
    means = values.groupby(level=0).mean()
    sign = "+" if signed else ""
    return ", ".join(f"{d} {v:{sign}.{digits}f}" for d, v in means.items())


# ---------------------------------------------------------------------- shares over datasets
def dataset_shares(indicator: pd.Series) -> pd.Series:
    """Per dataset, the share of its blocks where ``indicator`` (0/1, block-indexed) is 1."""
    return indicator.astype(float).groupby(level=0).mean()


def wilson_share(shares: pd.Series, name: str) -> dict[str, Any] | None:
    """Wilson interval (95 %) of the mean share over datasets, each dataset one observation."""
    n = len(shares)
    if n == 0:
        return None
    p = float(shares.mean())
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return unc.interval(name, p, max(0.0, centre - half), min(1.0, centre + half))


def blocks_needed(share: float, half: float) -> int:
    """Datasets a share near ``share`` needs for a 95 % Wilson interval of about ±``half``."""
    if share <= 0:
        return math.ceil(Z * Z * (1 / half - 1))  # the Wilson upper bound of 0 of n below ``half``
    return math.ceil(Z * Z * share * (1 - share) / (half * half))


# ---------------------------------------------------------------------- claims that hold only if every part does
def conjunction(
    run: ReproductionRun,
    parts: Sequence[tuple[dict[str, Any] | None, tuple[str, ...]]],
    band: tuple[float | None, float | None] | None = None,
) -> tuple[list[dict[str, Any]], tuple[str, ...], str]:
    """Intervals and gate keys of a claim that holds only if every part does.

    A part supports the claim when its interval is above 0 (``band`` None: effects) or inside
    ``band`` (estimates). A part whose gates did not pass cannot support it; but when a part
    that needs no such gate already fails to support it, the claim cannot be reproduced
    whatever the others show, so they are left out (and the claim does not rest on their
    gates): the verdict is then not reproduced or inconclusive from the valid parts alone.
    Returns the intervals, the gate keys and a note on what was left out.
    """
    failed = {g.key for g in run.gates if not g.passed}

    def supports(entry: dict[str, Any]) -> bool:
        if band is None:
            return bool(entry["low"] > 0)
        low, high = band
        return (low is None or entry["low"] >= low) and (high is None or entry["high"] <= high)

    free = [(i, keys) for i, keys in parts if not set(keys) & failed]
    if any(i is not None and not supports(i) for i, _ in free) and len(free) < len(parts):
        names = [str(i["name"]) for i, keys in parts if i is not None and set(keys) & failed]
        note = (
            f"the parts resting on a gate not passed ({', '.join(names) or 'no value'}) are left out: without them "
            "the claim already cannot hold beyond noise"
        )
        free_keys = tuple(dict.fromkeys(k for _, ks in free for k in ks))
        return [i for i, _ in free if i is not None], free_keys, note
    keys = tuple(dict.fromkeys(k for _, ks in parts for k in ks))
    return [i for i, _ in parts if i is not None], keys, ""


__all__ = [
    "AUC_NOISE",
    "LINK_NOISE",
    "Z",
    "auc_se",
    "blocks_needed",
    "combined",
    "conjunction",
    "dataset_intervals",
    "dataset_shares",
    "datasets_method",
    "hanley_mcneil",
    "linkability_se",
    "minority_share",
    "per_dataset",
    "pick_se",
    "split_counts",
    "trtr_auc",
    "wilson_share",
]
