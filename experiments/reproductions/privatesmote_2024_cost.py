"""R-EPS cost claims (Table 2, RQ3) and the claims this setup cannot test.

Seed paper ``000_06874021c9588b45.txt``: "our method improves time requirements by at least a
factor of 9" (abstract); "approximately 9 times faster than PATE-GAN and using fewer resources"
(Table 2: minutes per variant 0.16 for ε-PrivateSMOTE, 1.48 PATE-GAN, 3.57 DPGAN; RAM 22 % against
37-47 %). Per-variant times are fit + sample wall clock of each distinct released table on this
2-core CPU machine; in the protocol profile on ds3, the GANs at the paper's smallest budget.
Two biases are stated in the checks: ε-PrivateSMOTE's nearest neighbours are computed once per
dataset and reused by its variants (the paper's code recomputes them), and DPGAN stops when its
privacy budget is spent (1-4 epochs of 100 at ε ≤ 1 on ds3), so its time is a floor.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from experiments.reproductions.privatesmote_2024_budget import BUDGET_DATASET, PROTOCOL_BUDGETS, budget_mask
from experiments.reproductions.privatesmote_2024_common import EPS, GANS, QI_GENERATORS, TECHNIQUES
from harness.reproduction import Check, ReproductionRun, not_evaluable, trend, unavailable
from harness.reproduction import uncertainty as unc

TABLE2_EVIDENCE = ("tables/table2.md",)
SPEEDUP = 9.0


def cost_rows(run: ReproductionRun, metric: str = "fit_seconds") -> pd.DataFrame:
    """Rows of ``metric`` the cost claims read, one per distinct released table (fits, not cache hits).

    Protocol profile: ds3, the GANs at the paper's smallest budget; otherwise every dataset.
    """
    frame = run.results
    rows = frame[(frame["metric"] == metric) & (frame["status"] == "ok")]
    if run.profile == "protocol":
        gans = rows["generator"].isin(list(PROTOCOL_BUDGETS))
        rows = rows[(rows["dataset"] == BUDGET_DATASET) & (~gans | budget_mask(run, "paper").loc[rows.index])]
    if "cache_hit" in rows:
        fitted = rows[rows["cache_hit"].astype("boolean").fillna(False) == False]  # noqa: E712
        rows = fitted if not fitted.empty else rows
    qi = rows["generator"].isin(QI_GENERATORS)
    keep = pd.concat([
        rows[qi].drop_duplicates(["dataset", "generator", "qi_set", "generator_params"]),
        rows[~qi].drop_duplicates(["dataset", "generator", "generator_params"]),
    ])  # fmt: skip
    return keep.sort_index()


def minutes(run: ReproductionRun, generator: str) -> pd.Series:
    """Fit + sample minutes of each of ``generator``'s distinct variants (see :func:`cost_rows`)."""
    rows = cost_rows(run)
    part = rows[rows["generator"] == generator]
    return (part["fit_s"].fillna(0).astype(float) + part["sample_s"].fillna(0).astype(float)) / 60.0


def _scope(run: ReproductionRun) -> str:
    if run.profile == "protocol":
        return (
            f"{BUDGET_DATASET} only (844 training rows), GANs at the paper's smallest budget (100 epochs or iterations), "
            "CPU only (the paper had a GPU)"
        )
    if run.quick:
        return (
            "quick profile: GANs with a few iterations on 2,000 rows, so their fixed start-up cost dominates"
        )
    return "every dataset of the run, CPU only (the paper's GANs had a GPU)"


BIASES = (
    "two biases: ε-PrivateSMOTE's nearest neighbours are computed once per dataset and reused by its variants "
    "(favours ε-PrivateSMOTE: only its first variant pays the search), and DPGAN stops when its privacy budget is "
    "spent (1-4 of 100 epochs at ε ≤ 1 on ds3: favours DPGAN, its time is a floor)"
)


def ratio_interval(
    a: pd.Series, b: pd.Series, name: str, minus: float = 0.0, n_boot: int = 4000
) -> dict[str, Any] | None:
    """Percentile bootstrap of mean(a)/mean(b) − ``minus``, resampling each side's variants."""
    x, y = np.asarray(a.dropna(), dtype=float), np.asarray(b.dropna(), dtype=float)
    if len(x) < 2 or len(y) < 2 or y.mean() <= 0:
        return None
    rng = np.random.default_rng(unc.SEED)
    bx = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)
    by = y[rng.integers(0, len(y), size=(n_boot, len(y)))].mean(axis=1)
    low, high = np.percentile(bx / by, [2.5, 97.5])
    return unc.interval(name, x.mean() / y.mean() - minus, low - minus, high - minus)


