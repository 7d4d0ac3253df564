"""``privbench init``: a dataset YAML inferred from a CSV or parquet file.

The file is read exactly as the loader reads it (:func:`harness.datasets.readers.read_table`:
header row, ``,`` separator, pandas' default missing-value strings) and each decision is
printed, one line each. The rules (tracker issue 16):

* **Kinds.** A column whose every present value is a whole number is ``integer`` (counts and
  amounts stay numeric), except: two distinct values (a flag such as 0/1) make it
  ``categorical``, and at most :data:`MAX_CODE_LEVELS` small values under a rating-like name
  (``EnvironmentSatisfaction``, ``JobLevel``: :mod:`harness.column_roles`) make it ``ordinal``,
  and numbers written with leading zeros (``01001``) are ``categorical`` codes.
  Other small whole-number columns stay ``integer`` and are flagged (CHECK) for the user: an
  ordered scale is ``ordinal``, unordered codes are ``categorical``. Other numbers are
  ``continuous``. Text whose levels all belong to a known ordered scale (Poor < Fair < Good <
  Excellent, Low/Medium/High, ...) is ``ordinal`` in the scale's order; other text is
  ``categorical``. A text column whose values are all distinct (at least :data:`MIN_ID_ROWS`
  rows), or an id-like name (``id``, ``*_id``, ``index``, ``Unnamed: 0``) with all values
  distinct, is an ``identifier`` (read, then dropped by the loader). A column with no value at
  all goes to ``source.drop``. A header naming one column twice is refused.
* **Categories.** Categorical columns with at most :data:`MAX_DECLARED_CATEGORIES` levels
  declare them (sorted; whole numbers numerically; ordinal columns in their order), so the
  loader rejects other values; larger ones are left undeclared.
* **Target** (a suggestion, or ``--target``): a binary column named like an outcome
  (attrition, churn, default, income, target, label, ...), else a column named like an outcome
  with 2 to :data:`MAX_TARGET_CLASSES` classes, else the last binary column, else the last
  categorical column with 2 to :data:`MAX_TARGET_CLASSES` classes; the line says which rule chose
  it and how to change it. ``task`` is ``binary`` for two classes, ``multiclass`` for more,
  ``regression`` for a numeric ``--target``. None found: no target, task ``none``.
* **QI set** (a suggestion, or ``--qi``): the columns whose name reads like a quasi-identifier
  in any spelling (``MaritalStatus``, ``marital_status``; :mod:`harness.column_roles`); when fewer
  than :data:`MIN_QI` match, the first other columns of 2 to :data:`MAX_QI_LEVELS` distinct
  values fill it up to :data:`MIN_QI`. The target is never in it.
* **Sensitive attributes** (a suggestion, or ``--sensitive``): the columns named like what an
  attacker would infer (income, pay, health, religion, ...), QIs excluded.
* **Missing values** are counted per column. Missing cells stay missing (NA) in the loaded
  table; when the target has missing values the YAML sets ``preprocess: {drop_na_target: true}``
  (the loader drops the unlabelled rows only; ``drop_na_rows: true`` would keep complete rows).
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.column_roles import (
    duplicated,
    is_count_name,
    is_outcome_name,
    is_qi_name,
    is_scale_code_name,
    is_sensitive_name,
    scale_order,
)
from harness.dataset_yaml import check_yaml, render_yaml
from harness.datasets.readers import read_table
from harness.datasets.source import SourceConfig
from harness.errors import ConfigError, DataError

MAX_CODE_LEVELS = 10
"""Small whole-number columns (at most this many distinct values) may be scale codes."""
MAX_DECLARED_CATEGORIES = 50
"""Categorical columns with at most this many levels get ``categories`` in the YAML."""
MAX_TARGET_CLASSES = 20
"""A suggested target has 2 to this many classes."""
MIN_ID_ROWS = 20
"""Rows needed before an all-distinct text column counts as an identifier."""
MIN_QI = 3
"""A suggested QI set is filled up to this many columns (when the table has them)."""
MAX_QI_LEVELS = 100
"""Filler QI columns have 2 to this many distinct values (low / medium cardinality)."""
ID_NAME = re.compile(r"(id|.*[_ .-]id|identifier|index|unnamed: \d+)")


@dataclass
class ColumnGuess:
    """What :func:`infer` decided for one file column."""

    name: str
    kind: str  # integer | continuous | categorical | identifier | drop
    levels: int
    missing: int
    categories: list[str] | None = None
    why: str = ""


@dataclass
class Inferred:
    """An inferred dataset: the columns, the suggestions and the printed decisions."""

    name: str
    n_rows: int
    columns: list[ColumnGuess]
    target: str | None
    task: str
    qi: list[str]
    drop_na_target: bool
    decisions: list[str] = field(default_factory=list)
    target_given: bool = False
    sensitive: list[str] = field(default_factory=list)
    qi_given: bool = False
    sensitive_given: bool = False


# ---------------------------------------------------------------------- reading
def read_cells(path: Path) -> pd.DataFrame:
    """The file's cells as the loader reads them (text, missing = NaN).

    Raises
    ------
    DataError
        If the file is missing, not a regular file or not a table.
    """
    if not path.exists():
        raise DataError(f"{path}: file not found; expected a CSV or parquet table")
    if not path.is_file():
        raise DataError(f"{path}: not a regular file; expected a CSV or parquet table")
    data = path.read_bytes()
    twice = duplicated(_header(path, data))
    if twice:
        raise DataError(
            f"{path}: the header names column(s) {', '.join(map(repr, twice))} more than once; "
            "expected one name per column (rename the duplicates)"
        )
    return read_table(path, data, SourceConfig(kind="path"), names=())


def _header(path: Path, data: bytes) -> list[str]:
    """The names of a CSV file's header row as written (pandas renames duplicates ``X.1``)."""
    import csv
    import gzip
    import io

    if path.suffix == ".parquet" or data[:4] == b"PAR1":
        return []
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except OSError:
            return []
    first = data.split(b"\n", 1)[0].decode("utf-8-sig", errors="replace").rstrip("\r")
    return [name.strip() for name in next(csv.reader(io.StringIO(first)), [])]


