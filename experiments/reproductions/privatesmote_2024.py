"""R-EPS checks (``spec/reproductions.md`` §1): ε-PrivateSMOTE, Carvalho, Moniz, Antunes & Chawla (``000_…``).

The paper ran 15 OpenML tables published only on Kaggle; offline we have ds55 and ds38 (both
among its 15) and ds43 and ds3 (protocol test-beds, spec §1.1), so per-dataset numbers are not comparable (the
paper publishes none) and the checks are the spec's: Table 2's arithmetic (exact, on the
printed values), the grid sizes (exact, from the paper profile's own sweeps), SMOTE's
infeasibility on ds38's string columns (exact), and the directions the text states (trend):
linkability, Range Coverage and Boundary Adherence against ε, the cost ordering, and the
privacy-first optimisation path's Bayes sign test against the oracle (Fig. 5).

Departures and caveats, recorded in the reasons:

* PPT is ``kanon_fulldomain`` (k = 3, 5 % suppression, third-best node; the paper used ARX
  with hand-set hierarchies it does not publish).
* Table 2's CPU %, GPU % and RAM % are not measured by the harness (peak RSS is); only its
  variant counts and minutes per variant are regenerated, on this machine.
* The quick profile runs ds55 (2,000 rows, one QI set) with one variant per baseline and the
  Random Forest alone: the cost ordering compares tiny GAN runs, and Fig. 5's sign test has a
  single block (dataset), so its probabilities mostly reflect the prior.
* The protocol profile (one 2-core machine, about three hours; its YAML header lists every
  departure) trains the GANs at a shrunk budget and once more at the paper's on ds3
  (:mod:`experiments.reproductions.privatesmote_2024_budget`), and its sign test's blocks are
  (dataset, QI set) pairs of ds55, ds43 and ds3.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.reproductions.privatesmote_2024_budget import (
    BUDGET_DATASET,
    PROTOCOL_BUDGETS,
    budget_mask,
    check_budget_stability,
    complete_blocks,
    main_results,
    sign_test_blocks,
)
from harness.reproduction import Check, ReproductionRun, exact, load_plan, ordered, trend, unavailable, within
from harness.reproduction.checks import fmt

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
# Table 2 (verbatim): technique -> (variants, elapsed minutes, CPU %, GPU %, RAM %, time per variant)
TABLE2: dict[str, tuple[int, float, float, float, float, float]] = {
    "Copula GAN": (60, 207.60, 10.43, 17.60, 37.42, 3.46),
    "TVAE": (60, 125.26, 13.09, 16.76, 37.42, 2.08),
    "CTGAN": (60, 206.94, 10.59, 41.66, 37.44, 3.44),
    "DPGAN": (240, 857.37, 8.19, 23.07, 47.34, 3.57),
    "PATE-GAN": (240, 355.33, 14.59, 9.96, 47.42, 1.48),
    "ε-PrivateSMOTE": (3375, 553.28, 22.41, 0.0, 22.41, 0.16),
}
FIDELITY = ("range_coverage", "boundary_adherence", "statistic_similarity", "correlation_similarity")
PRIVACY = "linkability"


# ---------------------------------------------------------------------- helpers
def _utility_variant(run: ReproductionRun) -> str:
    """``best:roc_auc`` with several classifiers, else the single classifier's ``roc_auc``."""
    variants = set(run.rows("ml_efficacy")["variant"].astype(str))
    if "best:roc_auc" in variants:
        return "best:roc_auc"
    single = sorted(v for v in variants if v.endswith(":roc_auc"))
    return single[0] if single else "best:roc_auc"


def _eps_means(run: ReproductionRun, metric: str, variant: str = "") -> dict[float, float]:
    rows = run.rows(metric, variant, generator=EPS)
    if rows.empty:
        return {}
    return {float(e): float(g["value"].mean()) for e, g in rows.groupby("param.epsilon")}


def _paper_jobs() -> list[dict[str, str]]:
    """The paper profile's jobs as {key: value} override mappings (no data is loaded)."""
    from harness.preflight import expand_jobs, hydra_context

    plan = load_plan("privatesmote_2024", "paper")
    jobs = []
    with hydra_context():
        for sweep in plan.sweeps:
            for job in expand_jobs(plan.sweep_overrides(sweep), multirun=True):
                jobs.append(dict(o.lstrip("+").split("=", 1) for o in job if "=" in o))
    return jobs