def check_speedup(run: ReproductionRun) -> Check:
    """Abstract / Table 2: ε-PrivateSMOTE is at least 9 times faster per variant than every deep / DP generator."""
    check_id = "table2-speedup"
    claim = "minutes per variant: every deep / DP generator takes at least 9 times ε-PrivateSMOTE's"
    paper = '"improves time requirements by at least a factor of 9" (abstract); "approximately 9 times faster than PATE-GAN" (Table 2: 1.48 / 0.16)'
    eps = minutes(run, EPS)
    ratios = {g: minutes(run, g) for g in GANS}
    ratios = {g: m for g, m in ratios.items() if len(m)}
    if eps.empty or not ratios:
        return unavailable(check_id, claim, paper, "trend", "no ε-PrivateSMOTE or GAN fit time", kind="claim")
    entries = [
        ratio_interval(m, eps, f"{TECHNIQUES[g]} / ε-PrivateSMOTE − {SPEEDUP:g}", SPEEDUP)
        for g, m in ratios.items()
    ]
    slowest = min(ratios, key=lambda g: ratios[g].mean())
    worst = ratios[slowest].mean() / eps.max()
    return trend(
        check_id, claim, paper,
        f"ε-PrivateSMOTE {eps.mean():.4f} min; " + ", ".join(f"{TECHNIQUES[g]} {m.mean() / eps.mean():.0f}×" for g, m in ratios.items())
        + f"; charging every ε-PrivateSMOTE variant the slowest variant's {eps.max() * 60:.2f} s (a bound that "
        f"includes a neighbour search), {TECHNIQUES[slowest]} still takes {worst:.0f}×",
        all(m.mean() >= SPEEDUP * eps.mean() for m in ratios.values()), kind="claim",
        uncertainty=unc.record(
            f"percentile bootstrap (95 %) of each ratio of mean minutes per variant, resampling the variants of each "
            f"side ({len(eps)} ε-PrivateSMOTE; the GANs' {', '.join(str(len(m)) for m in ratios.values())}), minus 9",
            [e for e in entries if e], n=min(len(m) for m in ratios.values()),
        ),
        evidence=TABLE2_EVIDENCE, reason=f"fit + sample wall clock per distinct variant; {_scope(run)}; {BIASES}",
    )  # fmt: skip


def check_cost_ordering(run: ReproductionRun) -> Check:
    """Table 2: minutes per variant ε-PrivateSMOTE < PATE-GAN < DPGAN."""
    check_id = "cost-ordering"
    claim = "minutes per variant: ε-PrivateSMOTE < PATE-GAN < DPGAN"
    paper = "0.16 < 1.48 < 3.57 (Table 2)"
    series = {TECHNIQUES[g]: minutes(run, g) for g in (EPS, "pategan", "dpgan")}
    if any(s.empty for s in series.values()):
        return unavailable(
            check_id, claim, paper, "trend", "no fit time of ε-PrivateSMOTE, PATE-GAN or DPGAN", kind="claim"
        )
    order = list(series)
    entries = [
        unc.two_sample_difference(series[b], series[a], f"{b} − {a}") for a, b in zip(order, order[1:])
    ]
    means = [float(series[k].mean()) for k in order]
    return trend(
        check_id, claim, paper,
        "; ".join(f"{k} {m:.4f}" for k, m in zip(order, means)) + " min",
        all(a < b for a, b in zip(means, means[1:])), kind="claim",
        uncertainty=unc.record(
            "bootstrap (95 %) of each difference of mean minutes per variant, resampling each side's variants "
            f"({', '.join(f'{k} {len(s)}' for k, s in series.items())})",
            [e for e in entries if e], n=min(len(s) for s in series.values()),
        ),
        evidence=TABLE2_EVIDENCE, reason=f"fit + sample wall clock per distinct variant; {_scope(run)}; {BIASES}",
    )  # fmt: skip


