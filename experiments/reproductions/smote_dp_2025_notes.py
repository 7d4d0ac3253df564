"""R-SMOTEDP referee notes: plain words on what decides the verdicts, computed from the run (issue 27).

Order (most important first): the privacy-gain claims are underpowered by design; which claims
that hold do (not) test what SMOTE-DP adds; the one "learns" rule and the generators it rules out;
PATE-GAN's implementation limit and its learning curve; Fig. 3's trials and reference; what the
accuracy intervals cover; what an "incomplete" run is missing; targets and datasets.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from experiments.reproductions.smote_dp_2025_fig3 import alpha, own_draws, per_seed
from experiments.reproductions.smote_dp_2025_gates import learning_curve, majority_shares, stops_text
from experiments.reproductions.smote_dp_2025_population import population_frame
from experiments.reproductions.smote_dp_2025_positions import (
    FIG_DATASETS,
    PG,
    POSITIONS,
    accuracy,
    has_rows,
    main_budget,
    pategan_keys,
    targets,
)
from harness.reproduction import Check, ReproductionRun
from harness.reproduction.checks import fmt
from harness.reproduction.referee import Lead
from harness.reproduction.verdict import REPRODUCED

# claims that can hold without telling anything about what SMOTE adds to DP, and why
NOT_SMOTE_DP = {
    "thm31-sensitivity": "holds by construction of interpolation, and is small: {alpha}",
    "fig4-privbayes-large-epsilon-utility": "PrivBayes ε=50 alone",
    "fig5-bayesnet-utility": "BayesianNet alone",
    "fig5-small-epsilon-utility": "PrivBayes alone at two ε",
    "s4-dp-inconsistent": "DP alone",
    "fig4-a-utility": "SMOTE-PrivBayes ε=50 vs PrivBayes ε=0.1: the gain comes from ε (PrivBayes ε=50 alone scores {pb50})",
    "fig5-smote-privbayes-utility": "PrivBayes ε=50 alone is as close to the real data ({pb50} vs SMOTE-PrivBayes {spb})",
}
TESTS_SMOTE_DP = (
    "fig3-cov-ordering", "fig3-moments-cov-ordering", "fig3-population-cov", "fig3-moments-population-cov",
    "fig3-moments-noise-ratio", "thm32-effective-epsilon",
    "smote-dp-vs-isolation", "smote-dp-utility-same-epsilon", "fig5-smote-privbayes", "stability-privbayes",
    "s4-smote-dp-consistent", "fig4-a-privacy",
)  # fmt: skip
PAPER_ATTACK = "10 shadow sets × 10 tables, 15 games × 5 tables"


def underpowered(run: ReproductionRun, checks: list[Check]) -> str:
    """The privacy-gain claims cannot decide effects of the paper's size: why, and what would fix it."""
    rows = run.rows(PG, "all")
    if rows.empty:
        return ""
    sds, games = [], []
    for text, params in zip(rows["details"], rows["metric_params"]):
        n = int(json.loads(params or "{}").get("n_iter", 15))
        for target in (json.loads(text).get("targets") or {}).values():
            sds.append(float(target["pg_sd"]))
            games.append(n)
    if not sds:
        return ""
    sd, n = float(pd.Series(sds).median()), int(pd.Series(games).median())
    halves = [(i["high"] - i["low"]) / 2 for c in checks if c.is_claim and c.uncertainty
              and "shock" in str(c.uncertainty.get("method")) for i in c.uncertainty.get("intervals") or []]  # fmt: skip
    half = fmt(float(pd.Series(halves).median()), 2) if halves else "–"
    inconclusive = [c.id for c in checks if c.is_claim and c.verdict == "inconclusive"
                    and "shock" in str((c.uncertainty or {}).get("method"))]  # fmt: skip
    return (
        "**Underpowered by design.** Sign convention in every text: PG = 1 − the attacker's advantage, so higher is "
        "more private (1: the attacker gains nothing; below 1: exposed). "
        f"The privacy-gain (PG) claims cannot decide effects of the size the paper reports "
        f"(≈ 0.1-0.3 PG): the median half-width of their intervals is {half}, so {len(inconclusive)} PG claims are "
        f"'cannot tell' by construction, not by evidence (each says so in its reason). Why: each target's PG is a mean over {n} games (paper 15) with "
        f"a median SD of {fmt(sd, 2)}; the games are shared by a trial's targets, and the metric records only each "
        "target's mean and SD, so the intervals count the game noise as fully shared (conservative); the protocol "
        f"attacks 5-10 targets per figure with a cut attack (5 shadow sets × 5 tables, 10 games × 3 tables; paper "
        f"{PAPER_ATTACK}). A weaker attacker moves every PG towards 1, which favours the 'PG ≈ 1' / 'similar' claims "
        "(fig4-privbayes-large-epsilon, fig4-a-privacy, fig5-smote-comparable) and works against 'protects better'. "
        "What would fix it: a needed metric change — mia_privacy_gain recording each game's gains per target in its "
        "details, so games pair across targets and generators — and then the paper's 15 games × 5 tables on 10 "
        "targets (a run at the attack's published size costs about 400 generator fits per trial)."
    )


