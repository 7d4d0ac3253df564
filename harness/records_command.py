"""``privbench records RUN_DIR``: the owner's private look-up of a run's exposed records.

Shareable outputs name a membership-inference target only by its keyed reference
(:mod:`harness.record_keys`). This command, run by the key's owner, reloads each dataset the
run used (from the job's saved configuration), computes the reference of every row of it and
writes ``RUN_DIR/private/exposed_records.csv``: per target and trial the row's number in the
dataset as loaded (0-based, before any ``data.max_rows`` sample), its group, its exposure
(per-record AUC of ``mia_audit``, privacy gain of ``mia_privacy_gain``) and its values. The
folder is ``0700`` and the file ``0600``; ``private/`` is never read by ``report``, never
copied into a report and ignored by git.
"""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from harness.collect import collect
from harness.datasets import load_dataset
from harness.datasets.loader import load_spec
from harness.errors import ConfigError, DataError
from harness.record_keys import references
from harness.report.audit import parse_details
from harness.spec import DatasetSpec
from harness.storage import atomic_write_bytes

DATASET_NAME = re.compile(r"^dataset:\n(?:  .*\n)*?  name: (.+)$", re.MULTILINE)
PRIVATE = "private"
OUTPUT = "exposed_records.csv"
KEYS = ("dataset", "generator", "split_seed", "fold", "gen_seed")


def add_records_parser(sub: Any) -> None:
    """Add the ``records`` sub-command to the ``privbench`` parser's sub-parsers."""
    records = sub.add_parser(
        "records", help="your private look-up of the records a run's privacy audit names (keyed)"
    )
    records.add_argument("run_dir", type=Path)
    records.add_argument(
        "--rekey",
        action="store_true",
        help="rewrite rows from older versions (public hash, split, values) with keyed references",
    )
    checker = sub.add_parser(
        "leak-check", help="check shareable outputs for real records, membership labels or public hashes"
    )
    checker.add_argument("paths", nargs="+", type=Path, help="run or report folders (or files)")
    checker.add_argument(
        "--data-from",
        type=Path,
        default=None,
        help="run folder whose jobs' datasets are the real data (default: each path itself)",
    )


def records_cli(args: argparse.Namespace) -> int:
    """Write the private look-up file of ``args.run_dir`` (after ``--rekey``); returns 0."""
    if args.rekey:
        from harness.rekey import rekey_run

        count = rekey_run(Path(args.run_dir))
        print(
            f"rekeyed {count.records} record(s) in {count.files} file(s); "
            f"{count.unresolved} not found in the data (named unresolved-<i>)"
        )
    path, found, resolved = write_exposed_records(Path(args.run_dir))
    print(f"{resolved} of {found} named record(s) resolved; private file (mode 0600): {path}")
    return 0


def named_records(rows: pd.DataFrame) -> pd.DataFrame:
    """Every target a run's rows name: trial keys, metric, reference, group and exposure."""
    found: list[dict[str, Any]] = []
    for row in rows[rows["status"] == "ok"].itertuples(index=False):
        details = parse_details(getattr(row, "details", None))
        trial = {k: getattr(row, k, None) for k in KEYS}
        if row.metric == "mia_audit" and row.variant == "auc":
            for record in details.get("records") or []:
                if isinstance(record, dict) and record.get("record"):
                    found.append(
                        {
                            **trial,
                            "metric": "mia_audit",
                            "record": record["record"],
                            "group": record.get("group"),
                            "exposure": record.get("auc"),
                            "exposure_kind": "per-record AUC",
                        }
                    )
        elif row.metric == "mia_privacy_gain" and row.variant == "all":
            for ref, target in (details.get("targets") or {}).items():
                if isinstance(target, dict):
                    found.append(
                        {
                            **trial,
                            "metric": "mia_privacy_gain",
                            "record": ref,
                            "group": target.get("group"),
                            "exposure": target.get("pg_mean"),
                            "exposure_kind": "privacy gain",
                        }
                    )
    return pd.DataFrame.from_records(
        found, columns=[*KEYS, "metric", "record", "group", "exposure", "exposure_kind"]
    )


