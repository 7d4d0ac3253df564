"""R-EPS central claims: ε-PrivateSMOTE against PPT (Fig. 4, RQ1) and against the oracle (Fig. 5, RQ2).

Seed paper ``000_06874021c9588b45.txt`` §4.3 and §5: on the performance-first path
ε-PrivateSMOTE "provides a median very similar to PPT with a lower linkability risk, near zero";
with privacy first, "the probability of practical equivalence with the oracle is 60 % for both
PPT and ε-PrivateSMOTE", the other techniques below 15 %, and PPT keeps "the higher linkability
risk previously identified".

Every comparison is paired over (dataset, QI set) blocks. PPT here is a stand-in
(:data:`~experiments.reproductions.privatesmote_2024_common.PPT_STAND_IN`) and it decides these
verdicts. Its linkability reads near zero largely because Anonymeter's attack succeeds about as
often against the control rows as against the training rows (the risk is relative to the
control); the checks report both attack rates. The committed protocol run finds PPT's
linkability *below* ε-PrivateSMOTE's on the performance-first path (ds3, where ε-PrivateSMOTE
rewrites every row, dominates); the Fig. 5 shares of blocks within the ROPE rest on 10 blocks of
two datasets and cannot tell 30 % from 60 %.

Fig. 5's oracle is the best privacy-first AUC of the block; the sampling methods keep original
rows and are that oracle in every complete block of the committed run, so their P(draw) = 1 is
near-definitional: :func:`check_fig5_sampling_draw` is not evaluable and reports the sensitivity
to the original data's best AUC as the oracle instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from experiments.reproductions.privatesmote_2024_budget import complete_blocks
from experiments.reproductions.privatesmote_2024_common import (
    BLOCKS,
    EPS,
    GANS,
    NOT_INDEPENDENT,
    PPT,
    PPT_STAND_IN,
    PRIVACY,
    ROPE,
    SAMPLING,
    TECHNIQUES,
    blocks_text,
    gan_keys,
    mean_interval,
    on_path,
    pairs_method,
    path_table,
    pct_series,
    per_dataset,
    utility_variant,
)
from harness.reproduction import Check, ReproductionRun, not_evaluable, trend, unavailable, within
from harness.reproduction import uncertainty as unc

FIG4 = ("figures/fig4_optimisation_paths.png", "tables/fig4_paths.md")
FIG5 = ("figures/fig5_sign_test.png", "tables/fig5_sign_test.md")
PAPER_DRAW = (0.5, 0.7)
"""Band of the paper's "60 %" (the share of its 15 datasets within the ROPE of the oracle, ±0.1)."""
OTHERS_DRAW = (0.0, 0.15)
"""The paper's "lower than 15 %" for the remaining techniques."""


def attack_rates(run: ReproductionRun, table: pd.DataFrame, path: str, generator: str) -> tuple[float, float]:
    """Mean Anonymeter success rates (against the training rows, against the control) of the picks."""
    picks = table[(table["path"] == path) & (table["generator"] == generator)]
    rows = run.rows(PRIVACY, generator=generator)
    if picks.empty or rows.empty:
        return math.nan, math.nan
    keys = set(zip(picks["dataset"], picks["qi_set"], picks["generator_params"]))
    chosen = rows[[k in keys for k in zip(rows["dataset"], rows["qi_set"], rows["generator_params"])]]
    details = [json.loads(t) if isinstance(t, str) and t else {} for t in chosen["details"]]
    main = [d.get("rate_main") for d in details if d.get("rate_main") is not None]
    control = [d.get("rate_control") for d in details if d.get("rate_control") is not None]
    return (float(np.mean(main)) if main else math.nan), (float(np.mean(control)) if control else math.nan)