def dataset_name(path: Path, name: str | None) -> str:
    """``name`` or the file's stem (``.gz`` and the format suffix removed), sanitised.

    Raises
    ------
    ConfigError
        If nothing usable is left.
    """
    raw = name if name is not None else path.name.removesuffix(".gz").rsplit(".", 1)[0]
    clean = re.sub(r"[^a-z0-9_]+", "_", raw.lower()).strip("_")
    if clean and clean[0].isdigit():
        clean = f"d_{clean}"
    if not clean:
        raise ConfigError(f"dataset name {raw!r} has no letters or digits; give --name NAME")
    return clean


# ---------------------------------------------------------------------- inference
def infer(
    cells: pd.DataFrame,
    name: str,
    *,
    target: str | None = None,
    qi: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
) -> Inferred:
    """Infer kinds, categories, target, task and QI set of a table of text cells.

    Parameters
    ----------
    cells : DataFrame
        The table as :func:`read_cells` returns it (rows of several files concatenated).
    name : str
        Dataset name.
    target : str, optional
        The target column (``--target``); default: a suggested one.
    qi, sensitive : sequence of str, optional
        The QI set (``--qi``) and sensitive attributes (``--sensitive``); default: suggested.

    Raises
    ------
    DataError
        If ``target`` is not a column, is an identifier, is empty or has one class; if a ``qi`` or
        ``sensitive`` name is not a usable column.
    """
    given = target
    columns = [_guess(str(col), cells[col]) for col in cells.columns]
    by_name = {c.name: c for c in columns}
    decisions = [f"{len(cells)} rows, {len(columns)} columns"]
    for col in columns:
        decisions.append(f"column {col.name}: {col.kind} ({col.why})")
    target, task, why = _target(cells, columns, target)
    decisions.append(f"target: {target} (task {task}; {why})" if target else f"target: none ({why})")
    chosen_qi = _named(qi, columns, "--qi") if qi is not None else None
    if chosen_qi is not None:
        qi_set, qi_why = chosen_qi, "--qi"
    else:
        qi_set, qi_why = _qi(columns, target)
    decisions.append(
        f"QI set 'suggested': {', '.join(qi_set)} ({qi_why})" if qi_set else f"QI set: none ({qi_why})"
    )
    chosen_sensitive = _named(sensitive, columns, "--sensitive") if sensitive is not None else None
    if chosen_sensitive is not None:
        sensitive_set, sensitive_why = chosen_sensitive, "--sensitive"
    else:
        sensitive_set = [
            c.name for c in columns if c.kind not in ("identifier", "drop") and c.name not in qi_set
            and is_sensitive_name(c.name)
        ]  # fmt: skip
        sensitive_why = "SUGGESTED: named like what an attacker would infer; --sensitive to choose"
    decisions.append(
        f"sensitive: {', '.join(sensitive_set)} ({sensitive_why})"
        if sensitive_set
        else "sensitive: none suggested (no column named like income, health, religion, ...; --sensitive to set)"
    )
    for col in columns:
        if col.missing:
            decisions.append(f"missing: {col.name}: {col.missing} of {len(cells)} values")
    if not any(c.missing for c in columns):
        decisions.append("missing: no missing values")
    target_missing = by_name[target].missing if target is not None else 0
    drop_na = target_missing > 0
    if drop_na:
        decisions.append(
            f"target {target} has {target_missing} missing value(s): preprocess.drop_na_target=true "
            f"drops those rows, keeping {len(cells) - target_missing}"
        )
    elif any(c.missing for c in columns):
        decisions.append(
            "missing cells stay missing (NA); preprocess.drop_na_rows=true would keep complete rows"
        )
    return Inferred(
        name, len(cells), columns, target, task, qi_set, drop_na, decisions, given is not None,
        sensitive_set, qi is not None, sensitive is not None,
    )  # fmt: skip


