"""Report tables: pure functions of the long results table.

Every function takes the results DataFrame (``harness.schema.RESULT_COLUMNS``) and returns
a new DataFrame of numbers; :mod:`harness.report.formatting` turns them into display text
and :mod:`harness.report.render` writes Markdown, CSV and LaTeX.

Rows are generator variants within a dataset (and within an experiment and QI set where
the run has several): the index is ``dataset[, qi_set], generator, label``. Statistics are
over the seeds and folds of a variant (mean and sample standard deviation of the ok rows);
failed, timed-out, out-of-memory and skipped trials are counted, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from harness.report.goals import best_mask
from harness.report.prepare import block_keys, column_info, ordered_rows, prepare, row_keys
from harness.report.references import CLIPPED_COLUMN, REFERENCE_COLUMN
from harness.schema import STATUSES

STATS: tuple[str, ...] = ("mean", "std", "n", "best")
TRIALS: str = "trials"
COST_COLUMNS: dict[str, str] = {
    "fit_s": "fit_seconds",
    "sample_s": "sample_seconds",
    "peak_rss_mb": "peak_rss_mb",
}


def cell_stats(results: pd.DataFrame) -> pd.DataFrame:
    """Mean, std and n of every (row, metric column) cell, with the best cells marked.

    Parameters
    ----------
    results : DataFrame
        The long results table.

    Returns
    -------
    DataFrame
        One row per (row keys, ``column``) that occurs in ``results``, with ``metric``,
        ``variant``, ``family``, ``goal``, ``target_value``, ``mean``, ``std`` (ddof=1; NaN
        for n < 2), ``n`` (number of finite ok values) and ``best`` (bool). Cells are compared
        within each dataset (and experiment and QI set) block.
    """
    frame = prepare(results)
    keys = row_keys(frame)
    return _cell_stats(frame, keys)


def _cell_stats(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rows = frame[frame["column"] != ""]
    if rows.empty:
        columns = [
            *keys,
            "column",
            "mean",
            "std",
            "n",
            "metric",
            "variant",
            "family",
            "goal",
            "target_value",
            "best",
        ]
        return pd.DataFrame(
            {c: pd.Series(dtype=float if c in ("mean", "std", "target_value") else object) for c in columns}
        )
    cells = rows[[*keys, "column"]].drop_duplicates()
    ok = rows[(rows["status"] == "ok") & np.isfinite(rows["value"])]
    stats = ok.groupby([*keys, "column"], sort=False)["value"].agg(["mean", "std", "count"]).reset_index()
    out = cells.merge(stats, on=[*keys, "column"], how="left")
    out = out.rename(columns={"count": "n"})
    out["n"] = out["n"].fillna(0).astype(int)
    info = column_info(frame)
    out = out.join(info, on="column")
    judged = out[[*keys, "column"]].merge(_judged_means(ok, keys), on=[*keys, "column"], how="left")
    out["_judged"] = judged["judged"].to_numpy(dtype=float)
    out["best"] = False
    blocks = block_keys(keys)
    for _, group in out.groupby([*blocks, "column"], sort=False):
        goal = str(group["goal"].iloc[0])
        target = float(group["target_value"].iloc[0])
        out.loc[group.index, "best"] = best_mask(group["_judged"].to_numpy(), goal, target)
    return out.drop(columns="_judged").reset_index(drop=True)


def _judged_means(ok: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per cell, the mean that decides "best": references left out, privacy clipped at the floor.

    A frame marked and floored by :mod:`harness.report.references` has ``reference`` and
    ``clipped`` columns; without them every ok value is judged as it is.
    """
    if REFERENCE_COLUMN in ok.columns:
        ok = ok[~ok[REFERENCE_COLUMN].astype(bool)]
    values = ok[CLIPPED_COLUMN] if CLIPPED_COLUMN in ok.columns else ok["value"]
    judged = ok[[*keys, "column"]].assign(judged=values.to_numpy(dtype=float))
    return judged.groupby([*keys, "column"], sort=False)["judged"].mean().reset_index()


