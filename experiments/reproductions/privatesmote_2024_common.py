"""R-EPS shared pieces: the techniques, the optimisation paths per block and the thresholds.

Every claim of :mod:`experiments.reproductions.privatesmote_2024` compares techniques on the
optimisation paths of ``000_…`` §4.3 (Fig. 4: each technique's best-AUC and best-linkability
variant) within *blocks*: (dataset, QI set) pairs, the replication the run has (one generator
seed, one split). Pairs of one dataset are not independent — they share the data, and a
technique that ignores the QI set releases the same table in all five — so the claims are
decided per dataset (:mod:`experiments.reproductions.privatesmote_2024_stats`).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from experiments.reproductions.privatesmote_2024_budget import PROTOCOL_BUDGETS, main_results
from harness.reproduction import Check, ReproductionRun
from harness.reproduction import uncertainty as unc

TECHNIQUES: dict[str, str] = {
    "kanon_fulldomain": "PPT",
    "rus": "RUS",
    "smote": "SMOTE",
    "borderline_smote": "BorderlineSMOTE",
    "sdv_copulagan": "Copula GAN",
    "sdv_tvae": "TVAE",
    "sdv_ctgan": "CTGAN",
    "dpgan": "DPGAN",
    "pategan": "PATE-GAN",
    "eps_private_smote": "ε-PrivateSMOTE",
}
EPS = "eps_private_smote"
PPT = "kanon_fulldomain"
SAMPLING: tuple[str, ...] = ("rus", "smote", "borderline_smote")
SDV: tuple[str, ...] = ("sdv_copulagan", "sdv_tvae", "sdv_ctgan")
DP: tuple[str, ...] = ("dpgan", "pategan")
GANS: tuple[str, ...] = (*SDV, *DP)
QI_GENERATORS: tuple[str, ...] = (EPS, PPT)
"""Techniques whose variants differ per QI set (the others release one table for all five)."""
NAME_OF: dict[str, str] = {name: generator for generator, name in TECHNIQUES.items()}
FIDELITY = ("range_coverage", "boundary_adherence", "statistic_similarity", "correlation_similarity")
PRIVACY = "linkability"
BLOCKS: tuple[str, ...] = ("dataset", "qi_set")
ROPE = 1.0
"""The paper's region of practical equivalence on the AUC percentage difference (§4.1), in %."""
LINK_MARGIN = 0.02
"""Practical equivalence of two linkability risks: about Anonymeter's own error at 500 attacks (0.01-0.04)."""
NEAR_ZERO = 0.05
"""'Near zero' / 'good privacy' for a linkability risk: at most 0.05 (our reading; the paper gives no number)."""
MIN_FIDELITY = 0.01
"""Smallest change of a [0, 1] general-utility score that counts as 'better' / 'lower' (Fig. 3): one point."""
PPT_GATE = "ppt_stand_in"
"""Gate key of the claims whose tested property PPT's stand-in does not have (see the gates module)."""
PPT_STAND_IN = (
    "PPT is kanon_fulldomain (full-domain generalisation to k = 3 with at most 5 % suppression, the 1st-3rd "
    "best k-minimal lattice node by entropy), not ARX with the authors' hand-set hierarchies (unpublished)"
)
PPT_NOT_EVALUABLE = (
    "PPT is a stand-in: the setup check setup-ppt-stand-in fails (kanon_fulldomain, not ARX with the authors' "
    "unpublished hierarchies, outlier suppression and dropped high-cardinality features, which the paper ties to "
    "its PPT's linkability, Boundary Adherence and solutions); the numbers on the stand-in are recorded, not judged"
)
"""Why every claim on PPT is not evaluable: the same words, so the summary lists them together."""


def ppt_not_evaluable(check: Check, also: str = "") -> Check:
    """``check`` (a claim on PPT) made not evaluable for the stand-in, ``also`` appended (another reason)."""
    return dataclasses.replace(check, not_evaluable=PPT_NOT_EVALUABLE + (f"; also {also}" if also else ""))


def utility_variant(run: ReproductionRun) -> str:
    """``best:roc_auc`` with several classifiers, else the single classifier's ``roc_auc``."""
    variants = set(run.results.loc[run.results["metric"] == "ml_efficacy", "variant"].astype(str))
    if "best:roc_auc" in variants:
        return "best:roc_auc"
    single = sorted(v for v in variants if v.endswith(":roc_auc"))
    return single[0] if single else "best:roc_auc"


_CACHE: dict[str, Any] = {}


def _cached(run: ReproductionRun, key: str, build: Any) -> Any:
    """One value per (run, key): the paths take seconds to compute and many claims read them."""
    if _CACHE.get("run") is not run:
        _CACHE.clear()
        _CACHE["run"] = run
    if key not in _CACHE:
        _CACHE[key] = build()
    return _CACHE[key]


