"""Turn the numeric report tables into display tables (text cells, bold best).

Numbers get three significant digits; a standard deviation is shown with the decimals of
its mean so the two line up. A cell whose n differs from the most common n of the table
carries ``(n=k)``; a cell with no ok value shows ``–``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from harness.report.goals import direction_text
from harness.report.render import DisplayTable
from harness.report.tables import TRIALS, summary_columns
from harness.schema import STATUSES

MISSING = "–"
DIGITS = 3
_HEADERS: dict[str, str] = {
    "experiment": "experiment",
    "dataset": "dataset",
    "qi_set": "QI set",
    "label": "generator",
}


def _decimals(x: float, digits: int) -> int | None:
    """Decimals giving ``digits`` significant digits; None when scientific notation reads better."""
    if x == 0:
        return 0
    magnitude = math.floor(math.log10(abs(x)))
    if magnitude >= 5 or magnitude < -3:
        return None
    return max(0, min(6, digits - 1 - magnitude))


def format_number(x: object, digits: int = DIGITS) -> str:
    """Format one number (``–`` for NaN/None).

    Examples
    --------
    >>> format_number(0.81234)
    '0.812'
    >>> format_number(1234.5)
    '1234'
    """
    if x is None or x is pd.NA:
        return MISSING
    value = float(x)  # type: ignore[arg-type]
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    decimals = _decimals(value, digits)
    if decimals is None:
        return f"{value:.{digits - 1}e}"
    return f"{value:.{decimals}f}"


def column_decimals(values: Iterable[float], digits: int = DIGITS) -> int | None:
    """Decimals shared by a column of numbers.

    Enough for ``digits`` significant digits of the column's median magnitude and one fewer
    for its smallest value. Returns None (format each cell on its own) when the column spans
    more than four orders of magnitude or needs scientific notation.
    """
    magnitudes = sorted(abs(v) for v in values if math.isfinite(v) and v != 0)
    if not magnitudes:
        return 0
    smallest, largest = magnitudes[0], magnitudes[-1]
    if largest / smallest > 1e4:
        return None
    typical = _decimals(magnitudes[len(magnitudes) // 2], digits)
    small = _decimals(smallest, max(digits - 1, 1))
    if typical is None or small is None:
        return None
    return max(typical, small)


def format_mean_std(mean: float, std: float, digits: int = DIGITS, *, decimals: int | None = None) -> str:
    """``mean ± std`` with matching decimals; just the mean when std is NaN.

    Parameters
    ----------
    mean, std : float
    digits : int
        Significant digits of the mean when ``decimals`` is not given.
    decimals : int, optional
        Fixed decimals (e.g. :func:`column_decimals` of the column).
    """
    if math.isnan(mean):
        return MISSING
    if decimals is None:
        decimals = _decimals(mean if mean != 0 or math.isnan(std) else std, digits)
    if decimals is None or math.isinf(mean) or (not math.isnan(std) and math.isinf(std)):
        text = format_number(mean, digits)
        return text if math.isnan(std) else f"{text} ± {format_number(std, digits)}"
    text = f"{mean:.{decimals}f}"
    return text if math.isnan(std) else f"{text} ± {std:.{decimals}f}"


def _key_frame(index: pd.Index) -> pd.DataFrame:
    keys = index.to_frame(index=False).astype(str)
    keys = keys.drop(columns=[c for c in ("generator",) if c in keys.columns])
    return keys.rename(columns=_HEADERS)


def _group_by(keys: pd.DataFrame) -> tuple[str, ...]:
    return tuple(c for c in keys.columns if c != "generator")


def failed_text(counts: pd.Series) -> str:
    """``"1 timeout, 2 error"`` from trial counts by status (``""`` when nothing failed)."""
    parts = [f"{int(counts[s])} {s}" for s in STATUSES if s != "ok" and s in counts and int(counts[s]) > 0]
    return ", ".join(parts)


def summary_display(summary: pd.DataFrame, info: pd.DataFrame | None = None) -> DisplayTable:
    """Display table of a :func:`harness.report.tables.summary_table` result.

    Parameters
    ----------
    summary : DataFrame
        The summary table.
    info : DataFrame, optional
        Column goals (``tables.summary_goals``): headers get ``↑``, ``↓`` or ``→target``.

    Returns
    -------
    DisplayTable
        Columns: the row keys (the generator label under "generator"), one per metric
        column (``mean ± std``), ``trials`` and ``failed``.
    """
    keys = _key_frame(summary.index)
    columns = summary_columns(summary)
    common_n = usual_n(summary)
    text = keys.copy()
    bold = pd.DataFrame(False, index=keys.index, columns=keys.columns)
    numeric = set()
    for col in columns:
        header = col
        if info is not None and col in info.index:
            arrow = direction_text(str(info.at[col, "goal"]), float(info.at[col, "target_value"]))
            header = f"{col} {arrow}" if arrow else col
        cells = []
        decimals = column_decimals(summary[(col, "mean")].astype(float))
        for mean, std, n in zip(summary[(col, "mean")], summary[(col, "std")], summary[(col, "n")]):
            cell = format_mean_std(float(mean), float(std), decimals=decimals) if int(n) > 0 else MISSING
            if 0 < int(n) != common_n:
                cell += f" (n={int(n)})"
            cells.append(cell)
        text[header] = cells
        bold[header] = summary[(col, "best")].to_numpy(dtype=bool)
        numeric.add(header)
    trials = summary[TRIALS]
    text["trials"] = trials["total"].astype(int).astype(str).to_numpy()
    text["failed"] = [failed_text(row) for _, row in trials.iterrows()]
    bold["trials"] = False
    bold["failed"] = False
    numeric.add("trials")
    return DisplayTable(text=text, bold=bold, numeric=frozenset(numeric), group_by=_group_by(keys))


def usual_n(summary: pd.DataFrame) -> int:
    """The most common positive n among the cells of a summary table (0 when there is none)."""
    n_values = [int(v) for c in summary_columns(summary) for v in summary[(c, "n")] if int(v) > 0]
    return max(set(n_values), key=n_values.count) if n_values else 0


def failures_display(failures: pd.DataFrame) -> DisplayTable:
    """Display table of :func:`harness.report.tables.failures_table`."""
    text = failures.drop(columns=[c for c in ("generator",) if c in failures.columns]).copy()
    text = text.rename(columns={**_HEADERS, "generator_params": "params"})
    for col in ("split_seed", "fold", "gen_seed"):
        if col in text:
            text[col] = [("" if pd.isna(v) else str(int(v))) for v in text[col]]
    text = text.astype(str).reset_index(drop=True)
    keys = [c for c in ("experiment", "dataset", "QI set") if c in text.columns]
    return DisplayTable(
        text=text, numeric=frozenset({"split_seed", "fold", "gen_seed"}), group_by=tuple(keys)
    )


def cost_display(costs: pd.DataFrame) -> DisplayTable:
    """Display table of :func:`harness.report.tables.cost_table`."""
    keys = _key_frame(costs.index)
    text = keys.copy()
    text["trials"] = costs["trials"].astype(int).astype(str).to_numpy()
    text["ok"] = costs["ok"].astype(int).astype(str).to_numpy()
    headers = {"fit_s": "fit (s)", "sample_s": "sample (s)", "peak_rss_mb": "peak RSS (MB)"}
    for col, header in headers.items():
        decimals = column_decimals(costs[f"{col}_mean"].astype(float))
        text[header] = [
            format_mean_std(float(m), float(s), decimals=decimals)
            for m, s in zip(costs[f"{col}_mean"], costs[f"{col}_std"])
        ]
    numeric = frozenset({"trials", "ok", *headers.values()})
    return DisplayTable(text=text, numeric=numeric, group_by=_group_by(keys))


def status_display(totals: pd.Series) -> DisplayTable:
    """Display table of :func:`harness.report.tables.status_totals` (one row: trials by status)."""
    text = pd.DataFrame([[str(int(v)) for v in totals]], columns=[str(c) for c in totals.index])
    return DisplayTable(text=text, numeric=frozenset(text.columns))


def throughput_display(throughput: pd.DataFrame) -> DisplayTable:
    """Display table of :func:`harness.report.tables.throughput_table`."""
    keys = throughput.index.to_frame(index=False).astype(str).rename(columns=_HEADERS)
    text = keys.copy()
    text["variants"] = throughput["variants"].astype(int).astype(str).to_numpy()
    text["ok trials"] = throughput["ok"].astype(int).astype(str).to_numpy()
    text["minutes"] = [format_number(v) for v in throughput["minutes"]]
    text["variants / min"] = [format_number(v) for v in throughput["variants_per_minute"]]
    numeric = frozenset({"variants", "ok trials", "minutes", "variants / min"})
    return DisplayTable(
        text=text, numeric=numeric, group_by=tuple(c for c in keys.columns if c != "generator")
    )
