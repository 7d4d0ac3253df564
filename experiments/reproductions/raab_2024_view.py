"""Selections of an R-RAAB run: Raab's measures per dataset, setting, release and split part.

``raab_disclosure`` writes one row per output (``repU`` and ``DiSCO:<target>``) with every
other measure of ``spec/metrics.md`` P10 in the row's details. The helpers here turn the
rows of a :class:`~harness.reproduction.ReproductionRun` into tidy frames (one row per trial
and target, one column per measure) that the checks and tables of
:mod:`experiments.reproductions.raab_2024` read. Pure functions of the results table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from experiments.reproductions import raab_2024_paper as paper
from harness.reproduction import Check, ReproductionRun
from harness.reproduction import uncertainty as unc

ADULT = "adult_uci"
SD2011 = "sd2011_raab"
IDENTITY = "identity"
CART = "cart_synthpop"
CONTROL_METRIC = "raab_control"
"""The SD2011 instance whose GT is the control split; it only runs (status ok) in holdout trials."""

MEASURES: tuple[str, ...] = (
    "Dorig", "iS", "DiS", "DiSCO", "DiSDiO", "DCAP", "CAPd", "TCAP", "baseCAPd",
    "max_denom", "mean_denom", "mean_denom_cells", "n_target_levels",
    "one_way_level", "one_way_share", "one_way_flag",
)  # fmt: skip
IDENTITY_MEASURES: tuple[str, ...] = (
    "UiO",
    "UiS",
    "UiOiS",
    "repU",
    "n_levels_gt",
    "n_levels_sd",
    "n_levels_all",
)


def measures(run: ReproductionRun, dataset: str, generator: str | None = None) -> pd.DataFrame:
    """One row per (trial, metric instance, target) of ``dataset`` with every measure as a column.

    Columns: ``metric`` (the instance, e.g. ``raab_c3``), ``target``, ``generator``,
    ``gen_seed``, ``trial_key``, ``part`` (``all`` = the whole table is the GT, ``train`` /
    ``control`` = holdout trials' training or control GT), the attribute measures
    (:data:`MEASURES`) and the trial's identity measures (:data:`IDENTITY_MEASURES`, from
    the instance's ``repU`` row).
    """
    rows = run.rows(dataset=dataset, generator=generator)
    rows = rows[rows["metric"].str.startswith("raab")]
    if rows.empty:
        return pd.DataFrame(columns=["metric", "target", "generator", "gen_seed", "trial_key", "part"])
    holdout = set(rows.loc[rows["metric"] == CONTROL_METRIC, "trial_key"])
    identity: dict[tuple[str, str], dict[str, Any]] = {}
    records = []
    for row in rows.itertuples(index=False):
        details = json.loads(row.details) if isinstance(row.details, str) and row.details else {}
        if row.variant == "repU":
            identity[(row.trial_key, row.metric)] = {k: details.get(k) for k in IDENTITY_MEASURES}
            continue
        if not str(row.variant).startswith("DiSCO:"):
            continue
        if row.metric == CONTROL_METRIC:
            part = "control"
        else:
            part = "train" if row.trial_key in holdout else "all"
        record = {
            "metric": row.metric,
            "target": str(row.variant).split(":", 1)[1],
            "generator": row.generator,
            "gen_seed": row.gen_seed,
            "trial_key": row.trial_key,
            "part": part,
            "n_train": row.n_train,
        }
        record.update({k: details.get(k) for k in MEASURES})
        records.append(record)
    frame = pd.DataFrame(records)
    ident = pd.DataFrame(
        [{"trial_key": t, "metric": m, **v} for (t, m), v in identity.items()],
        columns=["trial_key", "metric", *IDENTITY_MEASURES],
    )
    return frame.merge(ident, on=["trial_key", "metric"], how="left")


def mean_of(frame: pd.DataFrame, column: str, **where: Any) -> float:
    """Mean of ``column`` over the rows matching ``where`` (NaN when none matches)."""
    if column not in frame or any(key not in frame for key in where):
        return math.nan
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        mask &= frame[key] == value
    values = pd.to_numeric(frame.loc[mask, column], errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


def values_of(frame: pd.DataFrame, column: str, **where: Any) -> list[float]:
    """The ``column`` values (in gen_seed order) of the rows matching ``where``."""
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        mask &= frame[key] == value
    selected = frame.loc[mask].sort_values("gen_seed") if "gen_seed" in frame else frame.loc[mask]
    return [float(v) for v in pd.to_numeric(selected[column], errors="coerce")] if column in frame else []


def series(frame: pd.DataFrame, column: str, **where: Any) -> pd.Series:
    """``column`` of the rows matching ``where`` as a float Series indexed by ``gen_seed``.

    The syntheses (generator seeds) are the replicates of an R-RAAB run: the Series is what
    the uncertainty helpers resample, paired by seed where two Series share their seeds.
    """
    if column not in frame or any(key not in frame for key in where):
        return pd.Series(dtype=float)
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        mask &= frame[key] == value
    selected = frame.loc[mask]
    values = pd.to_numeric(selected[column], errors="coerce").astype(float)
    out = pd.Series(values.to_numpy(), index=selected["gen_seed"].astype(int).to_numpy(), dtype=float)
    return out.groupby(level=0).mean().dropna().sort_index()


def seed_record(samples: Mapping[str, pd.Series], what: str) -> dict[str, Any]:
    """Uncertainty record: a bootstrap interval of the mean over the syntheses for each labelled Series.

    ``samples`` maps an interval's name (a target, a difference) to its per-seed values; the
    record has no intervals (the verdict rule then calls the claim inconclusive) when any of
    them has fewer than two syntheses.
    """
    entries = [unc.bootstrap_mean(values, name) for name, values in samples.items()]
    sizes = sorted({len(values.dropna()) for values in samples.values()})
    method = (
        f"bootstrap interval (95 %) of the mean over the syntheses (generator seeds, "
        f"n = {', '.join(map(str, sizes)) or '0'}) of {what}"
    )
    record = unc.record(method, [e for e in entries if e is not None], n=min(sizes) if sizes else 0)
    if not entries or any(e is None for e in entries):
        record["intervals"] = []
        record["note"] = "fewer than two syntheses: no noise estimate"
    return record


def honest_order(check: Check, digits: int = 2) -> Check:
    """``check`` (from :func:`~harness.reproduction.ordered`) with the true sign between adjacent values.

    ``ordered`` joins the values with the claimed ``<`` whatever their order; this shows ``>`` or
    ``=`` where that is what the numbers are, so the observed text never states a false inequality.
    """
    values = check.value if isinstance(check.value, Mapping) else {}
    items = [(str(k), v) for k, v in values.items()]
    if len(items) < 2 or any(v is None or not math.isfinite(float(v)) for _, v in items):
        return check
    text = f"{items[0][0]} {float(items[0][1]):.{digits}f}"
    for (_, a), (label, b) in zip(items, items[1:]):
        sign = " < " if float(a) < float(b) else " > " if float(a) > float(b) else " = "
        text += f"{sign}{label} {float(b):.{digits}f}"
    return replace(check, observed=text)


def seeds(frame: pd.DataFrame, **where: Any) -> list[int]:
    """Generator seeds of the rows matching ``where``."""
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        mask &= frame[key] == value
    return sorted({int(s) for s in frame.loc[mask, "gen_seed"].dropna()})


def table3_values(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Our Table 3: per target, DiSCO/DCAP All, Train, Ctrl and R (means over the syntheses)."""
    out: dict[str, dict[str, float]] = {}
    for target in paper.SD_TARGETS:
        row: dict[str, float] = {}
        for measure in ("DiSCO", "DCAP"):
            row[f"{measure} All"] = mean_of(frame, measure, part="all", metric="raab", target=target)
            row[f"{measure} Train"] = mean_of(frame, measure, part="train", metric="raab", target=target)
            row[f"{measure} Ctrl"] = mean_of(
                frame, measure, part="control", metric=CONTROL_METRIC, target=target
            )
            tr, ct = row[f"{measure} Train"], row[f"{measure} Ctrl"]
            row[f"{measure} R"] = (
                paper.specific_risk(tr, ct) if math.isfinite(tr) and math.isfinite(ct) else math.nan
            )
        out[target] = row
    return out


__all__ = [
    "ADULT",
    "CART",
    "honest_order",
    "CONTROL_METRIC",
    "IDENTITY",
    "IDENTITY_MEASURES",
    "MEASURES",
    "SD2011",
    "mean_of",
    "measures",
    "seed_record",
    "seeds",
    "series",
    "table3_values",
    "values_of",
]