def _named(names: Sequence[str], columns: Sequence[ColumnGuess], option: str) -> list[str]:
    usable = {c.name for c in columns if c.kind not in ("identifier", "drop")}
    for name in names:
        if name not in usable:
            raise DataError(
                f"{option} {name!r} is not a usable column; expected some of: {', '.join(sorted(usable))}"
            )
    return list(dict.fromkeys(names))


def _guess(name: str, values: pd.Series) -> ColumnGuess:
    present = values.dropna().astype(str).str.strip()
    missing = int(len(values) - len(present))
    levels = int(present.nunique())
    if not len(present):
        return ColumnGuess(name, "drop", 0, missing, why="no values: listed in source.drop")
    numbers = pd.to_numeric(present, errors="coerce")
    all_distinct = levels == len(present)
    if ID_NAME.fullmatch(name.lower()) and all_distinct and len(present) >= 2:
        return ColumnGuess(name, "identifier", levels, missing, why="id-like name, all values distinct")
    if numbers.notna().all():
        whole = bool((numbers % 1 == 0).all())
        if present.str.fullmatch(r"[+-]?0\d+").any():
            declared = _sorted_levels(present) if levels <= MAX_DECLARED_CATEGORIES else None
            return ColumnGuess(
                name, "categorical", levels, missing, declared, "numbers with leading zeros: codes"
            )
        if whole and levels == 2:
            return ColumnGuess(
                name,
                "categorical",
                levels,
                missing,
                _sorted_levels(present),
                "whole numbers, 2 values: a flag",
            )
        if whole and levels <= MAX_CODE_LEVELS:
            span = f"{int(numbers.min())}-{int(numbers.max())}"
            if is_scale_code_name(name):
                why = f"whole numbers {span}, named like a rating: ordered codes"
                return ColumnGuess(name, "ordinal", levels, missing, _sorted_levels(present), why)
            if is_count_name(name):
                return ColumnGuess(
                    name, "integer", levels, missing, why=f"whole numbers {span}, named like a count"
                )
            why = (
                f"whole numbers {span} ({levels} values): kept numeric; CHECK: an ordered scale is kind "
                "ordinal, unordered codes are kind categorical"
            )
            return ColumnGuess(name, "integer", levels, missing, why=why)
        kind = "integer" if whole else "continuous"
        return ColumnGuess(name, kind, levels, missing, why=f"{'whole' if whole else 'real'} numbers")
    if all_distinct and len(present) >= MIN_ID_ROWS:
        return ColumnGuess(name, "identifier", levels, missing, why="text, every value distinct")
    ordered = scale_order(present.unique())
    if ordered is not None:
        why = f"text, {levels} levels of an ordered scale: {' < '.join(ordered)}"
        return ColumnGuess(name, "ordinal", levels, missing, ordered, why)
    declared = _sorted_levels(present) if levels <= MAX_DECLARED_CATEGORIES else None
    return ColumnGuess(name, "categorical", levels, missing, declared, f"text, {levels} levels")