def write_exposed_records(run_dir: Path) -> tuple[Path, int, int]:
    """Resolve ``run_dir``'s named records and write the private file.

    Returns
    -------
    tuple
        The file's path, the number of named records and how many were found in the data.

    Raises
    ------
    DataError
        When the run has no result rows, names no record, or a dataset's saved configuration
        is missing.
    """
    if not run_dir.is_dir():
        raise DataError(f"{run_dir}: not a run directory")
    named = named_records(collect([run_dir]))
    if named.empty:
        raise DataError(f"{run_dir}: no mia_audit or mia_privacy_gain row names a record (keyed)")
    parts = []
    frames = run_datasets(run_dir)  # every dataset loaded once
    for dataset, group in named.groupby("dataset", sort=True):
        if str(dataset) not in frames:
            raise DataError(f"{run_dir}: no job's .hydra/config.yaml has dataset {dataset!r}")
        frame = frames[str(dataset)]
        position = {ref: i for i, ref in enumerate(references(frame))}
        found = [position.get(str(ref).split("#")[0]) for ref in group["record"]]  # ref#2: a repeat
        rows = pd.Series(found, index=group.index, dtype="Float64")
        values = frame.iloc[rows.dropna().astype(int)].reset_index(drop=True)
        resolved = group[rows.notna()].assign(row=rows.dropna().astype(int).to_numpy()).reset_index(drop=True)
        parts.append(pd.concat([resolved, values.astype("string")], axis=1))
        parts.append(group[rows.isna()].assign(row=pd.NA))
    table = pd.concat(parts, ignore_index=True)
    out = run_dir / PRIVATE / OUTPUT
    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    atomic_write_bytes(out, buffer.getvalue().encode(), private_root=run_dir / PRIVATE)
    return out, len(named), int(table["row"].notna().sum())


def run_datasets(run_dir: Path) -> dict[str, pd.DataFrame]:
    """Every dataset a run used, loaded as its trials loaded it.

    From the jobs' saved ``.hydra/config.yaml`` where there are any; datasets that only the
    result tables name (a collected ``results.parquet``) are loaded from their registered YAML.
    """
    frames: dict[str, pd.DataFrame] = {}
    for config in sorted(Path(run_dir).glob("**/.hydra/config.yaml")):
        text = config.read_text()
        named = DATASET_NAME.search(text)
        if named is not None and named.group(1).strip("'\"") in frames:
            continue  # parsing thousands of job configs is the slow part: one per dataset
        cfg = yaml.safe_load(text) or {}
        block = cfg.get("dataset") or {}
        name = block.get("name")
        if not isinstance(name, str) or name in frames:
            continue
        hydra_file = config.with_name("hydra.yaml")
        hydra = (yaml.safe_load(hydra_file.read_text()) or {}) if hydra_file.is_file() else {}
        base_dir = Path(((hydra.get("hydra") or {}).get("runtime") or {}).get("cwd") or ".")
        frames[name] = load_dataset(DatasetSpec.from_dict(block, name=name), base_dir=base_dir).frame
    for name in sorted(_named_datasets(Path(run_dir)) - set(frames)):
        try:
            spec = load_spec(name)
        except ConfigError:
            continue  # a user's dataset whose YAML is not registered here: only its job configs know it
        frames[name] = load_dataset(spec).frame
    return frames


def _named_datasets(root: Path) -> set[str]:
    """The ``dataset`` values of the result tables under ``root`` (for runs without job configs)."""
    names: set[str] = set()
    files = [root] if root.is_file() else sorted(root.rglob("*.parquet"))
    for path in files:
        if path.suffix != ".parquet" or "private" in path.parts or (path.parent / ".hydra").is_dir():
            continue  # a job's rows: its config named the dataset
        try:
            column = pq.read_table(path, columns=["dataset"]).column("dataset").to_pylist()
        except (KeyError, ValueError, OSError, pa.ArrowInvalid):
            continue
        names |= {str(v) for v in column if v is not None}
    return names


def leak_check_cli(args: argparse.Namespace) -> int:
    """``privbench leak-check``: 0 when nothing disclosing is found, 1 (and the findings) otherwise."""
    from harness.disclosure import RealRecords, scan

    findings = []
    for path in args.paths:
        source = Path(args.data_from or path)
        frames = run_datasets(source if source.is_dir() else source.parent)
        if not frames:
            raise DataError(
                f"{source}: no job's .hydra/config.yaml names a dataset (give --data-from RUN_DIR)"
            )
        for frame in frames.values():
            findings += scan(Path(path), RealRecords(frame))
    for finding in findings:
        print(finding)
    print(f"{len(findings)} finding(s) in {len(args.paths)} path(s)")
    return 1 if findings else 0
