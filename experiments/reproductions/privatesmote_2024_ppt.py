"""R-EPS central claims against PPT: ε-PrivateSMOTE and PPT on both optimisation paths (Fig. 4, RQ1).

Seed paper ``000_06874021c9588b45.txt`` §4.3 and §5: on the performance-first path "PPT present a
high predictive performance but also a higher linkability risk" and ε-PrivateSMOTE "provides a
median very similar to PPT with a lower linkability risk, near zero"; with privacy first, "the
higher linkability risk previously identified with the use of PPT is noteworthy".

PPT here is a stand-in (:data:`~experiments.reproductions.privatesmote_2024_common.PPT_STAND_IN`):
the paper ties its PPT's linkability to its ARX configuration, which is not published, so every
claim here rests on the ``ppt_stand_in`` gate and is not evaluable; the checks still record what
the stand-in shows, with the same rules as every other claim (one interval per dataset, the
±0.02 equivalence margin for linkability, the two-sided ±1 % ROPE for "very similar" AUC). In
the committed protocol run the stand-in is *less* linkable than ε-PrivateSMOTE on the
performance-first path (0.009 against 0.279; ds3, where ε-PrivateSMOTE rewrites every row,
dominates) and practically as linkable with privacy first; ε-PrivateSMOTE's best AUC is 1.7 %
above the stand-in's, outside the ROPE, partly because it is the best of 45 variants a QI set
against PPT's best of at most 3 (:func:`matched_best`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.reproductions.privatesmote_2024_budget import main_results
from experiments.reproductions.privatesmote_2024_common import (
    BLOCKS,
    EPS,
    LINK_MARGIN,
    PPT,
    PPT_GATE,
    PPT_STAND_IN,
    PRIVACY,
    ROPE,
    on_path,
    path_table,
    pct_series,
    ppt_not_evaluable,
    utility_variant,
)
from experiments.reproductions.privatesmote_2024_stats import (
    AUC_NOISE,
    LINK_NOISE,
    combined,
    dataset_intervals,
    datasets_method,
    per_dataset,
    pick_se,
)
from harness.reproduction import Check, ReproductionRun, trend, unavailable
from harness.reproduction import uncertainty as unc

FIG4 = ("figures/fig4_optimisation_paths.png", "tables/fig4_paths.md")
DEPENDS = (EPS, PPT, PPT_GATE)


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
    effect = (ppt - eps).dropna()
    se = combined(pick_se(run, table, path, PPT, "privacy"), pick_se(run, table, path, EPS, "privacy"))
    intervals = dataset_intervals(effect, "PPT − ε-PrivateSMOTE linkability", se=se)
    main, control = attack_rates(run, table, path, PPT)
    eps_main, eps_control = attack_rates(run, table, path, EPS)
    check = trend(
        check_id, claim, paper,
        f"on the stand-in: ε-PrivateSMOTE {eps.mean():.3f}, PPT {ppt.mean():.3f} (means over blocks; PPT − "
        f"ε-PrivateSMOTE per dataset: {per_dataset(effect)})",
        bool((effect.groupby(level=0).mean() > LINK_MARGIN).all()), kind="claim", level="tolerance",
        expected={"low": LINK_MARGIN, "high": None}, value={"eps": float(eps.mean()), "ppt": float(ppt.mean())},
        uncertainty=unc.record(
            datasets_method(effect.index, "PPT − ε-PrivateSMOTE linkability", LINK_NOISE)
            + f"; 'higher' must clear the ±{LINK_MARGIN:g} equivalence margin (Anonymeter's error at 500 attacks)",
            intervals, n=effect.index.get_level_values(0).nunique(),
        ),
        depends_on=DEPENDS, evidence=FIG4,
        reason=(
            f"{PPT_STAND_IN}. Anonymeter's risk is relative to its control attack: the stand-in's picks are linked "
            f"in {main:.1%} of attacks on training rows and {control:.1%} on control rows, ε-PrivateSMOTE's in "
            f"{eps_main:.1%} and {eps_control:.1%}; the paper's PPT kept 'lower generalization levels' and removed "
            "high-cardinality features, which it blames for PPT's linkability"
        ),
    )  # fmt: skip
    return ppt_not_evaluable(check)


def check_perf_first_linkability_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 4, performance first: PPT's best-AUC variants are more linkable than ε-PrivateSMOTE's."""
    return _linkability_vs_ppt(
        run, "performance_first", "fig4-perf-first-linkability-vs-ppt",
        f"performance first (best AUC per technique): PPT is more linkable than ε-PrivateSMOTE, beyond the "
        f"±{LINK_MARGIN:g} equivalence margin, on every dataset",
        '"PPT present a high predictive performance but also a higher linkability risk"; "ϵ-PrivateSMOTE provides '
        'a median very similar to PPT with a lower linkability risk, near zero" (§4.3, Fig. 4)',
    )  # fmt: skip


