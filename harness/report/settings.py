"""What a report compares: the report settings and how their defaults are chosen.

The settings come from three places, later ones winning:

1. the defaults below (every field may be left unset);
2. a YAML file of the same keys — ``RUN_DIR/report.yaml`` when it exists, or the file given
   to ``privbench report --settings FILE``;
3. the ``privbench report`` flags (``--privacy``, ``--utility``, ``--control``...).

Example ``report.yaml``::

    privacy: anonymeter_linkability        # metric or metric/variant (scatter, paths, tests)
    utility: ml_efficacy/mean:roc_auc
    control: "privatesmote (epsilon=5)"     # Wilcoxon–Holm control (a generator-variant label)
    baseline: real                          # win/draw/lose: "real" (the rows' baseline) or a label
    blocks: [dataset]                       # blocks of the rank tests
    rope: 1.0                               # ROPE half-width in % (win/draw/lose, sign test)
    alpha: 0.05
    colour_by: epsilon                      # generator parameter colouring the Pareto scatter
    tradeoff_utility: ml_efficacy/mean:roc_auc  # utility of the trade-off score (default: the utility axis)
    rank_metrics: [dcr_nndr/dcr_mean, ks_complement]
    references: [identity, real_holdout, my_published_release]   # shown, never ranked or tested

:func:`resolve_settings` fills what is unset from the results: the privacy column (the headline
privacy axis of :mod:`harness.report.power`: an output whose calibration rows separate the raw
data from new individuals, preferring those of :data:`harness.report.defaults.PRIVACY_PREFERENCES`),
the utility column (``ml_efficacy``'s headline — ``mean:<headline>``, else ``best:<headline>``,
else the first classifier's — else the first ranked utility column), the blocks (datasets
when the run has several; else the evaluation units ``(dataset, qi_set, split_seed, fold)``,
whose generation seeds are averaged) and the references
(:data:`harness.report.defaults.DEFAULT_REFERENCES`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from harness.errors import ConfigError
from harness.report.bayes import ROPE
from harness.report.defaults import DEFAULT_REFERENCES, PRIVACY_PREFERENCES
from harness.report.goals import has_direction
from harness.report.power import AxisChoice, choose_privacy_axis
from harness.report.prepare import column_info
from harness.report.ranking import DEFAULT_ALPHA

SETTINGS_FILE = "report.yaml"
REAL_BASELINE = "real"
UNIT_BLOCKS: tuple[str, ...] = ("dataset", "qi_set", "split_seed", "fold")
REPLICATE_BLOCKS: tuple[str, ...] = (*UNIT_BLOCKS, "gen_seed")
"""Blocks of a run with a single evaluation unit and several generator seeds."""
REPLICATE_NOTE = (
    "The run has a single evaluation unit (one dataset, QI set, split and fold), so the generator "
    "seeds are the blocks of the rank tests: they compare the generators over their own randomness on "
    "this one table, not over data; runs with several splits, folds or datasets use those as blocks."
)
# Variants that are transforms of a headline score (never a default axis or rank column).
DERIVED_SUFFIXES: tuple[str, ...] = ("pct_diff", "rope_outcome")


@dataclass(frozen=True)
class ReportSettings:
    """Choices of the comparison tables and figures; None means "choose from the results".

    Attributes
    ----------
    privacy, utility : str, optional
        Metric columns (``metric`` or ``metric/variant``) of the scatter, the optimisation
        paths and the tests against a control, a baseline and the oracle.
    control : str, optional
        Generator-variant label compared with every other one by Wilcoxon–Holm; default the
        variant with the best mean rank on the utility column.
    baseline : str
        ``"real"`` (the metric rows' own ``baseline`` column, e.g. TRTR) or a variant label.
    blocks : tuple of str, optional
        Columns whose combinations are the blocks of the rank-based tests.
    rope : float
        ROPE half-width in percent.
    alpha : float
        Significance level.
    colour_by : str, optional
        Generator parameter colouring the Pareto scatter; default the parameter with the most
        distinct values (the generator when no parameter varies).
    tradeoff_utility : str, optional
        Utility column of the trade-off score (:mod:`harness.report.score`); default the
        utility column.
    rank_metrics : tuple of str, optional
        Columns of the mean-rank table; default the privacy and utility columns and the
        headline column of every other ranked privacy, utility and fidelity metric.
    seed : int
        Seed of the Bayesian sign test's posterior sampling.
    references : tuple of str, optional
        Reference generators (names or variant labels): shown, marked "(reference)", never
        bolded, ranked, tested, on a Pareto front or used to scale a score; default
        :data:`harness.report.defaults.DEFAULT_REFERENCES`.
    """

    privacy: str | None = None
    utility: str | None = None
    control: str | None = None
    baseline: str = REAL_BASELINE
    blocks: tuple[str, ...] | None = None
    rope: float = ROPE
    alpha: float = DEFAULT_ALPHA
    colour_by: str | None = None
    tradeoff_utility: str | None = None
    rank_metrics: tuple[str, ...] | None = None
    seed: int = 0
    references: tuple[str, ...] | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def reference_names(self) -> tuple[str, ...]:
        """The references of the report (the setting, else the defaults)."""
        return DEFAULT_REFERENCES if self.references is None else self.references

    def describe(self) -> list[str]:
        """One ``key: value`` line per setting (for the report's settings section)."""
        out = []
        for f in fields(self):
            if f.name == "notes":
                continue
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = ", ".join(value)
            out.append(f"{f.name}: {'(none)' if value is None or value == '' else value}")
        return out


def settings_from_mapping(data: Mapping[str, Any], *, source: str = "settings") -> ReportSettings:
    """Build settings from a mapping (a parsed ``report.yaml`` or the CLI flags); None values are ignored.

    Raises
    ------
    ConfigError
        For an unknown key or a value of the wrong type.
    """
    known = {f.name for f in fields(ReportSettings)} - {"notes"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(
            f"{source}: unknown report setting(s) {', '.join(unknown)}; expected some of {', '.join(sorted(known))}"
        )
    values: dict[str, Any] = {}
    for key, value in data.items():
        if value is None:
            continue
        if key in ("blocks", "rank_metrics", "references"):
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, Sequence) or not all(isinstance(v, str) for v in items):
                raise ConfigError(f"{source}: `{key}` must be a list of names; got {value!r}")
            values[key] = tuple(v.strip() for v in items if v.strip())
        elif key in ("rope", "alpha"):
            try:
                values[key] = float(value)
            except (TypeError, ValueError):
                raise ConfigError(f"{source}: `{key}` must be a number; got {value!r}") from None
        elif key == "seed":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{source}: `seed` must be an integer; got {value!r}")
            values[key] = value
        else:
            values[key] = str(value)
    settings = ReportSettings(**values)
    if not 0 < settings.alpha < 1:
        raise ConfigError(f"{source}: `alpha` must be in (0, 1); got {settings.alpha}")
    if not (math.isfinite(settings.rope) and settings.rope > 0):
        raise ConfigError(f"{source}: `rope` must be positive; got {settings.rope}")
    return settings


def load_settings(path: Path | None, overrides: Mapping[str, Any] | None = None) -> ReportSettings:
    """Settings from a YAML file (absent file: the defaults) with ``overrides`` on top.

    Parameters
    ----------
    path : Path, optional
        A ``report.yaml``; None or a missing file gives the defaults.
    overrides : mapping, optional
        Keys of :class:`ReportSettings`; None values are ignored.

    Raises
    ------
    ConfigError
        If the file is not a YAML mapping or holds an unknown key or bad value.
    """
    data: dict[str, Any] = {}
    if path is not None and Path(path).is_file():
        try:
            parsed = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({exc})") from None
        if parsed is None:
            parsed = {}
        if not isinstance(parsed, dict):
            raise ConfigError(f"{path}: report settings must be a mapping of keys to values")
        data.update(parsed.get("report", parsed) if set(parsed) == {"report"} else parsed)
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return settings_from_mapping(data, source=str(path) if path else "report settings")


_MEMO: ContextVar[dict[tuple[str, int], Any] | None] = ContextVar("report_settings_memo", default=None)


@contextmanager
def _memo() -> Iterator[None]:
    """Within the block, :func:`_info` and :func:`ok_columns` compute once per frame object.

    :func:`resolve_settings` asks for them a few dozen times on the same (unchanged) frame;
    each costs a pass over every row (a second in all at 10,000 trials).
    """
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def _memoised(name: str, frame: pd.DataFrame, compute: Callable[[pd.DataFrame], Any]) -> Any:
    memo = _MEMO.get()
    if memo is None:
        return compute(frame)
    key = (name, id(frame))
    if key not in memo:
        memo[key] = compute(frame)
    return memo[key]


def _info(frame: pd.DataFrame) -> pd.DataFrame:
    return _memoised("info", frame, column_info)


def resolve_settings(frame: pd.DataFrame, settings: ReportSettings | None = None) -> ReportSettings:
    """Fill the unset settings from a prepared results table (see the module docstring).

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`harness.report.prepare.prepare`.
    settings : ReportSettings, optional

    Returns
    -------
    ReportSettings
        With ``privacy``, ``utility``, ``blocks`` and ``rank_metrics`` set where the results
        allow (``privacy``/``utility`` stay None when the family has no ranked column);
        ``notes`` records settings that named something absent (they are reset to None).
    """
    with _memo():
        return _resolve(frame, settings or ReportSettings())


def _resolve(frame: pd.DataFrame, settings: ReportSettings) -> ReportSettings:
    info = _info(frame)
    available = ok_columns(frame)
    notes: list[str] = []

    def usable(column: str | None, role: str) -> str | None:
        if column is None:
            return None
        if column not in info.index and column in set(info["metric"]):
            own = [c for c in info.index if info.at[c, "metric"] == column and c in available]
            if own:
                column = headline_column(frame, column) or own[0]
        if column not in available:
            notes.append(f"{role} column {column!r} has no ok value in the results; a default is used")
            return None
        return column

    choice = _privacy_axis(frame, usable(settings.privacy, "privacy"))
    privacy = choice.column
    if choice.explicit and choice.unpowered:
        notes.append(choice.reason)
    utility = usable(settings.utility, "utility") or default_utility(frame)
    tradeoff = usable(settings.tradeoff_utility, "trade-off utility") or utility
    blocks = settings.blocks or default_blocks(frame)
    missing = [b for b in blocks if b not in frame.columns]
    if missing:
        notes.append(
            f"block column(s) {', '.join(missing)} are not in the results; the default blocks are used"
        )
        blocks = default_blocks(frame)
    if not settings.blocks and tuple(blocks) == REPLICATE_BLOCKS:
        notes.append(REPLICATE_NOTE)
    ranks = settings.rank_metrics
    if ranks is not None:
        kept = tuple(c for c in (usable(c, "rank") for c in ranks) if c is not None)
        ranks = kept or None
    if ranks is None:
        blind = _blind_columns(choice.table)
        ranks = default_rank_metrics(frame, [c for c in (privacy, utility) if c], skip=blind)
        left = [c for c in blind if c != privacy and c in ranked_columns(frame, "privacy")]
        if left:
            notes.append(
                f"not ranked by default: {', '.join(left)} (their calibration rows do not separate the raw data "
                "from new individuals on any dataset: no power)"
            )
    return replace(
        settings,
        privacy=privacy,
        utility=utility,
        tradeoff_utility=tradeoff,
        blocks=tuple(blocks),
        rank_metrics=tuple(ranks),
        references=settings.reference_names,
        notes=(*settings.notes, *notes),
    )


def privacy_axis(frame: pd.DataFrame, requested: str | None = None) -> AxisChoice:
    """The headline privacy axis of a prepared frame and why (:func:`harness.report.power.choose_privacy_axis`).

    ``requested`` is a column the user set (it wins; a warning says where it has no power).
    """
    with _memo():
        return _privacy_axis(frame, requested)


def _privacy_axis(frame: pd.DataFrame, requested: str | None) -> AxisChoice:
    return choose_privacy_axis(
        frame,
        requested,
        preferences=PRIVACY_PREFERENCES,
        resolve=lambda p: _preference_column(frame, p),
        fallback=default_privacy(frame),
    )


def _preference_column(frame: pd.DataFrame, preference: str) -> str | None:
    if "/" in preference:
        return preference if preference in ranked_columns(frame, "privacy") else None
    if preference in ranked_columns(frame, "privacy"):
        return preference
    return headline_column(frame, preference)


def ok_columns(frame: pd.DataFrame) -> set[str]:
    """Metric columns with at least one ok finite value."""
    return _memoised("ok", frame, _ok_columns)


def _ok_columns(frame: pd.DataFrame) -> set[str]:
    names = frame["column"].to_numpy(dtype=object)
    ok = (frame["status"].to_numpy(dtype=object) == "ok") & np.isfinite(frame["value"].to_numpy(dtype=float))
    return {str(c) for c in pd.unique(names[ok & (names != "")])}


def ranked_columns(frame: pd.DataFrame, family: str | None = None) -> list[str]:
    """Columns with ok values and a direction, not derived (``pct_diff``, ``rope_outcome``), in report order."""
    info = _info(frame)
    available = ok_columns(frame)
    out = []
    for col in info.index:
        if col not in available or (family is not None and info.at[col, "family"] != family):
            continue
        if str(info.at[col, "variant"]).endswith(DERIVED_SUFFIXES):
            continue
        if has_direction(str(info.at[col, "goal"]), float(info.at[col, "target_value"])):
            out.append(str(col))
    return out


def headline_column(frame: pd.DataFrame, metric: str) -> str | None:
    """The headline column of a metric.

    For ``ml_efficacy``-style variants (``<classifier>:<score>``, ``mean:<score>``,
    ``best:<score>``): ``mean:<headline>``, else ``best:<headline>``, else the first
    classifier's ``<classifier>:<headline>``, the headline being the rows' ``details``
    ``headline`` (else the first score). Otherwise the first ranked column of the metric.
    """
    info = _info(frame)
    ranked = [c for c in ranked_columns(frame) if info.at[c, "metric"] == metric]
    if not ranked:
        return None
    variants = {str(info.at[c, "variant"]): c for c in ranked}
    scored = [v for v in variants if ":" in v]
    if scored:
        headline = _details_value(frame, metric, "headline") or scored[0].split(":", 1)[1]
        for prefix in ("mean", "best"):
            if f"{prefix}:{headline}" in variants:
                return variants[f"{prefix}:{headline}"]
        own = [v for v in scored if v.split(":", 1)[1] == headline]
        if own:
            return variants[own[0]]
    return ranked[0]


def default_privacy(frame: pd.DataFrame) -> str | None:
    """Anonymeter linkability risk, else ``dcr_nndr/dcr_mean``, else the first ranked privacy column."""
    ranked = ranked_columns(frame, "privacy")
    for preference in PRIVACY_PREFERENCES:
        if preference in ranked:
            return preference
        own = headline_column(frame, preference) if "/" not in preference else None
        if own:
            return own
    return ranked[0] if ranked else None


def default_utility(frame: pd.DataFrame) -> str | None:
    """``ml_efficacy``'s headline column, else the first ranked utility column."""
    ranked = ranked_columns(frame, "utility")
    headline = headline_column(frame, "ml_efficacy")
    if headline:
        return headline
    return ranked[0] if ranked else None


def default_blocks(frame: pd.DataFrame) -> tuple[str, ...]:
    """The blocks of the rank tests when the settings name none.

    ``("dataset",)`` for a run of several datasets; else the evaluation units
    :data:`UNIT_BLOCKS` (QI set, split seed, fold); where those form a single block and the run
    has several generator seeds, the seeds are blocks too (:data:`REPLICATE_BLOCKS`), so a
    sweep over seeds gets its tests (said in the report: :data:`REPLICATE_NOTE`).
    """
    datasets = set(frame.loc[frame["dataset"] != "", "dataset"]) if "dataset" in frame else set()
    if len(datasets) > 1:
        return ("dataset",)
    present = [c for c in UNIT_BLOCKS if c in frame.columns]
    distinct = frame[present].drop_duplicates()  # fewer rows to convert; the same distinct units
    units = distinct.astype("string").fillna("").drop_duplicates() if present else frame.iloc[:1]
    seeds = frame["gen_seed"].dropna().nunique() if "gen_seed" in frame.columns else 0
    return REPLICATE_BLOCKS if len(units) < 2 and seeds > 1 else UNIT_BLOCKS


def default_rank_metrics(
    frame: pd.DataFrame, chosen: Sequence[str], skip: Sequence[str] = ()
) -> tuple[str, ...]:
    """The chosen columns, then the headline column of every other ranked privacy/utility/fidelity metric.

    Columns in ``skip`` (privacy outputs without power on the run's tables) are left out unless chosen.
    """
    info = _info(frame)
    out = list(dict.fromkeys(chosen))
    seen = {str(info.at[c, "metric"]) for c in out}
    for col in ranked_columns(frame):
        metric = str(info.at[col, "metric"])
        if info.at[col, "family"] not in ("privacy", "utility", "fidelity") or metric in seen:
            continue
        head = headline_column(frame, metric)
        if head and head not in skip:
            out.append(head)
        seen.add(metric)
    return tuple(out)


def _blind_columns(table: pd.DataFrame) -> list[str]:
    """Privacy outputs whose calibration rows separate the references on no dataset."""
    if table.empty:
        return []
    powered = table.groupby("column", sort=False)["separates"].any()
    return [str(c) for c, ok in powered.items() if not ok]


def split_column(column: str) -> tuple[str, str]:
    """``metric/variant`` → ``(metric, variant)``; ``metric`` → ``(metric, "")``."""
    metric, _, variant = column.partition("/")
    return metric, variant


def _details_value(frame: pd.DataFrame, metric: str, key: str) -> str | None:
    details = frame.loc[(frame["metric"] == metric) & (frame["status"] == "ok"), "details"]
    for text in details.dropna().head(20):
        try:
            parsed = json.loads(str(text))
        except ValueError:
            continue
        if isinstance(parsed, dict) and parsed.get(key):
            return str(parsed[key])
    return None