def _sorted_levels(present: pd.Series) -> list[str]:
    labels = sorted(present.unique())
    numbers = pd.to_numeric(pd.Series(labels), errors="coerce")
    if numbers.notna().all():
        return [label for _, label in sorted(zip(numbers, labels))]
    return labels


def _target(
    cells: pd.DataFrame, columns: Sequence[ColumnGuess], given: str | None
) -> tuple[str | None, str, str]:
    by_name = {c.name: c for c in columns}
    if given is not None:
        col = by_name.get(given)
        if col is None:
            raise DataError(f"--target {given!r} is not a column; expected one of: {', '.join(by_name)}")
        if col.kind in ("identifier", "drop"):
            raise DataError(
                f"--target {given!r} is {'an identifier' if col.kind == 'identifier' else 'empty'}"
            )
        if col.kind in ("integer", "continuous"):
            return given, "regression", "--target, numeric"
        if col.levels < 2:
            raise DataError(f"--target {given!r} has a single class; a target needs at least two")
        return given, "binary" if col.levels == 2 else "multiclass", f"--target, {col.levels} classes"
    classes = [
        c for c in columns if c.kind in ("categorical", "ordinal") and 2 <= c.levels <= MAX_TARGET_CLASSES
    ]
    rules: tuple[tuple[str, Any], ...] = (
        ("the last binary column named like an outcome", lambda c: c.levels == 2 and is_outcome_name(c.name)),
        (
            f"the last column named like an outcome, {MAX_TARGET_CLASSES} classes at most",
            lambda c: is_outcome_name(c.name),
        ),
        (
            "the last binary column named like a status or flag",
            lambda c: c.levels == 2 and is_outcome_name(c.name, weak=True),
        ),
        ("the last binary column", lambda c: c.levels == 2),
        (f"the last column with 2-{MAX_TARGET_CLASSES} classes", lambda c: True),
    )
    for rule, accepts in rules:
        chosen = [c for c in classes if accepts(c)]
        if chosen:
            col = chosen[-1]
            task = "binary" if col.levels == 2 else "multiclass"
            return col.name, task, f"SUGGESTED: {rule}, {col.levels} classes; --target COL to choose another"
    return None, "none", f"no categorical column with 2-{MAX_TARGET_CLASSES} classes; --target to set one"


