"""R-SMOTEDP: the paper's trade-off claims — what SMOTE adds to DP (abstract, §1, §4, §5).

The figures' statements (:mod:`experiments.reproductions.smote_dp_2025_pg`) mostly compare a
release with the real data or with DP at *another* ε; the paper's own point is that SMOTE
enhances DP. The claims here test that directly, at the same ε and against each technique alone:

* ``smote-dp-vs-isolation`` (abstract, §1): on the Texas outliers (the one target set where SMOTE
  alone is attacked) SMOTE-PrivBayes ε=50 protects better than SMOTE alone and than PrivBayes ε=50
  alone, with accuracy at most 5 points below each;
* ``smote-dp-utility-same-epsilon`` (§4.1 "SMOTE enhances DP with better data utility", §5
  "significantly enhances data utility"): SMOTE-PrivBayes ε=50's accuracy above PrivBayes ε=50's
  beyond the test split's noise (the paper's words: "better", "significantly"; no size is stated);
* ``fig7-tradeoff`` (Fig. 7: "better stability and privacy-utility tradeoff" on Employee);
* the §4 conclusions: ``s4-dp-inconsistent`` ("not uncommon … worse privacy protection for some
  individuals with the use of DP mechanisms") and ``s4-smote-dp-consistent`` ("consistently …
  better and stable privacy protection without significantly hurting utility").

Claims over several datasets read the datasets whose generators pass their "learns" gates and say
which (the others are left out with the gate's reason); a claim with no such dataset is not
evaluable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scipy.stats import t as student_t

from experiments.reproductions.smote_dp_2025_evidence import (
    REAL,
    accuracy_claim,
    combine,
    pg_claim,
    variance_claim,
)
from experiments.reproductions.smote_dp_2025_gates import keys_of
from experiments.reproductions.smote_dp_2025_pg import EMPLOYEE, NEARLY, PB01, PB1, PB50, SMOTE, SPB, TEXAS
from experiments.reproductions.smote_dp_2025_positions import (
    FIG_DATASETS,
    has_rows,
    missing_reason,
    short,
    targets,
)
from harness.reproduction import Check, ReproductionRun, not_evaluable, trend, unavailable
from harness.reproduction import uncertainty as unc
from harness.reproduction.adequacy import failures
from harness.reproduction.checks import fmt

GAIN = 0.0  # "significantly enhances" / "better data utility": above, beyond the test split's noise
DP_POSITIONS = (PB01, PB1, PB50)


def gated(run: ReproductionRun, labels: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Datasets where every position of ``labels`` was run and passed its gates; the others with why."""
    failed = failures(run.gates)
    keep, left = [], {}
    for dataset, name in FIG_DATASETS.items():
        if not all(has_rows(run, label, dataset) for label in labels):
            continue
        bad = [f"{k}: {failed[k]}" for k in keys_of(run, labels, dataset) if k in failed]
        if bad:
            left[name] = bad[0].split(" (")[0]
        else:
            keep.append(dataset)
    return keep, left


def _scope(keep: list[str], left: dict[str, str]) -> str:
    names = ", ".join(FIG_DATASETS[d] for d in keep) or "none"
    out = f"datasets read: {names}"
    if left:
        out += "; left out: " + "; ".join(f"{k} ({v})" for k, v in left.items())
    return out


def _all_keys(run: ReproductionRun, labels: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for d in FIG_DATASETS for k in keys_of(run, labels, d)))


# ---------------------------------------------------------------------- abstract / §1 / §5
def check_isolation(run: ReproductionRun) -> Check:
    """SMOTE-PrivBayes ε=50 against SMOTE alone and PrivBayes ε=50 alone on the Texas outliers."""
    claim = ("Abstract, §1 (Texas outliers): SMOTE-PrivBayes ε=50 protects better than SMOTE alone and than PrivBayes "
             "ε=50 alone, with RF accuracy at most 5 points below each")  # fmt: skip
    paper = '"SMOTE-DP provides a more balanced risk-utility trade-off than either technique can achieve in isolation"'
    keys = keys_of(run, (SPB, SMOTE, PB50), TEXAS)
    parts = [
        ("vs SMOTE", pg_claim(run, "i-pg-smote", claim, paper, TEXAS, "outliers", [(SPB, SMOTE)], depends_on=keys)),
        ("vs SMOTE", accuracy_claim(run, "i-acc-smote", claim, paper, TEXAS, [(SPB, SMOTE)], margins=(NEARLY,),
                                    depends_on=keys)),
        ("vs DP alone", pg_claim(run, "i-pg-dp", claim, paper, TEXAS, "outliers", [(SPB, PB50)], depends_on=keys)),
        ("vs DP alone", accuracy_claim(run, "i-acc-dp", claim, paper, TEXAS, [(SPB, PB50)], margins=(NEARLY,),
                                       depends_on=keys)),
    ]  # fmt: skip
    return combine(run, "smote-dp-vs-isolation", claim, paper, parts,
                   reason="SMOTE alone is attacked on the Texas outliers only; DP alone at the same ε (PrivBayes ε=0.1 "
                   "against SMOTE-PrivBayes ε=50 is spec (a), claims fig4-a-*)",
                   if_failed="SMOTE-DP is dominated by a technique in isolation here")  # fmt: skip