def what_holds(run: ReproductionRun, checks: list[Check]) -> str:
    """Which claims that hold test what SMOTE-DP adds to DP, and which do not."""
    verdicts = {c.id: c.verdict for c in checks if c.is_claim}
    acc = {label: accuracy(run, label, "texas").value for label in POSITIONS}
    words = {"alpha": f"a {fmt(100 * (1 - alpha(run)), 1)} % contraction (α̂ {fmt(alpha(run), 4)})",
             "pb50": fmt(acc["3 PrivBayes ε=50"]), "spb": fmt(acc["7 SMOTE-PrivBayes ε=50"])}  # fmt: skip
    holds = [
        f"{i} ({why.format(**words)})" for i, why in NOT_SMOTE_DP.items() if verdicts.get(i) == REPRODUCED
    ]
    tests = [f"{i}: {verdicts[i]}" for i in TESTS_SMOTE_DP if i in verdicts]
    if not holds and not tests:
        return ""
    return (
        "**What the claims that hold test.** None of the following is evidence for what SMOTE adds to DP: "
        + ("; ".join(holds) or "none hold")
        + ". The claims that do test it (SMOTE-DP against DP at the same ε, against each technique alone, "
        "the Fig. 3 step from DP to SMOTE-DP, the noise Theorem 3.2 saves): " + "; ".join(tests) + "."
    )


def gates_note(run: ReproductionRun) -> str:
    """The one learns rule, applied to every generator, and what it rules out."""
    learns = [g for g in run.gates if g.gate == "learns" and "@n_iter" not in g.key]
    if not learns:
        return ""
    failed = [g.key for g in learns if g.evaluated and not g.passed]
    unseen = [g.key for g in learns if not g.evaluated]
    shares = majority_shares(run)
    pb01 = accuracy(run, "2 PrivBayes ε=0.1", "texas")
    low_eps = (f" At ε ≤ 1 an accuracy at the trivial rate is the cost of DP the claims measure, not an inadequacy: "
               f"PrivBayes ε=0.1 on Texas scores {fmt(pb01.value)} (majority {fmt(shares.get('texas', math.nan))}); it "
               "is gated through the same implementation at ε = 50, which learns there.") if pb01.present else ""  # fmt: skip
    return (
        "**One 'learns' gate for every generator.** A release learns when its RF accuracy clears the majority-class "
        "share beyond the test split's noise, where the real data (TRTR, same split) does; it applies to every "
        "generator at the settings where DP noise cannot explain a trivial utility (non-DP generators, ε = 50, "
        "PATE-GAN at its unbinding budget)."
        + low_eps
        + (f" Fails: {', '.join(failed)}." if failed else "")
        + (
            f" Not evaluated (the test split cannot show even the real data above the majority share): "
            f"{', '.join(unseen)}."
            if unseen
            else ""
        )
        + " So German Credit (200 test rows) and PrivBayes on Employee (k = 1, 25 bins: BayesianNet, PrivBayes and "
        "SMOTE-PrivBayes score at the majority share there) decide no claim; Figs 6 and 7 are not evaluable and the "
        "cross-dataset claims read Texas only."
    )


