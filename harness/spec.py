"""`DatasetSpec`: the schema of one dataset, built from its YAML in ``experiments/dataset/``.

A spec names the columns with their roles and kinds, the target and task, the named
quasi-identifier (QI) sets, the sensitive attributes, optional generalisation hierarchies,
where the data comes from (``source``) and its licence and citation. Specs are immutable;
:meth:`DatasetSpec.with_active_qi` returns a copy whose :attr:`DatasetSpec.qi` is one QI set
(the trial's active set).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from harness.errors import ConfigError

ColumnKind = Literal["continuous", "integer", "categorical", "ordinal", "datetime", "identifier"]
Task = Literal["binary", "multiclass", "regression", "none"]

COLUMN_KINDS: tuple[str, ...] = (
    "continuous",
    "integer",
    "categorical",
    "ordinal",
    "datetime",
    "identifier",
)
NUMERIC_KINDS: frozenset[str] = frozenset({"continuous", "integer"})
CATEGORICAL_KINDS: frozenset[str] = frozenset({"categorical", "ordinal"})
TASKS: tuple[str, ...] = ("binary", "multiclass", "regression", "none")
SOURCE_KINDS: tuple[str, ...] = ("bundled", "path", "simulated")


@dataclass(frozen=True)
class ColumnSpec:
    """One column: its name, kind, missing-value codes, (ordinal) category order and public domain.

    Attributes
    ----------
    name : str
    kind : str
        One of :data:`COLUMN_KINDS`.
    missing_codes : tuple
        Raw codes the loader recodes to NA when ``preprocess.recode_missing_codes`` is true.
    categories : tuple of str, optional
        Declared categories (order of an ordinal column). The loader rejects values outside
        them; some metrics use their order (positive class, ordinal ranks).
    description : str
    bounds : tuple of (low, high), optional
        Public bounds of a numeric (``continuous``, ``integer``: numbers) or ``datetime``
        (dates) column: knowledge that does not come from the data (a codebook, a top code, a
        legal range). Only the ``strict`` mode of the DP generators reads them; no loader
        check, generator or metric changes behaviour when they are declared.
    domain : tuple of str, optional
        Public levels of a categorical or ordinal column (``strict`` mode of the DP
        generators only; may list levels absent from the data). When absent, ``categories``
        serve as the public levels.
    nullable : bool, optional
        Whether "missing" is part of the public domain (``strict`` mode: missing values of a
        column not declared nullable are an error). None = not declared (not nullable).
    """

    name: str
    kind: ColumnKind
    missing_codes: tuple[Any, ...] = ()
    categories: tuple[str, ...] | None = None
    description: str = ""
    bounds: tuple[Any, Any] | None = None
    domain: tuple[str, ...] | None = None
    nullable: bool | None = None

    @property
    def is_numeric(self) -> bool:
        """True for ``continuous`` and ``integer`` columns."""
        return self.kind in NUMERIC_KINDS

    @property
    def is_categorical(self) -> bool:
        """True for ``categorical`` and ``ordinal`` columns."""
        return self.kind in CATEGORICAL_KINDS

    @property
    def public_levels(self) -> tuple[str, ...] | None:
        """Public levels of a categorical / ordinal column: ``domain``, else ``categories``."""
        if not self.is_categorical:
            return None
        return self.domain if self.domain is not None else self.categories

    def public_domain_gap(self) -> str | None:
        """What the YAML must add for the column's public domain (None when it is complete).

        Numeric and datetime columns need ``bounds``; categorical and ordinal columns need
        ``domain`` (or ``categories``). Identifier columns never reach a generator.
        """
        if self.kind in ("continuous", "integer", "datetime") and self.bounds is None:
            return "bounds: [low, high]"
        if self.is_categorical and self.public_levels is None:
            return "domain: [level, ...]"
        return None


@dataclass(frozen=True)
class DatasetSpec:
    """The schema of a dataset (see DESIGN.md, ``spec/generators.md`` §1.1).

    Attributes
    ----------
    name : str
        Registry name (the YAML file name).
    columns : tuple of ColumnSpec
        Declared columns in table order. ``identifier`` columns are dropped by the loader.
    target : str or None
        Class label / regression target, or None for unsupervised tables.
    task : {"binary", "multiclass", "regression", "none"}
    qi_sets : mapping of str to tuple of str
        Named quasi-identifier sets, in declaration order (the first is the default).
    sensitive : tuple of str
        Sensitive attributes (inference targets).
    hierarchies : mapping of str to str
        Column name to generalisation-hierarchy file (relative to the bundled data root).
    source : mapping
        Where and how the data is read (``kind``: bundled, path or simulated); see the loader.
    preprocess : mapping
        Dataset-level preprocessing switches (e.g. ``recode_missing_codes``).
    licence, citation, description : str
    active_qi : str or None
        Name of the trial's active QI set; None means the first.
    """

    name: str
    columns: tuple[ColumnSpec, ...]
    target: str | None = None
    task: Task = "none"
    qi_sets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sensitive: tuple[str, ...] = ()
    hierarchies: Mapping[str, str] = field(default_factory=dict)
    source: Mapping[str, Any] = field(default_factory=dict)
    preprocess: Mapping[str, Any] = field(default_factory=dict)
    licence: str = ""
    citation: str = ""
    description: str = ""
    active_qi: str | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, name: str | None = None) -> DatasetSpec:
        """Build and validate a spec from its YAML mapping.

        Parameters
        ----------
        data : mapping
            The parsed YAML (``name``, ``columns``, ``target``, ``task``, ``qi_sets``, ...).
            ``columns`` is a mapping ``{column: kind}`` or ``{column: {kind: ..., ...}}``.
        name : str, optional
            Registry name; defaults to ``data["name"]``.

        Raises
        ------
        ConfigError
            If a key is unknown or a value is invalid; the message names the key.
        """
        known = {
            "name", "columns", "target", "task", "qi_sets", "sensitive", "hierarchies", "source",
            "preprocess", "licence", "license", "citation", "description", "active_qi",
        }  # fmt: skip
        spec_name = str(name or data.get("name") or "")
        if not spec_name:
            raise ConfigError("dataset spec: key 'name' is missing; expected the dataset name")
        where = f"dataset {spec_name!r}"
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"{where}: unknown key(s) {', '.join(unknown)}; expected some of: "
                + ", ".join(sorted(known - {"license"}))
            )
        columns = _parse_columns(data.get("columns"), where)
        spec = cls(
            name=spec_name,
            columns=columns,
            target=data.get("target"),
            task=data.get("task") or ("none" if data.get("target") is None else "binary"),
            qi_sets={str(k): tuple(v) for k, v in (data.get("qi_sets") or {}).items()},
            sensitive=tuple(data.get("sensitive") or ()),
            hierarchies=dict(data.get("hierarchies") or {}),
            source=dict(data.get("source") or {}),
            preprocess=dict(data.get("preprocess") or {}),
            licence=str(data.get("licence") or data.get("license") or ""),
            citation=str(data.get("citation") or ""),
            description=str(data.get("description") or ""),
            active_qi=data.get("active_qi"),
        )
        spec.validate()
        return spec

    def to_dict(self) -> dict[str, Any]:
        """Return the canonical mapping (inverse of :meth:`from_dict`)."""
        return {
            "name": self.name,
            "columns": {
                c.name: {
                    "kind": c.kind,
                    **({"missing_codes": list(c.missing_codes)} if c.missing_codes else {}),
                    **({"categories": list(c.categories)} if c.categories else {}),
                    **({"bounds": list(c.bounds)} if c.bounds is not None else {}),
                    **({"domain": list(c.domain)} if c.domain is not None else {}),
                    **({"nullable": c.nullable} if c.nullable is not None else {}),
                }
                for c in self.columns
            },
            "target": self.target,
            "task": self.task,
            "qi_sets": {k: list(v) for k, v in self.qi_sets.items()},
            "sensitive": list(self.sensitive),
            "hierarchies": dict(self.hierarchies),
            "source": _plain(self.source),
            "preprocess": _plain(self.preprocess),
            "licence": self.licence,
            "citation": self.citation,
            "description": self.description,
            "active_qi": self.active_qi,
        }

    def validate(self) -> None:
        """Check internal consistency; raise :class:`ConfigError` naming the bad key."""
        where = f"dataset {self.name!r}"
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            dupes = sorted({n for n in names if names.count(n) > 1})
            raise ConfigError(f"{where}: duplicate column name(s) {', '.join(dupes)}")
        table = set(self.table_columns)
        if self.task not in TASKS:
            raise ConfigError(f"{where}: task must be one of {', '.join(TASKS)}; got {self.task!r}")
        if self.target is not None and self.target not in table:
            raise ConfigError(
                f"{where}: target {self.target!r} is not a declared column; "
                f"expected one of: {', '.join(self.table_columns)}"
            )
        if self.target is None and self.task != "none":
            raise ConfigError(f"{where}: task {self.task!r} needs a 'target' column")
        for qi_name, qi_cols in self.qi_sets.items():
            if not qi_cols:
                raise ConfigError(f"{where}: QI set {qi_name!r} is empty")
            for col in qi_cols:
                if col not in table:
                    raise ConfigError(
                        f"{where}: QI set {qi_name!r} names column {col!r}, which is not a "
                        f"declared column; expected one of: {', '.join(self.table_columns)}"
                    )
        for col in self.sensitive:
            if col not in table:
                raise ConfigError(f"{where}: sensitive column {col!r} is not a declared column")
        for col in self.hierarchies:
            if col not in table:
                raise ConfigError(f"{where}: hierarchy for {col!r}, which is not a declared column")
        if self.active_qi is not None and self.active_qi not in self.qi_sets:
            raise ConfigError(
                f"{where}: unknown QI set {self.active_qi!r}; expected one of: "
                + (", ".join(self.qi_sets) or "(the dataset defines none)")
            )
        kind = self.source.get("kind")
        if kind is not None and kind not in SOURCE_KINDS:
            raise ConfigError(f"{where}: source.kind must be one of {', '.join(SOURCE_KINDS)}; got {kind!r}")

    # ------------------------------------------------------------------ queries
    @property
    def table_columns(self) -> tuple[str, ...]:
        """Names of the columns present in loaded tables (identifiers excluded), in order."""
        return tuple(c.name for c in self.columns if c.kind != "identifier")

    @property
    def numeric_columns(self) -> tuple[str, ...]:
        """Continuous and integer columns, in table order."""
        return tuple(c.name for c in self.columns if c.is_numeric)

    @property
    def categorical_columns(self) -> tuple[str, ...]:
        """Categorical and ordinal columns, in table order."""
        return tuple(c.name for c in self.columns if c.is_categorical)

    def public_domain_gaps(self, columns: Sequence[str] | None = None) -> dict[str, str]:
        """Columns (default: the table columns) whose public domain is incomplete, with what to add.

        See :meth:`ColumnSpec.public_domain_gap`; an empty dict means every column has a public
        domain (what the ``strict`` mode of the DP generators needs).
        """
        names = self.table_columns if columns is None else tuple(columns)
        gaps = {name: self.column(name).public_domain_gap() for name in names}
        return {name: gap for name, gap in gaps.items() if gap is not None}

    def column(self, name: str) -> ColumnSpec:
        """Return the spec of column ``name``; raise :class:`ConfigError` if unknown."""
        for col in self.columns:
            if col.name == name:
                return col
        raise ConfigError(
            f"dataset {self.name!r}: unknown column {name!r}; expected one of: "
            + ", ".join(self.table_columns)
        )

    def kind(self, name: str) -> str:
        """Kind of column ``name``."""
        return self.column(name).kind

    @property
    def qi_set_name(self) -> str | None:
        """Name of the active QI set (the first one when none is chosen)."""
        if self.active_qi is not None:
            return self.active_qi
        return next(iter(self.qi_sets), None)

    @property
    def qi(self) -> tuple[str, ...]:
        """Columns of the active QI set (empty when the dataset defines none)."""
        name = self.qi_set_name
        return tuple(self.qi_sets[name]) if name is not None else ()

    def with_active_qi(self, qi: str | int | None) -> DatasetSpec:
        """Return a copy whose active QI set is ``qi`` (a name, or a position as alias).

        Raises
        ------
        ConfigError
            If the name or index does not exist; the message lists the valid names.
        """
        if qi is None:
            return replace(self, active_qi=None)
        names = list(self.qi_sets)
        if isinstance(qi, int) and not isinstance(qi, bool):
            if not 0 <= qi < len(names):
                raise ConfigError(
                    f"dataset {self.name!r}: qi_index {qi} is out of range; expected 0..{len(names) - 1}"
                )
            qi = names[qi]
        if qi not in self.qi_sets:
            raise ConfigError(
                f"dataset {self.name!r}: unknown QI set {qi!r}; expected one of: "
                + (", ".join(names) or "(the dataset defines none)")
            )
        return replace(self, active_qi=str(qi))

    def digest(self) -> str:
        """SHA-256 of the canonical JSON of the spec (not of the data files)."""
        return hashlib.sha256(canonical_json(self.to_dict()).encode()).hexdigest()


# ---------------------------------------------------------------------- helpers
def canonical_json(value: Any) -> str:
    """Serialise ``value`` to canonical JSON (sorted keys, no spaces), for hashing and results."""
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), default=str)


def plain_dict(value: Any) -> dict[str, Any]:
    """A mapping (including an OmegaConf ``DictConfig``, resolved) as a plain ``dict[str, Any]``."""
    try:
        from omegaconf import DictConfig, OmegaConf

        if isinstance(value, DictConfig):
            value = OmegaConf.to_container(value, resolve=True)
    except ImportError:  # pragma: no cover - omegaconf is a core dependency
        pass
    out = _plain(value)
    if not isinstance(out, dict):
        raise TypeError(f"expected a mapping; got {type(value).__name__}")
    return out


def _plain(value: Any) -> Any:
    """Convert mappings/sequences (including OmegaConf containers) to plain dict/list."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "items") and callable(value.items):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(v) for v in value]
    return value


