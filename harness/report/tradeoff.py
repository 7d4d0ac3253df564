"""Privacy–utility trade-off score (``spec/metrics.md`` U6; ``002_…`` §4.2, Eq. 5).

Computed at report time from the results table, because its normalisation spans the compared
generators. Per evaluation unit u (a dataset, split seed, fold and generation seed; the trial
columns other than the generator) over the set G of compared generator variants:

1. utility U_g (e.g. ``ml_efficacy`` ``mean:f1``, the mean F1 over the classifiers), and
   U_real, the train-real-test-real score (the row's ``baseline`` by default);
   OU_g = (U_g − min_G U) / (U_real − min_G U), not clipped;
2. privacy P_j(g) for ``dcr_mean``, ``nndr_mean``, ``ratio_1_10_mean`` (``dcr_nndr``);
   scaled_j(g) = P_j(g) / max_G P_j, OP_g = mean of the scaled scores;
3. trade-off = 2·OP·OU/(OP + OU), 0 when OP + OU = 0.

G is the variants of the unit that have every input (ok and finite); the others are not
scored in that unit. **Decision:** OU is NaN when U_real = min_G U (the scale is empty);
scaled_j is 0 for every variant when max_G P_j = 0 (every release is at distance 0 from the
training rows, i.e. as private as releasing the training set itself).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.report.prepare import prepare
from harness.report.ranking import rows_goal, select_metric
from harness.schema import TRIAL_COLUMNS

PRIVACY_VARIANTS: tuple[str, ...] = ("dcr_mean", "nndr_mean", "ratio_1_10_mean")
UNIT_KEYS: tuple[str, ...] = tuple(c for c in TRIAL_COLUMNS if c not in ("generator", "generator_params"))


def tradeoff_scores(
    results: pd.DataFrame,
    *,
    utility_metric: str = "ml_efficacy",
    utility_variant: str = "mean:f1",
    real: str | None = None,
    privacy_metric: str = "dcr_nndr",
    privacy_variants: Sequence[str] = PRIVACY_VARIANTS,
    treatment: str = "label",
    unit_keys: Sequence[str] = UNIT_KEYS,
) -> pd.DataFrame:
    """Trade-off score of every generator variant in every evaluation unit (U6).

    Parameters
    ----------
    results : DataFrame
        The long results table.
    utility_metric, utility_variant : str
        The utility row (maximised; e.g. ``mean:f1`` or ``mean:f1_macro``).
    real : str, optional
        Where U_real comes from: None (default) takes the ``baseline`` column of the utility
        rows (the TRTR score of ``ml_efficacy``; averaged over the unit's rows); a treatment
        name takes that treatment's utility in the unit and leaves it out of G.
    privacy_metric : str
        The metric holding the privacy distances.
    privacy_variants : sequence of str
        The privacy outputs P_j (larger is more private).
    treatment : str
        Column naming the compared variants (``label`` by default; ``generator`` for
        techniques).
    unit_keys : sequence of str
        Columns of an evaluation unit (default: the trial columns other than the generator).

    Returns
    -------
    DataFrame
        One row per (unit, treatment) in G: the unit keys, ``generator``, the treatment,
        ``utility``, ``utility_real``, ``ou``, one column per privacy variant, ``op``,
        ``tradeoff``, ``rank`` (within the unit, 1 = best, ties averaged) and ``n_compared``
        (|G|).

    Raises
    ------
    ConfigError
        If a metric or variant is not in the results, there are no privacy variants, or
        ``real`` names no treatment.
    """
    if not privacy_variants:
        raise ConfigError("tradeoff_scores: `privacy_variants` must name at least one output")
    unit_keys = list(unit_keys)
    id_cols = [*unit_keys, treatment]
    frame = prepare(results)
    selected = select_metric(frame, utility_metric, utility_variant)
    if rows_goal(selected)[0] == "minimise":
        raise ConfigError(
            f"tradeoff_scores: utility {utility_metric!r} {utility_variant!r} is minimised; the score needs a maximised utility"
        )
    util_rows = _ok(selected)
    missing = [c for c in [*id_cols, "generator"] if c not in util_rows.columns]
    if missing:
        raise ConfigError(f"tradeoff_scores: column(s) {', '.join(missing)} not in the results")
    grouped = util_rows.groupby(id_cols, dropna=False, sort=True)
    aggregations = {"utility": ("value", "mean"), "utility_real": ("baseline", "mean")}
    if treatment != "generator":
        aggregations = {"generator": ("generator", "first"), **aggregations}
    table = grouped.agg(**aggregations)
    for name in privacy_variants:
        rows = _ok(select_metric(frame, privacy_metric, name))
        table = table.join(
            rows.groupby(id_cols, dropna=False, sort=True)["value"].mean().rename(name), how="inner"
        )
    table = table.reset_index()
    if real is not None:
        names = util_rows[treatment].astype(str)
        if real not in set(names):
            raise ConfigError(
                f"unknown real treatment {real!r}; expected one of: {', '.join(sorted(set(names))) or '(none)'}"
            )
        real_u = util_rows[names == real].groupby(unit_keys, dropna=False)["value"].mean()
        table = table[table[treatment].astype(str) != real].drop(columns="utility_real")
        table = table.join(real_u.rename("utility_real"), on=unit_keys, how="inner")
    privacy = list(privacy_variants)
    table = table.dropna(subset=["utility", "utility_real", *privacy])
    columns = [
        *unit_keys,
        *dict.fromkeys(["generator", treatment]),
        "utility",
        "utility_real",
        "ou",
        *privacy,
        "op",
        "tradeoff",
        "rank",
        "n_compared",
    ]
    if table.empty:
        return pd.DataFrame(columns=columns)
    return _score_units(table, unit_keys, privacy)[columns]


def tradeoff_summary(
    scores: pd.DataFrame, *, treatment: str = "label", by: Sequence[str] = ()
) -> pd.DataFrame:
    """Mean ± sd of the trade-off score and of its per-unit rank (``002_…`` Tables 2 and 3).

    Parameters
    ----------
    scores : DataFrame
        Output of :func:`tradeoff_scores`.
    treatment : str
        The treatment column.
    by : sequence of str
        Extra grouping columns (e.g. ``("dataset",)``); empty: over all units.

    Returns
    -------
    DataFrame
        One row per (``by``, treatment): ``tradeoff_mean``, ``tradeoff_sd``, ``rank_mean``,
        ``rank_sd`` (ddof = 1), ``ou_mean``, ``op_mean``, ``n_units``; sorted by mean rank
        within each ``by`` group.
    """
    keys = [*by, treatment]
    missing = [c for c in [*keys, "tradeoff", "rank", "ou", "op"] if c not in scores.columns]
    if missing:
        raise ConfigError(f"tradeoff_summary: column(s) {', '.join(missing)} not in the scores")
    out = (
        scores.groupby(keys, dropna=False, sort=True)
        .agg(
            tradeoff_mean=("tradeoff", "mean"),
            tradeoff_sd=("tradeoff", "std"),
            rank_mean=("rank", "mean"),
            rank_sd=("rank", "std"),
            ou_mean=("ou", "mean"),
            op_mean=("op", "mean"),
            n_units=("tradeoff", "size"),
        )
        .reset_index()
    )
    return out.sort_values([*by, "rank_mean", treatment], kind="stable").reset_index(drop=True)


def harmonic(op: float, ou: float) -> float:
    """2·OP·OU/(OP + OU); 0 when OP + OU = 0; NaN when either is NaN."""
    if math.isnan(op) or math.isnan(ou):
        return math.nan
    total = op + ou
    return 0.0 if total == 0 else 2.0 * op * ou / total


def _score_units(table: pd.DataFrame, unit_keys: list[str], privacy: list[str]) -> pd.DataFrame:
    """OU, OP, the trade-off, its rank and |G| of every row, each unit on its own.

    The rows come back unit by unit (units in sorted order, rows in table order within a unit);
    every number is computed as for one unit at a time (the same reductions in the same order).
    """
    number = table.groupby(unit_keys, dropna=False, sort=True).ngroup().to_numpy()
    order = np.argsort(number, kind="stable")
    out = table.iloc[order].reset_index(drop=True)
    unit = pd.Series(number[order])
    starts = np.flatnonzero(np.r_[True, unit.to_numpy()[1:] != unit.to_numpy()[:-1]])
    sizes = np.diff(np.r_[starts, len(out)])
    grouped = out.groupby(unit, sort=False)
    u = out["utility"].to_numpy(dtype=float)
    u_min = grouped["utility"].transform("min").to_numpy(dtype=float)
    real = out["utility_real"].to_numpy(dtype=float)
    real_mean = np.repeat([np.mean(real[a : a + n]) for a, n in zip(starts, sizes)], sizes)
    span = real_mean - u_min
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ou"] = np.where(span != 0, (u - u_min) / span, np.nan)
        scaled = []
        for name in privacy:
            p = out[name].to_numpy(dtype=float)
            top = grouped[name].transform("max").to_numpy(dtype=float)
            scaled.append(np.where(top != 0, p / top, 0.0))
    op = np.mean(np.vstack(scaled), axis=0)
    ou = out["ou"].to_numpy(dtype=float)
    out["op"] = op
    out["tradeoff"] = _harmonic(op, ou)
    out["rank"] = (-out["tradeoff"]).groupby(unit, sort=False).rank(method="average", na_option="keep")
    out["n_compared"] = np.repeat(sizes, sizes)
    return out


def _harmonic(op: np.ndarray, ou: np.ndarray) -> np.ndarray:
    """:func:`harmonic` of arrays."""
    total = op + ou
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(total == 0, 0.0, 2.0 * op * ou / total)
    return np.where(np.isnan(op) | np.isnan(ou), np.nan, out)


def _ok(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[(rows["status"] == "ok") & np.isfinite(rows["value"])]
