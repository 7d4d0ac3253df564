"""R-EPS cost claims (Table 2, RQ3) and the claims this setup cannot test.

Seed paper ``000_06874021c9588b45.txt``: "our method improves time requirements by at least a
factor of 9" (abstract); "approximately 9 times faster than PATE-GAN and using fewer resources"
(Table 2: minutes per variant 0.16 for ε-PrivateSMOTE, 1.48 PATE-GAN, 3.57 DPGAN; RAM 22 % against
37-47 %). Per-variant times are fit + sample wall clock of each distinct released table on this
2-core CPU machine; in the protocol profile on ds3, the GANs at the paper's smallest budget.
These are measurements of *this* implementation: ε-PrivateSMOTE here is vectorised (about 60
times faster per variant than the paper's 0.16 min) and computes its nearest neighbours once
per dataset; DPGAN stops when its privacy budget is spent (1-4 of 100 epochs at ε ≤ 1 on ds3,
where synthcity's DPGAN spreads the budget over every epoch) and PATE-GAN at ε ≤ 1 after 5-36
of 100 iterations (as synthcity's PATE-GAN stops too), so their times are floors. So "at least
9 times" can be measured, "approximately 9 times" cannot be matched. Memory is compared above
the baseline every trial pays (Python, torch and the metrics: the peak of a RUS trial).
"""

from __future__ import annotations

import json
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
    "biases: ε-PrivateSMOTE is vectorised and reuses its nearest neighbours across variants (favours it), DPGAN and "
    "PATE-GAN at ε ≤ 1 stop when their privacy budget is spent (favours them: their times are floors)"
)
APPROX = (6.0, 13.5)
"""'Approximately 9 times': within a factor of 1.5 of 9 (our reading)."""
PAPER_EPS_MINUTES = 0.16


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
    claim = "minutes per variant: every deep / DP generator takes at least 9 times ε-PrivateSMOTE's (this implementation)"
    paper = (
        '"improves time requirements by at least a factor of 9" (abstract); "improving time complexity by a factor '
        'of 9" (§6); the "approximately 9 times" against PATE-GAN is table2-speedup-pategan-magnitude'
    )
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