# ---------------------------------------------------------------------- Table 2 arithmetic
def check_table2_arithmetic(run: ReproductionRun) -> list[Check]:
    """Table 2: Time \\ Variant = elapsed minutes / variants (the paper truncates)."""
    out = []
    for technique, (variants, minutes, *_rest, per_variant) in TABLE2.items():
        out.append(
            exact(
                f"table2-per-variant-{technique.lower().replace(' ', '-').replace('ε-', 'eps-')}",
                f"Table 2 {technique}: elapsed minutes / variants = printed Time \\ Variant (±0.01)",
                f"{minutes} min / {variants} = {per_variant}",
                minutes / variants,
                per_variant,
                tol=0.01,
                reason="arithmetic on the printed values (the paper truncates: 125.26/60 = 2.088 → 2.08)",
            )  # fmt: skip
        )
    speed = TABLE2["PATE-GAN"][5] / TABLE2["ε-PrivateSMOTE"][5]
    count = TABLE2["ε-PrivateSMOTE"][0] / TABLE2["PATE-GAN"][0]
    out.append(
        exact(
            "table2-speedup",
            "Table 2: PATE-GAN / ε-PrivateSMOTE minutes per variant ≈ 9",
            '"approximately 9 times faster than PATE-GAN" (1.48 / 0.16)',
            speed,
            9.25,
            tol=0.005,
        )  # fmt: skip
    )
    out.append(
        exact(
            "table2-variant-ratio",
            "Table 2: ε-PrivateSMOTE variants / PATE-GAN variants > 14",
            '"more than 14 times the number of variants" (3375 / 240)',
            count,
            14.0625,
            tol=0.0005,
        )  # fmt: skip
    )
    return out


# ---------------------------------------------------------------------- grid sizes
GRID = {  # generator -> (variants per dataset, where the number comes from)
    EPS: (225, "Table 2: 3,375 over 15 datasets"),
    "kanon_fulldomain": (15, '§4.1: "the three best solutions w.r.t. utility" per QI set (spec §1.2: 15)'),
    "rus": (4, "§4.1: ratio {0.25, 0.5, 0.75, 1} (spec §1.2: ≤ 4)"),
    "smote": (9, "§4.1: knn {1, 3, 5} × ratio {0.5, 0.75, 1} (spec §1.2: ≤ 9)"),
    "borderline_smote": (9, "§4.1: knn {1, 3, 5} × ratio {0.5, 0.75, 1} (spec §1.2: ≤ 9)"),
    "sdv_copulagan": (4, "Table 2: 60 over 15 datasets"),
    "sdv_tvae": (4, "Table 2: 60 over 15 datasets"),
    "sdv_ctgan": (4, "Table 2: 60 over 15 datasets"),
    "dpgan": (16, "Table 2: 240 over 15 datasets"),
    "pategan": (16, "Table 2: 240 over 15 datasets"),
}
QI_GENERATORS = (EPS, "kanon_fulldomain")  # their variants differ per QI set


def check_grid_sizes(run: ReproductionRun) -> list[Check]:
    """Variants per dataset in the paper profile: 225 ε-PrivateSMOTE, 15 PPT, 4 per SDV model, 16 per DP GAN, ..."""
    variants: dict[tuple[str, str], set[tuple[tuple[str, str], ...]]] = {}
    for job in _paper_jobs():
        generator, dataset = job.get("generator", ""), job.get("dataset", "")
        params = {k: v for k, v in job.items() if k.startswith("generator.")}
        if generator == EPS and str(params.get("generator.reference_quirks")).lower() != "false":
            continue  # the authors'-code variant doubles the runs, not the paper's grid
        if generator in QI_GENERATORS:
            params["qi_set"] = job.get("qi_set", "")
        variants.setdefault((generator, dataset), set()).add(tuple(sorted(params.items())))
    out = []
    for generator, (count, paper) in GRID.items():
        per_dataset = {d: len(v) for (g, d), v in variants.items() if g == generator}
        same = len(set(per_dataset.values())) == 1
        observed = next(iter(per_dataset.values())) if per_dataset and same else math.nan
        note = "counted from the paper profile's sweeps"
        if generator == EPS:
            note += (
                "; ε-PrivateSMOTE also runs with reference_quirks: true (the authors' code), counted apart"
            )
        out.append(
            exact(
                f"grid-{generator}",
                f"variants per dataset of {TECHNIQUES[generator]} in the paper profile",
                paper,
                observed,
                count,
                reason=note,
            )  # fmt: skip
        )
    return out