def path_table(
    run: ReproductionRun,
    paths: Sequence[str] = ("privacy_first", "performance_first"),
    blocks: Sequence[str] = BLOCKS,
    frame: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Each technique's privacy-first and performance-first variant per block (Fig. 4).

    ``frame`` defaults to the main results (the protocol profile's paper-budget GANs left out).
    Rows carry the paper's technique names in ``technique``; empty when the run has no scores.
    """
    from harness.report.optimisation import optimisation_paths

    def build() -> pd.DataFrame:
        source = main_results(run) if frame is None else frame
        variant = utility_variant(run)
        keep = (source["metric"] == PRIVACY) | (
            (source["metric"] == "ml_efficacy") & (source["variant"] == variant)
        )
        variant_keys = tuple(k for k in ("qi_set", "generator_params") if k not in blocks)
        try:
            chosen = optimisation_paths(
                source[keep], privacy_metric=PRIVACY, utility_metric="ml_efficacy", utility_variant=variant,
                paths=tuple(paths), blocks=tuple(blocks), variant_keys=variant_keys,
            )  # fmt: skip
        except Exception:
            return pd.DataFrame(columns=["path", *blocks, "generator", "technique", "privacy", "utility"])
        chosen["technique"] = chosen["generator"].map(TECHNIQUES).fillna(chosen["generator"])
        return chosen

    if frame is not None:
        return build()
    return _cached(run, f"paths:{','.join(paths)}:{','.join(blocks)}", build)


def on_path(table: pd.DataFrame, path: str, generator: str, column: str) -> pd.Series:
    """``column`` (privacy or utility) of ``generator``'s pick on ``path``, indexed by block."""
    part = table[(table["path"] == path) & (table["generator"] == generator)]
    if part.empty:
        return pd.Series(dtype=float)
    return part.set_index(list(BLOCKS))[column].astype(float)


def pct_series(a: pd.Series, b: pd.Series) -> pd.Series:
    """100·(a − b)/|b| on the blocks both have (the paper's percentage difference)."""
    joined = pd.concat([a, b], axis=1, join="inner").dropna()
    if joined.empty:
        return pd.Series(dtype=float)
    return 100.0 * (joined.iloc[:, 0] - joined.iloc[:, 1]) / joined.iloc[:, 1].abs()


def blocks_text(index: pd.Index) -> str:
    """``N (dataset, QI set) pairs of D datasets (ds3, ds55)`` for a block index."""
    if len(index) == 0:
        return "no block"
    frame = index.to_frame(index=False)
    datasets = sorted(set(frame.iloc[:, 0].astype(str)))
    if frame.shape[1] < 2:
        return f"{len(index)} dataset(s) ({', '.join(datasets)})"
    return f"{len(index)} (dataset, QI set) pairs of {len(datasets)} dataset(s) ({', '.join(datasets)})"


def mean_interval(values: pd.Series, name: str) -> dict[str, Any] | None:
    """Bootstrap interval of the mean of ``values`` over its blocks (None with fewer than two)."""
    return unc.bootstrap_mean(values.dropna(), name)


def median_interval(values: pd.Series, name: str, *, n_boot: int = 2000) -> dict[str, Any] | None:
    """Percentile bootstrap interval of the median over blocks (None with fewer than two values)."""
    data = np.asarray(values.dropna(), dtype=float)
    if len(data) < 2:
        return None
    rng = np.random.default_rng(unc.SEED)
    draws = np.median(data[rng.integers(0, len(data), size=(n_boot, len(data)))], axis=1)
    low, high = np.percentile(draws, [2.5, 97.5])
    return unc.interval(name, float(np.median(data)), float(low), float(high))


def gan_keys(run: ReproductionRun, generator: str) -> tuple[str, ...]:
    """Gate keys a claim on ``generator``'s main-sweep results rests on (it learnt; its budget sufficed)."""
    keys = [generator]
    if run.profile == "protocol" and generator in PROTOCOL_BUDGETS:
        param, protocol, _ = PROTOCOL_BUDGETS[generator]
        keys.append(f"{generator}@{param}={protocol}")
    return tuple(keys)


def paper_budget_key(generator: str) -> str:
    """Gate key of ``generator`` trained at the paper's smallest budget (the protocol's ds3 sweeps)."""
    param, _, paper = PROTOCOL_BUDGETS[generator]
    return f"{generator}@{param}={paper}"


def gan_frame(run: ReproductionRun) -> tuple[pd.DataFrame, str]:
    """The rows a claim on the deep / DP generators reads, and where they come from, in words.

    Protocol profile: ds3, the GANs at the paper's smallest budget (its ``budget_*`` sweeps; the
    main sweeps' 10-epoch GANs fail their gates), the other techniques as in the main sweeps.
    Other profiles: the main results.
    """
    from experiments.reproductions.privatesmote_2024_budget import BUDGET_DATASET, budget_mask

    if run.profile != "protocol":
        return run.results, "the main sweeps"
    ds3 = run.results["dataset"] == BUDGET_DATASET
    gans = run.results["generator"].isin(list(PROTOCOL_BUDGETS))
    frame = run.results[ds3 & (~gans | budget_mask(run, "paper"))]
    return frame, f"{BUDGET_DATASET} only (one test-bed dataset) with the GANs at the paper's smallest budget"


def gan_table(run: ReproductionRun) -> tuple[pd.DataFrame, str]:
    """:func:`path_table` of :func:`gan_frame` (cached) and where it comes from."""
    frame, where = gan_frame(run)
    if run.profile != "protocol":
        return path_table(run), where
    return _cached(run, "paths:gans", lambda: path_table(run, frame=frame)), where


def gan_gate_keys(run: ReproductionRun, generator: str) -> tuple[str, ...]:
    """Gate keys of a claim on ``generator`` as :func:`gan_frame` reads it."""
    return (paper_budget_key(generator),) if run.profile == "protocol" else gan_keys(run, generator)


def iterations_run(run: ReproductionRun, table: pd.DataFrame, path: str, generator: str) -> str:
    """Epochs / iterations asked and run by ``generator``'s picks on ``path`` (``100 of 100``, ``5-36 of 100``)."""
    picks = table[(table["path"] == path) & (table["generator"] == generator)]
    if picks.empty or generator not in PROTOCOL_BUDGETS:
        return ""
    rows = run.rows("fit_seconds", generator=generator)
    ran: dict[str, int] = {}
    for params, text in zip(rows["generator_params"], rows["details"]):
        info = (json.loads(text) if isinstance(text, str) and text else {}).get("generator", {})
        value = info.get("epochs_run", info.get("iterations"))
        if value is not None:
            ran[str(params)] = int(value)
    asked = sorted(
        {int(json.loads(p).get(PROTOCOL_BUDGETS[generator][0], 0)) for p in picks["generator_params"]}
    )
    done = [ran[p] for p in picks["generator_params"] if p in ran]
    if not done:  # the SDV models record no count: they train every epoch asked
        return f"{'/'.join(map(str, asked))} of {'/'.join(map(str, asked))}" if generator in SDV else ""
    lo, hi = min(done), max(done)
    return f"{lo if lo == hi else f'{lo}-{hi}'} of {'/'.join(map(str, asked))}"


def fmt_series(values: dict[str, float], digits: int = 3) -> str:
    """``a 0.123, b 0.456`` (NaN as –)."""
    return ", ".join(
        f"{k} {v:.{digits}f}" if isinstance(v, float) and math.isfinite(v) else f"{k} –"
        for k, v in values.items()
    )


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (as ``scipy.stats.rankdata``, vectorised)."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts_group = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(starts_group) - 1
    counts = np.bincount(group)
    ends = np.cumsum(counts)
    average = (ends - counts + ends - 1) / 2 + 1
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = average[group]
    return ranks


def spearman_blocks(
    frame: pd.DataFrame, x: str, y: str, *, increasing: bool, name: str, n_boot: int = 2000
) -> dict[str, Any] | None:
    """Spearman's ρ between ``x`` and ``y`` (centred within each block), bootstrap over blocks.

    The sign is flipped for a stated decrease, so a positive interval supports the claim (as
    :func:`harness.reproduction.uncertainty.spearman_trend`, vectorised: the same resampling of
    blocks). None with fewer than two blocks (``n_boot`` ≤ 0: the estimate alone, from any block).
    """
    data = frame[[*BLOCKS, x, y]].dropna()
    groups = [
        (g[x].to_numpy(dtype=float), (g[y] - g[y].mean()).to_numpy(dtype=float))
        for _, g in data.groupby(list(BLOCKS), sort=True)
    ]
    if len(groups) < (1 if n_boot <= 0 else 2):
        return None
    sign = 1.0 if increasing else -1.0

    def rho(picked: Iterable[int]) -> float:
        xs = np.concatenate([groups[j][0] for j in picked])
        ys = np.concatenate([groups[j][1] for j in picked])
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            return 0.0
        return float(np.corrcoef(average_ranks(xs), average_ranks(ys))[0, 1])

    estimate = sign * rho(range(len(groups)))
    if n_boot <= 0:  # the estimate alone
        return unc.interval(name, estimate, estimate, estimate)
    rng = np.random.default_rng(unc.SEED)
    draws = np.array([sign * rho(rng.integers(0, len(groups), size=len(groups))) for _ in range(n_boot)])
    low, high = np.percentile(draws, [2.5, 97.5])
    return unc.interval(name, estimate, float(low), float(high))


__all__ = [
    "BLOCKS",
    "DP",
    "EPS",
    "FIDELITY",
    "GANS",
    "LINK_MARGIN",
    "MIN_FIDELITY",
    "NAME_OF",
    "NEAR_ZERO",
    "PPT",
    "PPT_GATE",
    "PPT_NOT_EVALUABLE",
    "PPT_STAND_IN",
    "PRIVACY",
    "QI_GENERATORS",
    "ROPE",
    "SAMPLING",
    "SDV",
    "TECHNIQUES",
    "blocks_text",
    "fmt_series",
    "gan_frame",
    "gan_gate_keys",
    "gan_keys",
    "gan_table",
    "iterations_run",
    "mean_interval",
    "median_interval",
    "on_path",
    "paper_budget_key",
    "ppt_not_evaluable",
    "path_table",
    "pct_series",
    "spearman_blocks",
    "utility_variant",
]
