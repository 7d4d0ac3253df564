"""What a paper's check functions see: the collected results of a reproduction run.

:class:`ReproductionRun` wraps the long results table (one row per trial, metric and
variant) with the selections the checks need — rows of one metric, generator or parameter
value, their mean, their details — and writes the paper's regenerated tables and figures
into the run's ``reproduction/`` folder. Like the report, it is a pure function of the
results table: nothing here touches generator or metric objects.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from harness.reproduction.adequacy import Gate
from harness.reproduction.plan import ReproductionPlan
from harness.storage import atomic_write_bytes

TABLES = "tables"
FIGURES = "figures"


@dataclass
class ReproductionRun:
    """A reproduction run's results and where its tables and figures go.

    Attributes
    ----------
    plan : ReproductionPlan
        The experiment's reproduction block for the run's profile.
    run_dir : Path
        ``results/<experiment>/<timestamp>``.
    results : DataFrame
        The collected rows (schema of :mod:`harness.schema`); empty for closed-form reproductions.
    output_dir : Path, optional
        Where checks.json, tables/ and figures/ go instead of ``run_dir/reproduction`` (the report
        evaluates a stopped persisted run there, leaving the committed run directory untouched).
    gates : list of Gate
        The adequacy gates of the check module's ``GATES``, evaluated before its checks.
    """

    plan: ReproductionPlan
    run_dir: Path
    results: pd.DataFrame
    output_dir: Path | None = None
    gates: list[Gate] = field(default_factory=list)
    _params: pd.DataFrame | None = field(default=None, repr=False)

    def gate(self, key: str) -> Gate | None:
        """The first adequacy gate of ``key`` evaluated for this run (None when there is none)."""
        return next((g for g in self.gates if g.key == key), None)

    def gates_passed(self, *keys: str) -> bool:
        """Whether every gate of every key in ``keys`` passed (a key without a gate counts as passed)."""
        return all(g.passed for g in self.gates if g.key in keys)

    @property
    def profile(self) -> str:
        """The profile the run used (``quick`` numbers are labelled as such)."""
        return self.plan.profile

    @property
    def quick(self) -> bool:
        """Whether this is the quick profile."""
        return self.plan.profile == "quick"

    @property
    def out_dir(self) -> Path:
        """``run_dir/reproduction`` (or ``output_dir``): checks.json, tables/ and figures/."""
        return Path(self.output_dir) if self.output_dir is not None else Path(self.run_dir) / "reproduction"

    # ------------------------------------------------------------------ selections
    def params(self) -> pd.DataFrame:
        """Generator parameters of every row, one column per parameter (parsed once)."""
        if self._params is None:
            parsed = [
                json.loads(t) if isinstance(t, str) and t else {} for t in self.results["generator_params"]
            ]
            self._params = pd.DataFrame(parsed, index=self.results.index)
        return self._params

    def rows(
        self,
        metric: str | None = None,
        variant: str | None = None,
        *,
        generator: str | Iterable[str] | None = None,
        dataset: str | None = None,
        status: str | None = "ok",
        params: Mapping[str, Any] | None = None,
        **columns: Any,
    ) -> pd.DataFrame:
        """Rows matching every given criterion, with the generator parameters as ``param.<name>`` columns.

        Parameters
        ----------
        metric, variant, dataset : str, optional
            Exact matches on those columns.
        generator : str or iterable of str, optional
            One generator name or several.
        status : str or None
            Row status (default ``ok``; None = any).
        params : mapping, optional
            Generator parameter values (numbers compare with a relative tolerance of 1e-9).
        **columns
            Exact matches on further result columns (``qi_set``, ``gen_seed``, ...).
        """
        frame = self.results
        mask = pd.Series(True, index=frame.index)
        for column, wanted in (
            ("metric", metric),
            ("variant", variant),
            ("dataset", dataset),
            ("status", status),
        ):
            if wanted is not None:
                mask &= frame[column] == wanted
        if generator is not None:
            names = [generator] if isinstance(generator, str) else list(generator)
            mask &= frame["generator"].isin(names)
        for column, wanted in columns.items():
            mask &= frame[column] == wanted
        params_frame = self.params()
        for name, wanted in (params or {}).items():
            if name not in params_frame:
                mask &= False
                continue
            mask &= params_frame[name].map(lambda v, w=wanted: _same(v, w))
        out = frame[mask.fillna(False).astype(bool)].copy()
        for name in params_frame.columns:
            out[f"param.{name}"] = params_frame.loc[out.index, name]
        return out

    def values(self, metric: str, variant: str | None = None, **criteria: Any) -> pd.Series:
        """The ``value`` column of :meth:`rows` (float)."""
        return self.rows(metric, variant, **criteria)["value"].astype(float)

    def mean(self, metric: str, variant: str | None = None, **criteria: Any) -> float:
        """Mean of :meth:`values` (NaN when no row matches)."""
        values = self.values(metric, variant, **criteria).dropna()
        return float(values.mean()) if len(values) else math.nan

    def median(self, metric: str, variant: str | None = None, **criteria: Any) -> float:
        """Median of :meth:`values` (NaN when no row matches)."""
        values = self.values(metric, variant, **criteria).dropna()
        return float(values.median()) if len(values) else math.nan

    def details(self, metric: str, variant: str | None = None, **criteria: Any) -> list[dict[str, Any]]:
        """Parsed ``details`` JSON of the matching rows."""
        return [
            json.loads(d) if isinstance(d, str) and d else {}
            for d in self.rows(metric, variant, **criteria)["details"]
        ]

    def statuses(self) -> dict[str, int]:
        """Row counts per status over the whole run."""
        return {str(k): int(v) for k, v in self.results["status"].value_counts().items()}

    # ------------------------------------------------------------------ outputs
    def write_table(self, stem: str, frame: pd.DataFrame, *, caption: str = "", digits: int = 3) -> str:
        """Write ``frame`` as ``tables/<stem>.md`` and ``.csv``; return the Markdown path (relative)."""
        folder = self.out_dir / TABLES
        shown = frame.copy()
        for column in shown.columns:
            if pd.api.types.is_float_dtype(shown[column]):
                shown[column] = shown[column].map(lambda v: "" if pd.isna(v) else f"{v:.{digits}f}")
        header = f"{caption}\n\n" if caption else ""
        markdown = header + _markdown(shown)
        atomic_write_bytes(folder / f"{stem}.md", markdown.encode())
        atomic_write_bytes(folder / f"{stem}.csv", frame.to_csv(index=False, lineterminator="\n").encode())
        return f"{TABLES}/{stem}.md"

    def save_figure(self, fig: Figure, stem: str) -> str:
        """Save ``fig`` as ``figures/<stem>.png`` (and ``.pdf``); return the PNG path (relative)."""
        from harness.report.style import save_figure

        save_figure(fig, self.out_dir / FIGURES, stem)
        return f"{FIGURES}/{stem}.png"


def _markdown(frame: pd.DataFrame) -> str:
    from harness.report.render import DisplayTable, to_markdown

    text = frame.astype(object).where(frame.notna(), "").astype(str)
    text.columns = [str(c) for c in text.columns]
    numeric = frozenset(str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]))
    return to_markdown(DisplayTable(text.reset_index(drop=True), numeric=numeric))


def _same(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        try:
            return math.isclose(float(value), float(wanted), rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            return False
    return bool(value == wanted)


__all__ = ["FIGURES", "TABLES", "ReproductionRun"]