# ---------------------------------------------------------------------- infeasibility
def check_smote_ds38_infeasible(run: ReproductionRun) -> Check:
    """SMOTE on ds38 (string columns) with on_categorical: error is infeasible (skipped)."""
    rows = run.rows("fit_seconds", generator="smote", dataset="ds38", status=None)
    claim = "SMOTE with on_categorical: error is infeasible on ds38 (string columns) → skipped"
    paper = "the Bayes-test script drops datasets without SMOTE / BorderlineSMOTE variants (32, 33, 38)"
    if rows.empty:
        return unavailable(
            "smote-ds38-infeasible", claim, paper, "exact", "no SMOTE trial on ds38 in this run"
        )
    statuses = sorted(set(rows["status"].astype(str)))
    return trend(
        "smote-ds38-infeasible", claim, paper, f"status {', '.join(statuses)}", statuses == ["skipped"],
        level="exact", value=statuses, expected=["skipped"],
    )  # fmt: skip


# ---------------------------------------------------------------------- cost
def _minutes_per_variant(run: ReproductionRun, generator: str) -> float:
    """Mean fit + sample minutes per distinct variant (QI sets share a variant when it ignores them).

    The protocol profile compares at the paper's budget: the GANs' paper-budget trials and
    ε-PrivateSMOTE, all on :data:`BUDGET_DATASET` (the main sweeps' GANs train for a tenth of it).
    """
    rows = run.rows("fit_seconds", generator=generator)
    if run.profile == "protocol":
        rows = rows[rows["dataset"] == BUDGET_DATASET]
        if generator in PROTOCOL_BUDGETS:
            rows = rows[budget_mask(run, "paper").loc[rows.index]]
    if rows.empty:
        return math.nan
    per = rows.groupby(["dataset", "generator_params"], dropna=False).agg(
        fit=("fit_s", "first"), sample=("sample_s", "first")
    )
    return float((per["fit"].fillna(0) + per["sample"].fillna(0)).mean()) / 60.0


def check_cost_ordering(run: ReproductionRun) -> Check:
    """Minutes per variant: ε-PrivateSMOTE < PATE-GAN < DPGAN (Table 2)."""
    values = {TECHNIQUES[g]: _minutes_per_variant(run, g) for g in (EPS, "pategan", "dpgan")}
    return ordered(
        "cost-ordering", "minutes per variant: ε-PrivateSMOTE < PATE-GAN < DPGAN",
        "0.16 < 1.48 < 3.57 (Table 2)", values, ["ε-PrivateSMOTE", "PATE-GAN", "DPGAN"], digits=4,
        reason="fit + sample wall clock on this machine, per distinct variant" + _cost_caveat(run),
        evidence=["tables/table2.md"],
    )  # fmt: skip


def _cost_caveat(run: ReproductionRun) -> str:
    if run.quick:
        return "; quick profile: GANs with a few iterations on 2,000 rows, so their fixed start-up cost dominates"
    if run.profile == "protocol":
        return (
            f"; {BUDGET_DATASET} only (844 training rows), GANs at the paper's smallest budget "
            f"({PROTOCOL_BUDGETS['dpgan'][2]} iterations), CPU only (the paper had a GPU)"
        )
    return "; CPU only (the paper's GANs had a GPU)"