def pategan_note(run: ReproductionRun) -> str:
    """PATE-GAN's failure is its implementation's: the learning curve from sweep pategan_learning."""
    curve = learning_curve(run)
    if curve.empty:
        return ""
    shares = majority_shares(run)
    parts = []
    for (dataset, eps), part in curve.groupby(["dataset", "epsilon"]):
        cells = ", ".join(
            f"{fmt(float(g['accuracy'].mean()))} at {int(ran)}"
            + (
                f" (requested {', '.join(str(int(r)) for r in g['requested'])})"
                if (g["requested"] != ran).any()
                else ""
            )
            for ran, g in part.groupby("iterations")
        )
        parts.append(f"{FIG_DATASETS.get(str(dataset), dataset)} ε {eps:g}: {cells}")
    main = main_budget(run)
    top = curve[curve["epsilon"] == curve["epsilon"].max()]
    longest = int(top["iterations"].max()) if len(top) else 0
    cleared = [FIG_DATASETS.get(str(d), str(d)) for d, g in top.groupby("dataset")
               if float(g["accuracy"].max()) > shares.get(str(d), math.inf)]  # fmt: skip
    gated_out = not run.gates_passed(*pategan_keys(run, smote=True))
    return (
        f"**PATE-GAN: an implementation limit, not only a cut budget.** The claims read PATE-GAN at {int(main)} "
        "iterations. Each iteration of this implementation is one generator step (Adam, lr 1e-4) after 5 teacher "
        "and 5 student steps, and training stops when the next student query would exceed ε; at ε = 1 that happens "
        f"after {stops_text(run) or 'a few'} iterations whatever budget is requested (30 to 1,000), so the ε = 1 arm "
        "can never train here. Learning curve "
        "(RF accuracy at iterations run; majority shares "
        + ", ".join(f"{FIG_DATASETS[d]} {fmt(v)}" for d, v in shares.items())
        + "): "
        + "; ".join(parts)
        + ". "
        + (
            f"At ε {float(top['epsilon'].max()):g} it clears the majority share on {', '.join(cleared)} only. "
            if cleared
            else f"Even at ε {float(top['epsilon'].max()):g} and {longest:,} iterations it stays below the majority "
            "share on every dataset run. "
        )
        + ("Every PATE-GAN claim (positions 4, 5, 8) is therefore not evaluable; " if gated_out else "")
        + "a longer run does not fix the ε = 1 arm — that needs an implementation change (more generator steps per "
        "student query, or the original PATE-GAN's learning rate and step counts), and the paper's PATE-GAN "
        "(Stadler et al.'s code) is a different generator from ours."
    )


def fig3_note(run: ReproductionRun) -> str:
    """Fig. 3: which trials decide, which way each mechanism orders SMOTE-DP and DP, the reference of the norms."""
    parts, below, flipped = [], [], []
    for label, dp in (("PrivBayes", "privbayes"), ("dp_moments", "dp_moments")):
        own = per_seed(run, "moment_frobenius", "cov_norm", dp, own=True)
        shared = per_seed(run, "moment_frobenius", "cov_norm", dp)
        if len(own) < 2:
            continue
        a, b = float(own["SMOTE-DP"].mean()), float(own["DP"].mean())
        text = f"{label}: SMOTE-DP {fmt(a)} vs DP {fmt(b)} on {len(own)} own-draw seeds"
        below.append(f"{label} {'below' if a < b else 'above'}")
        if len(shared):
            sa, sb = float(shared["SMOTE-DP"].mean()), float(shared["DP"].mean())
            text += f" (the shared draw: {fmt(sa)} vs {fmt(sb)})"
            if (sa < sb) != (a < b):
                flipped.append(label)
        parts.append(text)
    if not parts:
        return ""
    pop = population_frame(run)
    where = ""
    if len(pop):
        means = pop.groupby(["dp", "method"])[["mean_pop", "cov_pop"]].mean()
        x_cov = float(pop.drop_duplicates("seed")["x_cov_pop"].mean())
        words = "; ".join(
            f"{label}: DP {fmt(float(means.loc[(dp, 'DP'), 'cov_pop']))}, SMOTE-DP "
            f"{fmt(float(means.loc[(dp, 'SMOTE-DP'), 'cov_pop']))}"
            for label, dp in (("PrivBayes", "privbayes"), ("dp_moments", "dp_moments"))
            if (dp, "DP") in means.index and (dp, "SMOTE-DP") in means.index
        )
        where = (
            " Against the population (the releases regenerated from their job configs, each reproducing its row): "
            f"‖Σ_S − Σ‖_F {words} (X itself {fmt(x_cov)}, SMOTE {fmt(float(pop[pop['method'] == 'SMOTE']['cov_pop'].mean()))}); "
            "claims fig3-mean-norms, fig3-population-cov and fig3-moments-population-cov."
        )
    return (
        "**Fig. 3.** Values and intervals are computed on the same trials: the data seeds with their own DP draw "
        f"({own_draws(run, 'privbayes')} per arm; the gen_seed-0 sweeps reuse one DP draw per arm and are shown apart). "
        + "; ".join(parts)
        + ". SMOTE-DP's mean covariance error relative to DP's: "
        + ", ".join(below)
        + " (the claims' intervals say whether beyond noise)"
        + (f"; the shared draw ordered {' and '.join(flipped)} the other way round" if flipped else "")
        + ". The orderings are against the sample X, as the figure's caption reads; the paper's question is the "
        "population μ, Σ ('for which we know its population mean and covariance')." + where
    )


