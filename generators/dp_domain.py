"""Public domains for the ``strict`` mode of the DP generators, and the honest ``formal_dp`` record.

With ``strict: true`` (``privbayes``, ``datasynthesizer``, ``mst``, ``aim``, ``dpgan``, ``pategan``)
every piece of the domain comes from the dataset spec — public knowledge — and never from
the training data:

* numeric (``continuous``, ``integer``) and ``datetime`` columns: ``bounds: [low, high]`` (bin
  edges and scalings derive from them; integer columns with a small range become categorical
  over the integers of the range, from the bounds alone);
* categorical / ordinal columns: ``domain: [level, ...]`` (else the declared ``categories``),
  which may list levels absent from the data — the release may then hold them;
* missing values: a level (or null flag) only for columns declared ``nullable: true``.

Training data are made to fit the public domain record by record, never by a statistic:
numeric values outside the bounds are **clamped** to them; a category outside the public levels
or a missing value in a column not declared nullable is an **error** (:class:`DataError`
naming the dataset and column: fix the YAML or recode the data). Dropping such records was
rejected: it would change n, which ``replace_one`` neighbours treat as public, and would hide
a wrong declaration. No data-dependent imputation is allowed (``missing: impute`` is refused).

A spec column lacking its public domain gives one :class:`ConfigError` line naming the dataset,
the column and the key to add (``BaseGenerator.validate_spec``, called by ``fit``; the trial
preflight calls it before any trial runs).

:func:`formal_dp_record` builds the ``formal_dp`` mapping of these generators: besides
``epsilon``, ``delta`` and ``unit`` it names the neighbouring relation (``neighbours``) and says
whether the guarantee covers the whole fit (``end_to_end``; when false, ``reason`` says what
was read from the data without budget).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import ConfigError, DataError
from harness.generator import BaseGenerator
from harness.spec import DatasetSpec

DP_UNIT = "original_records"
NUMERIC_KINDS = ("continuous", "integer", "datetime")
DOMAIN_FROM_DATA = "domain read from the training data"
N_PUBLIC_CAVEAT = "the record count n is treated as public (the release has n rows unless n_rows is set)"


@dataclass(frozen=True)
class PublicColumn:
    """The public domain of one column.

    Attributes
    ----------
    name, kind : str
    levels : tuple of str or None
        Categorical / ordinal levels, in declaration order.
    low, high : float or None
        Numeric bounds (datetime: nanoseconds since the epoch).
    nullable : bool
        Missing values are part of the domain.
    source : {"spec", "config"}
        Where the bounds come from (a generator's ``bounds`` parameter is public too).
    """

    name: str
    kind: str
    levels: tuple[str, ...] | None
    low: float | None
    high: float | None
    nullable: bool
    source: str = "spec"

    @property
    def is_numeric(self) -> bool:
        """True for continuous, integer and datetime columns."""
        return self.kind in NUMERIC_KINDS


def as_number(value: Any, kind: str) -> float:
    """A bound as a float: dates as nanoseconds since the epoch, numbers as they are."""
    if kind == "datetime":
        return float(pd.Timestamp(str(value)).value)
    return float(value)


def check_public_domain(
    spec: DatasetSpec, who: str, *, config_bounds: Mapping[str, Any] | None = None
) -> None:
    """Raise a one-line :class:`ConfigError` when a table column lacks its public domain.

    Parameters
    ----------
    spec : DatasetSpec
    who : str
        The generator, for the message.
    config_bounds : mapping, optional
        Numeric columns whose bounds the generator's own ``bounds`` parameter declares.
    """
    gaps = spec.public_domain_gaps()
    for col in config_bounds or {}:
        if gaps.get(col, "").startswith("bounds"):
            del gaps[col]
    if not gaps:
        return
    (first, what), *rest = gaps.items()
    listed = [f"{col!r} ({gap.split(':')[0]})" for col, gap in rest]
    others = f"; also {', '.join(listed)}" if listed else ""
    raise ConfigError(
        f"{who} strict mode takes the domain from the dataset spec: dataset {spec.name!r} column {first!r} "
        f"({spec.kind(first)}) has no `{what}`{others}; declare the public domain in the dataset YAML "
        "(codebook knowledge, not the data) or set strict: false"
    )


def public_domain(
    spec: DatasetSpec, who: str, *, config_bounds: Mapping[str, Any] | None = None
) -> dict[str, PublicColumn]:
    """The public domain of every table column (see :func:`check_public_domain` for the errors)."""
    check_public_domain(spec, who, config_bounds=config_bounds)
    out: dict[str, PublicColumn] = {}
    for name in spec.table_columns:
        col = spec.column(name)
        nullable = bool(col.nullable)
        if col.is_categorical:
            out[name] = PublicColumn(name, col.kind, col.public_levels, None, None, nullable)
            continue
        if config_bounds is not None and name in config_bounds:
            low, high = (as_number(v, col.kind) for v in config_bounds[name])
            out[name] = PublicColumn(name, col.kind, None, low, high, nullable, "config")
            continue
        assert col.bounds is not None  # check_public_domain
        low, high = (as_number(v, col.kind) for v in col.bounds)
        out[name] = PublicColumn(name, col.kind, None, low, high, nullable)
    return out


def fit_to_domain(
    train: pd.DataFrame, domain: Mapping[str, PublicColumn], spec: DatasetSpec, who: str
) -> pd.DataFrame:
    """``train`` made to fit the public domain: numbers clamped, other violations refused.

    Parameters
    ----------
    train : DataFrame
        In the spec representation (datetime columns as ``datetime64``).
    domain : mapping
        Output of :func:`public_domain`.

    Returns
    -------
    DataFrame
        A copy; numeric values outside their bounds are clamped (an integer column with
        non-integer bounds may become float).

    Raises
    ------
    DataError
        A category outside the public levels, or a missing value in a column not declared
        ``nullable``; the message names the dataset and the column (not the rows).
    """
    out = train.copy()
    for name, dom in domain.items():
        values = out[name]
        if values.isna().any() and not dom.nullable:
            raise DataError(
                f"{who} strict mode: dataset {spec.name!r} column {name!r} has missing values, which are "
                "not in its public domain; declare `nullable: true` for the column in the dataset YAML "
                "or remove them in preprocessing"
            )
        if dom.levels is not None:
            present = values.dropna().astype(str)
            outside = sorted(set(present) - set(dom.levels))
            if outside:
                raise DataError(
                    f"{who} strict mode: dataset {spec.name!r} column {name!r} holds {len(outside)} value(s) "
                    f"outside its public domain (e.g. {', '.join(map(repr, outside[:3]))}); add them to the "
                    "column's `domain` in the dataset YAML or recode them"
                )
            continue
        assert dom.low is not None and dom.high is not None
        if dom.kind == "datetime":
            low, high = pd.Timestamp(int(dom.low)), pd.Timestamp(int(dom.high))
            out[name] = pd.to_datetime(values).clip(low, high)
        else:
            numeric = pd.to_numeric(values).astype(float)
            if ((numeric < dom.low) | (numeric > dom.high)).any():
                clipped = numeric.clip(dom.low, dom.high)
                integral = (
                    dom.kind == "integer" and clipped.notna().all() and (clipped == np.rint(clipped)).all()
                )
                out[name] = clipped.astype("int64") if integral else clipped
    return out


def widen_categories(generator: BaseGenerator, domain: Mapping[str, PublicColumn]) -> None:
    """Allow the release of every public level (the base class checks released categories)."""
    generator.training_categories_ = {
        col: seen | frozenset(domain[col].levels or ()) if col in domain else seen
        for col, seen in generator.training_categories_.items()
    }


def integer_levels(low: float, high: float) -> np.ndarray:
    """The integers in [low, high] as floats."""
    return np.arange(math.ceil(low), math.floor(high) + 1, dtype=float)


def formal_dp_record(
    epsilon: float | None,
    delta: float | None,
    *,
    neighbours: str,
    not_end_to_end: Sequence[str] = (),
    unit: str = DP_UNIT,
    **extra: Any,
) -> dict[str, Any]:
    """The ``formal_dp`` mapping: ``epsilon``, ``delta``, ``unit``, ``neighbours``, ``end_to_end``.

    Parameters
    ----------
    not_end_to_end : sequence of str
        What the fit reads from the data outside the accounted mechanisms; empty = the
        configured guarantee covers the whole fit. Joined into ``reason``.
    extra
        Further keys (e.g. ``epsilon_configured`` when the spent ε differs).
    """
    out: dict[str, Any] = {
        "epsilon": epsilon,
        "delta": delta,
        "unit": unit,
        "neighbours": neighbours,
        "end_to_end": not not_end_to_end,
    }
    if not_end_to_end:
        out["reason"] = "; ".join(dict.fromkeys(not_end_to_end))
    out.update(extra)
    return out