# ---------------------------------------------------------------------- ε trends (Figs 2-3)
def check_linkability_vs_epsilon(run: ReproductionRun) -> Check:
    """Linkability of ε-PrivateSMOTE at ε = 0.1 exceeds its mean at ε ≥ 0.5 (Fig. 2)."""
    means = _eps_means(run, PRIVACY)
    low = means.get(0.1, math.nan)
    high = [v for e, v in means.items() if e >= 0.5]
    rest = float(np.mean(high)) if high else math.nan
    why = ""
    if len(means) >= 3 and rest > low:
        eps = sorted(means)
        rho = float(pd.Series([means[e] for e in eps]).rank().corr(pd.Series(range(len(eps))).rank()))
        why = (
            f"; linkability rises with ε (Spearman ρ = {rho:+.2f} over the per-ε means), the direction the "
            "Laplace noise predicts: a larger ε leaves the replaced high-risk rows closer to the originals "
            "they replace; the paper explains its reading by ε = 0.1's spread tails (Fig. 3), which the "
            "range-coverage and boundary-adherence checks reproduce, but here the spread does not make "
            "the ε = 0.1 rows linkable"
        )
    return ordered(
        "linkability-epsilon", "linkability risk: mean at ε ≥ 0.5 < mean at ε = 0.1",
        '"0.1-PrivateSMOTE has higher linkability" (Fig. 2)', {"ε ≥ 0.5": rest, "ε = 0.1": low},
        ["ε ≥ 0.5", "ε = 0.1"], digits=4,
        reason=f"per-ε means over {_eps_scope(run)}: "
        + ", ".join(f"{e:g}: {fmt(v, 4)}" for e, v in sorted(means.items()))
        + why,
        evidence=["figures/fig2_linkability_vs_auc.png"],
    )  # fmt: skip


def _monotone_check(run: ReproductionRun, id: str, metric: str, increasing: bool, paper: str) -> Check:
    means = _eps_means(run, metric)
    if len(means) < 2:
        return unavailable(id, f"{metric} monotone in ε", paper, "trend", "fewer than two ε values")
    eps = sorted(means)
    values = [means[e] for e in eps]
    direction = "increases" if increasing else "decreases"
    scope = _eps_scope(run)
    if np.ptp(values) == 0:
        return trend(
            id, f"ε-PrivateSMOTE: {metric.replace('_', ' ')} {direction} with ε", paper,
            f"{values[0]:.4f} at every ε", False,
            reason=f"no variation across ε over {scope}: the metric does not see ε's noise on these data",
            evidence=["figures/fig3_fidelity_by_epsilon.png"],
        )  # fmt: skip
    rho = float(pd.Series(values).corr(pd.Series(eps, dtype=float), method="spearman"))
    passed = (values[-1] > values[0]) if increasing else (values[-1] < values[0])
    passed = passed and (rho > 0 if increasing else rho < 0)
    return trend(
        id, f"ε-PrivateSMOTE: {metric.replace('_', ' ')} {direction} with ε (Spearman ρ of the per-ε means)",
        paper, f"ρ = {rho:+.2f}; " + ", ".join(f"ε {e:g}: {v:.4f}" for e, v in zip(eps, values)), passed,
        value={"rho": rho, "means": dict(zip(map(str, eps), values))}, evidence=["figures/fig3_fidelity_by_epsilon.png"],
        reason=f"per-ε means over {scope}; the paper pools 15 datasets",
    )  # fmt: skip


def _eps_scope(run: ReproductionRun) -> str:
    """Which ε-PrivateSMOTE trials a trend pools, in words (datasets, QI sets, variants)."""
    rows = run.rows("fit_seconds", generator=EPS)
    if rows.empty:
        return "no ε-PrivateSMOTE trial"
    datasets = ", ".join(sorted(set(rows["dataset"].astype(str))))
    return f"{len(rows)} variant(s) on {datasets} ({rows['qi_set'].nunique()} QI set(s))"


def check_fidelity_vs_epsilon(run: ReproductionRun) -> list[Check]:
    """Range Coverage decreases and Boundary Adherence increases with ε (Fig. 3)."""
    return [
        _monotone_check(run, "range-coverage-epsilon", "range_coverage", False,
                        '"lower ϵ values present better Range Coverage" (Fig. 3)'),
        _monotone_check(run, "boundary-adherence-epsilon", "boundary_adherence", True,
                        '"lower ϵ fails to adhere to the real boundaries" (Fig. 3)'),
    ]  # fmt: skip


