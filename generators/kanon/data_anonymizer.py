"""``data_anonymizer``: rule-based k-anonymisation with column profiling (``spec/generators.md`` §6.1).

The DSTA *Data Anonymizer* (``003_…``, "Project Data Anonymizer"): infer each column's
properties (:mod:`generators.kanon.profiling`), recommend a technique per column, apply it,
compute the equivalence classes on the QI set and suppress the classes smaller than
``k_target``; with ``auto``, coarsen and repeat until the suppressed share is at most
``max_suppression``.

Recommended techniques (step 2), by sensitivity and data type:

==========================  =============================================================
direct identifier            ``drop``: released all-missing (the released table keeps the
                             spec's columns; the column is listed under ``dropped``)
indirect, numerical          ``binning``: ``n_bins`` bins (``binning``: equal-width or
                             quantile), labels ``[a, b)``
indirect, datetime           ``truncate``: to ``date_granularity`` (``YYYY`` / ``YYYY-MM``)
indirect, categorical        ``hierarchy``: level 1 of the dataset's hierarchy when it has
                             one with a level between the values and ``*`` (``categorical:
                             auto``); else ``rare``: values seen fewer than
                             ``rare_threshold`` times become ``Other``
indirect, others             ``keep``
sensitive, non-sensitive     ``keep``
==========================  =============================================================

``auto`` coarsening, per step: ``n_bins`` halves (down to 1), ``rare_threshold`` doubles,
hierarchy levels rise by one, dates go month → year → ``*``; it stops when the suppressed
share is at most ``max_suppression`` or nothing can be coarsened further.

``algorithm`` replaces the fixed rules for the QI columns: ``fulldomain`` searches the
full-domain lattice (threshold search, entropy loss, §6.0 / dataset hierarchies, ``k_target``, at most
``max_suppression`` suppressed; none with ``suppression: none``) and ``mondrian`` partitions
(§6.3, ``k_target``, no suppression). Direct identifiers are dropped either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from generators.kanon.equivalence import class_sizes, discernibility_loss, entropy_loss
from generators.kanon.hierarchies import (
    SUPPRESSED,
    BinHierarchy,
    DateHierarchy,
    FlatHierarchy,
    FrequencyHierarchy,
    Hierarchy,
    TableHierarchy,
    apply_level,
    column_hierarchy,
)
from generators.kanon.lattice import Lattice, encode, rank_nodes
from generators.kanon.mondrian import mondrian_labels
from generators.kanon.params import choice, validate_k, validate_share
from generators.kanon.profiling import (
    DATA_TYPES,
    INFORMATION_TYPES,
    PROPERTY_KEYS,
    SENSITIVITIES,
    ColumnProfile,
    profile_columns,
)
from generators.kanon.release import GeneralisingGenerator
from generators.kanon.search import find_k_minimal
from harness.datasets import load_hierarchy
from harness.errors import ConfigError, DataError, InfeasibleConfigError

TECHNIQUES: tuple[str, ...] = ("keep", "drop", "binning", "truncate", "hierarchy", "rare")
BINNINGS: tuple[str, ...] = ("equal_width", "quantile")
GRANULARITIES: tuple[str, ...] = ("month", "year")
SUPPRESSIONS: tuple[str, ...] = ("row", "cells", "none")
PROFILES: tuple[str, ...] = ("default", "user")
CATEGORICAL_MODES: tuple[str, ...] = ("auto", "rare")
ALGORITHMS: tuple[str, ...] = ("fixed", "fulldomain", "mondrian")
TECHNIQUE_KEYS: tuple[str, ...] = (
    "technique",
    "n_bins",
    "binning",
    "rare_threshold",
    "date_granularity",
    "level",
)
MAX_AUTO_STEPS = 64


@dataclass(frozen=True)
class ColumnPlan:
    """The technique applied to one column and its settings."""

    column: str
    technique: str
    n_bins: int = 0
    binning: str = "equal_width"
    rare_threshold: int = 0
    date_granularity: str = "year"
    level: int = 1

    def coarser(self, n_rows: int, max_level: int) -> ColumnPlan:
        """One ``auto`` coarsening step (itself when nothing can be coarsened)."""
        if self.technique == "binning" and self.n_bins > 1:
            return replace(self, n_bins=max(1, self.n_bins // 2))
        if self.technique == "rare" and self.rare_threshold <= n_rows:
            return replace(self, rare_threshold=max(1, self.rare_threshold) * 2)
        if self.technique == "hierarchy" and self.level < max_level:
            return replace(self, level=self.level + 1)
        if self.technique == "truncate" and self.date_granularity != SUPPRESSED:
            return replace(self, date_granularity="year" if self.date_granularity == "month" else SUPPRESSED)
        return self

    def settings(self) -> dict[str, Any]:
        """The settings that matter for the technique (for the report)."""
        keys = {
            "binning": ("n_bins", "binning"),
            "rare": ("rare_threshold",),
            "truncate": ("date_granularity",),
            "hierarchy": ("level",),
        }.get(self.technique, ())
        values = asdict(self)
        return {key: values[key] for key in keys}


class DataAnonymizer(GeneralisingGenerator):
    """Rule-based k-anonymisation with column profiling (DSTA Data Anonymizer, §6.1).

    Parameters
    ----------
    k_target : int
        Equivalence classes smaller than this are suppressed (>= 2; PDPC thresholds 3 or 5).
    qi : str or int, optional
        QI set of the dataset (name or position); None = the trial's active set.
    sensitive : list of str, optional
        Sensitive attributes; None = the dataset's.
    n_bins : int
        Bins of a numeric QI.
    binning : {"equal_width", "quantile"}
    rare_threshold : int, optional
        Categorical values seen fewer times become ``Other``; None = ``k_target``.
    date_granularity : {"year", "month"}
    suppression : {"row", "cells", "none"}
        ``row``: drop the rows of classes smaller than ``k_target``; ``cells``: set their QI
        cells to ``*`` (numeric: missing); ``none``: no suppression.
    profile : {"default", "user"}
        ``default``: the recommended techniques; ``user``: ``columns`` may also set a
        column's technique and its settings.
    auto : bool
        Coarsen until the suppressed share is at most ``max_suppression`` (``algorithm:
        fixed`` only).
    max_suppression : float
        In [0, 1]; also the suppression limit of ``algorithm: fulldomain``.
    categorical : {"auto", "rare"}
        Categorical QIs: the dataset's hierarchy when it has one with an intermediate level,
        else rare grouping (``auto``); or always rare grouping (``rare``).
    columns : mapping, optional
        Per-column overrides: ``data_type``, ``information_type``, ``sensitivity`` (always);
        ``technique`` (one of keep, drop, binning, truncate, hierarchy, rare), ``n_bins``,
        ``binning``, ``rare_threshold``, ``date_granularity``, ``level`` (``profile: user``).
    algorithm : {"fixed", "fulldomain", "mondrian"}
        How the QI columns are generalised: the rules above, the full-domain lattice search
        (§6.2) or Mondrian (§6.3).
    decode : {"lower", "midpoint"}
        Released value of a numeric interval label (§1.2 rule 6).

    Notes
    -----
    A column profiled as a direct identifier is dropped; the released table keeps it
    all-missing (``details()["dropped"]``). Missing values of a generalised column become
    ``*`` (numeric: missing) above level 0. With ``suppression: cells`` the suppressed rows
    form one all-``*`` class, which is smaller than ``k_target`` when fewer rows were
    suppressed. Deterministic and seed-independent.
    """

    def __init__(
        self,
        k_target: int = 3,
        qi: str | int | None = None,
        sensitive: Sequence[str] | None = None,
        n_bins: int = 5,
        binning: str = "equal_width",
        rare_threshold: int | None = None,
        date_granularity: str = "year",
        suppression: str = "row",
        profile: str = "default",
        auto: bool = False,
        max_suppression: float = 0.05,
        categorical: str = "auto",
        columns: Mapping[str, Mapping[str, Any]] | None = None,
        algorithm: str = "fixed",
        decode: str = "lower",
    ) -> None:
        self.k_target = k_target
        self.qi = qi
        self.sensitive = sensitive
        self.n_bins = n_bins
        self.binning = binning
        self.rare_threshold = rare_threshold
        self.date_granularity = date_granularity
        self.suppression = suppression
        self.profile = profile
        self.auto = auto
        self.max_suppression = max_suppression
        self.categorical = categorical
        self.columns = columns
        self.algorithm = algorithm
        self.decode = decode

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        validate_k("k_target", self.k_target)
        _positive_int("n_bins", self.n_bins)
        if self.rare_threshold is not None:
            _positive_int("rare_threshold", self.rare_threshold)
        choice("binning", self.binning, BINNINGS)
        choice("date_granularity", self.date_granularity, GRANULARITIES)
        choice("suppression", self.suppression, SUPPRESSIONS)
        choice("profile", self.profile, PROFILES)
        choice("categorical", self.categorical, CATEGORICAL_MODES)
        choice("algorithm", self.algorithm, ALGORITHMS)
        validate_share("max_suppression", self.max_suppression)
        if not isinstance(self.auto, bool):
            raise ConfigError(f"`auto` must be true or false; got {self.auto!r}")
        if self.auto and self.algorithm != "fixed":
            raise ConfigError(f"`auto` applies to algorithm 'fixed' only; got algorithm={self.algorithm!r}")
        if self.qi is not None and (isinstance(self.qi, bool) or not isinstance(self.qi, (str, int))):
            raise ConfigError(f"`qi` must be a QI set name, its position or null; got {self.qi!r}")
        if self.sensitive is not None and (
            isinstance(self.sensitive, str) or not all(isinstance(c, str) for c in self.sensitive)
        ):
            raise ConfigError(f"`sensitive` must be a list of column names or null; got {self.sensitive!r}")
        self._validate_decode()
        self._validate_columns()

    def _validate_columns(self) -> None:
        if self.columns is None:
            return
        if not isinstance(self.columns, Mapping):
            raise ConfigError(f"`columns` must be a mapping column -> overrides; got {self.columns!r}")
        allowed = {
            "data_type": DATA_TYPES, "information_type": INFORMATION_TYPES, "sensitivity": SENSITIVITIES,
            "technique": TECHNIQUES, "binning": BINNINGS, "date_granularity": GRANULARITIES,
        }  # fmt: skip
        for col, override in self.columns.items():
            if not isinstance(override, Mapping):
                raise ConfigError(f"`columns.{col}` must be a mapping of overrides; got {override!r}")
            unknown = sorted(set(override) - set(PROPERTY_KEYS) - set(TECHNIQUE_KEYS))
            if unknown:
                raise ConfigError(
                    f"`columns.{col}`: unknown key(s) {', '.join(unknown)}; expected some of: "
                    + ", ".join((*PROPERTY_KEYS, *TECHNIQUE_KEYS))
                )
            for key, value in override.items():
                if key in allowed:
                    choice(f"columns.{col}.{key}", value, allowed[key])
                elif key in ("n_bins", "rare_threshold"):
                    _positive_int(f"columns.{col}.{key}", value)
                elif key == "level" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                    raise ConfigError(f"`columns.{col}.level` must be an integer >= 0; got {value!r}")
            technique_keys = sorted(set(override) & set(TECHNIQUE_KEYS))
            if technique_keys and self.profile != "user":
                raise ConfigError(
                    f"`columns.{col}` sets {', '.join(technique_keys)}: technique overrides need profile 'user'"
                )

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        self.hierarchies_: dict[str, TableHierarchy] = {}
        qi = list(spec.with_active_qi(self.qi).qi if self.qi is not None else spec.qi)
        sensitive = list(spec.sensitive if self.sensitive is None else self.sensitive)
        overrides = dict(self.columns or {})
        for col in [*sensitive, *overrides]:
            if col not in train.columns:
                raise ConfigError(
                    f"data_anonymizer: unknown column {col!r}; expected one of: {', '.join(train.columns)}"
                )
        profiles = profile_columns(train, qi, sensitive, overrides)
        plans = {col: self._plan(col, profiles[col], overrides.get(col) or {}) for col in train.columns}
        dropped = [c for c, p in plans.items() if p.technique == "drop"]
        active_qi = [c for c in qi if c not in dropped]
        n = len(train)
        labels = {c: np.full(n, np.nan, dtype=object) for c in qi if c in dropped}
        extra: dict[str, Any] = {}
        if self.algorithm == "fixed":
            keep, qi_labels, extra = self._fixed(train, qi, plans)
        elif self.algorithm == "fulldomain":
            keep, qi_labels, extra = self._fulldomain(train, active_qi)
        else:
            keep, qi_labels, extra = self._mondrian(train, active_qi)
        labels.update(qi_labels)
        for col, plan in plans.items():  # user-chosen techniques on non-QI columns
            if col not in qi and plan.technique not in ("keep", "drop"):
                labels[col], _ = self._apply(train[col], plan)
        before = class_sizes([train[c].to_numpy(dtype=object) for c in qi])
        after = class_sizes([labels[c] for c in qi])
        suppressed = ~keep if self.suppression == "row" else np.zeros(n, dtype=bool)
        self._publish(
            train,
            qi,
            labels,
            keep,
            dropped=dropped,
            extra={
                "k_target": self.k_target,
                "algorithm": self.algorithm,
                "suppression": self.suppression,
                "dropped": dropped,
                "columns": {
                    c: {**profiles[c].to_dict(), "technique": p.technique, **p.settings()}
                    for c, p in plans.items()
                },
                "information_loss": {
                    "entropy": entropy_loss(before, after, suppressed, n),
                    "discernibility": discernibility_loss(after, suppressed, n),
                },
                **extra,
            },
        )

    # ------------------------------------------------------------------ plans
    def _plan(self, col: str, profile: ColumnProfile, override: Mapping[str, Any]) -> ColumnPlan:
        threshold = self.rare_threshold if self.rare_threshold is not None else self.k_target
        plan = ColumnPlan(
            col, self._recommend(col, profile), self.n_bins, self.binning, threshold, self.date_granularity, 1
        )
        settings = {k: v for k, v in override.items() if k in TECHNIQUE_KEYS}
        plan = replace(plan, **settings)
        if plan.technique == "hierarchy":
            if col not in self.spec_.hierarchies:
                raise ConfigError(
                    f"`columns.{col}.technique` is 'hierarchy' but the dataset has no hierarchy for {col!r}"
                )
            if "level" not in settings:
                plan = replace(plan, level=min(1, self._hierarchy(col).height))
        return plan

    def _recommend(self, col: str, profile: ColumnProfile) -> str:
        if profile.sensitivity == "direct_identifier":
            return "drop"
        if profile.sensitivity != "indirect_identifier":
            return "keep"
        if profile.data_type == "numerical":
            return "binning"
        if profile.data_type == "datetime":
            return "truncate"
        if profile.data_type == "categorical":
            if (
                self.categorical == "auto"
                and col in self.spec_.hierarchies
                and self._hierarchy(col).height >= 2
            ):
                return "hierarchy"
            return "rare"
        return "keep"

    def _hierarchy(self, col: str) -> TableHierarchy:
        if col not in self.hierarchies_:
            self.hierarchies_[col] = TableHierarchy(
                load_hierarchy(self.spec_, col), source=self.spec_.hierarchies[col]
            )
        return self.hierarchies_[col]

    def _apply(self, values: pd.Series, plan: ColumnPlan) -> tuple[np.ndarray, dict[str, Any]]:
        """Row-aligned labels of one column under ``plan`` and a description of the mapping."""
        hierarchy: Hierarchy
        level = 1
        if plan.technique == "binning":
            numbers = pd.to_numeric(values, errors="coerce")
            if (numbers.isna() & values.notna()).any():
                raise DataError(
                    f"column {plan.column!r}: binning needs numbers; got {values[numbers.isna() & values.notna()].iloc[0]!r}"
                )
            integer = self.spec_.kind(plan.column) == "integer" or bool(
                np.all(np.mod(numbers.dropna().to_numpy(dtype=float), 1) == 0)
            )
            hierarchy = BinHierarchy.from_values(
                numbers.to_numpy(dtype=float), plan.n_bins, plan.binning, integer=integer
            )
            values = numbers
        elif plan.technique == "rare":
            hierarchy = FrequencyHierarchy.from_values(values, [plan.rare_threshold])
        elif plan.technique == "hierarchy":
            hierarchy = self._hierarchy(plan.column)
            level = min(plan.level, hierarchy.height)
        elif plan.technique == "truncate":
            hierarchy = DateHierarchy()
            level = DateHierarchy.GRANULARITY_LEVEL[plan.date_granularity]
        else:
            hierarchy, level = FlatHierarchy(), 0
        return apply_level(hierarchy, values, level), hierarchy.describe()

    # ------------------------------------------------------------------ algorithms
    def _fixed(
        self, train: pd.DataFrame, qi: list[str], plans: dict[str, ColumnPlan]
    ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, Any]]:
        n = len(train)
        active = [c for c in qi if plans[c].technique != "drop"]
        iterations = []
        for step in range(MAX_AUTO_STEPS):
            labels = {c: self._apply(train[c], plans[c])[0] for c in active}
            sizes = class_sizes([labels[c] for c in active]) if active else np.full(n, n, dtype=np.int64)
            small = sizes < self.k_target if self.suppression != "none" else np.zeros(n, dtype=bool)
            share = float(small.mean()) if n else 0.0
            iterations.append(
                {"step": step, "suppressed_share": share, **{c: plans[c].settings() for c in active}}
            )
            if not self.auto or share <= self.max_suppression:
                break
            coarser = {c: plans[c].coarser(n, self._max_level(c, plans[c])) for c in active}
            if coarser == {c: plans[c] for c in active}:
                break
            plans.update(coarser)
        keep = self._suppress(labels, small, active)
        return keep, labels, {"auto_iterations": iterations} if self.auto else {}

    def _max_level(self, col: str, plan: ColumnPlan) -> int:
        return self._hierarchy(col).height if plan.technique == "hierarchy" else 0

    def _suppress(
        self, labels: dict[str, np.ndarray], small: np.ndarray, active: Sequence[str]
    ) -> np.ndarray:
        """Apply the suppression mode to the rows flagged ``small``; return the kept rows."""
        if self.suppression == "row":
            return ~small
        if self.suppression == "cells":
            for col in active:
                labels[col] = labels[col].copy()
                labels[col][small] = SUPPRESSED
        return np.ones(len(small), dtype=bool)

    def _fulldomain(
        self, train: pd.DataFrame, qi: list[str]
    ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, Any]]:
        if not qi:
            return np.ones(len(train), dtype=bool), {}, {}
        limit = 0.0 if self.suppression == "none" else float(self.max_suppression)
        hierarchies = {c: column_hierarchy(self.spec_, c, train[c], source="arx") for c in qi}
        encoded = encode(train, hierarchies)
        lattice = Lattice(encoded, self.k_target, limit, collapse=True)
        best = rank_nodes(lattice, find_k_minimal(lattice, "threshold")[0], "entropy")[0]
        cls, sizes = lattice.classes(best.node)
        small = sizes[cls][encoded.row_combo] < self.k_target
        labels = encoded.row_labels(best.levels)
        keep = self._suppress(labels, small, qi)
        return (
            keep,
            labels,
            {
                "node": dict(zip(qi, map(int, best.levels))),
                "hierarchies": {c: h.describe() for c, h in hierarchies.items()},
                "nodes_evaluated": lattice.n_evaluated,
            },
        )

    def _mondrian(
        self, train: pd.DataFrame, qi: list[str]
    ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, Any]]:
        if len(train) < self.k_target:
            raise InfeasibleConfigError(f"k_target={self.k_target} exceeds the {len(train)} training rows")
        labels, n_parts, ncp = mondrian_labels(train, self.spec_, qi, self.k_target)
        return np.ones(len(train), dtype=bool), labels, {"n_partitions": n_parts, "ncp": ncp}


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"`{name}` must be an integer >= 1; got {value!r}")
