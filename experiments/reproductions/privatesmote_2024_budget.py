"""R-EPS protocol profile: the GAN training budgets and the blocks of Fig. 5's sign test.

Seed paper ``000_06874021c9588b45.txt`` §4.1 trains Copula GAN, TVAE and CTGAN for epochs
{100, 200} and DPGAN and PATE-GAN for {100, 200} iterations. The ``protocol`` profile of
``experiments/experiment/privatesmote_2024.yaml`` (one 2-core machine, about three hours) cannot
afford that on every dataset, so its main sweeps train them at a shrunk budget
(:data:`PROTOCOL_BUDGETS`) and its ``budget`` sweep trains them again at the paper's smallest
budget on :data:`BUDGET_DATASET`. :func:`check_budget_stability` reads that sweep: the claim's
ordering (ε-PrivateSMOTE's privacy-first predictive performance against each deep and DP
generator, Figs 4-5) must be the same at both budgets.

Departures (stated in the profile's header too):

* The main sweeps' budgets are shrunk (:data:`PROTOCOL_BUDGETS`); the paper-budget trials of the
  ``budget`` sweep are left out of every other check (:func:`main_results`) so that every block
  holds the same grid.
* The sign test's blocks are (dataset, QI set) pairs in the protocol profile, not datasets: we
  have three usable datasets, not the paper's 15 (:func:`sign_test_blocks`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from harness.reproduction import Check, ReproductionRun, trend, unavailable
from harness.reproduction.checks import fmt

BUDGET_DATASET = "ds3"
"""The dataset of the ``budget`` sweep (the cheapest: 844 training rows)."""
PROTOCOL_BUDGETS: dict[str, tuple[str, int, int]] = {
    # generator -> (budget parameter, protocol value, the paper's smallest value)
    "sdv_copulagan": ("epochs", 10, 100),
    "sdv_tvae": ("epochs", 10, 100),
    "sdv_ctgan": ("epochs", 10, 100),
    "dpgan": ("n_iter", 10, 100),
    "pategan": ("n_iter", 10, 100),
}
"""Shrunk training budgets of the protocol profile's main sweeps and the paper's smallest budget."""
EPS = "eps_private_smote"


def _budget_of(row_params: Mapping[str, object], generator: str) -> int | None:
    """The budget parameter's value of one row (None when the generator has no budget)."""
    if generator not in PROTOCOL_BUDGETS:
        return None
    value = row_params.get(PROTOCOL_BUDGETS[generator][0])
    try:
        return int(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def budget_mask(run: ReproductionRun, budget: str) -> pd.Series:
    """Rows of the GANs trained at ``budget`` (``protocol`` or ``paper``) in the protocol profile."""
    params = run.params()
    position = 1 if budget == "protocol" else 2
    wanted = pd.Series(False, index=run.results.index)
    for generator, spec in PROTOCOL_BUDGETS.items():
        rows = run.results["generator"] == generator
        if rows.any():
            values = params.loc[rows, spec[0]] if spec[0] in params else pd.Series(dtype=float)
            wanted.loc[values.index] = pd.to_numeric(values, errors="coerce") == spec[position]
    return wanted


def main_results(run: ReproductionRun) -> pd.DataFrame:
    """The rows every check but the budget check reads: the protocol profile drops the paper-budget GANs."""
    if run.profile != "protocol":
        return run.results
    return run.results[~budget_mask(run, "paper")]


def sign_test_blocks(run: ReproductionRun) -> tuple[str, ...]:
    """Blocks of the sign test: datasets (quick, paper) or (dataset, QI set) pairs (protocol)."""
    return ("dataset", "qi_set") if run.profile == "protocol" else ("dataset",)


def complete_blocks(paths: pd.DataFrame, blocks: tuple[str, ...]) -> pd.DataFrame:
    """Keep the blocks that hold every technique of the run (the paper's script drops ds38: no SMOTE).

    Parameters
    ----------
    paths : DataFrame
        Output of :func:`harness.report.optimisation.optimisation_paths` with a ``technique`` column.
    blocks : tuple of str
        The block columns.
    """
    if paths.empty:
        return paths
    everyone = set(paths["technique"])
    keep = paths.groupby(list(blocks), dropna=False)["technique"].transform(lambda t: set(t) == everyone)
    return paths[keep.astype(bool)]


def privacy_first_deltas(run: ReproductionRun, frame: pd.DataFrame, utility_variant: str) -> pd.DataFrame:
    """δ to the oracle of every technique's privacy-first variant per (dataset, QI set) of ``frame``."""
    from experiments.reproductions.privatesmote_2024 import PRIVACY, TECHNIQUES
    from harness.report.optimisation import optimisation_paths, oracle_deltas

    blocks = ("dataset", "qi_set")
    chosen = optimisation_paths(
        frame, privacy_metric=PRIVACY, utility_metric="ml_efficacy", utility_variant=utility_variant,
        paths=("privacy_first",), blocks=blocks, variant_keys=("generator_params",),
    )  # fmt: skip
    chosen["technique"] = chosen["generator"].map(TECHNIQUES).fillna(chosen["generator"])
    return oracle_deltas(complete_blocks(chosen, blocks), technique="technique", blocks=blocks)


def check_budget_stability(run: ReproductionRun) -> list[Check]:
    """ε-PrivateSMOTE's privacy-first δ against each deep / DP generator: the same order at both budgets.

    Only the protocol profile trains the GANs at two budgets; the others (quick: a few
    iterations, paper: the paper's budgets) make no budget claim and get no check.
    """
    from experiments.reproductions.privatesmote_2024 import TECHNIQUES, _utility_variant

    check_id = "gan-budget-stability"
    claim = (
        "on the budget dataset, whether ε-PrivateSMOTE's privacy-first AUC δ to the oracle (mean over QI "
        "sets) is at least each deep / DP generator's is the same at the shrunk and at the paper's budget"
    )
    paper = (
        '"Despite good privacy values, these techniques show a decline in predictive performance" (Fig. 4); '
        "the GANs' P(draw) < 15 % vs 60 % for ε-PrivateSMOTE (Fig. 5)"
    )
    if run.profile != "protocol":
        return []
    frame = run.results[run.results["dataset"] == BUDGET_DATASET]
    names = {g: TECHNIQUES[g] for g in PROTOCOL_BUDGETS}
    means: dict[str, dict[str, float]] = {}
    for budget in ("protocol", "paper"):
        keep = ~run.results["generator"].isin(list(PROTOCOL_BUDGETS)) | budget_mask(run, budget)
        part = frame[keep.loc[frame.index]]
        try:
            deltas = privacy_first_deltas(run, part, _utility_variant(run))
        except Exception as exc:  # too few techniques or rows at this budget
            return [
                unavailable(
                    check_id, claim, paper, "trend",
                    f"{budget} budget on {BUDGET_DATASET}: no privacy-first comparison ({exc})",
                )
            ]  # fmt: skip
        means[budget] = {str(t): float(v) for t, v in deltas.groupby("technique")["delta"].mean().items()}
    beaten: dict[str, list[str]] = {}
    for budget, values in means.items():
        eps = values.get(TECHNIQUES[EPS], math.nan)
        beaten[budget] = sorted(n for n in names.values() if n in values and eps >= values[n] - 1e-12)
    missing = sorted(n for n in names.values() if not all(n in v for v in means.values()))
    passed = (
        not missing
        and beaten["protocol"] == beaten["paper"]
        and math.isfinite(means["protocol"].get(TECHNIQUES[EPS], math.nan))
    )
    shrunk = ", ".join(f"{names[g]} {p} {v}" for g, (p, v, _) in PROTOCOL_BUDGETS.items())
    full = ", ".join(f"{names[g]} {p} {v}" for g, (p, _, v) in PROTOCOL_BUDGETS.items())
    observed = "; ".join(
        f"{b} budget: ε-PrivateSMOTE {fmt(means[b].get(TECHNIQUES[EPS], math.nan), 2)} ≥ "
        + (", ".join(beaten[b]) or "none")
        for b in ("protocol", "paper")
    )
    flipped = sorted(set(beaten["protocol"]) ^ set(beaten["paper"]))
    verdict = (
        ""
        if passed
        else f"; the ordering against {', '.join(flipped or missing) or 'the GANs'} depends on the GANs' "
        "training budget, so the main sweeps' shrunk budget biases Fig. 5 for them"
    )
    return [
        trend(
            check_id, claim, paper, observed, passed,
            value={b: {"mean_delta": means[b], "eps_at_least": beaten[b]} for b in means},
            expected="the same set of generators at both budgets",
            reason=(
                f"mean δ (% AUC to the block's oracle, privacy-first path) over the QI sets of {BUDGET_DATASET}; "
                f"shrunk budget {shrunk}; paper budget {full}"
                + (f"; missing at one budget: {', '.join(missing)}" if missing else "")
                + verdict
            ),
            evidence=["tables/budget_stability.md"],
        )
    ]  # fmt: skip


def budget_table(run: ReproductionRun) -> None:
    """``tables/budget_stability.md``: per budget and technique, the mean privacy-first δ on the budget dataset."""
    from experiments.reproductions.privatesmote_2024 import _utility_variant

    if run.profile != "protocol":
        return
    frame = run.results[run.results["dataset"] == BUDGET_DATASET]
    parts = []
    for budget in ("protocol", "paper"):
        keep = ~run.results["generator"].isin(list(PROTOCOL_BUDGETS)) | budget_mask(run, budget)
        try:
            deltas = privacy_first_deltas(run, frame[keep.loc[frame.index]], _utility_variant(run))
        except Exception:
            continue
        summary = deltas.groupby("technique")["delta"].agg(["mean", "min", "max", "count"]).reset_index()
        summary.insert(0, "budget", budget)
        parts.append(summary)
    if parts:
        run.write_table(
            "budget_stability", pd.concat(parts, ignore_index=True), digits=2,
            caption=f"Privacy-first δ to the oracle (% AUC) on {BUDGET_DATASET} per GAN training budget",
        )  # fmt: skip


__all__ = [
    "BUDGET_DATASET",
    "PROTOCOL_BUDGETS",
    "budget_mask",
    "budget_table",
    "check_budget_stability",
    "complete_blocks",
    "main_results",
    "privacy_first_deltas",
    "sign_test_blocks",
]
