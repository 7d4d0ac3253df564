"""The report's privacy–utility trade-off score, on a fixed scale per table.

The score of a release does not depend on which other methods happen to be in the run: both
parts are placed on scales fixed by the table itself. Per evaluation unit (dataset, QI set,
split, fold, generation seed):

* privacy part P = 1 − L clipped to [0, 1], L the leakage index of the headline privacy output
  (:mod:`harness.report.references`): 0 = rated like the raw data, 1 = like new individuals
  (a release beyond new individuals is distorted, not more private: still 1);
* utility part U = (u − u_trivial) / (u_real − u_trivial) clipped to [0, 1]: u the release's
  utility, u_real the same score of a model trained on the real training rows (the row's
  ``baseline``, TRTR), u_trivial a constant predictor's score
  (:data:`harness.report.defaults.TRIVIAL_SCORES`, e.g. 0.5 for ROC AUC, or the row's
  ``details.trivial_score``; 0 when neither is known);
* score = 2·P·U / (P + U), the harmonic mean (0 when P + U = 0).

Every part stays in [0, 1]. Where the headline privacy output does not separate the raw data
from new individuals on a dataset, its P is not defined there (shown as "no power") and neither
is the score. The paper score U6 (min–max over the compared methods) stays in
:mod:`harness.report.tradeoff` for the reproductions that use it.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from harness.report.comparison_base import ComparisonTable, TableSkipped
from harness.report.defaults import TRIVIAL_DETAIL_KEY, TRIVIAL_SCORES
from harness.report.formatting import MISSING, format_mean_std
from harness.report.power import AxisChoice
from harness.report.references import LEAKAGE_COLUMN, REFERENCE_COLUMN
from harness.report.render import DisplayTable
from harness.report.settings import ReportSettings, split_column
from harness.report.tradeoff import UNIT_KEYS

NO_POWER = "no power"
FORMULA = (
    "score = 2·P·U/(P + U) per evaluation unit, P = 1 − L (L: leakage index of {privacy}, clipped to [0, 1]: "
    "0 = the raw data, 1 = new individuals), U = (u − {trivial:g})/(u_real − {trivial:g}) clipped to [0, 1] "
    "(u: {utility}; u_real: the score of a model trained on the real training rows; {trivial:g}: {why}). "
    "Every part lies in [0, 1] and none depends on the other methods of the run."
)


def trivial_score(rows: pd.DataFrame, column: str) -> tuple[float, str]:
    """The constant predictor's score of a utility column and where it comes from."""
    details = rows["details"].dropna().astype(str).head(50) if "details" in rows else pd.Series(dtype=str)
    found = []
    for text in details:
        try:
            parsed = json.loads(text)
        except ValueError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get(TRIVIAL_DETAIL_KEY), int | float):
            found.append(float(parsed[TRIVIAL_DETAIL_KEY]))
    if found:
        return float(np.median(found)), "a constant predictor's score, as the metric reports it"
    name = split_column(column)[1].rsplit(":", 1)[-1] or split_column(column)[0]
    if name in TRIVIAL_SCORES:
        return TRIVIAL_SCORES[name], f"a constant predictor's {name}"
    return 0.0, f"no constant-predictor {name} is known, so the scale starts at 0"


def fixed_scores(frame: pd.DataFrame, *, privacy: str, utility: str) -> pd.DataFrame:
    """Score parts of every (unit, variant) with both a leakage index and a utility value.

    Parameters
    ----------
    frame : DataFrame
        A prepared frame with ``leakage`` (:func:`harness.report.references.with_floor`);
        references are scored like every release.
    privacy, utility : str
        The headline privacy column and the (maximised) utility column.

    Returns
    -------
    DataFrame
        Unit keys, ``label``, ``reference``, ``leakage``, ``privacy_part``, ``utility``,
        ``utility_real``, ``utility_part``, ``score`` (NaN where a part is undefined).
    """
    keys = [k for k in UNIT_KEYS if k in frame.columns]
    ok = frame[(frame["status"] == "ok") & np.isfinite(frame["value"].astype(float))]
    util = ok[ok["column"] == utility]
    priv = ok[ok["column"] == privacy]
    if util.empty or priv.empty or LEAKAGE_COLUMN not in frame.columns:
        return pd.DataFrame()
    trivial, _ = trivial_score(util, utility)
    group = [*keys, "label"]
    u = util.groupby(group, dropna=False, sort=False).agg(
        utility=("value", "mean"), utility_real=("baseline", "mean")
    )
    p = priv.groupby(group, dropna=False, sort=False)[LEAKAGE_COLUMN].mean().rename("leakage")
    table = u.join(p, how="inner").reset_index()
    reference = frame.drop_duplicates("label").set_index("label")
    table["reference"] = (
        table["label"].map(reference[REFERENCE_COLUMN]).fillna(False).astype(bool)
        if REFERENCE_COLUMN in reference
        else False
    )
    table["privacy_part"] = 1.0 - np.clip(table["leakage"].to_numpy(dtype=float), 0.0, 1.0)
    span = table["utility_real"].to_numpy(dtype=float) - trivial
    with np.errstate(divide="ignore", invalid="ignore"):
        raw_u = np.where(span > 0, (table["utility"].to_numpy(dtype=float) - trivial) / span, np.nan)
    table["utility_part"] = np.clip(raw_u, 0.0, 1.0)
    table["score"] = harmonic_mean(table["privacy_part"].to_numpy(), table["utility_part"].to_numpy())
    return table