def _linkability_vs_ppt(run: ReproductionRun, path: str, check_id: str, claim: str, paper: str) -> Check:
    table = path_table(run)
    eps, ppt = on_path(table, path, EPS, "privacy"), on_path(table, path, PPT, "privacy")
    if eps.empty or ppt.empty:
        return unavailable(
            check_id, claim, paper, "trend", "no ε-PrivateSMOTE or PPT pick on this path", kind="claim"
        )
    entry = unc.paired_difference(ppt, eps, "PPT − ε-PrivateSMOTE linkability")
    shared = eps.index.intersection(ppt.index)
    main, control = attack_rates(run, table, path, PPT)
    eps_main, eps_control = attack_rates(run, table, path, EPS)
    return trend(
        check_id, claim, paper,
        f"ε-PrivateSMOTE {eps.mean():.3f}, PPT {ppt.mean():.3f} (means over blocks; PPT − ε-PrivateSMOTE per "
        f"dataset: {per_dataset(ppt - eps)})",
        bool(eps.mean() < ppt.mean()), kind="claim",
        value={"eps": float(eps.mean()), "ppt": float(ppt.mean())},
        uncertainty=unc.record(pairs_method(shared), [entry] if entry else [], n=len(shared)),
        depends_on=(EPS, PPT), evidence=FIG4,
        reason=(
            f"{PPT_STAND_IN}: this stand-in decides the verdict. Linkability is Anonymeter's risk, relative to "
            f"its control attack: PPT's picks are linked in {main:.1%} of attacks on training rows and {control:.1%} "
            f"on control rows, ε-PrivateSMOTE's in {eps_main:.1%} and {eps_control:.1%}; the paper's PPT kept "
            "'lower generalization levels' and removed high-cardinality features, which this generaliser does not"
        ),
    )  # fmt: skip


def check_perf_first_linkability_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 4, performance first: ε-PrivateSMOTE's best-AUC variants are less linkable than PPT's."""
    return _linkability_vs_ppt(
        run, "performance_first", "fig4-perf-first-linkability-vs-ppt",
        "performance first (best AUC per technique): ε-PrivateSMOTE's linkability is below PPT's (PPT: the "
        "k-anonymity stand-in)",
        '"PPT present a high predictive performance but also a higher linkability risk"; "ϵ-PrivateSMOTE provides '
        'a median very similar to PPT with a lower linkability risk, near zero" (§4.3, Fig. 4)',
    )  # fmt: skip


def check_privacy_first_linkability_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 4/5, privacy first: ε-PrivateSMOTE's best-linkability variants are less linkable than PPT's."""
    return _linkability_vs_ppt(
        run, "privacy_first", "fig4-privacy-first-linkability-vs-ppt",
        "privacy first (lowest linkability per technique): ε-PrivateSMOTE's linkability is below PPT's (PPT: the "
        "k-anonymity stand-in)",
        '"in contrast to the results observed with ϵ-PrivateSMOTE, the higher linkability risk previously identified '
        'with the use of PPT is noteworthy" (§5); "it provides lower linkability risk, especially when privacy is '
        'the priority" (§6)',
    )  # fmt: skip


