"""``privbench init``: a dataset YAML inferred from a CSV or parquet file.

The file is read exactly as the loader reads it (:func:`harness.datasets.readers.read_table`:
header row, ``,`` separator, pandas' default missing-value strings) and each decision is
printed, one line each. The rules (tracker issue 16):

* **Kinds.** A column whose every present value is a whole number is ``integer``, with one
  exception: at most :data:`MAX_CODE_LEVELS` distinct values make it ``categorical`` (codes
  and flags such as 0/1 or 1-5). Other numbers are ``continuous``; anything else is
  ``categorical``. A text column whose values are all distinct (at least
  :data:`MIN_ID_ROWS` rows), or an id-like name (``id``, ``*_id``, ``index``, ``Unnamed: 0``)
  with all values distinct, is an ``identifier`` (read, then dropped by the loader). A column
  with no value at all goes to ``source.drop``.
* **Categories.** Categorical columns with at most :data:`MAX_DECLARED_CATEGORIES` levels
  declare them (sorted; whole numbers numerically), so the loader rejects other values; larger
  ones are left undeclared.
* **Target** (a suggestion, or ``--target``): the last categorical column with 2 to
  :data:`MAX_TARGET_CLASSES` classes; ``task`` is ``binary`` for two classes, ``multiclass``
  for more, ``regression`` for a numeric ``--target``. None found: no target, task ``none``.
* **QI set** (a suggestion): the columns whose name looks like a quasi-identifier
  (:data:`QI_NAME`: age, sex, gender, zip, postcode, race, marital, education, occupation,
  country, ...); when fewer than :data:`MIN_QI` match, the first other columns of 2 to
  :data:`MAX_QI_LEVELS` distinct values fill it up to :data:`MIN_QI`. The target is never in it.
* **Missing values** are counted per column. Missing cells stay missing (NA) in the loaded
  table; when the target has missing values the YAML sets ``preprocess: {drop_na_target: true}``
  (the loader drops the unlabelled rows only; ``drop_na_rows: true`` would keep complete rows).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from harness.datasets.readers import read_table
from harness.datasets.source import SourceConfig
from harness.errors import ConfigError, DataError

MAX_CODE_LEVELS = 10
"""An all-whole-number column with at most this many distinct values is categorical."""
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
QI_NAME = re.compile(
    r"(^|[^a-z])(age|sex|gender|zip|zipcode|postcode|postal|plz|birth|dob|yob|race|ethnic\w*|"
    r"marital|education|edu|occupation|job|nationality|country|native\w*|region|county|city|"
    r"state|religion|puma|residence)([^a-z]|$)"
)
ID_NAME = re.compile(r"(id|.*[_ .-]id|identifier|index|unnamed: \d+)")
YAML_WORDS = {"y", "n", "yes", "no", "true", "false", "on", "off", "null", "none", "~"}
PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


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
    return read_table(path, path.read_bytes(), SourceConfig(kind="path"), names=())


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
def infer(cells: pd.DataFrame, name: str, *, target: str | None = None) -> Inferred:
    """Infer kinds, categories, target, task and QI set of a table of text cells.

    Parameters
    ----------
    cells : DataFrame
        The table as :func:`read_cells` returns it (rows of several files concatenated).
    name : str
        Dataset name.
    target : str, optional
        The target column (``--target``); default: a suggested one.

    Raises
    ------
    DataError
        If ``target`` is not a column, is an identifier, is empty or has one class.
    """
    given = target
    columns = [_guess(str(col), cells[col]) for col in cells.columns]
    by_name = {c.name: c for c in columns}
    decisions = [f"{len(cells)} rows, {len(columns)} columns"]
    for col in columns:
        decisions.append(f"column {col.name}: {col.kind} ({col.why})")
    target, task, why = _target(cells, columns, target)
    decisions.append(f"target: {target} (task {task}; {why})" if target else f"target: none ({why})")
    qi, qi_why = _qi(columns, target)
    decisions.append(f"QI set 'suggested': {', '.join(qi)} ({qi_why})" if qi else f"QI set: none ({qi_why})")
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
    return Inferred(name, len(cells), columns, target, task, qi, drop_na, decisions, given is not None)


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
        if whole and levels <= MAX_CODE_LEVELS:
            cats = _sorted_levels(present)
            why = f"whole numbers, {levels} distinct values <= {MAX_CODE_LEVELS}: codes"
            return ColumnGuess(name, "categorical", levels, missing, cats, why)
        kind = "integer" if whole else "continuous"
        return ColumnGuess(name, kind, levels, missing, why=f"{'whole' if whole else 'real'} numbers")
    if all_distinct and len(present) >= MIN_ID_ROWS:
        return ColumnGuess(name, "identifier", levels, missing, why="text, every value distinct")
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
    for col in reversed(columns):
        if col.kind == "categorical" and 2 <= col.levels <= MAX_TARGET_CLASSES:
            task = "binary" if col.levels == 2 else "multiclass"
            return (
                col.name,
                task,
                f"SUGGESTED: last column with 2-{MAX_TARGET_CLASSES} classes; --target to change",
            )
    return None, "none", f"no categorical column with 2-{MAX_TARGET_CLASSES} classes; --target to set one"


def _qi(columns: Sequence[ColumnGuess], target: str | None) -> tuple[list[str], str]:
    usable = [c for c in columns if c.kind in ("integer", "continuous", "categorical") and c.name != target]
    named = [c.name for c in usable if QI_NAME.search(c.name.lower().replace("_", " "))]
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


# ---------------------------------------------------------------------- YAML
def render_yaml(inferred: Inferred, files: Sequence[dict[str, str]], *, command: str) -> str:
    """The dataset YAML text, suggestions marked ``SUGGESTED`` in comments.

    Parameters
    ----------
    inferred : Inferred
    files : sequence of dict
        ``source.files`` entries (``path`` and optionally ``role``).
    command : str
        The command that wrote it (first comment line).
    """
    lines = [
        f"# Written by `{command}`: column kinds inferred from the data (harness/dataset_init.py",
        "# documents the rules). Lines marked SUGGESTED are guesses: check them before you publish.",
        f"name: {_q(inferred.name)}",
        f"description: {_q(f'{inferred.n_rows} rows, inferred by privbench init')}",
        "source:",
        "  kind: path",
        "  files:   # relative paths resolve from the directory you run privbench in",
        *[f"    - {_flow(entry)}" for entry in files],
    ]
    dropped = [c.name for c in inferred.columns if c.kind == "drop"]
    if dropped:
        lines.append(f"  drop: {_flow(dropped)}   # columns without any value")
    lines.append("columns:")
    for col in inferred.columns:
        if col.kind == "drop":
            continue
        body = {"kind": col.kind, **({"categories": col.categories} if col.categories else {})}
        lines.append(f"  {_q(col.name)}: {_flow(body) if len(body) > 1 else col.kind}   # {col.why}")
    if inferred.target is not None:
        why = "--target" if inferred.target_given else "SUGGESTED (privbench init --target COL to choose)"
        lines.append(f"target: {_q(inferred.target)}   # {why}")
    lines.append(f"task: {inferred.task}")
    if inferred.qi:
        lines.append("qi_sets:   # SUGGESTED quasi-identifiers: the attacker's background knowledge")
        lines.append(f"  suggested: {_flow(inferred.qi)}")
    if inferred.drop_na_target:
        lines.append("preprocess: {drop_na_target: true}   # the target has missing values: drop those rows")
    return "\n".join(lines) + "\n"


def _q(value: str) -> str:
    if PLAIN.fullmatch(value) and value.lower() not in YAML_WORDS:
        return value
    return json.dumps(value)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_q(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _q(str(value))


def check_yaml(text: str, name: str) -> None:
    """Build the spec from ``text`` and load its data (relative paths from the working directory).

    Raises
    ------
    ConfigError, DataError
        Whatever the loader says about it.
    """
    from harness.datasets import load_dataset
    from harness.spec import DatasetSpec

    spec = DatasetSpec.from_dict(yaml.safe_load(text), name=name)
    load_dataset(spec)


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


def init_dataset(data: Path, out_dir: Path, *, name: str | None = None, target: str | None = None) -> Path:
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
    inferred = infer(read_cells(data), name, target=target)
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
    init.add_argument("--target", default=None, help="target column (default: a suggested one)")


def init_cli(args: argparse.Namespace) -> int:
    """``privbench init``: :func:`init_dataset` with the parsed arguments; returns 0."""
    init_dataset(args.data, args.output, name=args.name, target=args.target)
    return 0