def _qi(columns: Sequence[ColumnGuess], target: str | None) -> tuple[list[str], str]:
    usable = [
        c
        for c in columns
        if c.kind in ("integer", "continuous", "categorical", "ordinal") and c.name != target
    ]
    named = [c.name for c in usable if is_qi_name(c.name)]
    qi = list(named)
    for col in usable:
        if len(qi) >= MIN_QI:
            break
        if col.name not in qi and 2 <= col.levels <= MAX_QI_LEVELS:
            qi.append(col.name)
    why = "SUGGESTED: " + (f"QI-like names ({', '.join(named)})" if named else "no QI-like names")
    if len(qi) > len(named):
        why += f", filled with columns of 2-{MAX_QI_LEVELS} values"
    return qi, why


# ---------------------------------------------------------------------- command


def is_bundled(name: str) -> bool:
    """True when ``experiments/dataset/<name>.yaml`` is a bundled dataset."""
    from harness.registry import CONFIG_ROOT

    return (CONFIG_ROOT / "dataset" / f"{name}.yaml").is_file()


def source_path(path: Path) -> str:
    """``path`` relative to the working directory (where privbench resolves ``kind: path``)."""
    try:
        return os.path.relpath(path.resolve(), Path.cwd())
    except ValueError:  # another drive (Windows)
        return str(path.resolve())


def init_dataset(
    data: Path,
    out_dir: Path,
    *,
    name: str | None = None,
    target: str | None = None,
    qi: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
) -> Path:
    """Write ``out_dir/dataset/<name>.yaml`` for ``data`` and print every decision.

    Returns
    -------
    Path
        The YAML written.

    Raises
    ------
    ConfigError
        If the YAML exists already, or the name is a bundled dataset's.
    DataError
        If the file cannot be read as a table or ``target`` is unusable.
    """
    name = dataset_name(data, name)
    out = out_dir / "dataset" / f"{name}.yaml"
    if out.exists():
        raise ConfigError(f"{out} exists; not overwritten (remove it, or give --name NAME or -o DIR)")
    if is_bundled(name):
        raise ConfigError(f"dataset name {name!r} is a bundled dataset's; give another with --name NAME")
    inferred = infer(read_cells(data), name, target=target, qi=qi, sensitive=sensitive)
    text = render_yaml(inferred, [{"path": source_path(data)}], command=f"privbench init {data}")
    check_yaml(text, name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    for line in inferred.decisions:
        print(line)
    print(f"wrote {out}")
    print(f"run it: privbench run --config-dir {out_dir} dataset={name} generator=independent_marginals")
    return out


def add_init_parser(sub: Any) -> None:
    """Add the ``init`` sub-command to the ``privbench`` parser's sub-parsers."""
    init = sub.add_parser("init", help="write a dataset YAML inferred from a CSV or parquet file")
    init.add_argument("data", type=Path, help="the CSV (header row) or parquet file")
    init.add_argument(
        "-o", "--output", type=Path, default=Path("conf"), help="config folder (default ./conf)"
    )
    init.add_argument("--name", default=None, help="dataset name (default: the file's stem)")
    add_role_options(init)


def add_role_options(parser: Any) -> None:
    """``--target``, ``--qi`` and ``--sensitive`` (``init`` and ``evaluate``)."""
    parser.add_argument("--target", default=None, help="target column (default: a suggested one)")
    parser.add_argument(
        "--qi",
        default=None,
        type=_names,
        help="comma-separated quasi-identifier columns (default: suggested)",
    )
    parser.add_argument(
        "--sensitive",
        default=None,
        type=_names,
        help="comma-separated sensitive columns (default: suggested)",
    )


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected comma-separated column names")
    return names


def init_cli(args: argparse.Namespace) -> int:
    """``privbench init``: :func:`init_dataset` with the parsed arguments; returns 0."""
    init_dataset(
        args.data, args.output, name=args.name, target=args.target, qi=args.qi, sensitive=args.sensitive
    )
    return 0


__all__ = [
    "ColumnGuess",
    "Inferred",
    "add_init_parser",
    "add_role_options",
    "check_yaml",
    "dataset_name",
    "infer",
    "init_cli",
    "init_dataset",
    "read_cells",
    "render_yaml",
]
