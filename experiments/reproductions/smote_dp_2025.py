"""R-SMOTEDP checks (``spec/reproductions.md`` §2): SMOTE-DP, Zhou, Malin & Kantarcioglu (``001_…``).

**Fig. 3** (artificial 2-D data, §2.1): :mod:`experiments.reproductions.smote_dp_2025_fig3` —
DP, SMOTE and SMOTE-DP moments with PrivBayes (the spec's Decision) and with ``dp_moments``, the
spread-calibrated mechanism the paper's Theorem 3.2 implies. SMOTE alone is closest and
contracts; SMOTE < SMOTE-DP < DP does not reproduce with either mechanism.

**Figs 4–7** (§2.2): membership-inference privacy gain PG (``mia_privacy_gain``, Stadler et
al.'s shadow-model attack) and Random Forest accuracy (``ml_efficacy`` preset ``stadler``) for the
paper's nine x-axis positions, reconstructed from the text (spec Decision): 1 BayesianNet
(PrivBayes without noise), 2–3 PrivBayes ε 0.1 / 50, 4–5 PATE-GAN ε 1 / 50, 6 SMOTE, 7–8
SMOTE-PrivBayes / SMOTE-PATE-GAN at ε 50, 9 the NHS sanitiser (plus PrivBayes ε 1 and PATE-GAN
ε 0.1). The checks are the spec's (a)–(c) and the direction statements of the figures' text.

Profiles: ``quick`` runs Texas only, PrivBayes, SMOTE and the sanitiser with a tiny attack (its
PG values are very noisy; the PATE-GAN, German Credit and Employee checks say so). ``protocol``
runs every position on the three full datasets with the paper's targets (5 outliers + 10 random)
and a reduced attack (5 shadow sets, 10 games); PATE-GAN (and the PATE-GAN stage of
SMOTE-PATE-GAN) trains 3 iterations and is attacked on the 5 Texas outliers and 5 random German
Credit / Employee records; one sweep repeats the PATE-GAN claims of German Credit at 6 iterations
(:func:`check_pategan_budget`). PATE-GAN rows are matched to the positions at the budget most
trials use (:func:`main_budget`). PATE-GAN ε = 0.1 is not run in the protocol (the moments
accountant cannot reach it at n = 1,000); the Fig. 5 and Fig. 7 checks compare the settings run.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from experiments.reproductions.smote_dp_2025_fig3 import CHECKS as FIG3_CHECKS
from experiments.reproductions.smote_dp_2025_fig3 import fig3_table
from experiments.reproductions.smote_dp_2025_positions import (
    ACCURACY,
    BUDGET_DATASET,
    COVERAGE,
    DP_POSITIONS,
    FIG_DATASETS,
    NON_DP_POSITIONS,
    PATEGAN_POSITIONS,
    POSITIONS,
    QUICK_SCOPE,
    main_budget,
    mean_accuracy,
    mean_of,
    mean_pg,
    missing_reason,
    nanmax,
    noise_note,
    pategan_iterations,
    per_target_pg,
    position_rows,
    variance,
)
from harness.reproduction import Check, ReproductionRun, not_reproducible, ordered, trend, unavailable, within
from harness.reproduction.checks import fmt


# ---------------------------------------------------------------------- Fig. 4 (Texas outliers)
def check_fig4_smote_privbayes(run: ReproductionRun) -> list[Check]:
    """(a) Texas outliers: SMOTE-PrivBayes(50) PG within 0.1 of PrivBayes(0.1), with higher RF accuracy."""
    smote, base = "7 SMOTE-PrivBayes ε=50", "2 PrivBayes ε=0.1"
    paper = ('"SMOTE-PrivBayes … achieved similar privacy protection as PrivBayes (ϵ=0.1) except for one '
             'outlier, however, SMOTE-PrivBayes retained much higher utility"')  # fmt: skip
    pg_smote, pg_base = mean_pg(run, smote, "texas", "outliers"), mean_pg(run, base, "texas", "outliers")
    acc_smote, acc_base = mean_accuracy(run, smote, "texas"), mean_accuracy(run, base, "texas")
    gap = abs(pg_smote - pg_base)
    quick = " (quick: 2 games, very noisy)" if run.quick else ""
    return [
        within(
            "fig4-a-privacy", "(a) Texas outliers: |PG(SMOTE-PrivBayes ε=50) − PG(PrivBayes ε=0.1)| ≤ 0.1",
            paper, gap, None, 0.1, level="trend", reason=f"PG {fmt(pg_smote)} vs {fmt(pg_base)}{quick}",
            if_failed=("" if run.quick else
                       f"{'SMOTE-PrivBayes protects the outliers less' if pg_smote < pg_base else 'PrivBayes ε=0.1 protects them less'}"
                       f" than the other; {noise_note(run, smote, base)}"),
            evidence=["figures/pg_texas.png"],
        ),
        ordered(
            "fig4-a-utility", "(a) Texas: RF accuracy PrivBayes ε=0.1 < SMOTE-PrivBayes ε=50", paper,
            {base: acc_base, smote: acc_smote}, [base, smote], evidence=["tables/accuracy.md"],
            if_failed="ε = 0.1 noise did not cost PrivBayes the accuracy SMOTE-PrivBayes keeps at ε = 50",
        ),
    ]  # fmt: skip


def check_fig4_privbayes_large_epsilon(run: ReproductionRun) -> Check:
    """Fig. 4: PrivBayes at ε = 50 protects the outliers as well as at ε = 0.1 (PG ≈ 1)."""
    large, small = "3 PrivBayes ε=50", "2 PrivBayes ε=0.1"
    pg_large, pg_small = mean_pg(run, large, "texas", "outliers"), mean_pg(run, small, "texas", "outliers")
    return within(
        "fig4-privbayes-large-epsilon", "Fig. 4 (Texas outliers): |PG(PrivBayes ε=50) − PG(PrivBayes ε=0.1)| ≤ 0.1",
        '"the privacy of the selected outliers are equally well protected (PG≈1) with such a high ϵ value using '
        'the PrivBayes algorithm"', abs(pg_large - pg_small), None, 0.1, level="trend",
        reason=f"PG ε=50 {fmt(pg_large)} vs ε=0.1 {fmt(pg_small)}" + (" (quick: 2 games)" if run.quick else ""),
        if_failed="" if run.quick else f"ε = 50 leaves the outliers more exposed than ε = 0.1; {noise_note(run, large, small)}",
        evidence=["figures/pg_texas.png"],
    )  # fmt: skip


def check_fig4_smote_pategan(run: ReproductionRun) -> Check:
    """Fig. 4: SMOTE-PATE-GAN (ε = 50) protects the Texas outliers better than PATE-GAN (ε = 1)."""
    smote, base = "8 SMOTE-PATE-GAN ε=50", "4 PATE-GAN ε=1"
    claim = "Fig. 4 (Texas outliers): PG of PATE-GAN ε=1 < SMOTE-PATE-GAN ε=50"
    paper = '"SMOTE-PateGAN … achieved much better privacy than PateGAN (ϵ=1.0)"'
    values = {base: mean_pg(run, base, "texas", "outliers"), smote: mean_pg(run, smote, "texas", "outliers")}
    if not all(math.isfinite(v) for v in values.values()):
        return unavailable("fig4-smote-pategan", claim, paper, "trend", missing_reason(run, "PATE-GAN"))
    return ordered(
        "fig4-smote-pategan", claim, paper, values, [base, smote], reason=noise_note(run, base, smote),
        if_failed="PATE-GAN's outlier PG is not improved by SMOTE preprocessing at ε = 50",
        evidence=["figures/pg_texas.png"],
    )  # fmt: skip


def check_fig4_dp_beats_non_dp(run: ReproductionRun) -> Check:
    """(c) Texas outliers: every DP generator has mean PG ≥ each non-DP generator."""
    claim = "(c) Texas outliers: min PG over DP positions 2-5, 7-8 ≥ max PG over non-DP positions 1, 6, 9"
    paper = '"All DP generators provided better privacy than the non-DP generators" (Fig. 4)'
    dp = {p: mean_pg(run, p, "texas", "outliers") for p in DP_POSITIONS}
    non_dp = {p: mean_pg(run, p, "texas", "outliers") for p in NON_DP_POSITIONS}
    dp_present = {p: v for p, v in dp.items() if math.isfinite(v)}
    non_present = {p: v for p, v in non_dp.items() if math.isfinite(v)}
    if not dp_present or not non_present:
        return unavailable("fig4-c-dp-vs-non-dp", claim, paper, "trend", missing_reason(run, "one side"))
    missing = sorted(set(dp) - set(dp_present)) + sorted(set(non_dp) - set(non_present))
    worst_dp = min(dp_present, key=dp_present.__getitem__)
    best_non = max(non_present, key=non_present.__getitem__)
    passed = dp_present[worst_dp] >= non_present[best_non] and not missing
    if missing:
        reason = missing_reason(run, ", ".join(missing))
    elif not passed:
        reason = f"{best_non[2:]} protects the outliers better than {worst_dp[2:]}; {noise_note(run, worst_dp, best_non)}"
    else:
        reason = ""
    return trend(
        "fig4-c-dp-vs-non-dp", claim, paper,
        f"lowest DP {worst_dp} {fmt(dp_present[worst_dp])}; highest non-DP {best_non} {fmt(non_present[best_non])}",
        passed, value={"dp": dp, "non_dp": non_dp}, reason=reason, evidence=["figures/pg_texas.png"],
    )  # fmt: skip


# ---------------------------------------------------------------------- stability (Figs 5-7)
STABILITY_PAIRS = {"privbayes": ("7 SMOTE-PrivBayes ε=50", "3 PrivBayes ε=50"),
                   "pategan": ("8 SMOTE-PATE-GAN ε=50", "5 PATE-GAN ε=50")}  # fmt: skip


def check_smote_dp_stability(run: ReproductionRun) -> list[Check]:
    """(b) PG variance across targets: SMOTE-DP ≤ the same DP generator without SMOTE, per dataset."""
    out = []
    for dataset, name in FIG_DATASETS.items():
        for algorithm, (smote, base) in STABILITY_PAIRS.items():
            check_id = f"stability-{algorithm}" + ("" if dataset == "texas" else f"-{dataset}")
            claim = f"(b) {name}: PG variance across targets of {smote[2:]} ≤ {base[2:]}"
            paper = ('"better privacy (PG≈1) and stability (low variance)" of SMOTE + DP (Figs 5-7: "stable privacy '
                     'protection (low variance on all samples)")')  # fmt: skip
            v_smote = variance(per_target_pg(run, smote, dataset))
            v_base = variance(per_target_pg(run, base, dataset))
            if not (math.isfinite(v_smote) and math.isfinite(v_base)):
                what = f"{'PATE-GAN' if algorithm == 'pategan' else 'PrivBayes'} on {name}"
                out.append(unavailable(check_id, claim, paper, "trend", missing_reason(run, what)))
                continue
            out.append(
                ordered(
                    check_id, claim, paper, {smote: v_smote, base: v_base}, [smote, base], strict=False,
                    reason=f"variance over {len(per_target_pg(run, smote, dataset))} targets",
                    if_failed=f"SMOTE preprocessing did not make {base[2:]}'s per-target PG more uniform on {name}",
                    evidence=[f"figures/pg_{dataset}.png"],
                )
            )  # fmt: skip
    return out


# ---------------------------------------------------------------------- Fig. 5 (Texas random)
def check_fig5_statements(run: ReproductionRun) -> list[Check]:
    """Fig. 5 (Texas random targets): BayesianNet beats every DP generator; PrivBayes ε=0.1 beats ε=50."""
    dp = {p: mean_pg(run, p, "texas", "random") for p in DP_POSITIONS}
    present = {p: v for p, v in dp.items() if math.isfinite(v)}
    bayesnet = mean_pg(run, "1 BayesianNet", "texas", "random")
    best_dp = max(present, key=present.__getitem__) if present else ""
    # the protocol attacks PATE-GAN on the Texas outliers only (Fig. 4's claims): compare the others
    expected_missing = set(PATEGAN_POSITIONS) if run.profile == "protocol" else set()
    missing = sorted(set(dp) - set(present) - expected_missing)
    passed = bool(present) and math.isfinite(bayesnet) and bayesnet >= max(present.values()) and not missing
    scope = (
        "protocol: PATE-GAN positions are attacked on the Texas outliers only (3 iterations, a reduced "
        "attack), so BayesianNet is compared with the PrivBayes positions"
        if expected_missing
        else ""
    )
    if missing:
        reason = missing_reason(run, ", ".join(missing))
    elif not passed and best_dp:
        reason = f"{best_dp[2:]} protects random records better than BayesianNet; " + noise_note(
            run, "1 BayesianNet", best_dp, group="random"
        )
    else:
        reason = ""
    small, large = (
        mean_pg(run, "2 PrivBayes ε=0.1", "texas", "random"),
        mean_pg(run, "3 PrivBayes ε=50", "texas", "random"),
    )
    return [
        trend(
            "fig5-bayesnet", "Fig. 5 (Texas random): PG of BayesianNet ≥ every DP generator's",
            '"The non-DP generator BayesianNet … provided much better privacy protection than all DP generators"',
            f"BayesianNet {fmt(bayesnet)}; best DP {best_dp} {fmt(present.get(best_dp))}", passed,
            value={"bayesnet": bayesnet, **dp}, reason="; ".join(filter(None, [scope, reason])),
            evidence=["figures/pg_texas.png"],
        ),
        ordered(
            "fig5-small-epsilon", "Fig. 5 (Texas random): PG of PrivBayes ε=50 ≤ PrivBayes ε=0.1",
            '"smaller ϵ values … provided better privacy for non-outliers than the larger ϵ=50"',
            {"ε=50": large, "ε=0.1": small}, ["ε=50", "ε=0.1"], strict=False,
            if_failed="" if run.quick else "random Texas records are as exposed at ε = 0.1 as at ε = 50; "
            + noise_note(run, "2 PrivBayes ε=0.1", "3 PrivBayes ε=50", group="random"),
            evidence=["figures/pg_texas.png"],
        ),
    ]  # fmt: skip


# ---------------------------------------------------------------------- Fig. 6 (German Credit)
def check_fig6_mode_collapse(run: ReproductionRun) -> Check:
    """Fig. 6: "Pate-GAN again experienced mode collapse": its releases cover the fewest real categories."""
    claim = "Fig. 6 (German Credit): every PATE-GAN setting covers fewer real categories than every other generator"
    paper = '"Pate-GAN again experienced mode collapse"'
    dataset = "german_credit_kaggle"
    coverage = {
        label: mean_of(position_rows(run, label, COVERAGE, "", dataset)["value"]) for label in POSITIONS
    }
    gan = {
        k: v
        for k, v in coverage.items()
        if k in PATEGAN_POSITIONS[:2] + ("PATE-GAN ε=0.1",) and math.isfinite(v)
    }
    others = {k: v for k, v in coverage.items() if k not in PATEGAN_POSITIONS and math.isfinite(v)}
    if not gan or not others:
        if run.quick:
            return not_reproducible(
                "fig6-mode-collapse", claim, paper,
                f"{QUICK_SCOPE}; the protocol measures mode collapse as category coverage of PATE-GAN's releases",
            )  # fmt: skip
        return unavailable(
            "fig6-mode-collapse", claim, paper, "trend", missing_reason(run, "category_coverage")
        )
    worst_other = min(others, key=others.__getitem__)
    best_gan = max(gan, key=gan.__getitem__)
    return trend(
        "fig6-mode-collapse", claim, paper,
        f"best PATE-GAN {best_gan} {fmt(gan[best_gan])} vs lowest other {worst_other} {fmt(others[worst_other])}",
        gan[best_gan] < others[worst_other], value=coverage,
        reason="mode collapse read as the share of German Credit's categories present in the release "
        "(category_coverage; the paper reads it off its accuracy box plots)",
        if_failed="PATE-GAN's releases cover the categories as well as another generator's: no collapse onto few modes",
        evidence=["tables/accuracy.md"],
    )  # fmt: skip


# ---------------------------------------------------------------------- Fig. 7 (Employee)
def check_fig7_statements(run: ReproductionRun) -> list[Check]:
    """Fig. 7 (Employee): ε = 50 beats ε ∈ {0.1, 1}; BayesianNet beats both DP algorithms."""
    paper_eps = ('"With the large ϵ=50, the DP algorithms actually achieved better privacy than with a much '
                 'smaller ϵ∈{0.1,1.0}"')  # fmt: skip
    paper_bn = '"Non-private BayesianNet appeared to preserve privacy better than the two DP algorithms"'
    claim_eps = (
        "Fig. 7 (Employee random records): PG at ε=50 ≥ the best PG at ε ∈ {0.1, 1}, for both DP algorithms"
    )
    claim_bn = "Fig. 7 (Employee random records): BayesianNet PG ≥ every PrivBayes and PATE-GAN setting run"
    group = "random"  # Fig. 7 attacks random Employee records (spec §2.2)
    large = {"PrivBayes": mean_pg(run, "3 PrivBayes ε=50", "employee", group),
             "PATE-GAN": mean_pg(run, "5 PATE-GAN ε=50", "employee", group)}  # fmt: skip
    small = {"PrivBayes": nanmax(mean_pg(run, "2 PrivBayes ε=0.1", "employee", group), mean_pg(run, "PrivBayes ε=1", "employee", group)),
             "PATE-GAN": nanmax(mean_pg(run, "PATE-GAN ε=0.1", "employee", group), mean_pg(run, "4 PATE-GAN ε=1", "employee", group))}  # fmt: skip
    bayesnet = mean_pg(run, "1 BayesianNet", "employee", group)
    dp_labels = [p for p in POSITIONS if p.startswith(("2 ", "3 ", "4 ", "5 ", "PrivBayes", "PATE-GAN"))]
    dp_all = {p: v for p in dp_labels if math.isfinite(v := mean_pg(run, p, "employee", group))}
    if not all(math.isfinite(v) for v in [*large.values(), *small.values(), bayesnet]) or not dp_all:
        reason = missing_reason(run, "Employee")
        return [unavailable("fig7-large-epsilon", claim_eps, paper_eps, "trend", reason),
                unavailable("fig7-bayesnet", claim_bn, paper_bn, "trend", reason)]  # fmt: skip
    best = max(dp_all, key=dp_all.__getitem__)
    return [
        trend(
            "fig7-large-epsilon", claim_eps,
            paper_eps, "; ".join(f"{k}: ε=50 {fmt(large[k])} vs best small {fmt(small[k])}" for k in large),
            all(large[k] >= small[k] for k in large), value={"large": large, "small": small},
            if_failed="on Employee a small ε protects the random records at least as well as ε = 50 for "
            + ", ".join(k for k in large if large[k] < small[k]) + " (the expected direction of DP)",
            evidence=["figures/pg_employee.png"],
        ),
        trend(
            "fig7-bayesnet", claim_bn, paper_bn, f"BayesianNet {fmt(bayesnet)} vs best DP {best} {fmt(dp_all[best])}",
            bayesnet >= dp_all[best], value={"bayesnet": bayesnet, **dp_all},
            if_failed=f"{best} protects Employee's random records better than the non-private BayesianNet; "
            + noise_note(run, "1 BayesianNet", best, dataset="employee", group="random"),
            evidence=["figures/pg_employee.png"],
        ),
    ]  # fmt: skip


# ---------------------------------------------------------------------- PATE-GAN budget
def check_pategan_budget(run: ReproductionRun) -> Check:
    """The PATE-GAN claims of ``BUDGET_DATASET`` hold (or fail) alike at both training budgets."""
    name = FIG_DATASETS[BUDGET_DATASET]
    claim = (f"{name}: the PATE-GAN orderings (PG ε=1 vs ε=50; PG variance SMOTE-PATE-GAN vs PATE-GAN ε=50) "
             "are the same at the protocol's and a larger PATE-GAN budget")  # fmt: skip
    paper = "PATE-GAN trained to convergence (settings not stated)"
    main = main_budget(run)
    rows = run.rows("mia_privacy_gain", "all", generator=["pategan", "smote_dp"], dataset=BUDGET_DATASET)
    budgets = (
        sorted({v for v in rows.apply(pategan_iterations, axis=1) if math.isfinite(v)}) if len(rows) else []
    )
    other = [b for b in budgets if b != main]
    if not math.isfinite(main) or not other:
        return unavailable(
            "pategan-budget", claim, paper, "trend", missing_reason(run, "the PATE-GAN budget sweep")
        )
    orders = {}
    for budget in (main, other[-1]):
        eps_order = mean_pg(run, "4 PATE-GAN ε=1", BUDGET_DATASET, "all", budget) <= mean_pg(
            run, "5 PATE-GAN ε=50", BUDGET_DATASET, "all", budget
        )
        var_order = variance(
            per_target_pg(run, "8 SMOTE-PATE-GAN ε=50", BUDGET_DATASET, budget=budget)
        ) <= variance(per_target_pg(run, "5 PATE-GAN ε=50", BUDGET_DATASET, budget=budget))
        orders[int(budget)] = {"PG ε=1 ≤ ε=50": bool(eps_order), "var SMOTE ≤ plain": bool(var_order)}
    same = orders[int(main)] == orders[int(other[-1])]
    return trend(
        "pategan-budget", claim, paper,
        "; ".join(f"{b} iterations: " + ", ".join(f"{k} {v}" for k, v in o.items()) for b, o in orders.items()),
        same, value=orders, reason=f"protocol budget {int(main)} iterations, check budget {int(other[-1])}",
        if_failed="the PATE-GAN orderings change with the training budget: the reduced budget is not neutral "
        "for the PATE-GAN claims",
        evidence=[f"figures/pg_{BUDGET_DATASET}.png"],
    )  # fmt: skip


def check_exact_pg_values(run: ReproductionRun) -> Check:
    """Exact PG values are not expected to match (spec §2.2)."""
    return not_reproducible(
        "pg-values",
        "Figs 4-7: per-target PG values",
        "per-target PG points with error bars (figures only)",
        "the attack is stochastic, targets are re-selected and the paper's generator settings are not stated "
        "(spec §2.2); our per-target values are in figures/pg_*.png",
    )


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    *FIG3_CHECKS, check_fig4_smote_privbayes, check_fig4_privbayes_large_epsilon, check_fig4_smote_pategan,
    check_smote_dp_stability, check_fig4_dp_beats_non_dp, check_fig5_statements, check_fig6_mode_collapse,
    check_fig7_statements, check_pategan_budget, check_exact_pg_values,
]  # fmt: skip
QUICK_MUST_PASS = {"fig3-smote-closest", "fig3-smote-contracts"}


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """Fig. 3 moments table, PG per target per dataset (Figs 4-7) and the accuracy table."""
    fig3_table(run)
    accuracy = []
    for dataset, name in FIG_DATASETS.items():
        points = []
        for label in POSITIONS:
            for group in ("outlier", "random"):
                for value in per_target_pg(run, label, dataset, group):
                    points.append({"position": label, "group": group, "pg": value})
            acc = position_rows(run, label, "ml_efficacy", ACCURACY, dataset)["value"]
            if len(acc):
                coverage = mean_of(position_rows(run, label, COVERAGE, "", dataset)["value"])
                accuracy.append({"dataset": name, "generator": label, "RF accuracy (mean)": float(acc.mean()),
                                 "RF accuracy (sd)": float(acc.std(ddof=1)) if len(acc) > 1 else math.nan,
                                 "PG outliers": mean_pg(run, label, dataset, "outliers"),
                                 "PG random": mean_pg(run, label, dataset, "random"),
                                 "category coverage": coverage})  # fmt: skip
        if points:
            _pg_figure(run, pd.DataFrame(points), f"pg_{dataset}", name)
    if accuracy:
        run.write_table(
            "accuracy",
            pd.DataFrame(accuracy),
            caption="Figs 4-7: RF accuracy (TSTR), mean PG and category coverage per generator "
            "(PATE-GAN at the protocol's budget)",
        )


def _pg_figure(run: ReproductionRun, points: pd.DataFrame, stem: str, title: str) -> None:
    from harness.report.style import figure_style, new_figure

    labels = [p for p in POSITIONS if p in set(points["position"])]
    with figure_style():
        fig = new_figure(7.0, 3.2)
        ax = fig.add_subplot()
        for group, marker, shift in (("outlier", "o", -0.12), ("random", "s", 0.12)):
            part = points[points["group"] == group]
            if part.empty:
                continue
            x = [labels.index(p) + shift for p in part["position"]]
            ax.scatter(x, part["pg"], marker=marker, s=18, alpha=0.75, label=f"{group} targets")
        ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(labels)), labels, rotation=35, ha="right")
        ax.set_ylabel("privacy gain (per target)")
        ax.set_title(f"{title}: membership-inference privacy gain")
        ax.legend(loc="best")
        run.save_figure(fig, stem)