def check_utility_same_epsilon(run: ReproductionRun) -> Check:
    """SMOTE enhances DP's utility: SMOTE-PrivBayes ε=50 vs PrivBayes ε=50 on every dataset where both learn."""
    paper = ('"The experiment demonstrates that SMOTE enhances DP with better data utility" (§4.1); "SMOTE-DP, '
             'significantly enhances data utility while still safeguarding sensitive individual information" (§5)')  # fmt: skip
    keep, left = gated(run, (SPB, PB50))
    claim = (f"§4.1, §5: SMOTE enhances DP's utility at the same ε: SMOTE-PrivBayes ε=50's RF accuracy above "
             f"PrivBayes ε=50's beyond the test split's noise ({', '.join(FIG_DATASETS[d] for d in keep) or 'no dataset'})")  # fmt: skip
    if not keep:
        return _none_gated(run, "smote-dp-utility-same-epsilon", claim, paper, (SPB, PB50), left)
    parts = [(FIG_DATASETS[d], accuracy_claim(run, f"u-{d}", claim, paper, d, [(SPB, PB50)], margins=(GAIN,),
                                              depends_on=keys_of(run, (SPB, PB50), d))) for d in keep]  # fmt: skip
    return combine(run, "smote-dp-utility-same-epsilon", claim, paper, parts, reason=_scope(keep, left) + "; the "
                   "comparison that isolates what SMOTE adds (against PrivBayes ε=0.1 the gain comes from ε: fig4-a-utility)",
                   if_failed="SMOTE does not raise PrivBayes' utility at the same ε: the utility of SMOTE-DP is that of "
                   "its large ε")  # fmt: skip


def check_fig7_tradeoff(run: ReproductionRun) -> Check:
    """Fig. 7: SMOTE-PrivBayes ε=50 protects the Employee random records better than PrivBayes ε=50, utility kept."""
    claim = ("Fig. 7 (Employee random): SMOTE-PrivBayes ε=50 protects better than PrivBayes ε=50 with RF accuracy at "
             "most 5 points below it (a better privacy-utility trade-off)")  # fmt: skip
    paper = '"when the DP algorithms are applied to SMOTE-preprocessed data, they provide better stability and privacy-utility tradeoff"'
    keys = keys_of(run, (SPB, PB50), EMPLOYEE)
    parts = [
        ("privacy", pg_claim(run, "t-pg", claim, paper, EMPLOYEE, "random", [(SPB, PB50)], depends_on=keys)),
        ("utility", accuracy_claim(run, "t-acc", claim, paper, EMPLOYEE, [(SPB, PB50)], margins=(NEARLY,),
                                   depends_on=keys)),
    ]  # fmt: skip
    return combine(
        run,
        "fig7-tradeoff",
        claim,
        paper,
        parts,
        reason="the stability part is claim stability-privbayes-employee",
    )