def check_memory(run: ReproductionRun) -> Check:
    """Table 2: ε-PrivateSMOTE uses less memory than every deep / DP generator."""
    check_id = "table2-memory"
    claim = "peak memory of a trial: ε-PrivateSMOTE's is below every deep / DP generator's"
    paper = '"using fewer resources" (Table 2: RAM 22.41 % against 37.42-47.42 %)'
    rows = cost_rows(run, "peak_rss_mb")
    eps = rows[rows["generator"] == EPS]["value"].astype(float)
    others = {g: rows[rows["generator"] == g]["value"].astype(float) for g in GANS}
    others = {g: v for g, v in others.items() if len(v)}
    if eps.empty or not others:
        return unavailable(
            check_id, claim, paper, "trend", "no peak memory of ε-PrivateSMOTE or a GAN", kind="claim"
        )
    entries = [
        unc.two_sample_difference(v, eps, f"{TECHNIQUES[g]} − ε-PrivateSMOTE, MB") for g, v in others.items()
    ]
    return trend(
        check_id, claim, paper,
        f"ε-PrivateSMOTE {eps.mean():.0f} MB; " + ", ".join(f"{TECHNIQUES[g]} {v.mean():.0f}" for g, v in others.items()),
        all(v.mean() > eps.mean() for v in others.values()), kind="claim",
        uncertainty=unc.record(
            "bootstrap (95 %) of each difference of mean peak RSS, resampling each side's fitted trials",
            [e for e in entries if e], n=min(len(v) for v in others.values()),
        ),
        evidence=TABLE2_EVIDENCE,
        reason=(
            f"peak resident memory of the trial's process tree (generator and metrics: the metrics are the same for "
            f"every technique), fitted trials only; {_scope(run)}; the paper's RAM % is of a 256 GiB machine"
        ),
    )  # fmt: skip


# ---------------------------------------------------------------------- what cannot be tested here
def _risky_shares(run: ReproductionRun) -> str:
    rows = run.rows("fit_seconds", generator=EPS)
    shares: dict[str, list[float]] = {}
    for dataset, text in zip(rows["dataset"], rows["details"]):
        info = (json.loads(text) if isinstance(text, str) and text else {}).get("generator", {})
        if info.get("n_train"):
            shares.setdefault(str(dataset), []).append(
                float(info.get("n_risky", math.nan)) / float(info["n_train"])
            )
    return (
        ", ".join(f"{d} {np.nanmin(v):.0%}-{np.nanmax(v):.0%}" for d, v in sorted(shares.items()))
        or "no ε-PrivateSMOTE trial"
    )


def check_not_evaluable(run: ReproductionRun) -> list[Check]:
    """The paper's findings this setup cannot test, each with what would test it."""
    datasets = sorted(set(run.rows("fit_seconds", generator=EPS)["dataset"].astype(str)))
    return [
        not_evaluable(
            "table2-resource-shares", "Table 2's CPU %, GPU %, RAM % and elapsed minutes per technique",
            "CPU 22.41 % / GPU 0 % / RAM 22.41 % for ε-PrivateSMOTE, 8-15 % / 10-42 % / 37-47 % for the GANs; 553 to 857 min",
            "the harness records wall clock and peak memory, not CPU or GPU utilisation, and runs on a CPU without "
            "the paper's GPU; the elapsed minutes sum 15 datasets this run does not have (table2-memory and "
            "table2-speedup test the comparisons that can be measured)",
        ),
        not_evaluable(
            "gpu-slower", "ε-PrivateSMOTE takes longer per variant on a GPU than on the CPU",
            '"our proposed approach requires more time to generate a data variant on the GPU" (§4.3)',
            "the harness's ε-PrivateSMOTE has no GPU path and this run had no GPU: it needs a GPU implementation timed against the CPU one",
        ),
        not_evaluable(
            "low-dimensional", "ε-PrivateSMOTE performs well on lower-dimensional data sets",
            '"it performs well on lower dimensional data sets" (§6)',
            f"a dimensionality effect needs many datasets spanning it (the paper's 15 would be a start); this run has "
            f"{len(datasets)} ({', '.join(datasets)}), whose differences cannot be told from other dataset traits",
        ),
        not_evaluable(
            "no-full-learning", "ε-PrivateSMOTE needs no model of the whole data: it rewrites only the highest-risk rows",
            '"does not require learning all real data" (§6); "it does not alter privacy-secure instances" (§4.3)',
            "a design property, not a measured finding; how much it spares depends on the QI sets: the share of "
            f"training rows it rewrites here is {_risky_shares(run)} per dataset (ds3's continuous QIs make every row a "
            "highest-risk case)",
        ),
        not_evaluable(
            "easy-to-configure", "ε-PrivateSMOTE is easier to implement and configure than PPT",
            '"ϵ-PrivateSMOTE is easy to implement and configure when compared to traditional privacy solutions using PPT" (§1)',
            "a qualitative judgement; no measurement of this run tests it (PPT's ARX configuration is not published)",
        ),
    ]  # fmt: skip


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_speedup,
    check_cost_ordering,
    check_memory,
    check_not_evaluable,
]

__all__ = ["CHECKS", "cost_rows", "minutes", "ratio_interval"]