def accuracy_note(run: ReproductionRun, checks: list[Check]) -> str:
    """What the accuracy intervals cover and how close the utility claims that hold are to their band."""
    texas = accuracy(run, "1 BayesianNet", "texas")
    if not texas.present:
        return ""
    close = []
    for check in checks:
        if (
            check.is_claim
            and check.verdict == REPRODUCED
            and "test-split" in str((check.uncertainty or {}).get("method"))
        ):
            low = min(
                float(i["low"]) for i in (check.uncertainty or {}).get("intervals") or [{"low": math.nan}]
            )
            close.append(f"{check.id} clears its bar by {fmt(low)}")
    return (
        f"**Accuracy.** One generator seed per trial: the intervals cover the test split only ({texas.n_test:,} Texas "
        "rows), not the generator's seed; "
        + ("; ".join(close) + ". " if close else "")
        + "Every 'keeps the utility' statement is read with one band (at most 5 points below the real data's "
        "accuracy). PrivBayes runs with k = 1 and 25 bins, the spec's Decision (the paper states neither): on "
        "Employee its releases score at the majority share even without noise. Five generator seeds of PrivBayes "
        "and SMOTE-PrivBayes on Texas (utility only, seconds per fit) would cover the generator's variability."
    )


def completeness_note(run: ReproductionRun) -> str:
    """Which sweeps are incomplete, and that no claim reads them."""
    from harness.reproduction.runner import META_FILE, sweep_progress

    meta_path = Path(run.run_dir) / "reproduction" / META_FILE
    try:
        meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        progress = sweep_progress(Path(run.run_dir), meta)
    except (OSError, ValueError):
        return ""
    short_of = {k: v for k, v in progress.items() if v[0] < v[1]}
    if not short_of:
        return ""
    words = ", ".join(f"{k} {a} of {b}" for k, (a, b) in short_of.items())
    only_learning = set(short_of) <= {"pategan_learning"}
    return f"**Completeness.** Sweeps still short of their plan: {words}. " + (
        "Only PATE-GAN's learning curve is missing runs: no claim reads it (it informs the PATE-GAN budget gate "
        "and notes, and PATE-GAN's claims are not evaluable either way), so the run's 'incomplete' mark moves no "
        "verdict."
        if only_learning
        else "Claims on those sweeps' generators may move when they finish."
    )


def targets_note(run: ReproductionRun) -> str:
    """Targets re-drawn, the training split, the positions each figure lacks."""
    if run.rows(PG, "all").empty:
        return ""
    n_train = pd.to_numeric(run.rows(PG, "all", dataset="texas")["n_train"], errors="coerce").dropna()
    figure = {"Fig. 4": ("texas", "outliers"), "Fig. 5": ("texas", "random"),
              "Fig. 6": ("german_credit_kaggle", "random"), "Fig. 7": ("employee", "random")}  # fmt: skip
    lacking = []
    for name, (dataset, group) in figure.items():
        if not any(has_rows(run, p, dataset) for p in POSITIONS):
            continue
        missing = [p.split(" ")[0] for p in list(POSITIONS)[:9] if targets(run, p, dataset, group).empty]
        plural = "s" if len(missing) > 1 else ""
        lacking.append(
            f"{name} lacks position{plural} {', '.join(missing)}" if missing else f"{name} has all nine"
        )
    return (
        "**Targets and data.** Targets are re-drawn (outliers by the metric's rule, random records by seed), not the "
        "paper's outliers 'identical to the ones reported in [36]'. Texas is the 50,000-row sample"
        + (f" with {int(n_train.median()):,} training rows after the split" if len(n_train) else "")
        + ". "
        + "; ".join(lacking)
        + " on its targets."
    )


def referee_notes(run: ReproductionRun, checks: list[Check]) -> list[str]:
    """The notes in order of importance (empty ones dropped)."""
    holds = what_holds(run, checks)
    notes = [
        Lead(holds) if holds else holds,  # first: most claims that hold do not test what SMOTE adds to DP
        underpowered(run, checks), gates_note(run), pategan_note(run), fig3_note(run),
        accuracy_note(run, checks), completeness_note(run), targets_note(run),
    ]  # fmt: skip
    return [n for n in notes if n]


__all__ = ["referee_notes"]