def status_counts(results: pd.DataFrame) -> pd.DataFrame:
    """Number of trials per generator variant by trial status.

    A trial is ``ok`` when at least one of its rows is ok; otherwise it takes its most severe
    row status (oom > timeout > error > skipped).

    Returns
    -------
    DataFrame
        Indexed by the row keys; columns ``total`` and one per status in ``STATUSES``.
    """
    frame = prepare(results)
    return _status_counts(frame, row_keys(frame))


def _status_counts(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    trials = frame.drop_duplicates("trial_id")
    counts = trials.groupby([*keys, "trial_status"], sort=False).size().unstack("trial_status", fill_value=0)
    counts = counts.reindex(columns=list(STATUSES), fill_value=0)
    index = pd.MultiIndex.from_frame(ordered_rows(frame, keys)) if len(frame) else counts.index
    counts = counts.reindex(index, fill_value=0).astype(int)
    counts.insert(0, "total", counts.sum(axis=1))
    counts.columns.name = None
    return counts


def status_totals(results: pd.DataFrame) -> pd.Series:
    """Number of trials in the whole run by trial status (``total`` first)."""
    frame = prepare(results)
    trials = frame.drop_duplicates("trial_id")
    counts = trials["trial_status"].value_counts().reindex(list(STATUSES), fill_value=0).astype(int)
    return pd.concat([pd.Series({"total": int(counts.sum())}), counts])


def summary_table(results: pd.DataFrame, families: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean ± std per generator variant and metric column, with best cells and trial counts.

    Parameters
    ----------
    results : DataFrame
        The long results table.
    families : sequence of str, optional
        Metric families to include; default every family except ``cost`` (see
        :func:`cost_table`).

    Returns
    -------
    DataFrame
        Index: row keys (``dataset[, qi_set], generator, label``; every variant in the
        results, including those whose trials all failed). Columns: a MultiIndex
        ``(column, stat)`` with ``stat`` in ``mean, std, n, best`` for each metric column
        ``metric`` or ``metric/variant``, then ``("trials", s)`` for ``s`` in ``total`` and
        ``STATUSES`` (trial counts by status).
    """
    return summary_tables(results, [families])[0]


def summary_tables(results: pd.DataFrame, selections: Sequence[Sequence[str] | None]) -> list[pd.DataFrame]:
    """:func:`summary_table` for each selection of families, from one pass over the rows.

    The report writes one summary per family and one of them all; the cell statistics and
    trial counts behind them are computed once (each pass is a second at 10,000 trials).
    """
    frame = prepare(results)
    keys = row_keys(frame)
    all_cells = _cell_stats(frame, keys)
    counts = _status_counts(frame, keys)
    order = list(column_info(frame).index)
    return [_summary(all_cells, counts, order, keys, families) for families in selections]


def _summary(
    cells: pd.DataFrame,
    counts: pd.DataFrame,
    order: list[str],
    keys: list[str],
    families: Sequence[str] | None,
) -> pd.DataFrame:
    if families is None:
        cells = cells[cells["family"] != "cost"]
    else:
        cells = cells[cells["family"].isin(list(families))]
    columns = [c for c in order if c in set(cells["column"])]
    parts: dict[tuple[str, str], pd.Series] = {}
    for stat in STATS:
        table = cells.pivot(index=keys, columns="column", values=stat) if len(cells) else pd.DataFrame()
        table = table.reindex(index=counts.index, columns=columns)
        for col in columns:
            series = table[col]
            if stat == "n":
                series = pd.to_numeric(series).fillna(0).astype(int)
            elif stat == "best":
                series = series.astype("boolean").fillna(False).astype(bool)
            else:
                series = series.astype(float)
            parts[(col, stat)] = series
    wide = pd.DataFrame(parts, index=counts.index)
    wide = wide.reindex(columns=pd.MultiIndex.from_product([columns, list(STATS)]))
    trial_block = counts.copy()
    trial_block.columns = pd.MultiIndex.from_product([[TRIALS], list(counts.columns)])
    out = pd.concat([wide, trial_block], axis=1)
    out.columns = pd.MultiIndex.from_tuples(list(out.columns), names=["column", "stat"])
    out.index.names = keys
    return out


def summary_columns(summary: pd.DataFrame) -> list[str]:
    """The metric columns of a :func:`summary_table` result (without the trial counts)."""
    return [c for c in dict.fromkeys(summary.columns.get_level_values(0)) if c != TRIALS]


def summary_goals(results: pd.DataFrame) -> pd.DataFrame:
    """Goal, target value and family of every metric column (see ``prepare.column_info``)."""
    return column_info(prepare(results))


def failures_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per failed or skipped trial, then one per failed metric of an ok trial.

    Returns
    -------
    DataFrame
        Columns: row keys, ``generator_params``, ``split_seed``, ``fold``, ``gen_seed``,
        ``scope`` (``trial`` or ``metric``), ``metric`` (the metric column for scope
        ``metric``, else empty), ``status`` and ``error`` (first non-empty line).
    """
    frame = prepare(results)
    keys = row_keys(frame)
    seeds = ["split_seed", "fold", "gen_seed"]
    columns = [*keys, "generator_params", *seeds, "scope", "metric", "status", "error"]
    failed_trials = frame[frame["trial_status"] != "ok"]
    trial_rows = (
        failed_trials.assign(_has_error=failed_trials["error"] == "")
        .sort_values("_has_error", kind="stable")
        .drop_duplicates("trial_id")
        .assign(scope="trial", metric="", status=lambda d: d["trial_status"])
    )
    metric_rows = frame[(frame["trial_status"] == "ok") & (frame["status"] != "ok")].assign(
        scope="metric", metric=lambda d: d["column"]
    )
    out = pd.concat([trial_rows, metric_rows], ignore_index=True)
    if out.empty:
        return pd.DataFrame({c: pd.Series(dtype=frame[c].dtype if c in frame else "object") for c in columns})
    out["error"] = out["error"].map(first_line)
    order = {tuple(r): i for i, r in enumerate(ordered_rows(frame, keys).itertuples(index=False, name=None))}
    out["_row"] = [order[tuple(r)] for r in out[keys].itertuples(index=False, name=None)]
    out["_scope"] = (out["scope"] == "metric").astype(int)
    out = out.sort_values(["_row", "_scope", *seeds, "metric"], kind="stable")
    return out[columns].reset_index(drop=True)


def first_line(text: object, max_chars: int | None = None) -> str:
    """First non-empty line of an error text, whole (or shortened to ``max_chars``).

    The failures table keeps the whole line: privbench's errors say on that line what to change
    (SMOTE on categorical columns names ``on_categorical=smotenc``), and a cut hid the fix.
    """
    if not isinstance(text, str):
        return ""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if max_chars is None or len(line) <= max_chars else line[: max_chars - 1] + "…"
    return ""


def trial_costs(results: pd.DataFrame) -> pd.DataFrame:
    """Cost of every trial: one row per trial.

    ``fit_s``, ``sample_s`` and ``peak_rss_mb`` come from the columns of the same name (first
    non-null value among the trial's rows) or, where those are empty, from the trial's
    ``cost`` rows (``fit_seconds``, ``sample_seconds``, ``peak_rss_mb``).

    Returns
    -------
    DataFrame
        Row keys, ``trial_id``, ``trial_status``, ``fit_s``, ``sample_s``, ``peak_rss_mb``.
    """
    frame = prepare(results)
    return _trial_costs(frame, row_keys(frame))


def _trial_costs(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    grouped = frame.groupby("trial_id", sort=False)
    base = grouped[[*keys, "trial_status"]].first()
    for col, metric in COST_COLUMNS.items():
        from_column = grouped[col].first()
        cost_rows = frame[
            (frame["family"] == "cost") & (frame["metric"] == metric) & (frame["status"] == "ok")
        ]
        from_rows = cost_rows.groupby("trial_id")["value"].first().reindex(base.index)
        base[col] = from_column.fillna(from_rows).astype(float)
    return base.reset_index()


def cost_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and std of fit time, sample time and peak memory per generator variant.

    Means are over ok trials (a timed-out trial's fit time is the time limit, not a cost).

    Returns
    -------
    DataFrame
        Indexed by the row keys; columns ``trials`` (all), ``ok`` (ok trials), then
        ``fit_s_mean``, ``fit_s_std``, ``sample_s_mean``, ``sample_s_std``,
        ``peak_rss_mb_mean``, ``peak_rss_mb_std``.
    """
    frame = prepare(results)
    keys = row_keys(frame)
    costs = _trial_costs(frame, keys)
    index = pd.MultiIndex.from_frame(ordered_rows(frame, keys)) if len(frame) else None
    out = pd.DataFrame(index=index)
    out["trials"] = costs.groupby(keys).size().reindex(out.index, fill_value=0).astype(int)
    ok = costs[costs["trial_status"] == "ok"]
    out["ok"] = ok.groupby(keys).size().reindex(out.index, fill_value=0).astype(int)
    for col in COST_COLUMNS:
        stats = ok.groupby(keys)[col].agg(["mean", "std"]).reindex(out.index)
        out[f"{col}_mean"] = stats["mean"].astype(float)
        out[f"{col}_std"] = stats["std"].astype(float)
    return out


def throughput_table(results: pd.DataFrame) -> pd.DataFrame:
    """Variants per minute per generator (``000_…`` Table 2): ok trials over their fit + sample minutes.

    Returns
    -------
    DataFrame
        Indexed by the block keys (dataset, and experiment/QI set where they vary) and
        ``generator``; columns ``variants`` (distinct parameter sets), ``trials``, ``ok``,
        ``minutes`` (total fit + sample time of the ok trials) and ``variants_per_minute``
        (``ok / minutes``; NaN when no time was recorded).
    """
    frame = prepare(results)
    keys = row_keys(frame)
    index_keys = [*block_keys(keys), "generator"]
    costs = _trial_costs(frame, keys)
    params = frame.drop_duplicates("trial_id").set_index("trial_id")["generator_params"]
    costs["generator_params"] = costs["trial_id"].map(params)
    columns = ["variants", "trials", "ok", "minutes", "variants_per_minute"]
    if costs.empty:
        return pd.DataFrame(columns=columns, index=pd.MultiIndex.from_tuples([], names=index_keys))
    grouped = costs.groupby(index_keys, sort=True)
    out = pd.DataFrame(
        {
            "variants": grouped["generator_params"].nunique(),
            "trials": grouped.size(),
        }
    )
    ok = costs[costs["trial_status"] == "ok"].copy()
    ok["seconds"] = ok[["fit_s", "sample_s"]].sum(axis=1, min_count=1)
    ok_grouped = ok.groupby(index_keys, sort=True)
    out["ok"] = ok_grouped.size().reindex(out.index, fill_value=0).astype(int)
    minutes = ok_grouped["seconds"].sum(min_count=1).reindex(out.index) / 60.0
    out["minutes"] = minutes.astype(float)
    out["variants_per_minute"] = (out["ok"] / out["minutes"].where(out["minutes"] > 0)).astype(float)
    if REFERENCE_COLUMN in frame.columns:  # references marked as in every other table
        refs = set(frame.loc[frame[REFERENCE_COLUMN].astype(bool), "generator"].astype(str))
        out = out.rename(index={g: f"{g} (reference)" for g in refs}, level="generator")
        first = [str(g).endswith(" (reference)") for g in out.index.get_level_values("generator")]
        blocks = [out.index.get_level_values(k) for k in index_keys[:-1]]
        order = sorted(range(len(out)), key=lambda i: (*(str(b[i]) for b in blocks), not first[i]))
        out = out.iloc[order]
    return out[columns]
