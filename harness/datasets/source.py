"""The ``source`` block of a dataset YAML: where a table comes from and how to read it.

:func:`parse_source` validates the free-form ``DatasetSpec.source`` mapping into a frozen
:class:`SourceConfig`; unknown keys and bad values raise a one-line :class:`ConfigError`
naming the key. The schema is documented in :mod:`harness.datasets.loader` and in
``DATASETS.md`` ("Adding your own data").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.errors import ConfigError
from harness.spec import SOURCE_KINDS

FORMATS: tuple[str, ...] = ("csv", "parquet")
ROLES: tuple[str, ...] = ("data", "train", "test")
HEADER_MODES: tuple[object, ...] = (True, False, "replace")

_FILE_KEYS = ("path", "role", "skiprows")
_READ_KEYS = (
    "files", "path", "format", "header", "names", "sep", "quotechar", "comment",
    "skipinitialspace", "encoding", "na_values", "keep_default_na", "strip_suffix",
    "drop", "rename", "test_index",
)  # fmt: skip
_SIMULATED_KEYS = ("generator", "params")


@dataclass(frozen=True)
class FileEntry:
    """One input file: its path, its role in the predefined split and lines to skip."""

    path: str
    role: str = "data"
    skiprows: int = 0


@dataclass(frozen=True)
class TestIndexRef:
    """A JSON file of 0-based row positions (of the concatenated table) that form the test split."""

    path: str
    key: str | None = None


@dataclass(frozen=True)
class SourceConfig:
    """Validated ``source`` block (see the module docstring of :mod:`harness.datasets.loader`)."""

    kind: str
    files: tuple[FileEntry, ...] = ()
    format: str | None = None
    header: bool | str = True
    names: tuple[str, ...] | None = None
    sep: str = ","
    quotechar: str = '"'
    comment: str | None = None
    skipinitialspace: bool = False
    encoding: str = "utf-8-sig"
    na_values: tuple[str, ...] = ()
    column_na_values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    keep_default_na: bool = True
    strip_suffix: Mapping[str, str] = field(default_factory=dict)
    drop: tuple[str, ...] = ()
    rename: Mapping[str, str] = field(default_factory=dict)
    test_index: TestIndexRef | None = None
    generator: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


def parse_source(raw: Mapping[str, Any] | None, *, where: str) -> SourceConfig:
    """Validate a ``source`` mapping.

    Parameters
    ----------
    raw : mapping or None
        ``DatasetSpec.source``.
    where : str
        Prefix of error messages, e.g. ``"dataset 'adult'"``.

    Returns
    -------
    SourceConfig

    Raises
    ------
    ConfigError
        If a key is unknown, missing or has a wrong value; the message names ``source.<key>``.
    """
    src = _mapping(raw, f"{where}: source")
    kind = src.get("kind")
    if kind not in SOURCE_KINDS:
        raise ConfigError(f"{where}: source.kind must be one of {', '.join(SOURCE_KINDS)}; got {kind!r}")
    allowed = ("kind", *(_SIMULATED_KEYS if kind == "simulated" else _READ_KEYS))
    unknown = sorted(set(src) - set(allowed))
    if unknown:
        raise ConfigError(
            f"{where}: unknown source key(s) {', '.join(unknown)} for kind {kind!r}; "
            f"expected some of: {', '.join(allowed)}"
        )
    if kind == "simulated":
        generator = src.get("generator")
        if not isinstance(generator, str) or not generator:
            raise ConfigError(f"{where}: source.generator must be a generator name; got {generator!r}")
        params = _mapping(src.get("params"), f"{where}: source.params")
        return SourceConfig(kind=kind, generator=generator, params=params)
    if src.get("names") is not None and src.get("header", True) is True:
        raise ConfigError(
            f"{where}: source.names needs header: false or replace (with header: true the file's header names "
            "the columns); got header: true"
        )
    return SourceConfig(
        kind=kind,
        files=_files(src, where),
        format=_choice(src.get("format"), (None, *FORMATS), f"{where}: source.format"),
        header=_header(src.get("header", True), where),
        names=_opt_names(src.get("names"), f"{where}: source.names"),
        sep=_text(src.get("sep", ","), f"{where}: source.sep"),
        quotechar=_text(src.get("quotechar", '"'), f"{where}: source.quotechar"),
        comment=_opt_text(src.get("comment"), f"{where}: source.comment"),
        skipinitialspace=_bool(src.get("skipinitialspace", False), f"{where}: source.skipinitialspace"),
        encoding=_text(src.get("encoding", "utf-8-sig"), f"{where}: source.encoding"),
        na_values=_na_list(src.get("na_values"), where),
        column_na_values=_na_columns(src.get("na_values"), where),
        keep_default_na=_bool(src.get("keep_default_na", True), f"{where}: source.keep_default_na"),
        strip_suffix=_str_map(src.get("strip_suffix"), f"{where}: source.strip_suffix"),
        drop=_opt_names(src.get("drop"), f"{where}: source.drop") or (),
        rename=_str_map(src.get("rename"), f"{where}: source.rename"),
        test_index=_test_index(src.get("test_index"), where),
    )


# ---------------------------------------------------------------------- helpers
def _mapping(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) and not hasattr(value, "items"):
        raise ConfigError(f"{where} must be a mapping; got {value!r}")
    return {str(k): v for k, v in value.items()}


def _files(src: Mapping[str, Any], where: str) -> tuple[FileEntry, ...]:
    if ("files" in src) == ("path" in src):
        raise ConfigError(
            f"{where}: source needs exactly one of 'path' (one file) or 'files' (a list of "
            f"{{path, role, skiprows}}); got {sorted(k for k in ('files', 'path') if k in src) or 'neither'}"
        )
    items = [{"path": src["path"]}] if "path" in src else src["files"]
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)) or not items:
        raise ConfigError(f"{where}: source.files must be a non-empty list of {{path, role}}; got {items!r}")
    out = []
    for i, item in enumerate(items):
        key = f"{where}: source.files[{i}]"
        entry = {"path": item} if isinstance(item, str) else _mapping(item, key)
        unknown = sorted(set(entry) - set(_FILE_KEYS))
        if unknown:
            raise ConfigError(
                f"{key}: unknown key(s) {', '.join(unknown)}; expected some of: path, role, skiprows"
            )
        path = entry.get("path")
        if not isinstance(path, str) or not path:
            raise ConfigError(f"{key}.path must be a file path; got {path!r}")
        role = _choice(entry.get("role", "data"), ROLES, f"{key}.role")
        skiprows = entry.get("skiprows", 0)
        if not isinstance(skiprows, int) or isinstance(skiprows, bool) or skiprows < 0:
            raise ConfigError(f"{key}.skiprows must be an integer >= 0; got {skiprows!r}")
        out.append(FileEntry(path=path, role=str(role), skiprows=skiprows))
    return tuple(out)


def _choice(value: Any, choices: tuple[Any, ...], where: str) -> Any:
    if value not in choices:
        shown = ", ".join(str(c) for c in choices if c is not None)
        raise ConfigError(f"{where} must be one of {shown}; got {value!r}")
    return value


def _header(value: Any, where: str) -> bool | str:
    if isinstance(value, bool) or value == "replace":
        return value
    raise ConfigError(f"{where}: source.header must be true, false or replace; got {value!r}")


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false; got {value!r}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where} must be a non-empty string; got {value!r}")
    return value


def _opt_text(value: Any, where: str) -> str | None:
    return None if value is None else _text(value, where)


def _opt_names(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(f"{where} must be a list of column names; got {value!r}")
    return tuple(str(v) for v in value)


def _str_map(value: Any, where: str) -> dict[str, str]:
    mapping = _mapping(value, where)
    for key, val in mapping.items():
        if not isinstance(val, str):
            raise ConfigError(f"{where}.{key} must be a string; got {val!r}")
    return mapping


def _na_list(value: Any, where: str) -> tuple[str, ...]:
    if value is None or isinstance(value, Mapping) or hasattr(value, "items"):
        return ()
    if isinstance(value, (str, int, float)):
        return (str(value),)
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    raise ConfigError(
        f"{where}: source.na_values must be a list or a mapping {{column: list}}; got {value!r}"
    )


def _na_columns(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    if not (isinstance(value, Mapping) or hasattr(value, "items")):
        return {}
    out = {}
    for col, codes in _mapping(value, f"{where}: source.na_values").items():
        codes = codes if isinstance(codes, (list, tuple)) else [codes]
        out[col] = tuple(str(c) for c in codes)
    return out


def _test_index(value: Any, where: str) -> TestIndexRef | None:
    if value is None:
        return None
    if isinstance(value, str):
        return TestIndexRef(path=value)
    entry = _mapping(value, f"{where}: source.test_index")
    unknown = sorted(set(entry) - {"path", "key"})
    if unknown:
        raise ConfigError(
            f"{where}: source.test_index has unknown key(s) {', '.join(unknown)}; expected path, key"
        )
    path = entry.get("path")
    if not isinstance(path, str) or not path:
        raise ConfigError(f"{where}: source.test_index.path must be a file path; got {path!r}")
    key = entry.get("key")
    return TestIndexRef(path=path, key=None if key is None else str(key))