def check_perf_first_auc_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 4, performance first: ε-PrivateSMOTE's best AUC is not below PPT's by more than the ROPE."""
    check_id = "fig4-perf-first-auc-vs-ppt"
    claim = (
        "performance first: ε-PrivateSMOTE's best AUC is at least PPT's, within the paper's 1 % ROPE (PPT: the "
        "k-anonymity stand-in)"
    )
    paper = (
        '"ϵ-PrivateSMOTE provides a median very similar to PPT" (§4.3); "ϵ-PrivateSMOTE maintains a similar '
        'predictive performance while protecting all attributes" (§5)'
    )
    table = path_table(run)
    pct = pct_series(
        on_path(table, "performance_first", EPS, "utility"),
        on_path(table, "performance_first", PPT, "utility"),
    )
    if pct.empty:
        return unavailable(check_id, claim, paper, "tolerance", "no ε-PrivateSMOTE or PPT pick", kind="claim")
    entry = mean_interval(pct, "ε-PrivateSMOTE vs PPT AUC, %")
    return within(
        check_id, claim, paper, float(pct.mean()), -ROPE, None, kind="claim", digits=2,
        uncertainty=unc.record(pairs_method(pct.index, "bootstrap (95 %) of the mean"), [entry] if entry else [], n=len(pct)),
        depends_on=(EPS, PPT), evidence=FIG4,
        reason=(
            f"mean % difference of the best test AUC, ε-PrivateSMOTE against PPT (per dataset: {per_dataset(pct, 2)}); "
            "'very similar' read as no worse than the ROPE: an AUC above PPT's beyond it still supports the "
            f"paper's point; {PPT_STAND_IN}"
        ),
    )  # fmt: skip


def sign_test(delta: pd.Series) -> dict[str, Any]:
    """Bayesian sign test (baycomp, prior 1 on the ROPE) of % differences; its decision."""
    from harness.report.bayes import bayes_sign_test

    result = bayes_sign_test(delta.to_numpy(dtype=float))
    probs = {k: float(result[k]) for k in ("p_lose", "p_draw", "p_win")}
    if probs["p_draw"] >= 0.95:
        decision = "holds"
    elif max(probs["p_lose"], probs["p_win"]) >= 0.95:
        decision = "opposite"
    else:
        decision = "undecided"
    return {**probs, "decision": decision, **{k: int(result[k]) for k in ("n_lose", "n_draw", "n_win")}}


def check_fig5_eps_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 5: ε-PrivateSMOTE and PPT are equally close to the oracle, i.e. practically equivalent in AUC."""
    check_id = "fig5-eps-vs-ppt-equivalent"
    claim = (
        "privacy first: ε-PrivateSMOTE's AUC is practically equivalent to PPT's (Bayes sign test, ROPE 1 %; PPT: "
        "the k-anonymity stand-in)"
    )
    paper = '"the probability of practical equivalence with the oracle is 60% for both PPT and ϵ-PrivateSMOTE" (§5)'
    table = path_table(run)
    pct = pct_series(
        on_path(table, "privacy_first", EPS, "utility"), on_path(table, "privacy_first", PPT, "utility")
    )
    if pct.empty:
        return unavailable(check_id, claim, paper, "trend", "no ε-PrivateSMOTE or PPT pick", kind="claim")
    test = sign_test(pct)
    return trend(
        check_id, claim, paper,
        f"P(ε-PrivateSMOTE loses) {test['p_lose']:.2f}, P(draw) {test['p_draw']:.2f}, P(wins) {test['p_win']:.2f} "
        f"({test['n_lose']} lose, {test['n_draw']} draw, {test['n_win']} win; mean {pct.mean():+.2f} %, per dataset "
        f"{per_dataset(pct, 2)})",
        test["p_draw"] >= max(test["p_lose"], test["p_win"]), kind="claim", value=test,
        uncertainty=unc.decided_by_test(
            "Bayesian sign test (baycomp, prior 1 on the ROPE ±1 %) of the % AUC difference ε-PrivateSMOTE vs PPT "
            f"over {blocks_text(pct.index)}: holds when P(draw) ≥ 0.95, opposite when P(lose) or P(win) ≥ 0.95; "
            f"{NOT_INDEPENDENT}",
            test["decision"], n=len(pct),
        ),
        depends_on=(EPS, PPT), evidence=FIG5,
        reason=f"the paper's equal 60 % implies equivalent AUC on the privacy-first path; {PPT_STAND_IN}",
    )  # fmt: skip


# ---------------------------------------------------------------------- Fig. 5 against the oracle
def oracle_deltas(run: ReproductionRun) -> pd.DataFrame:
    """Each technique's privacy-first δ to its block's oracle, over the blocks holding every technique."""
    from harness.report.optimisation import oracle_deltas as deltas

    table = path_table(run)
    paths = complete_blocks(table[table["path"] == "privacy_first"], BLOCKS)
    if paths.empty:
        return pd.DataFrame(columns=[*BLOCKS, "technique", "delta", "oracle"])
    return deltas(paths, technique="technique", blocks=BLOCKS)


def _in_rope(deltas: pd.DataFrame, generator: str) -> pd.Series:
    part = deltas[deltas["technique"] == TECHNIQUES[generator]]
    return (part.set_index(list(BLOCKS))["delta"].astype(float) >= -ROPE - 1e-9).astype(float)


