"""Comparison tables of the report: ranks, tests against a control, a baseline and the oracle.

Each builder takes the prepared results table (:func:`harness.report.prepare.prepare`) and
resolved :class:`~harness.report.settings.ReportSettings` and returns a
:class:`ComparisonTable` — the numbers (for CSV), the display table (Markdown, LaTeX, HTML)
and a note — or raises :class:`TableSkipped` with a one-line reason when the run lacks what
the table needs (one generator variant, no utility metric, fewer than three treatments for
Friedman...). The statistics themselves live in :mod:`~harness.report.ranking`,
:mod:`~harness.report.bayes` and :mod:`~harness.report.optimisation`; the trade-off score in
:mod:`~harness.report.score`; the Wilcoxon–Holm table against a control in
:mod:`~harness.report.control`, the shared types in :mod:`~harness.report.comparison_base`
(both re-exported here).

Treatments are generator variants (the report's labels); blocks are the settings' block
columns, within which a treatment's runs (e.g. generation seeds) are averaged. The report
passes these builders the frame of the compared methods (:func:`harness.report.references.compared`:
references left out, privacy clipped at the floor of new individuals).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.report.bayes import bayes_sign_tests, win_draw_lose
from harness.report.comparison_base import (
    ComparisonTable,
    TableSkipped,
    column_scores,
    format_p,
    main_columns,
    stringify_blocks,
)
from harness.report.control import choose_control, control_table
from harness.report.formatting import MISSING, column_decimals, format_mean_std, format_number
from harness.report.goals import direction_text
from harness.report.optimisation import optimisation_paths, oracle_deltas
from harness.report.prepare import column_info
from harness.report.ranking import FriedmanResult, friedman, rank_matrix, select_metric
from harness.report.render import DisplayTable
from harness.report.settings import REAL_BASELINE, ReportSettings, split_column

__all__ = [
    "ComparisonTable",
    "TableSkipped",
    "check_attainable",
    "choose_control",
    "column_scores",
    "control_table",
    "friedman_min_p",
    "friedman_p",
    "paths_table",
    "rank_table",
    "sign_test_table",
    "stringify_blocks",
    "win_draw_lose_table",
]

PATH_NAMES: dict[str, str] = {"privacy_first": "best privacy", "performance_first": "best utility"}


def rank_table(frame: pd.DataFrame, settings: ReportSettings) -> ComparisonTable:
    """Mean rank ± sd of every generator variant on each rank metric, with the Friedman test (S2).

    Metrics where Friedman cannot run (fewer than 3 variants or 2 complete blocks, no
    direction) are left out and named in the note.

    Raises
    ------
    TableSkipped
        If no metric can be ranked.
    """
    blocks = list(settings.blocks or ())
    records: list[dict[str, object]] = []
    left_out: list[str] = []
    info = column_info(frame)
    for column in settings.rank_metrics or ():
        try:
            scores, goal, target = column_scores(frame, column, blocks)
            result = friedman(scores, goal, target, alpha=settings.alpha)
            check_attainable(result.n_blocks, len(result.ranks), settings.alpha)
        except (TableSkipped, ConfigError) as exc:
            left_out.append(f"{column} ({exc})")
            continue
        p_value, method = friedman_p(scores, goal, target, result, settings.seed)
        for row in result.ranks.itertuples(index=False):
            records.append(
                {
                    "column": column,
                    "goal": goal,
                    "target_value": target,
                    "treatment": row.treatment,
                    "mean_rank": row.mean_rank,
                    "sd_rank": row.sd_rank,
                    "n_blocks": result.n_blocks,
                    "statistic": result.statistic,
                    "p_value": p_value,
                    "p_method": method,
                    "dropped_blocks": len(result.dropped_blocks),
                }
            )
    if not records:
        reason = "; ".join(left_out) if left_out else "no ranked metric"
        raise TableSkipped(f"no metric could be ranked: {reason}")
    numbers = pd.DataFrame.from_records(records)
    columns = list(dict.fromkeys(numbers["column"]))
    treatments = list(dict.fromkeys(numbers.sort_values("mean_rank", kind="stable")["treatment"]))
    text = pd.DataFrame({"generator": treatments + ["Friedman χ² (p)", "blocks"]})
    bold = pd.DataFrame(False, index=text.index, columns=["generator", *columns])
    headers = []
    for column in columns:
        sub = numbers[numbers["column"] == column].set_index("treatment")
        arrow = direction_text(str(info.at[column, "goal"]), float(info.at[column, "target_value"]))
        header = f"{column} {arrow}".strip()
        headers.append(header)
        cells = [
            format_mean_std(float(sub.at[t, "mean_rank"]), float(sub.at[t, "sd_rank"]), decimals=2)
            if t in sub.index
            else MISSING
            for t in treatments
        ]
        first = sub.iloc[0]
        cells.append(f"{format_number(first['statistic'])} ({format_p(first['p_value'])})")
        dropped = int(first["dropped_blocks"])
        cells.append(str(int(first["n_blocks"])) + (f" (+{dropped} incomplete)" if dropped else ""))
        text[header] = cells
        best = sub["mean_rank"].min()
        bold[column] = [
            t in sub.index and bool(np.isclose(sub.at[t, "mean_rank"], best)) for t in treatments
        ] + [
            False,
            False,
        ]
    bold.columns = ["generator", *headers]
    note = (
        f"Rank 1 = best within a block (blocks: {', '.join(blocks)}; a variant's runs in a block are averaged; "
        f"ties share the average rank). Friedman test at α = {settings.alpha:g}"
    )
    if (numbers["p_method"] == "permutation").any():
        note += (
            f"; with fewer than {PERMUTATION_BELOW} blocks its p is a permutation p ({PERMUTATIONS:,} within-block "
            f"permutations, seed {settings.seed}): the χ² approximation needs more blocks"
        )
    note += ". References are never ranked."
    if left_out:
        note += " Not ranked: " + "; ".join(left_out) + "."
    display = DisplayTable(text=text, bold=bold, numeric=frozenset(headers))
    return ComparisonTable("ranks", "Mean rank ± sd and Friedman test", numbers, display, note)


PERMUTATION_BELOW = 10
"""Below this many blocks the Friedman p is a permutation p (the χ² approximation needs more; Demšar 2006)."""
PERMUTATIONS = 20_000


def friedman_p(
    scores: pd.DataFrame, goal: str, target: float | None, result: FriedmanResult, seed: int = 0
) -> tuple[float, str]:
    """The Friedman p the report uses and how it was computed (``"χ²"`` or ``"permutation"``).

    With fewer than :data:`PERMUTATION_BELOW` complete blocks the statistic's null distribution
    is drawn by permuting the treatments within each block (:data:`PERMUTATIONS` draws, seeded):
    the p is (1 + draws at least as extreme) / (1 + draws). Otherwise scipy's χ² p.
    """
    if result.n_blocks >= PERMUTATION_BELOW or not np.isfinite(result.pvalue):
        return float(result.pvalue), "χ²"
    complete = scores.dropna()
    ranks = rank_matrix(complete, goal, target).to_numpy(dtype=float)
    observed = float(np.sum(ranks.sum(axis=0) ** 2))
    rng = np.random.default_rng(seed)
    draws = rng.permuted(np.broadcast_to(ranks, (PERMUTATIONS, *ranks.shape)), axis=2)
    null = np.sum(draws.sum(axis=1) ** 2, axis=1)
    extreme = int(np.sum(null >= observed - 1e-9))
    return (1 + extreme) / (1 + PERMUTATIONS), "permutation"


def friedman_min_p(n_blocks: int, k: int) -> float:
    """The smallest exact p of the Friedman test: every block ranks the k treatments alike, (k!)^(1 − N)."""
    return float(math.exp((1 - n_blocks) * math.lgamma(k + 1)))


def check_attainable(n_blocks: int, k: int, alpha: float) -> None:
    """Raise :class:`TableSkipped` when no outcome of the blocks could make the Friedman test significant."""
    smallest = friedman_min_p(n_blocks, k)
    if smallest >= alpha:
        raise TableSkipped(
            f"{n_blocks} blocks of {k} variants: the smallest attainable exact p is (k!)^(1 − N) = {smallest:.3g}, "
            f"not below α = {alpha:g}"
        )


def win_draw_lose_table(frame: pd.DataFrame, settings: ReportSettings) -> ComparisonTable:
    """Win/draw/lose of every variant against the baseline over blocks, ROPE ±``rope`` % on pct_diff (U2).

    The baseline is each block's mean ``baseline`` value of the utility rows (``real``: e.g.
    TRTR for ``ml_efficacy``) — then only the utility column is compared, since privacy
    baselines (random-guess rates, holdout distances) are not a target to reach within 1 % —
    or a generator variant, compared on the utility and the privacy column.

    Raises
    ------
    TableSkipped
        If no privacy or utility column has a baseline and a maximise/minimise goal.
    """
    blocks = list(settings.blocks or ())
    parts, left_out = [], []
    columns = (
        main_columns(settings) if settings.baseline != REAL_BASELINE else [c for c in [settings.utility] if c]
    )
    for column in columns:
        try:
            scores, goal, _ = column_scores(frame, column, blocks)
        except TableSkipped as exc:
            left_out.append(f"{column} ({exc})")
            continue
        if goal not in ("maximise", "minimise"):
            left_out.append(f"{column} (goal {goal})")
            continue
        baseline: str | pd.Series
        if settings.baseline == REAL_BASELINE:
            baseline = _baseline_series(frame, column, blocks)
            if baseline.dropna().empty:
                left_out.append(f"{column} (no baseline value)")
                continue
            others = scores
        else:
            if settings.baseline not in scores.columns:
                left_out.append(f"{column} (no {settings.baseline!r})")
                continue
            baseline, others = settings.baseline, scores
        try:
            table = win_draw_lose(others, baseline, goal, rope=settings.rope)
        except ValueError as exc:
            left_out.append(f"{column} ({exc})")
            continue
        parts.append(table.assign(column=column))
    if not parts:
        raise TableSkipped(
            "no column to compare with the baseline: " + ("; ".join(left_out) or "no utility metric")
        )
    numbers = pd.concat(parts, ignore_index=True)
    base_name = (
        "the real-data score (the rows' baseline, e.g. TRTR)"
        if settings.baseline == REAL_BASELINE
        else settings.baseline
    )
    text = pd.DataFrame(
        {
            "metric": numbers["column"],
            "generator": numbers["treatment"],
            "blocks": numbers["n"].astype(int).astype(str),
            "win": numbers["win"].astype(int).astype(str),
            "draw": numbers["draw"].astype(int).astype(str),
            "lose": numbers["lose"].astype(int).astype(str),
            "mean % diff": [
                MISSING if math.isnan(v) else f"{v + 0.0:+.1f}" for v in numbers["mean_pct_diff"].round(1)
            ],
        }
    )
    note = (
        f"Baseline: {base_name}. Per block, δ = 100·(value − baseline)/|baseline|; win if δ is better than "
        f"±{settings.rope:g} % (the ROPE), draw inside it, lose otherwise (for a minimised metric a lower value wins)."
    )
    if left_out:
        note += " Not compared: " + "; ".join(left_out) + "."
    display = DisplayTable(
        text=text, numeric=frozenset({"blocks", "win", "draw", "lose", "mean % diff"}), group_by=("metric",)
    )
    return ComparisonTable("win_draw_lose", f"Win/draw/lose vs {base_name}", numbers, display, note)


def paths_table(frame: pd.DataFrame, settings: ReportSettings) -> ComparisonTable:
    """Optimisation paths per dataset and generator: the best-utility and the best-privacy variant (Fig. 4).

    Raises
    ------
    TableSkipped
        Without both a privacy and a utility column.
    """
    paths = _paths(frame, settings, blocks=("dataset",))
    privacy, utility = str(settings.privacy), str(settings.utility)
    text = pd.DataFrame(
        {
            "dataset": paths["dataset"],
            "generator": paths["generator"],
            "path": paths["path"].map(PATH_NAMES),
            "variant": paths["label"],
            privacy: _column_text(paths["privacy"]),
            utility: _column_text(paths["utility"]),
            "variants": paths["n_candidates"].astype(int).astype(str),
        }
    )
    text = text.sort_values(["dataset", "generator", "path"], kind="stable", ascending=[True, True, False])
    numbers = paths.loc[text.index].reset_index(drop=True)
    text = text.reset_index(drop=True)
    note = (
        f"Per dataset and generator: 'best utility' is the variant with the best mean {utility} (ties: best "
        f"{privacy}), shown with its {privacy}; 'best privacy' the reverse. Means over seeds and folds."
    )
    display = DisplayTable(
        text=text, numeric=frozenset({privacy, utility, "variants"}), group_by=("dataset", "generator")
    )
    return ComparisonTable("optimisation_paths", "Optimisation paths", numbers, display, note)


def sign_test_table(frame: pd.DataFrame, settings: ReportSettings) -> ComparisonTable:
    """Bayesian sign test of every generator against the oracle (S1, Fig. 5), from counts with baycomp.

    Privacy-first path per block; the oracle of a block is the best utility among the retained
    variants of all generators; δ is each generator's percentage difference to it.

    Raises
    ------
    TableSkipped
        With fewer than two generators or without a privacy and a utility column.
    """
    if frame["generator"].nunique() < 2:
        raise TableSkipped("the run has a single generator (the oracle would be itself)")
    blocks = tuple(settings.blocks or ("dataset",))
    paths = _paths(frame, settings, blocks=blocks)
    try:
        deltas = oracle_deltas(stringify_blocks(paths, blocks), path="privacy_first", blocks=blocks)
        numbers = bayes_sign_tests(deltas, by="generator", rope=settings.rope, seed=settings.seed)
    except (ConfigError, ValueError) as exc:
        raise TableSkipped(str(exc)) from None
    if numbers.empty:
        raise TableSkipped("no generator has a δ to the oracle")
    text = pd.DataFrame(
        {
            "generator": numbers["generator"].astype(str),
            "blocks": numbers["n"].astype(int).astype(str),
            "lose": numbers["n_lose"].astype(int).astype(str),
            "draw": numbers["n_draw"].astype(int).astype(str),
            "win": numbers["n_win"].astype(int).astype(str),
            "P(lose)": [f"{v:.3f}" for v in numbers["p_lose"]],
            "P(draw)": [f"{v:.3f}" for v in numbers["p_draw"]],
            "P(win)": [f"{v:.3f}" for v in numbers["p_win"]],
        }
    )
    note = (
        f"Privacy-first path (best {settings.privacy}, then best {settings.utility}) per block ({', '.join(blocks)}); "
        f"oracle = the best {settings.utility} among the retained variants; δ = % difference to it (≤ 0). "
        f"baycomp SignTest from the lose/draw/win counts, ROPE ±{settings.rope:g} %, prior 1 on the ROPE, seed "
        f"{settings.seed}. A δ of 0 (the generator is the oracle there) is a draw."
    )
    display = DisplayTable(text=text, numeric=frozenset(text.columns) - {"generator"})
    return ComparisonTable("bayes_sign_test", "Bayesian sign test vs the oracle", numbers, display, note)


def _paths(frame: pd.DataFrame, settings: ReportSettings, *, blocks: Sequence[str]) -> pd.DataFrame:
    if settings.privacy is None or settings.utility is None:
        raise TableSkipped("the results need both a privacy and a utility metric with ok values")
    p_metric, p_variant = split_column(settings.privacy)
    u_metric, u_variant = split_column(settings.utility)
    variant_keys = tuple(k for k in ("qi_set", "generator_params") if k not in blocks)
    try:
        paths = optimisation_paths(
            frame,
            privacy_metric=p_metric,
            privacy_variant=p_variant,
            utility_metric=u_metric,
            utility_variant=u_variant,
            blocks=tuple(blocks),
            variant_keys=variant_keys,
        )
    except ConfigError as exc:
        raise TableSkipped(str(exc)) from None
    if paths.empty:
        raise TableSkipped("no generator variant has both a privacy and a utility value")
    return paths


def _baseline_series(frame: pd.DataFrame, column: str, blocks: Sequence[str]) -> pd.Series:
    metric, variant = split_column(column)
    rows = select_metric(frame, metric, variant)
    ok = rows[(rows["status"] == "ok") & rows["baseline"].notna()]
    if ok.empty:
        return pd.Series(dtype=float)
    ok = stringify_blocks(ok, blocks)
    series = ok.groupby(list(blocks), sort=True)["baseline"].mean().astype(float)
    return series.sort_index()


def _column_text(values: pd.Series) -> list[str]:
    dec = column_decimals(values.astype(float))
    return [
        MISSING if math.isnan(float(v)) else (f"{float(v):.{dec}f}" if dec is not None else format_number(v))
        for v in values
    ]