def check_privacy_first_linkability_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 4/5, privacy first: PPT's best-linkability variants are more linkable than ε-PrivateSMOTE's."""
    return _linkability_vs_ppt(
        run, "privacy_first", "fig4-privacy-first-linkability-vs-ppt",
        f"privacy first (lowest linkability per technique): PPT is more linkable than ε-PrivateSMOTE, beyond the "
        f"±{LINK_MARGIN:g} equivalence margin, on every dataset",
        '"in contrast to the results observed with ϵ-PrivateSMOTE, the higher linkability risk previously identified '
        'with the use of PPT is noteworthy" (§5); "it provides lower linkability risk, especially when privacy is '
        'the priority" (§6)',
    )  # fmt: skip


def expected_best_of(values: np.ndarray, k: int) -> float:
    """E[max] of ``k`` of ``values`` drawn without replacement (order statistics, exact)."""
    data = np.sort(np.asarray(values, dtype=float)[np.isfinite(values)])
    n = len(data)
    if n == 0 or k < 1:
        return math.nan
    k = min(k, n)
    weights = np.array([math.comb(i, k - 1) for i in range(n)], dtype=float) / math.comb(n, k)
    return float((weights * data).sum())


def matched_best(run: ReproductionRun, table: pd.DataFrame, path: str = "performance_first") -> pd.Series:
    """ε-PrivateSMOTE's expected best AUC per block had it as few variants as PPT had there (selection bias)."""
    frame = main_results(run)
    rows = frame[
        (frame["generator"] == EPS)
        & (frame["metric"] == "ml_efficacy")
        & (frame["variant"] == utility_variant(run))
        & (frame["status"] == "ok")
    ]
    if rows.empty:
        return pd.Series(dtype=float)
    per_variant = rows.groupby([*BLOCKS, "generator_params"])["value"].mean()
    ppt = table[(table["path"] == path) & (table["generator"] == PPT)].set_index(list(BLOCKS))["n_candidates"]
    out = {}
    for block, k in ppt.items():
        try:
            values = per_variant.loc[block].to_numpy()
        except KeyError:
            continue
        out[block] = expected_best_of(values, int(k))
    if not out:
        return pd.Series(dtype=float)
    return pd.Series(out, dtype=float).rename_axis(list(BLOCKS))


def check_perf_first_auc_vs_ppt(run: ReproductionRun) -> Check:
    """Fig. 4, performance first: ε-PrivateSMOTE's best AUC is practically equivalent to PPT's (two-sided ROPE)."""
    check_id = "fig4-perf-first-auc-vs-ppt"
    claim = (
        "performance first: ε-PrivateSMOTE's best AUC is practically equivalent to PPT's (% difference within the "
        "paper's ±1 % ROPE on every dataset)"
    )
    paper = (
        '"ϵ-PrivateSMOTE provides a median very similar to PPT" (§4.3); "ϵ-PrivateSMOTE maintains a similar '
        'predictive performance while protecting all attributes" (§5)'
    )
    table = path_table(run)
    eps = on_path(table, "performance_first", EPS, "utility")
    ppt = on_path(table, "performance_first", PPT, "utility")
    pct = pct_series(eps, ppt)
    if pct.empty:
        return unavailable(check_id, claim, paper, "tolerance", "no ε-PrivateSMOTE or PPT pick", kind="claim")
    se = (
        100
        * combined(
            pick_se(run, table, "performance_first", EPS, "utility"),
            pick_se(run, table, "performance_first", PPT, "utility"),
        )
        / ppt.reindex(pct.index).abs()
    )
    matched = pct_series(matched_best(run, table), ppt)
    n_ppt = table[(table["path"] == "performance_first") & (table["generator"] == PPT)]["n_candidates"]
    n_eps = table[(table["path"] == "performance_first") & (table["generator"] == EPS)]["n_candidates"]
    check = trend(
        check_id, claim, paper,
        f"on the stand-in: {pct.mean():+.2f} % (per dataset {per_dataset(pct, 2)}); with ε-PrivateSMOTE's expected "
        f"best of as many variants as PPT had: {matched.mean():+.2f} % (per dataset {per_dataset(matched, 2)})",
        bool(pct.groupby(level=0).mean().abs().le(ROPE).all()), kind="claim", level="tolerance",
        expected={"low": -ROPE, "high": ROPE}, value={"pct": float(pct.mean()), "matched_pct": float(matched.mean())},
        uncertainty=unc.record(
            datasets_method(pct.index, "the % AUC difference ε-PrivateSMOTE vs PPT", AUC_NOISE),
            dataset_intervals(pct, "ε-PrivateSMOTE vs PPT AUC, %", se=se), n=pct.index.get_level_values(0).nunique(),
        ),
        depends_on=DEPENDS, evidence=FIG4,
        reason=(
            "'very similar' read as practical equivalence, the paper's ROPE both ways (an AUC above PPT's by more "
            f"than 1 % is not 'very similar'). Selection bias: each block's ε-PrivateSMOTE pick is the best test AUC "
            f"of {int(n_eps.max()) if len(n_eps) else 0} variants, PPT's of {int(n_ppt.min()) if len(n_ppt) else 0}-"
            f"{int(n_ppt.max()) if len(n_ppt) else 0}, and 'best' is chosen on the test split; the matched figure "
            f"above removes the first part; on the stand-in the verdict would follow from the two-sided band. "
            f"{PPT_STAND_IN}"
        ),
    )  # fmt: skip
    return ppt_not_evaluable(check)


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_perf_first_linkability_vs_ppt,
    check_perf_first_auc_vs_ppt,
    check_privacy_first_linkability_vs_ppt,
]

__all__ = ["CHECKS", "attack_rates", "expected_best_of", "matched_best"]