def sampling_oracles(deltas: pd.DataFrame) -> tuple[int, int]:
    """(blocks whose oracle is a sampling method, complete blocks)."""
    blocks = deltas.drop_duplicates(list(BLOCKS))
    sampling = {TECHNIQUES[g] for g in SAMPLING}
    return sum(bool(set(str(o).split(", ")) & sampling) for o in blocks["oracle"]), len(blocks)


def _draw_scope(deltas: pd.DataFrame, run: ReproductionRun) -> str:
    blocks = deltas.drop_duplicates(list(BLOCKS))
    kept = sorted(set(blocks["dataset"].astype(str)))
    dropped = sorted(set(run.results["dataset"].astype(str)) - set(kept))
    by_sampling, _ = sampling_oracles(deltas)
    return (
        f"P(draw) as the paper's code reports it: the share of blocks whose privacy-first AUC is within the ROPE "
        f"(1 %) of the block's oracle, the best privacy-first AUC of any technique; {len(blocks)} complete blocks "
        f"of {', '.join(kept) or 'no dataset'} (no SMOTE variant on {', '.join(dropped) or 'none'}: dropped as the "
        f"paper's script does); the oracle is a sampling method in {by_sampling} of {len(blocks)} blocks; the "
        "paper's blocks are its 15 datasets"
    )


def _draw_value(run: ReproductionRun, generator: str, check_id: str, paper: str) -> Check:
    name = TECHNIQUES[generator]
    claim = f"privacy first: the share of blocks where {name} is practically equivalent to the oracle is 60 %"
    deltas = oracle_deltas(run)
    share = _in_rope(deltas, generator) if not deltas.empty else pd.Series(dtype=float)
    if share.empty:
        return unavailable(
            check_id, claim, paper, "tolerance", f"no complete block with {name}", kind="claim"
        )
    posterior = sign_test(deltas[deltas["technique"] == name]["delta"].astype(float))
    return within(
        check_id, claim, paper, float(share.mean()), *PAPER_DRAW, kind="claim", digits=2, samples=share,
        method=f"{blocks_text(share.index)}; {NOT_INDEPENDENT}",
        depends_on=(generator,), evidence=FIG5,
        reason=(
            f"{int(share.sum())} of {len(share)} blocks within the ROPE (baycomp posterior P(draw) "
            f"{posterior['p_draw']:.2f}); {_draw_scope(deltas, run)}"
            + (f"; {PPT_STAND_IN}" if generator == PPT else "")
        ),
    )  # fmt: skip


def check_fig5_eps_draw(run: ReproductionRun) -> Check:
    """Fig. 5: ε-PrivateSMOTE's share of blocks practically equivalent to the oracle ≈ 60 %."""
    return _draw_value(run, EPS, "fig5-eps-draw", '"60% for both PPT and ϵ-PrivateSMOTE" (Fig. 5)')


def check_fig5_ppt_draw(run: ReproductionRun) -> Check:
    """Fig. 5: PPT's share of blocks practically equivalent to the oracle ≈ 60 %."""
    return _draw_value(run, PPT, "fig5-ppt-draw", '"60% for both PPT and ϵ-PrivateSMOTE" (Fig. 5)')


