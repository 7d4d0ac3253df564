"""Derived columns: columns that are deterministic functions of other columns of the table.

``004_…`` *Generating Synthetic Data is Complicated* (Latner et al., §3 "Generated
Variables"): SD2011's ``agegr`` is ``age`` cut into six groups and ``bmi`` is
weight/(height/100)². Synthesising such a column next to its sources produces releases in
which the two disagree; the remedy is to drop it before synthesis and recompute it from the
synthetic sources afterwards (their SD2011(c)). Both uses share the rules defined here:

* a dataset declares its derived columns under ``preprocess.derived_columns``; the trial
  runner then fits every generator on the table without them and recomputes them on the
  release (:func:`generator_view`, :func:`complete`);
* the ``consistency`` metric (``spec/metrics.md`` F9) counts the released rows that break
  the rules.

Rules (``{derived column: rule}``)
----------------------------------
::

    agegr: {kind: cut, source: age, breaks: [16, 25, 35, 45, 60, 65],
            labels: [16-24, 25-34, 35-44, 45-59, 60-64, 65+]}
    bmi: {kind: product, factors: {weight: 1, height: -2}, scale: 10000, rtol: 1.0e-6}
    education-num: {kind: lookup, source: [education]}

``cut``
    label *i* for ``breaks[i] <= x < breaks[i + 1]`` (the last group is open above); values
    below ``breaks[0]`` have no group (NA).
``product``
    ``scale · Π column ** power``; NA when a factor is missing or the value is not finite.
    A released value agrees when ``|observed − expected| <= atol + rtol·|expected|``.
``lookup``
    the value the reference table (T) holds for the row's source values (its most frequent
    one where T is not functional); NA for source values T does not contain.

A rule agrees with a row, or not, only where the derived value and its expected value are
both present; a missing value is never a violation (as Latner et al.'s Fig. 2 counts).
Limitation: metrics that refit the generator themselves (``mia_privacy_gain``) fit it on the
full table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.spec import DatasetSpec

KINDS: tuple[str, ...] = ("cut", "product", "lookup")
PREPROCESS_KEY = "derived_columns"
_KEYS = {
    "cut": {"kind", "source", "breaks", "labels"},
    "product": {"kind", "factors", "scale", "rtol", "atol"},
    "lookup": {"kind", "source"},
}


@dataclass(frozen=True)
class Rule:
    """How one derived column follows from its source columns.

    Attributes
    ----------
    column : str
        The derived column.
    kind : {"cut", "product", "lookup"}
    sources : tuple of str
        The columns it is computed from (``product``: the factors, in order).
    breaks, labels : tuple
        ``cut``: lower bounds of the groups (increasing) and their labels.
    powers : tuple of float
        ``product``: the power of each source.
    scale, rtol, atol : float
        ``product``: the constant factor and the agreement tolerances.
    """

    column: str
    kind: str
    sources: tuple[str, ...]
    breaks: tuple[float, ...] = ()
    labels: tuple[str, ...] = ()
    powers: tuple[float, ...] = ()
    scale: float = 1.0
    rtol: float = 1e-6
    atol: float = 0.0

    def expected(self, frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.Series:
        """The derived value of every row of ``frame`` from its source columns.

        Parameters
        ----------
        frame : DataFrame
            Holds the source columns.
        reference : DataFrame, optional
            The table a ``lookup`` rule learns its mapping from (default ``frame``).

        Returns
        -------
        Series
            Aligned with ``frame``; NA where the rule gives no value.
        """
        if self.kind == "cut":
            x = pd.to_numeric(frame[self.sources[0]], errors="coerce").to_numpy(dtype=float)
            group = np.searchsorted(np.asarray(self.breaks, dtype=float), x, side="right") - 1
            valid = np.isfinite(x) & (group >= 0)
            labels = np.asarray(self.labels, dtype=object)[np.where(valid, group, 0)]
            labels[~valid] = None
            return pd.Series(labels, index=frame.index, dtype=object)
        if self.kind == "product":
            value = np.full(len(frame), float(self.scale))
            for source, power in zip(self.sources, self.powers):
                x = pd.to_numeric(frame[source], errors="coerce").to_numpy(dtype=float)
                with np.errstate(divide="ignore", invalid="ignore"):
                    value = value * np.power(x, power)
            return pd.Series(np.where(np.isfinite(value), value, np.nan), index=frame.index)
        table = _lookup_table(reference if reference is not None else frame, self.sources, self.column)
        keys = frame[list(self.sources)].reset_index(drop=True)
        found = keys.merge(table, on=list(self.sources), how="left", validate="many_to_one")
        return pd.Series(found[self.column].to_numpy(), index=frame.index)

    def agreement(self, observed: pd.Series, expected: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        """Which rows can be checked (both values present) and, among all rows, which agree.

        Returns
        -------
        checked, agrees : ndarray of bool
            ``agrees`` is False wherever ``checked`` is False.
        """
        checked = (observed.notna() & expected.notna()).to_numpy()
        if self.kind == "product":
            obs = pd.to_numeric(observed, errors="coerce").to_numpy(dtype=float)
            exp = pd.to_numeric(expected, errors="coerce").to_numpy(dtype=float)
            with np.errstate(invalid="ignore"):
                close = np.abs(obs - exp) <= self.atol + self.rtol * np.abs(exp)
            return checked, checked & close
        if pd.api.types.is_numeric_dtype(observed.dtype):
            obs = pd.to_numeric(observed, errors="coerce").to_numpy(dtype=float)
            same = obs == pd.to_numeric(expected, errors="coerce").to_numpy(dtype=float)
        else:
            same = observed.astype(str).to_numpy() == expected.astype(str).to_numpy()
        return checked, checked & same


def _lookup_table(reference: pd.DataFrame, sources: tuple[str, ...], column: str) -> pd.DataFrame:
    """Most frequent ``column`` value per source combination of ``reference`` (ties: the smallest value).

    Source combinations with missing values are combinations of their own (NA matches NA).
    """
    present = reference[[*sources, column]].dropna(subset=[column])
    counts = present.groupby([*sources, column], dropna=False, sort=True).size().reset_index(name="n")
    ranked = counts.sort_values("n", ascending=False, kind="mergesort")
    return ranked.drop_duplicates(subset=list(sources), keep="first").drop(columns="n")


# ---------------------------------------------------------------------- parsing
def parse_rules(raw: Any, *, where: str) -> tuple[Rule, ...]:
    """Rules from their config mapping ``{derived column: {kind: ..., ...}}``.

    Raises
    ------
    ConfigError
        Naming the rule and key for anything malformed.
    """
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must map derived column names to rules; got {raw!r}")
    return tuple(_parse_rule(str(column), body, f"{where}.{column}") for column, body in raw.items())


def _parse_rule(column: str, body: Any, where: str) -> Rule:
    if not isinstance(body, Mapping):
        raise ConfigError(f"{where} must be a mapping with a 'kind' ({', '.join(KINDS)}); got {body!r}")
    kind = body.get("kind")
    if kind not in KINDS:
        raise ConfigError(f"{where}.kind must be one of {', '.join(KINDS)}; got {kind!r}")
    unknown = sorted(set(body) - _KEYS[kind])
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)} for kind {kind}; expected some of: "
            + ", ".join(sorted(_KEYS[kind]))
        )
    if kind == "cut":
        source = body.get("source")
        if not isinstance(source, str) or not source:
            raise ConfigError(f"{where}.source must be a column name; got {source!r}")
        breaks = _numbers(body.get("breaks"), f"{where}.breaks")
        if any(upper <= lower for lower, upper in zip(breaks, breaks[1:])):
            raise ConfigError(f"{where}.breaks must increase strictly; got {list(breaks)!r}")
        labels = body.get("labels")
        if not isinstance(labels, (list, tuple)) or len(labels) != len(breaks):
            raise ConfigError(
                f"{where}.labels must be a list of {len(breaks)} labels (one per break); got {labels!r}"
            )
        return Rule(column, kind, (source,), breaks=breaks, labels=tuple(str(v) for v in labels))
    if kind == "product":
        factors = body.get("factors")
        if not isinstance(factors, Mapping) or not factors:
            raise ConfigError(f"{where}.factors must map column names to powers; got {factors!r}")
        powers = _numbers(list(factors.values()), f"{where}.factors")
        scale = _number(body.get("scale", 1.0), f"{where}.scale")
        rtol = _number(body.get("rtol", 1e-6), f"{where}.rtol", minimum=0.0)
        atol = _number(body.get("atol", 0.0), f"{where}.atol", minimum=0.0)
        return Rule(
            column, kind, tuple(str(c) for c in factors), powers=powers, scale=scale, rtol=rtol, atol=atol
        )
    source = body.get("source")
    sources = [source] if isinstance(source, str) else source
    if not isinstance(sources, (list, tuple)) or not sources or not all(isinstance(s, str) for s in sources):
        raise ConfigError(f"{where}.source must be a column name or a list of them; got {source!r}")
    return Rule(column, kind, tuple(sources))


def _numbers(raw: Any, where: str) -> tuple[float, ...]:
    if not isinstance(raw, (list, tuple)) or not raw:
        raise ConfigError(f"{where} must be a non-empty list of numbers; got {raw!r}")
    return tuple(_number(v, where) for v in raw)


def _number(raw: Any, where: str, *, minimum: float | None = None) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
        raise ConfigError(f"{where} must be a finite number; got {raw!r}")
    if minimum is not None and raw < minimum:
        raise ConfigError(f"{where} must be >= {minimum:g}; got {raw!r}")
    return float(raw)


def check_rules(rules: Sequence[Rule], spec: DatasetSpec, *, where: str) -> None:
    """Raise :class:`ConfigError` unless ``rules`` fit the schema of ``spec``.

    Every derived and source column is a declared column; ``cut`` and ``product`` sources
    are numeric; a ``product`` column is numeric; ``cut`` labels belong to the column's
    declared categories; no column is derived twice or is the source of a rule; the target
    is not derived.
    """
    columns = set(spec.table_columns)
    derived = [r.column for r in rules]
    twice = sorted({c for c in derived if derived.count(c) > 1})
    if twice:
        raise ConfigError(f"{where}: column(s) {', '.join(twice)} derived twice")
    for rule in rules:
        here = f"{where}.{rule.column}"
        for name in (rule.column, *rule.sources):
            if name not in columns:
                raise ConfigError(
                    f"{here}: column {name!r} is not a column of dataset {spec.name!r}; expected one of: "
                    + ", ".join(spec.table_columns)
                )
        chained = [s for s in rule.sources if s in derived]
        if chained:
            raise ConfigError(f"{here}: source {chained[0]!r} is itself derived; derive from stored columns")
        if rule.column == spec.target:
            raise ConfigError(f"{here}: the target {spec.target!r} cannot be a derived column")
        if rule.kind in ("cut", "product"):
            bad = [s for s in rule.sources if not spec.column(s).is_numeric]
            if bad:
                raise ConfigError(f"{here}: source {bad[0]!r} of a {rule.kind} rule must be numeric")
        if rule.kind == "product" and not spec.column(rule.column).is_numeric:
            raise ConfigError(f"{here}: a product rule derives a numeric column; {rule.column!r} is not")
        categories = spec.column(rule.column).categories
        if rule.kind == "cut" and categories:
            outside = [label for label in rule.labels if label not in categories]
            if outside:
                raise ConfigError(
                    f"{here}: label(s) {', '.join(map(repr, outside))} are not categories of {rule.column!r} "
                    f"({', '.join(categories)})"
                )


def declared_rules(spec: DatasetSpec) -> tuple[Rule, ...]:
    """The rules of ``spec.preprocess.derived_columns`` (checked against the schema); () if none."""
    where = f"dataset {spec.name!r}: preprocess.{PREPROCESS_KEY}"
    rules = parse_rules(spec.preprocess.get(PREPROCESS_KEY), where=where)
    check_rules(rules, spec, where=where)
    return rules


# ---------------------------------------------------------------------- synthesis without them
def reduced_spec(spec: DatasetSpec, rules: Sequence[Rule]) -> DatasetSpec:
    """``spec`` without the derived columns: what a generator is fitted on.

    Derived columns leave ``columns``, the QI sets (a set left empty is dropped), the
    sensitive attributes and the hierarchies; ``preprocess`` loses ``derived_columns``.
    """
    derived = {r.column for r in rules}
    qi_sets = {
        name: tuple(c for c in cols if c not in derived)
        for name, cols in spec.qi_sets.items()
        if any(c not in derived for c in cols)
    }
    active = spec.active_qi if spec.active_qi in qi_sets else None
    return replace(
        spec,
        columns=tuple(c for c in spec.columns if c.name not in derived),
        qi_sets=qi_sets,
        sensitive=tuple(c for c in spec.sensitive if c not in derived),
        hierarchies={k: v for k, v in spec.hierarchies.items() if k not in derived},
        preprocess={k: v for k, v in spec.preprocess.items() if k != PREPROCESS_KEY},
        active_qi=active,
    )


def generator_view(
    train: pd.DataFrame, control: pd.DataFrame | None, spec: DatasetSpec
) -> tuple[pd.DataFrame, pd.DataFrame | None, DatasetSpec, tuple[Rule, ...]]:
    """What a generator sees: ``train``, ``control`` and ``spec`` without the declared derived columns.

    Returns the inputs unchanged (and no rules) when ``spec`` declares none.
    """
    rules = declared_rules(spec)
    if not rules:
        return train, control, spec, rules
    fit_spec = reduced_spec(spec, rules)
    keep = list(fit_spec.table_columns)
    return train[keep], (control[keep] if control is not None else None), fit_spec, rules


def complete(
    table: pd.DataFrame, spec: DatasetSpec, rules: Sequence[Rule], reference: pd.DataFrame
) -> pd.DataFrame:
    """Add the derived columns to a release, recomputed from its own source columns.

    Parameters
    ----------
    table : DataFrame
        A release without the derived columns.
    spec : DatasetSpec
        The full schema (column order and kinds of the result).
    rules : sequence of Rule
    reference : DataFrame
        The training table (``lookup`` rules learn their mapping from it).

    Returns
    -------
    DataFrame
        ``spec.table_columns`` in order; integer derived columns rounded.
    """
    out = table.copy()
    for rule in rules:
        values = rule.expected(out, reference)
        if spec.kind(rule.column) == "integer":
            values = pd.to_numeric(values, errors="coerce").round()
        out[rule.column] = values
    return out[list(spec.table_columns)]


__all__ = [
    "KINDS",
    "PREPROCESS_KEY",
    "Rule",
    "check_rules",
    "complete",
    "declared_rules",
    "generator_view",
    "parse_rules",
    "reduced_spec",
]