def check_low_epsilon_equivalent_solutions(run: ReproductionRun) -> Check:
    """At ε = 0.1 some ε-PrivateSMOTE variants are practically equivalent to the original data's AUC."""
    variant = _utility_variant(run).replace("roc_auc", "rope_outcome")
    rows = run.rows("ml_efficacy", variant, generator=EPS, params={"epsilon": 0.1})
    outcomes = Counter(int(v) for v in rows["value"].dropna())
    return trend(
        "low-epsilon-equivalent", "ε = 0.1: at least one variant draws (|pct diff| ≤ 1 %) or wins against TRTR",
        '"0.1-PrivateSMOTE … can produce several solutions with equivalent predictive performance"',
        f"{outcomes.get(0, 0)} draw, {outcomes.get(1, 0)} win, {outcomes.get(-1, 0)} lose of {len(rows)}",
        outcomes.get(0, 0) + outcomes.get(1, 0) > 0, value=dict(outcomes),
        reason=f"ROPE ±1 % of the best classifier's TSTR AUC to the best TRTR AUC, ε = 0.1 variants of {_eps_scope(run)}",
        evidence=["figures/fig2_linkability_vs_auc.png"],
    )  # fmt: skip


# ---------------------------------------------------------------------- Fig. 5
def sign_tests(run: ReproductionRun) -> pd.DataFrame:
    """Bayes sign test of each technique's privacy-first variant against the oracle, per dataset (S1)."""
    from harness.report.bayes import bayes_sign_tests

    return bayes_sign_tests(_privacy_first_deltas(run)[1], by="technique")


def _privacy_first_deltas(run: ReproductionRun) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]]:
    """The privacy-first paths of the sign test's complete blocks, each technique's δ to the
    block's oracle, and the block columns."""
    from harness.report.optimisation import oracle_deltas

    blocks = sign_test_blocks(run)
    paths = complete_blocks(_paths(run, ("privacy_first",)), blocks)
    return paths, oracle_deltas(paths, technique="technique", blocks=blocks), blocks


def _paths(
    run: ReproductionRun, paths: tuple[str, ...] = ("privacy_first", "performance_first")
) -> pd.DataFrame:
    """Optimisation paths per (dataset, technique) with the paper's technique names in ``technique``."""
    from harness.report.optimisation import optimisation_paths

    blocks = sign_test_blocks(run)
    variant_keys = tuple(k for k in ("qi_set", "generator_params") if k not in blocks)
    chosen = optimisation_paths(
        main_results(run), privacy_metric=PRIVACY, utility_metric="ml_efficacy",
        utility_variant=_utility_variant(run), paths=paths, blocks=blocks, variant_keys=variant_keys,
    )  # fmt: skip
    chosen["technique"] = chosen["generator"].map(TECHNIQUES).fillna(chosen["generator"])
    return chosen


def check_fig5(run: ReproductionRun) -> list[Check]:
    """Fig. 5: ε-PrivateSMOTE and PPT have the highest P(draw) against the oracle (privacy first)."""
    from harness.report.bayes import bayes_sign_tests

    try:
        paths, deltas, blocks = _privacy_first_deltas(run)
        table = bayes_sign_tests(deltas, by="technique").set_index("technique")
    except Exception as exc:  # too few techniques or scores in this run
        return [
            unavailable(
                "fig5-draw", "Fig. 5: P(draw) ranking", "60 % for PPT and ε-PrivateSMOTE", "trend", str(exc)
            )
        ]
    draw = table["p_draw"].astype(float)
    eps = float(draw.get("ε-PrivateSMOTE", math.nan))
    others = draw.drop(labels=[t for t in ("ε-PrivateSMOTE", "PPT") if t in draw.index])
    caveat = _fig5_caveat(run, int(table["n"].max()), paths)
    if not run.quick:
        caveat = f"{_privacy_first_choices(paths, deltas, blocks)}; {caveat}"
    return [
        trend(
            "fig5-draw", "Fig. 5: P(draw) of ε-PrivateSMOTE ≥ every technique other than PPT",
            '"the probability of practical equivalence with the oracle is 60% for both PPT and ϵ-PrivateSMOTE"; '
            '"The remaining transformation techniques … lower than 15%"',
            f"ε-PrivateSMOTE {fmt(eps, 2)}, PPT {fmt(float(draw.get('PPT', math.nan)), 2)}, best other "
            f"{fmt(float(others.max()) if len(others) else math.nan, 2)}",
            bool(math.isfinite(eps) and (others.empty or eps >= others.max() - 1e-12)),
            value=draw.to_dict(), reason=caveat, evidence=["figures/fig5_sign_test.png", "tables/fig5_sign_test.md"],
        ),
        within(
            "fig5-eps-draw-value", "Fig. 5: P(draw) of ε-PrivateSMOTE", "60 %", eps, 0.5, 0.7, level="trend",
            reason=f"15 datasets in the paper; {caveat}", evidence=["tables/fig5_sign_test.md"],
        ),
    ]  # fmt: skip