def check_speedup_magnitude(run: ReproductionRun) -> Check:
    """Table 2 / §4.3: ε-PrivateSMOTE is approximately 9 times faster per variant than PATE-GAN."""
    check_id = "table2-speedup-pategan-magnitude"
    claim = f"minutes per variant: PATE-GAN takes approximately 9 times ε-PrivateSMOTE's ({APPROX[0]:g}-{APPROX[1]:g}×)"
    paper = '"approximately 9 times faster than PATE-GAN" (§4.3; Table 2: 1.48 / 0.16 min per variant)'
    eps, pate = minutes(run, EPS), minutes(run, "pategan")
    if eps.empty or pate.empty:
        return unavailable(
            check_id, claim, paper, "tolerance", "no ε-PrivateSMOTE or PATE-GAN fit time", kind="claim"
        )
    entry = ratio_interval(pate, eps, "PATE-GAN / ε-PrivateSMOTE")
    ratio = pate.mean() / eps.mean()
    return trend(
        check_id, claim, paper,
        f"{ratio:.0f}× (PATE-GAN {pate.mean():.3f} min, ε-PrivateSMOTE {eps.mean():.4f} min per variant; the paper's "
        f"ε-PrivateSMOTE took {PAPER_EPS_MINUTES:g} min, {PAPER_EPS_MINUTES / eps.mean():.0f} times ours)",
        bool(APPROX[0] <= ratio <= APPROX[1]), kind="claim", level="tolerance",
        expected={"low": APPROX[0], "high": APPROX[1]},
        uncertainty=unc.record(
            f"percentile bootstrap (95 %) of the ratio of mean minutes per variant, resampling each side's variants "
            f"({len(eps)} ε-PrivateSMOTE, {len(pate)} PATE-GAN)",
            [entry] if entry else [], n=min(len(eps), len(pate)),
        ),
        evidence=TABLE2_EVIDENCE,
        reason=(
            f"'approximately 9' read as within a factor of 1.5; the magnitude is set by the implementations: {_scope(run)}; "
            f"{BIASES}"
        ),
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


def memory_baseline(rows: pd.DataFrame) -> pd.Series:
    """Per dataset, the median peak RSS of the simplest technique's trials (RUS; else PPT or SMOTE): the import,
    data and metric memory every trial pays."""
    for generator in ("rus", "kanon_fulldomain", "smote"):
        part = rows[rows["generator"] == generator]
        if len(part):
            return part.groupby("dataset")["value"].median().astype(float)
    return pd.Series(dtype=float)


def check_memory(run: ReproductionRun) -> Check:
    """Table 2: ε-PrivateSMOTE uses less memory than every deep / DP generator (above the shared baseline)."""
    check_id = "table2-memory"
    claim = "peak memory above the baseline every trial pays: ε-PrivateSMOTE's is below every deep / DP generator's"
    paper = '"using fewer resources" (Table 2: RAM 22.41 % against 37.42-47.42 %)'
    rows = cost_rows(run, "peak_rss_mb")
    base = memory_baseline(rows)
    excess = rows.assign(value=rows["value"].astype(float) - rows["dataset"].map(base))
    eps = excess[excess["generator"] == EPS]["value"].dropna()
    others = {g: excess[excess["generator"] == g]["value"].dropna() for g in GANS}
    others = {g: v for g, v in others.items() if len(v)}
    if eps.empty or not others or base.empty:
        return unavailable(
            check_id,
            claim,
            paper,
            "trend",
            "no peak memory of ε-PrivateSMOTE, a GAN or the baseline",
            kind="claim",
        )
    entries = [
        unc.two_sample_difference(v, eps, f"{TECHNIQUES[g]} − ε-PrivateSMOTE, MB") for g, v in others.items()
    ]
    return trend(
        check_id, claim, paper,
        f"above the baseline ({', '.join(f'{d} {v:.0f} MB' for d, v in base.items())}): ε-PrivateSMOTE {eps.mean():+.0f} MB; "
        + ", ".join(f"{TECHNIQUES[g]} {v.mean():+.0f}" for g, v in others.items()),
        all(v.mean() > eps.mean() for v in others.values()), kind="claim",
        uncertainty=unc.record(
            "bootstrap (95 %) of each difference of mean peak RSS above the baseline, resampling each side's fitted trials",
            [e for e in entries if e], n=min(len(v) for v in others.values()),
        ),
        evidence=TABLE2_EVIDENCE,
        reason=(
            "peak resident memory of the trial's process tree (generator and metrics), fitted trials only, minus the "
            "median peak of a RUS trial on the same dataset (Python, torch, the data and the metrics, about 250 MB); "
            f"{_scope(run)}; the paper's RAM % is of a 256 GiB machine, and its ε-PrivateSMOTE RAM % (22.41) repeats "
            "its CPU % (see table2-eps-ram-copy)"
        ),
    )  # fmt: skip


# ---------------------------------------------------------------------- what cannot be tested here
def rewritten_shares(run: ReproductionRun) -> pd.Series:
    """Share of the training rows ε-PrivateSMOTE treats as highest-risk (and rewrites), per (dataset, QI set)."""
    rows = run.rows("fit_seconds", generator=EPS)
    shares: dict[tuple[str, str], float] = {}
    for dataset, qi, text in zip(rows["dataset"], rows["qi_set"], rows["details"]):
        info = (json.loads(text) if isinstance(text, str) and text else {}).get("generator", {})
        if info.get("n_train") and info.get("n_risky") is not None:
            shares[(str(dataset), str(qi))] = float(info["n_risky"]) / float(info["n_train"])
    if not shares:
        return pd.Series(dtype=float)
    return pd.Series(shares, dtype=float).rename_axis(["dataset", "qi_set"]).sort_index()


def check_no_full_learning(run: ReproductionRun) -> Check:
    """§4.3/§6: ε-PrivateSMOTE alters only the highest-risk rows, leaving the privacy-secure ones (a share of the data) as they are."""
    check_id = "no-full-learning"
    claim = (
        "ε-PrivateSMOTE rewrites only the highest-risk rows, so some training rows (the privacy-secure ones) are left "
        "unaltered in every (dataset, QI set)"
    )
    paper = (
        '"Since it does not alter privacy-secure instances, this may help explain its performance" (§4.3); "does not '
        'require learning all real data" (§6)'
    )
    shares = rewritten_shares(run)
    if shares.empty:
        return unavailable(
            check_id, claim, paper, "exact", "no ε-PrivateSMOTE trial with its risky-row count", kind="claim"
        )
    by_dataset = shares.groupby(level=0).agg(["min", "max"])
    full = shares[shares >= 1.0 - 1e-12]
    return trend(
        check_id, claim, paper,
        "share of training rows rewritten per dataset: "
        + ", ".join(f"{d} {r['min']:.0%}-{r['max']:.0%}" for d, r in by_dataset.iterrows())
        + (f"; every row in {', '.join(f'{d} {q}' for d, q in full.index)}" if len(full) else ""),
        bool(full.empty), kind="claim", level="exact", value={f"{d}/{q}": float(v) for (d, q), v in shares.items()},
        uncertainty={"method": "the highest-risk rows follow from the data and the QI set (k < 3): a count, no noise", "deterministic": True},
        depends_on=(EPS,),
        reason=(
            "measured, not a design property: where a QI set makes every row a single-out or a pair (continuous QIs, "
            "e.g. ds3's eight), nothing is privacy-secure and every row is rewritten, so the explanation cannot apply "
            "there; the nearest neighbours are fitted on the whole training table (Algorithm 1, line 10)"
        ),
    )  # fmt: skip


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
            "easy-to-configure", "ε-PrivateSMOTE is easier to implement and configure than PPT",
            '"ϵ-PrivateSMOTE is easy to implement and configure when compared to traditional privacy solutions using PPT" (§1)',
            "a qualitative judgement; no measurement of this run tests it (PPT's ARX configuration is not published)",
        ),
    ]  # fmt: skip


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_speedup,
    check_speedup_magnitude,
    check_cost_ordering,
    check_memory,
    check_no_full_learning,
    check_not_evaluable,
]

__all__ = ["CHECKS", "cost_rows", "memory_baseline", "minutes", "ratio_interval", "rewritten_shares"]
