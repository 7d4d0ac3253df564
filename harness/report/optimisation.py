"""Optimisation paths and the oracle (``spec/metrics.md`` §6 S1 steps 1–3; ``000_…`` §4.3, Figs 4–5).

An *optimisation path* prioritises one vector and reports the other:

``privacy_first``
    for each (dataset, technique), the variants with the best privacy score (e.g. minimum
    linkability risk); among them the one with the best utility (e.g. maximum test AUC);
``performance_first``
    the variants with the best utility; among them the one with the best privacy.

A *variant* is one configuration of a technique (by default one ``(qi_set,
generator_params)`` pair); its privacy and utility are the means over its ok runs (seeds,
folds) in the dataset. Ties are values equal within a relative 1e-9; a tie on both vectors is
broken by the variant keys in sorted order, so the choice is deterministic.

The *oracle* of a dataset is the best utility among the variants a path retained for all
techniques; each technique's δ vector over datasets is its percentage difference to the
oracle, oriented so that δ ≤ 0 (a loss). :func:`harness.report.bayes.bayes_sign_tests` turns
the δ vectors into Fig. 5.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.report.bayes import pct_diff
from harness.report.goals import has_direction, oriented_scores
from harness.report.prepare import prepare
from harness.report.ranking import rows_goal, select_metric

PATHS: tuple[str, str] = ("privacy_first", "performance_first")
_RTOL: float = 1e-9
_ATOL: float = 1e-12


def variant_scores(
    results: pd.DataFrame,
    *,
    privacy_metric: str = "anonymeter_linkability",
    privacy_variant: str | None = None,
    utility_metric: str = "ml_efficacy",
    utility_variant: str | None = "best:roc_auc",
    technique: str = "generator",
    blocks: Sequence[str] = ("dataset",),
    variant_keys: Sequence[str] = ("qi_set", "generator_params"),
) -> pd.DataFrame:
    """Mean privacy and utility of every (block, technique, variant).

    Parameters
    ----------
    results : DataFrame
        The long results table.
    privacy_metric, privacy_variant
        The privacy score (``variant`` None: the metric's only variant).
    utility_metric, utility_variant
        The utility score.
    technique : str
        Column naming the technique (``generator`` by default).
    blocks : sequence of str
        Columns of a block (the oracle is per block; default: datasets).
    variant_keys : sequence of str
        Columns that identify a variant within a technique; the other trial columns (seeds,
        folds) are averaged over.

    Returns
    -------
    DataFrame
        One row per (block, technique, variant): the block columns, ``technique`` (named as
        the argument), the variant keys, ``label``, ``privacy``, ``utility``, ``n_privacy``,
        ``n_utility`` (ok finite runs), ``privacy_goal``, ``utility_goal``. A variant missing
        one of the two scores has NaN there.

    Raises
    ------
    ConfigError
        If a metric/variant is not in the results, has no ok value or its goal has no
        direction.
    """
    keys = [*blocks, technique, *variant_keys]
    frame = prepare(results)
    parts = []
    goals = {}
    for role, metric, variant in (
        ("privacy", privacy_metric, privacy_variant),
        ("utility", utility_metric, utility_variant),
    ):
        rows = select_metric(frame, metric, variant)
        goal, target = rows_goal(rows)
        if not has_direction(goal, target):
            raise ConfigError(
                f"{role} metric {metric!r} has goal {goal!r}; optimisation paths need a direction"
            )
        goals[role] = (goal, target)
        missing = [c for c in keys if c not in rows.columns]
        if missing:
            raise ConfigError(f"optimisation paths: column(s) {', '.join(missing)} not in the results")
        ok = rows[(rows["status"] == "ok") & np.isfinite(rows["value"])]
        if ok.empty:
            raise ConfigError(f"{role} metric {metric!r} has no ok value in the results")
        agg = ok.groupby(keys, dropna=False, sort=True).agg(
            **{role: ("value", "mean"), f"n_{role}": ("value", "size"), f"label_{role}": ("label", "first")}
        )
        parts.append(agg)
    table = parts[0].join(parts[1], how="outer").reset_index()
    table["label"] = table["label_privacy"].fillna(table["label_utility"]).astype(str)
    for role in ("privacy", "utility"):
        table[f"n_{role}"] = table[f"n_{role}"].fillna(0).astype(int)
    table["privacy_goal"] = goals["privacy"][0]
    table["utility_goal"] = goals["utility"][0]
    table["privacy_target"] = goals["privacy"][1] if goals["privacy"][1] is not None else np.nan
    table["utility_target"] = goals["utility"][1] if goals["utility"][1] is not None else np.nan
    columns = [
        *keys,
        "label",
        "privacy",
        "utility",
        "n_privacy",
        "n_utility",
        "privacy_goal",
        "utility_goal",
        "privacy_target",
        "utility_target",
    ]
    return table[columns]


def optimisation_paths(
    results: pd.DataFrame,
    *,
    privacy_metric: str = "anonymeter_linkability",
    privacy_variant: str | None = None,
    utility_metric: str = "ml_efficacy",
    utility_variant: str | None = "best:roc_auc",
    technique: str = "generator",
    blocks: Sequence[str] = ("dataset",),
    variant_keys: Sequence[str] = ("qi_set", "generator_params"),
    paths: Sequence[str] = PATHS,
) -> pd.DataFrame:
    """The privacy-first and performance-first variant of every (block, technique) (Fig. 4).

    Parameters
    ----------
    results : DataFrame
        The long results table.
    privacy_metric, privacy_variant, utility_metric, utility_variant, technique, blocks, variant_keys
        As in :func:`variant_scores` (defaults: ``000_…``'s linkability risk and the best
        classifier's test ROC AUC, per dataset and generator).
    paths : sequence of {"privacy_first", "performance_first"}
        The paths to compute.

    Returns
    -------
    DataFrame
        One row per (path, block, technique): ``path``, the block columns, the technique
        column, the variant keys, ``label``, ``privacy``, ``utility`` (the chosen variant's
        own values), ``n_privacy``, ``n_utility``, ``n_candidates`` (variants with both
        scores), ``privacy_goal``, ``utility_goal``, ``privacy_target``, ``utility_target``.

    Raises
    ------
    ConfigError
        As :func:`variant_scores`, or for an unknown path name.
    """
    unknown = [p for p in paths if p not in PATHS]
    if unknown:
        raise ConfigError(f"unknown optimisation path {unknown[0]!r}; expected one of: {', '.join(PATHS)}")
    scores = variant_scores(
        results,
        privacy_metric=privacy_metric,
        privacy_variant=privacy_variant,
        utility_metric=utility_metric,
        utility_variant=utility_variant,
        technique=technique,
        blocks=blocks,
        variant_keys=variant_keys,
    )
    complete = scores.dropna(subset=["privacy", "utility"]).copy()
    complete["_privacy"] = _oriented_column(complete, "privacy")
    complete["_utility"] = _oriented_column(complete, "utility")
    keys = [*blocks, technique]
    columns = [
        "path",
        *keys,
        *variant_keys,
        "label",
        "privacy",
        "utility",
        "n_privacy",
        "n_utility",
        "n_candidates",
        "privacy_goal",
        "utility_goal",
        "privacy_target",
        "utility_target",
    ]
    if complete.empty or not paths:
        return pd.DataFrame(columns=columns)
    # Sorted by (block, technique), then by the variant keys: a group's first finalist is its pick.
    ordered = complete.sort_values([*keys, *variant_keys, "label"], kind="stable")
    n_candidates = ordered.groupby(keys, sort=False, dropna=False)["label"].transform("size")
    chosen = []
    for path in paths:
        first, second = ("_privacy", "_utility") if path == "privacy_first" else ("_utility", "_privacy")
        pick = _lexicographic_best(ordered, keys, first, second)
        chosen.append(ordered.loc[pick].assign(path=path, n_candidates=n_candidates.loc[pick]))
    out = pd.concat(chosen)[columns].reset_index(drop=True)
    out["n_candidates"] = out["n_candidates"].astype(int)
    return out


def oracle_deltas(
    paths: pd.DataFrame,
    *,
    path: str = "privacy_first",
    technique: str = "generator",
    blocks: Sequence[str] = ("dataset",),
) -> pd.DataFrame:
    """Per block, the oracle utility and each technique's δ = pct_diff to it (S1 steps 2–3).

    Parameters
    ----------
    paths : DataFrame
        Output of :func:`optimisation_paths`.
    path : {"privacy_first", "performance_first"}
        The path whose retained variants define the oracle (``000_…`` uses privacy first).
    technique, blocks
        As in :func:`optimisation_paths`.

    Returns
    -------
    DataFrame
        One row per (block, technique): the block columns, the technique column, ``label``,
        ``utility``, ``oracle_utility``, ``oracle`` (the technique(s) reaching it, ``", "``
        joined), ``pct_diff`` = 100·(utility − oracle)/|oracle| and ``delta`` — ``pct_diff``
        oriented so that larger is better (negated for a minimised utility), hence ≤ 0.

    Raises
    ------
    ConfigError
        If ``path`` is not among the rows or a column is missing.
    ValueError
        If an oracle utility is 0.
    """
    missing = [c for c in ["path", *blocks, technique, "utility", "utility_goal"] if c not in paths.columns]
    if missing:
        raise ConfigError(f"oracle_deltas: column(s) {', '.join(missing)} not in the paths table")
    rows = paths[paths["path"] == path].copy()
    if rows.empty:
        present = ", ".join(sorted(set(paths["path"].astype(str)))) or "(none)"
        raise ConfigError(f"optimisation path {path!r} is not in the paths table; paths present: {present}")
    rows["_utility"] = _oriented_column(rows, "utility")
    # Block by block (blocks in sorted order, rows in table order within a block).
    number = rows.groupby(list(blocks), sort=True, dropna=False).ngroup().to_numpy()
    order = np.argsort(number, kind="stable")
    rows, block = rows.iloc[order], pd.Series(number[order], index=rows.index[order])
    best = rows["_utility"].groupby(block, sort=False).transform("max")
    at_best = _close(rows["_utility"], best)
    oracle_value = rows.loc[at_best, "utility"].groupby(block[at_best], sort=False).first()
    oracle_names = (
        rows.loc[at_best, technique]
        .astype(str)
        .groupby(block[at_best], sort=False)
        .agg(lambda names: ", ".join(sorted(names)))
    )
    oracle = block.map(oracle_value).to_numpy(dtype=float)
    diff = pct_diff(rows["utility"].to_numpy(dtype=float), oracle)
    sign = np.where(rows["utility_goal"].to_numpy() == "minimise", -1.0, 1.0)
    out = rows[[*blocks, technique, "label", "utility"]].copy()
    out["oracle_utility"] = oracle
    out["oracle"] = block.map(oracle_names).to_numpy(dtype=object)
    out["pct_diff"] = diff
    out["delta"] = sign * diff
    return out.reset_index(drop=True)


def delta_vectors(
    deltas: pd.DataFrame, *, technique: str = "generator", blocks: Sequence[str] = ("dataset",)
) -> pd.DataFrame:
    """The δ vector of every technique: rows = techniques, columns = blocks (from :func:`oracle_deltas`)."""
    wide = deltas.pivot_table(
        index=technique, columns=list(blocks), values="delta", aggfunc="mean", dropna=False
    )
    return wide.sort_index()


def _lexicographic_best(ordered: pd.DataFrame, keys: list[str], first: str, second: str) -> pd.Index:
    """Index of the pick of every group of ``keys``: best ``first``, then best ``second``, then first row.

    Values within a relative :data:`_RTOL` (absolute :data:`_ATOL`) of a group's best count as
    ties; ``ordered`` holds each group's rows in the order that breaks the remaining ties.
    """
    top = ordered.groupby(keys, sort=False, dropna=False)[first].transform("max")
    candidates = _close(ordered[first], top)
    top2 = (
        ordered[second]
        .where(candidates)
        .groupby([ordered[k] for k in keys], sort=False, dropna=False)
        .transform("max")
    )
    finalists = ordered[candidates & _close(ordered[second], top2)]
    return finalists.groupby(keys, sort=False, dropna=False).head(1).index


def _close(values: pd.Series, best: pd.Series) -> pd.Series:
    """``np.isclose(values, best)`` element-wise, with the module's tolerances."""
    return pd.Series(
        np.isclose(values.to_numpy(dtype=float), best.to_numpy(dtype=float), rtol=_RTOL, atol=_ATOL),
        index=values.index,
    )


def _oriented_column(frame: pd.DataFrame, role: str) -> np.ndarray:
    """The ``role`` column oriented by each row's goal (and target), larger is better."""
    out = np.empty(len(frame))
    goals = frame[f"{role}_goal"].astype(str).to_numpy()
    targets = (
        frame[f"{role}_target"].to_numpy(dtype=float)
        if f"{role}_target" in frame
        else np.full(len(frame), np.nan)
    )
    values = frame[role].to_numpy(dtype=float)
    pairs = pd.DataFrame({"goal": goals, "target": targets}).drop_duplicates()
    for goal, target in pairs.itertuples(index=False, name=None):
        rows = (goals == goal) & ((targets == target) | (np.isnan(targets) & np.isnan(target)))
        out[rows] = oriented_scores(values[rows], str(goal), None if np.isnan(target) else float(target))
    return out