def harmonic_mean(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """2·P·U/(P + U) element-wise; 0 where P + U = 0; NaN where either is NaN."""
    p, u = np.asarray(p, dtype=float), np.asarray(u, dtype=float)
    total = p + u
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(total == 0, 0.0, 2.0 * p * u / total)
    return np.where(np.isnan(p) | np.isnan(u), np.nan, out)


def score_summary(scores: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sd of the score and its parts per dataset and variant (references first, then by score)."""
    summary = (
        scores.groupby(["dataset", "label"], sort=False)
        .agg(
            reference=("reference", "first"),
            score_mean=("score", "mean"),
            score_sd=("score", "std"),
            privacy_mean=("privacy_part", "mean"),
            privacy_sd=("privacy_part", "std"),
            utility_mean=("utility_part", "mean"),
            utility_sd=("utility_part", "std"),
            n_units=("score", "size"),
        )
        .reset_index()
    )
    summary["_order"] = np.where(summary["reference"], 0, 1)
    summary = summary.sort_values(
        ["dataset", "_order", "score_mean", "label"], ascending=[True, True, False, True], kind="stable"
    )
    return summary.drop(columns="_order").reset_index(drop=True)


def score_table(frame: pd.DataFrame, settings: ReportSettings, axis: AxisChoice) -> ComparisonTable:
    """The trade-off score table (module docstring): mean ± sd per dataset and variant.

    Raises
    ------
    TableSkipped
        Without a privacy axis with calibration rows or a utility column.
    """
    utility = settings.tradeoff_utility or settings.utility
    privacy = settings.privacy
    if utility is None or privacy is None:
        raise TableSkipped("the results need both a privacy and a utility metric with ok values")
    scores = fixed_scores(frame, privacy=privacy, utility=utility)
    if scores.empty or scores["leakage"].notna().sum() == 0:
        raise TableSkipped(
            f"{privacy} has no leakage index (calibration rows of the raw data and new individuals), so the "
            "privacy part has no fixed scale"
        )
    blind = set(axis.unpowered)
    blind_rows = scores["dataset"].isin(blind).to_numpy()
    scores.loc[blind_rows, ["privacy_part", "score"]] = math.nan
    numbers = score_summary(scores)
    trivial, why = trivial_score(frame[frame["column"] == utility], utility)
    display = _display(numbers, blind)
    note = FORMULA.format(privacy=privacy, utility=utility, trivial=trivial, why=why)
    note += " Mean ± sd over units; bold: the best method of a dataset (references are shown, never bold)."
    if blind:
        note += (
            f" {NO_POWER}: {privacy} does not separate the raw data from new individuals on {', '.join(sorted(blind))}, "
            "so neither the privacy part nor the score is defined there."
        )
    caption = "Privacy–utility trade-off score (fixed scale)"
    return ComparisonTable("tradeoff", caption, numbers, display, note)


def _display(numbers: pd.DataFrame, blind: set[str]) -> DisplayTable:
    def cell(mean: float, sd: float, dataset: str, privacy: bool) -> str:
        if privacy and dataset in blind:
            return NO_POWER
        return MISSING if math.isnan(mean) else format_mean_std(mean, sd, decimals=2)

    text = pd.DataFrame(
        {
            "dataset": numbers["dataset"].astype(str),
            "generator": numbers["label"].astype(str),
            "score ↑": [
                cell(m, s, d, True)
                for m, s, d in zip(numbers["score_mean"], numbers["score_sd"], numbers["dataset"])
            ],
            "privacy part P": [
                cell(m, s, d, True)
                for m, s, d in zip(numbers["privacy_mean"], numbers["privacy_sd"], numbers["dataset"])
            ],
            "utility part U": [
                cell(m, s, d, False)
                for m, s, d in zip(numbers["utility_mean"], numbers["utility_sd"], numbers["dataset"])
            ],
            "units": numbers["n_units"].astype(int).astype(str),
        }
    )
    bold = pd.DataFrame(False, index=text.index, columns=text.columns)
    methods = numbers[~numbers["reference"].astype(bool)]
    for _, group in methods.groupby("dataset", sort=False):
        finite = group["score_mean"].dropna()
        if len(finite) > 1:
            bold.loc[finite.index, "score ↑"] = np.isclose(finite, finite.max())
    return DisplayTable(
        text=text,
        bold=bold,
        numeric=frozenset({"score ↑", "privacy part P", "utility part U", "units"}),
        group_by=("dataset",),
    )


__all__ = [
    "FORMULA",
    "NO_POWER",
    "fixed_scores",
    "harmonic_mean",
    "score_summary",
    "score_table",
    "trivial_score",
]