def _parse_columns(raw: Any, where: str) -> tuple[ColumnSpec, ...]:
    if not raw:
        raise ConfigError(f"{where}: key 'columns' is missing or empty; expected {{column: kind}}")
    if not isinstance(raw, Mapping) and not hasattr(raw, "items"):
        raise ConfigError(f"{where}: 'columns' must be a mapping {{column: kind}}; got {type(raw).__name__}")
    out = []
    for col_name, body in raw.items():
        if isinstance(body, str):
            body = {"kind": body}
        if not isinstance(body, Mapping) and not hasattr(body, "items"):
            raise ConfigError(f"{where}: column {col_name!r} must map to a kind or a mapping; got {body!r}")
        body = dict(body)
        kind = body.pop("kind", None)
        if kind not in COLUMN_KINDS:
            raise ConfigError(
                f"{where}: column {col_name!r} has kind {kind!r}; expected one of: " + ", ".join(COLUMN_KINDS)
            )
        missing = body.pop("missing_codes", None) or ()
        categories = body.pop("categories", None)
        description = str(body.pop("description", "") or "")
        here = f"{where}: column {col_name!r}"
        bounds = _parse_bounds(body.pop("bounds", None), kind, here)
        domain = _parse_domain(body.pop("domain", None), kind, here)
        nullable = body.pop("nullable", None)
        if nullable is not None and not isinstance(nullable, bool):
            raise ConfigError(f"{here}: nullable must be true or false; got {nullable!r}")
        if body:
            raise ConfigError(
                f"{here} has unknown key(s) {', '.join(sorted(body))}; "
                "expected kind, missing_codes, categories, description, bounds, domain, nullable"
            )
        cats = tuple(str(c) for c in categories) if categories else None
        if domain is not None and cats is not None and not set(cats) <= set(domain):
            outside = [c for c in cats if c not in set(domain)]
            raise ConfigError(
                f"{here}: categories {', '.join(map(repr, outside[:5]))} are not in its domain; "
                "the domain must hold every declared category"
            )
        out.append(
            ColumnSpec(
                name=str(col_name),
                kind=kind,
                missing_codes=tuple(missing),
                categories=cats,
                description=description,
                bounds=bounds,
                domain=domain,
                nullable=nullable,
            )
        )
    return tuple(out)


