"""Comparison tables of the report: ranks, tests against a control, a baseline and the oracle.

Each builder takes the prepared results table (:func:`harness.report.prepare.prepare`) and
resolved :class:`~harness.report.settings.ReportSettings` and returns a
:class:`ComparisonTable` — the numbers (for CSV), the display table (Markdown, LaTeX, HTML)
and a note — or raises :class:`TableSkipped` with a one-line reason when the run lacks what
the table needs (one generator variant, no utility metric, fewer than three treatments for
Friedman...). The statistics themselves live in :mod:`~harness.report.ranking`,
:mod:`~harness.report.bayes`, :mod:`~harness.report.optimisation` and
:mod:`~harness.report.tradeoff`; the Wilcoxon–Holm table against a control in
:mod:`~harness.report.control`, the shared types in :mod:`~harness.report.comparison_base`
(both re-exported here).

Treatments are generator variants (the report's labels); blocks are the settings' block
columns, within which a treatment's runs (e.g. generation seeds) are averaged.
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
from harness.report.ranking import friedman, select_metric
from harness.report.render import DisplayTable
from harness.report.settings import REAL_BASELINE, ReportSettings, default_tradeoff_utility, split_column
from harness.report.tradeoff import PRIVACY_VARIANTS, tradeoff_scores, tradeoff_summary

__all__ = [
    "ComparisonTable",
    "TableSkipped",
    "choose_control",
    "column_scores",
    "control_table",
    "paths_table",
    "rank_table",
    "sign_test_table",
    "stringify_blocks",
    "tradeoff_table",
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
        except (TableSkipped, ConfigError) as exc:
            left_out.append(f"{column} ({exc})")
            continue
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
                    "p_value": result.pvalue,
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
        f"ties share the average rank). Friedman test at α = {settings.alpha:g}."
    )
    if left_out:
        note += " Not ranked: " + "; ".join(left_out) + "."
    display = DisplayTable(text=text, bold=bold, numeric=frozenset(headers))
    return ComparisonTable("ranks", "Mean rank ± sd and Friedman test", numbers, display, note)


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


def tradeoff_table(frame: pd.DataFrame, settings: ReportSettings) -> ComparisonTable:
    """Privacy–utility trade-off score (U6) per dataset and generator variant: mean ± sd and mean rank.

    Raises
    ------
    TableSkipped
        Without ``dcr_nndr`` distance rows or a maximised utility column.
    """
    utility = settings.tradeoff_utility or default_tradeoff_utility(frame, settings.utility)
    if utility is None:
        raise TableSkipped("the results hold no utility metric")
    present = set(frame.loc[frame["metric"] == "dcr_nndr", "variant"])
    missing = [v for v in PRIVACY_VARIANTS if v not in present]
    if missing:
        raise TableSkipped(f"dcr_nndr rows {', '.join(missing)} are not in the results")
    metric, variant = split_column(utility)
    try:
        scores = tradeoff_scores(frame, utility_metric=metric, utility_variant=variant)
    except ConfigError as exc:
        raise TableSkipped(str(exc)) from None
    if scores.empty:
        raise TableSkipped("no evaluation unit has both the utility and the three distance scores")
    numbers = tradeoff_summary(scores, by=("dataset",))
    dec = column_decimals(numbers["tradeoff_mean"].astype(float))
    text = pd.DataFrame(
        {
            "dataset": numbers["dataset"].astype(str),
            "generator": numbers["label"].astype(str),
            "trade-off ↑": [
                format_mean_std(float(m), float(s), decimals=dec)
                for m, s in zip(numbers["tradeoff_mean"], numbers["tradeoff_sd"])
            ],
            "rank ↓": [
                format_mean_std(float(m), float(s), decimals=2)
                for m, s in zip(numbers["rank_mean"], numbers["rank_sd"])
            ],
            "OU": [format_number(v) for v in numbers["ou_mean"]],
            "OP": [format_number(v) for v in numbers["op_mean"]],
            "units": numbers["n_units"].astype(int).astype(str),
        }
    )
    bold = pd.DataFrame(False, index=text.index, columns=text.columns)
    for _, group in numbers.groupby("dataset", sort=False):
        best = group["tradeoff_mean"].max()
        bold.loc[group.index, "trade-off ↑"] = np.isclose(group["tradeoff_mean"], best) & (len(group) > 1)
    f1_like = variant.endswith((":f1", ":f1_macro"))
    note = (
        f"Trade-off = 2·OP·OU/(OP + OU) per evaluation unit: OU = utility ({utility}) scaled between the worst "
        "compared variant and the real-data score, OP = mean of dcr_mean, nndr_mean and ratio_1_10_mean each "
        "divided by the largest among the compared variants."
    )
    if not f1_like:
        note += f" The reference (002_…) uses the mean F1 over classifiers; this run has no F1 row, so {utility} is used."
    display = DisplayTable(
        text=text,
        bold=bold,
        numeric=frozenset({"trade-off ↑", "rank ↓", "OU", "OP", "units"}),
        group_by=("dataset",),
    )
    return ComparisonTable("tradeoff", "Privacy–utility trade-off score (U6)", numbers, display, note)


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