def check_fig5_gans_draw(run: ReproductionRun) -> Check:
    """Fig. 5: each deep / DP generator is practically equivalent to the oracle in fewer than 15 % of blocks."""
    check_id = "fig5-gans-draw"
    claim = "privacy first: each deep / DP generator is within the ROPE of the oracle in under 15 % of blocks"
    paper = '"The remaining transformation techniques present a probability of practical equivalence to the oracle lower than 15%"'
    deltas = oracle_deltas(run)
    shares = {g: _in_rope(deltas, g) for g in GANS} if not deltas.empty else {}
    shares = {g: s for g, s in shares.items() if not s.empty}
    if not shares:
        return unavailable(check_id, claim, paper, "tolerance", "no complete block with a GAN", kind="claim")
    entries = [mean_interval(s, TECHNIQUES[g]) for g, s in shares.items()]
    index = next(iter(shares.values())).index
    return trend(
        check_id, claim, paper, ", ".join(f"{TECHNIQUES[g]} {s.mean():.2f}" for g, s in shares.items()),
        all(s.mean() <= OTHERS_DRAW[1] for s in shares.values()), kind="claim", level="tolerance",
        expected={"low": OTHERS_DRAW[0], "high": OTHERS_DRAW[1]}, value={TECHNIQUES[g]: float(s.mean()) for g, s in shares.items()},
        uncertainty=unc.record(pairs_method(index, "bootstrap (95 %) of the share"), [e for e in entries if e], n=len(index)),
        depends_on=tuple(k for g in shares for k in gan_keys(run, g)), evidence=FIG5, reason=_draw_scope(deltas, run),
    )  # fmt: skip


def check_fig5_sampling_draw(run: ReproductionRun) -> Check:
    """Fig. 5: the sampling methods are within the ROPE of the oracle in fewer than 15 % of blocks."""
    check_id = "fig5-sampling-draw"
    claim = "privacy first: RUS, SMOTE and BorderlineSMOTE are within the ROPE of the oracle in under 15 % of blocks"
    paper = '"The remaining transformation techniques present a probability of practical equivalence to the oracle lower than 15%"'
    deltas = oracle_deltas(run)
    if deltas.empty:
        return unavailable(check_id, claim, paper, "tolerance", "no complete block", kind="claim")
    shares = {TECHNIQUES[g]: _in_rope(deltas, g).mean() for g in SAMPLING if not _in_rope(deltas, g).empty}
    by_sampling, n_blocks = sampling_oracles(deltas)
    return not_evaluable(
        check_id, claim, paper,
        "near-definitional here: the oracle is the best privacy-first AUC of the block and the sampling methods, "
        f"which keep original rows, are that oracle in {by_sampling} of {n_blocks} complete blocks, so their share "
        "within its ROPE is 1 by construction, not a finding; testing the paper's < 15 % needs an "
        "oracle outside the compared techniques. With the original data's best AUC as the oracle instead, their "
        f"privacy-first AUC is within the ROPE in {_trtr_shares(run)} of blocks, against the paper's < 15 % (its own §4.3 "
        "calls their predictive performance 'very similar to the original data')",
        level="tolerance", observed=", ".join(f"{k} {v:.2f}" for k, v in shares.items()), evidence=FIG5,
    )  # fmt: skip


def _trtr_shares(run: ReproductionRun) -> str:
    """Share of privacy-first picks within the ROPE of the best TRTR AUC, per sampling method."""
    table = path_table(run)
    rows = run.rows("ml_efficacy", utility_variant(run).replace("roc_auc", "pct_diff"))
    if rows.empty:
        return "(no % difference to the original data in this run)"
    pct = rows.groupby([*BLOCKS, "generator", "generator_params"])["value"].mean()
    parts = []
    for generator in SAMPLING:
        picks = table[(table["path"] == "privacy_first") & (table["generator"] == generator)]
        values = [
            pct.get(k)
            for k in zip(picks["dataset"], picks["qi_set"], picks["generator"], picks["generator_params"])
        ]
        values = [v for v in values if v is not None and math.isfinite(v)]
        if values:
            share = float(np.mean([abs(v) <= ROPE + 1e-9 for v in values]))
            parts.append(f"{TECHNIQUES[generator]} {share:.2f} ({len(values)} blocks)")
    return ", ".join(parts) or "(no sampling pick)"


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_perf_first_linkability_vs_ppt,
    check_perf_first_auc_vs_ppt,
    check_privacy_first_linkability_vs_ppt,
    check_fig5_eps_vs_ppt,
    check_fig5_eps_draw,
    check_fig5_ppt_draw,
    check_fig5_gans_draw,
    check_fig5_sampling_draw,
]

__all__ = ["CHECKS", "attack_rates", "oracle_deltas", "sampling_oracles", "sign_test"]