def _parse_bounds(raw: Any, kind: str, here: str) -> tuple[Any, Any] | None:
    """``bounds: [low, high]`` of a numeric (numbers) or datetime (dates) column, low < high."""
    if raw is None:
        return None
    if kind not in ("continuous", "integer", "datetime"):
        raise ConfigError(
            f"{here}: bounds apply to continuous, integer and datetime columns; kind is {kind!r}"
        )
    pair = list(raw) if isinstance(raw, Sequence) and not isinstance(raw, (str, bytes)) else None
    if pair is None or len(pair) != 2:
        raise ConfigError(f"{here}: bounds must be [low, high]; got {raw!r}")
    if kind == "datetime":
        import pandas as pd

        try:
            low, high = (pd.Timestamp(str(v)) for v in pair)
        except (ValueError, TypeError):
            raise ConfigError(f"{here}: datetime bounds must be two dates [low, high]; got {raw!r}") from None
        if not low < high:
            raise ConfigError(f"{here}: bounds must have low < high; got {raw!r}")
        return (str(pair[0]), str(pair[1]))
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair)
    if not numbers or not all(math.isfinite(float(v)) for v in pair) or not float(pair[0]) < float(pair[1]):
        raise ConfigError(
            f"{here}: bounds must be two finite numbers [low, high] with low < high; got {raw!r}"
        )
    return (pair[0], pair[1])


def _parse_domain(raw: Any, kind: str, here: str) -> tuple[str, ...] | None:
    """``domain: [level, ...]`` of a categorical or ordinal column: distinct labels, at least one."""
    if raw is None:
        return None
    if kind not in CATEGORICAL_KINDS:
        raise ConfigError(f"{here}: domain applies to categorical and ordinal columns; kind is {kind!r}")
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)) or not raw:
        raise ConfigError(f"{here}: domain must be a non-empty list of levels; got {raw!r}")
    levels = tuple(str(v) for v in raw)
    if len(set(levels)) != len(levels):
        dupes = sorted({v for v in levels if levels.count(v) > 1})
        raise ConfigError(f"{here}: domain lists {', '.join(map(repr, dupes))} more than once")
    return levels