def _privacy_first_choices(paths: pd.DataFrame, deltas: pd.DataFrame, blocks: tuple[str, ...]) -> str:
    """What the privacy-first path kept in the sign test's blocks: each technique's mean
    linkability and mean δ to the oracle, and the ε of ε-PrivateSMOTE's kept variants."""
    if paths.empty:
        return "no complete block"
    linkability = paths.groupby("technique")["privacy"].mean()
    delta = deltas.groupby("technique")["delta"].mean()
    chosen = paths[paths["technique"] == "ε-PrivateSMOTE"]["generator_params"]
    epsilons = Counter(float(json.loads(p).get("epsilon", math.nan)) for p in chosen)
    eps_text = ", ".join(f"ε = {e:g} in {n}" for e, n in sorted(epsilons.items()))

    def of(technique: str) -> str:
        if technique not in linkability.index:
            return f"{technique} absent"
        return (
            f"{technique} linkability {linkability[technique]:.3f}, δ {delta.get(technique, math.nan):+.2f} %"
        )

    sampling = "; ".join(of(t) for t in ("SMOTE", "BorderlineSMOTE", "RUS"))
    return (
        f"privacy first keeps each technique's lowest-linkability variant per block (means over "
        f"{len(paths.groupby(list(blocks)))} blocks, δ = % AUC to the block's oracle, ROPE ±1 %): "
        f"{of('ε-PrivateSMOTE')} (its kept variants: {eps_text} blocks), {of('PPT')}; the sampling methods "
        f"keep original rows as they are ({sampling}): with far higher linkability "
        "their AUC stays within the ROPE of the oracle, whereas the paper gives every technique but PPT and "
        "ε-PrivateSMOTE < 15 % while calling the sampling methods' predictive performance \"very similar to "
        'the original data" (§4.3)'
    )


def _dropped_datasets(run: ReproductionRun, paths: pd.DataFrame) -> str:
    """Datasets of the run that have no complete sign-test block (``paths``: those of the blocks)."""
    dropped = sorted(set(main_results(run)["dataset"].astype(str)) - set(paths["dataset"].astype(str)))
    return ", ".join(dropped) if dropped else "none"


def _fig5_caveat(run: ReproductionRun, n_blocks: int, paths: pd.DataFrame) -> str:
    if run.quick:
        return f"{n_blocks} block (one dataset, 2,000 rows): the probabilities mostly reflect the prior"
    if run.profile == "protocol":
        return (
            f"{n_blocks} blocks = (dataset, QI set) pairs of the datasets with every technique (dropped as "
            f"the paper's script does, no SMOTE variants: {_dropped_datasets(run, paths)}); the paper's blocks are its 15 datasets, and pairs of one "
            "dataset are not independent; GANs at a tenth of the paper's budget (see gan-budget-stability)"
        )
    return f"{n_blocks} block(s) (datasets; the paper has 15, we have the 4 available offline)"


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_table2_arithmetic, check_grid_sizes, check_smote_ds38_infeasible, check_cost_ordering,
    check_linkability_vs_epsilon, check_fidelity_vs_epsilon, check_low_epsilon_equivalent_solutions, check_fig5,
    check_budget_stability,
]  # fmt: skip
ALLOWED_STATUSES = {"skipped"}  # SMOTE on ds38 (string columns): infeasible by design


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """Figs 2-6 and Table 2 regenerated from the run (:mod:`experiments.reproductions.privatesmote_2024_figures`)."""
    from experiments.reproductions.privatesmote_2024_figures import write_artifacts

    write_artifacts(run)
