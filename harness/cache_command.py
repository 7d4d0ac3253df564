"""``privbench cache info`` and ``privbench cache clear [--dataset NAME]``.

privbench keeps copies of the real data it is given (issue 29), all private to the user
(folders ``0700``, files ``0600``):

========== ================================================ =============================
part       what                                             where
========== ================================================ =============================
variants   released tables (``identity`` = the real rows)   ``$PRIVBENCH_CACHE_DIR/variants``
trials     completed trials' result rows (resume)           ``$PRIVBENCH_CACHE_DIR/trials``
calibration metric values of the raw-data / new-individuals ``$PRIVBENCH_CACHE_DIR/calibration``
memo       cross-process memo (neighbour graphs, scores)    ``$PRIVBENCH_CACHE_DIR/memo``
tmp        a variant while its fit child writes it          ``$PRIVBENCH_CACHE_DIR/tmp``
datasets   parsed copies of dataset files                   ``$PRIVBENCH_CACHE_DIR/datasets``
                                                            (else ``~/.cache/privbench/datasets``)
========== ================================================ =============================

``$PRIVBENCH_CACHE_DIR`` defaults to ``results/.cache`` under the working directory. numba's
compiled kernels (``~/.cache/privbench/numba``) hold machine code, no data: neither listed nor
cleared here.

``clear`` removes every part; ``clear --dataset NAME`` removes that dataset's variants, trial
rows, calibration entries and parsed tables, and says how many entries it cannot attribute to a
dataset (memo entries; calibration entries and parsed tables written before issue 29).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RUN_PARTS: tuple[str, ...] = ("variants", "trials", "calibration", "memo", "tmp")


@dataclass(frozen=True)
class Part:
    """One cache part: its name and folder."""

    name: str
    folder: Path


def run_cache_root() -> Path:
    """``$PRIVBENCH_CACHE_DIR`` or ``results/.cache`` (as ``runtime.cache_dir`` defaults)."""
    return Path(os.environ.get("PRIVBENCH_CACHE_DIR") or "results/.cache")


def parts() -> list[Part]:
    """Every cache part that can hold a copy of real data."""
    from harness.datasets.table_cache import cache_dir

    root = run_cache_root()
    found = [Part(name, root / name) for name in RUN_PARTS]
    tables = cache_dir()
    if tables is not None:
        found.append(Part("datasets", tables))
    return found


def add_cache_parser(sub: Any) -> None:
    """Add the ``cache`` sub-command to the ``privbench`` parser's sub-parsers."""
    cache = sub.add_parser("cache", help="what privbench keeps of your data, and removing it")
    cache.add_argument("action", choices=("info", "clear"))
    cache.add_argument("--dataset", default=None, help="clear: only this dataset's entries")


def cache_cli(args: argparse.Namespace) -> int:
    """``privbench cache info|clear``; returns 0."""
    if args.action == "info":
        if args.dataset is not None:
            from harness.errors import ConfigError

            raise ConfigError("--dataset applies to `privbench cache clear`; `info` lists every dataset")
        info()
    elif args.dataset is None:
        clear_all()
    else:
        clear_dataset(args.dataset)
    return 0


def info() -> None:
    """Print each part's folder, file count, size and, where known, the datasets in it."""
    for part in parts():
        files = _files(part.folder)
        size = sum(f.stat().st_size for f in files)
        line = f"{part.name:<12} {len(files):>7} files {size / 2**20:>9.1f} MB  {part.folder}"
        datasets = _datasets(part, files)
        if datasets:
            line += "  (" + ", ".join(f"{name} {n}" for name, n in sorted(datasets.items())) + ")"
        print(line)


def clear_all() -> None:
    """Remove every part's folder."""
    for part in parts():
        files = _files(part.folder)
        if part.folder.exists():
            shutil.rmtree(part.folder)
        print(f"cleared {part.name}: {len(files)} files ({part.folder})")


def clear_dataset(name: str) -> None:
    """Remove the entries of dataset ``name``; name what cannot be attributed."""
    removed: dict[str, int] = {}
    unknown: dict[str, int] = {}
    for part in parts():
        files = _files(part.folder)
        owners = _owners(part, files)
        for entry, owner in owners.items():
            if owner == name:
                for file in _entry_files(part, entry):
                    file.unlink(missing_ok=True)
                removed[part.name] = removed.get(part.name, 0) + 1
            elif owner is None:
                unknown[part.name] = unknown.get(part.name, 0) + 1
    shown = ", ".join(f"{part} {n}" for part, n in removed.items()) or "nothing"
    print(f"cleared dataset {name!r}: {shown}")
    if unknown:
        print(
            "not attributable to a dataset (remove them with `privbench cache clear`): "
            + ", ".join(f"{part} {n}" for part, n in unknown.items())
        )


# ---------------------------------------------------------------------- entries and owners
def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []


def _datasets(part: Part, files: list[Path]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for owner in _owners(part, files).values():
        counts[owner or "(unknown)"] = counts.get(owner or "(unknown)", 0) + 1
    return counts if part.name != "tmp" else {}


def _owners(part: Part, files: list[Path]) -> dict[Path, str | None]:
    """Each entry (its main file) and the dataset it belongs to (None: unknown)."""
    owners: dict[Path, str | None] = {}
    if part.name in ("variants", "datasets"):
        for sidecar in (f for f in files if f.suffix == ".json"):
            owners[sidecar] = _json_field(sidecar, "dataset")
        if part.name == "datasets":
            for table in (f for f in files if f.suffix == ".parquet" and not f.with_suffix(".json").exists()):
                owners[table] = None
    elif part.name == "trials":
        for rows in (f for f in files if f.suffix == ".parquet"):
            owners[rows] = _trial_dataset(rows)
    elif part.name == "calibration":
        for entry in files:
            owners[entry] = _json_field(entry, "dataset")
    else:
        for entry in files:
            owners[entry] = None
    return owners


def _entry_files(part: Part, entry: Path) -> list[Path]:
    """The files of one entry: a variant's table, sidecar and artifacts; a parsed table and its
    name; otherwise the file itself."""
    if part.name in ("variants", "datasets"):
        key = entry.name.split(".", 1)[0]
        return [p for p in entry.parent.iterdir() if p.name.split(".", 1)[0] == key]
    return [entry]


def _json_field(path: Path, name: str) -> str | None:
    try:
        value = json.loads(path.read_text()).get(name)
    except (OSError, ValueError, AttributeError):
        return None
    return str(value) if value else None


def _trial_dataset(path: Path) -> str | None:
    import pyarrow.parquet as pq

    try:
        values = set(pq.read_table(path, columns=["dataset"]).column("dataset").to_pylist())
    except Exception:
        return None
    return str(values.pop()) if len(values) == 1 else None


__all__ = ["add_cache_parser", "cache_cli", "clear_all", "clear_dataset", "info", "parts", "run_cache_root"]