# ---------------------------------------------------------------------- §4 conclusions
def check_dp_inconsistent(run: ReproductionRun) -> Check:
    """Under DP alone some individuals are exposed: the most exposed target's PG below 1 beyond noise (family-wise)."""
    claim = ("§4: under DP alone (PrivBayes at ε = 0.1, 1 or 50) some individuals are exposed: at least one target has "
             "PG below 1 beyond its game noise (family-wise over every DP target read)")  # fmt: skip
    paper = ('"DP alone cannot provide consistent and stable privacy protection for all individuals ... It is not '
             'uncommon to experience worse privacy protection for some individuals with the use of DP mechanisms"')  # fmt: skip
    lowest = {}
    for dataset, name in FIG_DATASETS.items():
        frames = [(label, targets(run, label, dataset)) for label in DP_POSITIONS]
        frames = [(label, f) for label, f in frames if len(f)]
        if frames:
            label, frame = min(frames, key=lambda lf: float(lf[1]["pg"].min()))
            lowest[name] = f"{fmt(float(frame['pg'].min()))} ({short(label)})"
    keep, left = gated(run, (PB50,))
    if not keep:
        return _none_gated(run, "s4-dp-inconsistent", claim, paper, DP_POSITIONS, left)
    records = []
    for dataset in keep:
        for label in DP_POSITIONS:
            frame = targets(run, label, dataset)
            for target, row in frame.iterrows():
                games = int(row["games"])
                se = float(row["sd"]) / games**0.5
                records.append(
                    (f"{FIG_DATASETS[dataset]} {short(label)} target {target}", float(row["pg"]), se, games)
                )
    if not records:
        return unavailable(
            "s4-dp-inconsistent", claim, paper, "trend", missing_reason(run, "PrivBayes"), kind="claim"
        )
    level = 1 - 0.025 / len(records)  # Bonferroni over the targets read, two-sided 95 % family-wise

    def half(se: float, games: int) -> float:  # Student t: the SD comes from the same few games
        return float(student_t.ppf(level, max(games - 1, 1))) * se

    name, pg, se, games = max(records, key=lambda r: 1 - r[1] - half(r[2], r[3]))
    exposed = sum(1 - p - half(s, g) > 0 for _, p, s, g in records)
    width = half(se, games)
    entry = unc.interval(f"1 − PG of the most exposed ({name})", 1 - pg, 1 - pg - width, 1 - pg + width)
    record = unc.record(f"Student-t interval (df = games − 1) of each target's game mean, Bonferroni over the "
                        f"{len(records)} DP targets read (95 % family-wise); the most exposed target's", [entry],
                        n=len(records))  # fmt: skip
    observed = (f"{exposed} of {len(records)} targets with PG below 1 beyond noise; most exposed: {name} PG {fmt(pg)} "
                f"(± {fmt(width)}); lowest PG per dataset (any ε): "
                + "; ".join(f"{k} {v}" for k, v in lowest.items()))  # fmt: skip
    return trend("s4-dp-inconsistent", claim, paper, observed, pg < 1, kind="claim", uncertainty=record,
                 depends_on=tuple(dict.fromkeys(k for d in keep for k in keys_of(run, DP_POSITIONS, d))),
                 reason=_scope(keep, left) + "; an existential reading ('some individuals'); PATE-GAN is gated out",
                 evidence=[f"figures/pg_{d}.png" for d in FIG_DATASETS])  # fmt: skip


def check_smote_dp_consistent(run: ReproductionRun) -> Check:
    """SMOTE-PrivBayes ε=50 protects better and more stably than PrivBayes ε=50, keeping utility, wherever both learn."""
    paper = ('"our SMOTE-DP technique has been shown to consistently provide better and stable privacy protection '
             'without significantly hurting utility"')  # fmt: skip
    keep, left = gated(run, (SPB, PB50))
    claim = ("§4: on every dataset where both learn (" + (", ".join(FIG_DATASETS[d] for d in keep) or "none") + "), "
             "SMOTE-PrivBayes ε=50 protects the random records better and more stably than PrivBayes ε=50, with RF "
             "accuracy at most 5 points below the real data's")  # fmt: skip
    if not keep:
        return _none_gated(run, "s4-smote-dp-consistent", claim, paper, (SPB, PB50), left)
    parts = []
    for d in keep:
        keys = keys_of(run, (SPB, PB50), d)
        name = FIG_DATASETS[d]
        parts += [
            (f"{name} privacy", pg_claim(run, f"c-{d}", claim, paper, d, "random", [(SPB, PB50)], depends_on=keys)),
            (f"{name} stability", variance_claim(run, f"s-{d}", claim, paper, d, [(SPB, PB50)], depends_on=keys)),
            (f"{name} utility", accuracy_claim(run, f"a-{d}", claim, paper, d, [(SPB, REAL)], margins=(NEARLY,),
                                               depends_on=keys)),
        ]  # fmt: skip
    return combine(run, "s4-smote-dp-consistent", claim, paper, parts, reason=_scope(keep, left))


def _none_gated(
    run: ReproductionRun, check_id: str, claim: str, paper: str, labels: Sequence[str], left: dict[str, str]
) -> Check:
    reason = ("no dataset where every generator involved passed its gates: " + "; ".join(f"{k} ({v})" for k, v in left.items())
              if left else missing_reason(run, ", ".join(short(label) for label in labels)))  # fmt: skip
    return not_evaluable(check_id, claim, paper, reason, depends_on=_all_keys(run, labels) if left else ())


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_isolation,
    check_utility_same_epsilon,
    check_fig7_tradeoff,
    check_dp_inconsistent,
    check_smote_dp_consistent,
]

__all__ = ["CHECKS", "gated"]
