"""``privbench evaluate``: score existing release files against the real data.

::

    privbench evaluate REAL SYNTH [SYNTH ...] [--holdout H] [--dataset YAML|NAME] [--suite S] [-o OUT]

Built on the ordinary machinery, nothing re-implemented:

1. ``OUT/conf/dataset/<name>.yaml``: the schema (``--dataset``: that dataset's YAML, its read
   options kept, its files replaced; else inferred from REAL and H as ``privbench init`` does,
   :mod:`harness.dataset_init`), with REAL as the training file (role ``train``) and H as the
   predefined test split (role ``test``).
2. ``OUT/conf/generator/<label>.yaml``: one ``fixed_release`` per SYNTH, pinned by its SHA-256
   (the trial cache sees a changed file), ``unseen_categories: keep`` (categories absent from
   the training rows are released as they are and named in the output).
3. One multirun ``privbench run -m`` over those generators (with H: also ``identity`` and
   ``real_holdout`` as references) into ``OUT/run``, with the suite's metrics and the privacy
   calibration (``calib_raw``: the metric on the raw training rows, ``calib_none``: on new
   individuals).
4. ``privbench report`` machinery into ``OUT/report``, and ``OUT/summary.csv``: per release, the
   report's privacy headline, its leakage index and the utility headline.

**Splits.** With ``--holdout``: ``split.kind=predefined``, ``split.control=half_of_test``: all
of REAL trains; H is halved (stratified on the target): one half is the attacker's "new
individuals" (the control rows, which the ``real_holdout`` reference releases), the other half
is the utility test set. So no release — the user's, ``identity`` (REAL itself) or
``real_holdout`` — is ever scored on rows it or its generator saw. Without ``--holdout``, REAL is
split as usual (``split.kind=holdout``): privbench does not know which rows the release was made
from, so its privacy numbers compare the release with the part of REAL it calls training (about
60 %), the "new individuals" reference is rows the release may have seen, and its utility test
rows may have been seen too (optimistic): the summary says so.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from harness.dataset_init import (
    add_role_options,
    check_yaml,
    dataset_name,
    infer,
    is_bundled,
    read_cells,
    render_yaml,
)
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

REFERENCES: tuple[str, ...] = ("identity", "real_holdout")
"""Reference generators run beside the releases when a holdout is given."""
SOURCE_FILE_KEYS: tuple[str, ...] = ("kind", "files", "path", "test_index", "generator", "params")
"""``source`` keys replaced by REAL / H when ``--dataset`` names a YAML (read options stay)."""
MAX_SHOWN = 5


@dataclass(frozen=True)
class Release:
    """One SYNTH file: its generator label (YAML name), path and SHA-256."""

    label: str
    path: Path
    sha256: str


def add_evaluate_parser(sub: Any) -> None:
    """Add the ``evaluate`` sub-command to the ``privbench`` parser's sub-parsers."""
    ev = sub.add_parser("evaluate", help="score existing release files against the real data")
    ev.add_argument("real", type=Path, help="the real data (CSV with a header row, or parquet)")
    ev.add_argument("synth", type=Path, nargs="+", help="release file(s) with REAL's columns")
    ev.add_argument("--holdout", type=Path, default=None, help="real rows the releases never saw")
    ev.add_argument("--dataset", default=None, help="dataset YAML file or name (default: inferred)")
    ev.add_argument("--suite", default="default", help="metric suite (default: default)")
    add_role_options(ev)
    ev.add_argument(
        "-o", "--output", type=Path, default=None, help="output folder (default ./evaluate_<name>)"
    )


def evaluate_cli(args: argparse.Namespace) -> int:
    """``privbench evaluate``: see the module docstring. Returns the run's exit status."""
    real, holdout = args.real, args.holdout
    for path, what in [(real, "REAL"), *([(holdout, "--holdout")] if holdout else [])]:
        if not Path(path).is_file():
            raise DataError(f"{path}: {what} file not found; expected a CSV or parquet table")
    releases = _releases(args.synth)
    files = [{"path": str(real.resolve()), "role": "train"}]
    if holdout is not None:
        files.append({"path": str(holdout.resolve()), "role": "test"})
    roles = {"target": args.target, "qi": args.qi, "sensitive": args.sensitive}
    name, text, decisions = _dataset_yaml(args.dataset, real, holdout, files, roles)
    spec = DatasetSpec.from_dict(yaml.safe_load(text), name=name)
    out = args.output or Path(f"evaluate_{name}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"output folder {out} exists and is not empty; give another -o OUT")
    known = _known_values(spec, [real, *([holdout] if holdout else [])])
    notes = [note for release in releases for note in _check_release(release, spec, known)]
    check_yaml(text, name)
    _write_configs(out / "conf", name, text, releases)
    split = (
        f"split: all {_rows(real)} rows of REAL ({real.name}) train; the {_rows(holdout)} rows of H ({holdout.name}) "
        "are halved: new individuals (control, released by real_holdout) and utility test rows"
        if holdout is not None
        else "split: REAL is split (holdout); the release's training rows are unknown to privbench, so its "
        "privacy numbers compare the release with the part of REAL called training"
    )
    for line in [*decisions, split, *notes]:
        print(line)
    code = _run(out, name, args.suite, releases, holdout is not None)
    run_dir = out / "run"
    if not any(run_dir.rglob("rows.parquet")):
        raise DataError(
            f"evaluate: the run wrote no result rows (exit status {code}); see the messages above"
        )
    held = _held_rows(releases, spec, real, holdout) if holdout is not None else {}
    _report(run_dir, out, _generators(releases, holdout is not None), held)
    return code


# ---------------------------------------------------------------------- inputs
def _releases(paths: list[Path]) -> list[Release]:
    out: list[Release] = []
    for path in paths:
        if not path.is_file():
            raise DataError(f"{path}: release file not found; expected a CSV or parquet table")
        base = "release_" + dataset_name(path, None)
        label, k = base, 1
        while label in {r.label for r in out}:
            k += 1
            label = f"{base}_{k}"
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        out.append(Release(label, path.resolve(), digest))
    return out


def _dataset_yaml(
    dataset: str | None,
    real: Path,
    holdout: Path | None,
    files: list[dict[str, str]],
    roles: dict[str, Any] | None = None,
) -> tuple[str, str, list[str]]:
    """Name, YAML text and printed decisions of the evaluation's dataset.

    ``roles`` holds ``--target``, ``--qi`` and ``--sensitive`` (None: inferred, or the YAML's).
    """
    roles = roles or {}
    if dataset is None:
        name = dataset_name(real, None)
        name = f"{name}_eval" if is_bundled(name) else name
        frames = [read_cells(real)] + ([read_cells(holdout)] if holdout is not None else [])
        if len(frames) > 1 and list(frames[1].columns) != list(frames[0].columns):
            raise DataError(
                f"{holdout}: columns ({', '.join(map(str, frames[1].columns))}) differ from REAL's "
                f"({', '.join(map(str, frames[0].columns))})"
            )
        inferred = infer(
            pd.concat(frames, ignore_index=True), name, target=roles.get("target"), qi=roles.get("qi"),
            sensitive=roles.get("sensitive"),
        )  # fmt: skip
        command = f"privbench evaluate {real}" + (f" --holdout {holdout}" if holdout else "")
        counted = f"REAL {real.name}: {len(frames[0]):,} rows" + (
            f", H {holdout.name}: {len(frames[1]):,} rows" if holdout is not None else ""
        )
        decisions = [
            f"schema inferred from {'both files' if holdout is not None else 'REAL'} ({counted}), "
            f"{len(frames[0].columns)} columns",
            *inferred.decisions[1:],
        ]
        return name, render_yaml(inferred, files, command=command), decisions
    from harness.datasets import load_spec

    path = Path(dataset)
    if dataset.endswith((".yaml", ".yml")) or path.is_file():
        if not path.is_file():
            raise ConfigError(f"--dataset {dataset}: no such YAML file")
        data = yaml.safe_load(path.read_text())
        if not isinstance(data, dict):
            raise ConfigError(f"--dataset {dataset}: expected a dataset YAML mapping")
        spec = DatasetSpec.from_dict(data, name=str(data.get("name") or path.stem))
    else:
        spec = load_spec(dataset)
    mapping = spec.to_dict()
    name = f"{spec.name}_eval" if is_bundled(spec.name) else spec.name
    mapping["name"] = name
    own = {k: v for k, v in mapping["source"].items() if k not in SOURCE_FILE_KEYS}
    mapping["source"] = {"kind": "path", **own, "files": files}
    mapping["hierarchies"] = {}  # bundled hierarchy paths do not resolve from a user dataset
    if roles.get("target") is not None:
        mapping["target"] = roles["target"]
    if roles.get("qi") is not None:
        mapping["qi_sets"] = {"given": list(roles["qi"])}
    if roles.get("sensitive") is not None:
        mapping["sensitive"] = list(roles["sensitive"])
    text = f"# Written by `privbench evaluate --dataset {dataset}`: its schema, REAL and H as files.\n"
    decisions = [f"dataset: the schema of {dataset} (read options kept), REAL and H as its files"]
    return name, text + yaml.safe_dump(mapping, sort_keys=False), decisions


def _known_values(spec: DatasetSpec, paths: list[Path]) -> dict[str, set[str]]:
    """Categorical values seen in REAL and H (text, as read)."""
    frames = [read_cells(p) for p in paths]
    out: dict[str, set[str]] = {}
    for col in spec.categorical_columns:
        out[col] = {str(v) for f in frames if col in f.columns for v in f[col].dropna().unique()}
    return out


def _check_release(release: Release, spec: DatasetSpec, known: dict[str, set[str]]) -> list[str]:
    """Raise if the release lacks a dataset column; notes on extra columns and unseen categories."""
    cells = read_cells(release.path)
    missing = [c for c in spec.table_columns if c not in cells.columns]
    if missing:
        raise DataError(
            f"{release.path}: release lacks column(s) {', '.join(map(repr, missing))} of the real data; "
            f"it has {', '.join(map(str, cells.columns))}"
        )
    notes = []
    extra = [str(c) for c in cells.columns if c not in set(spec.table_columns)]
    if extra:
        notes.append(
            f"note: {release.path.name}: column(s) {', '.join(extra)} are not in the real data: ignored"
        )
    for col, seen in known.items():
        unseen = sorted({str(v) for v in cells[col].dropna().unique()} - seen)
        if unseen:
            shown = ", ".join(map(repr, unseen[:MAX_SHOWN])) + (" ..." if len(unseen) > MAX_SHOWN else "")
            notes.append(
                f"note: {release.path.name}: column {col} holds {len(unseen)} value(s) absent from the real "
                f"data ({shown}): kept as they are (unseen_categories: keep)"
            )
    return notes


def _rows(path: Path) -> str:
    return f"{len(read_cells(path)):,}"


def _row_keys(cells: pd.DataFrame, columns: list[str]) -> set[int]:
    text = cells[columns].astype("string").fillna("\x00NA")
    return set(pd.util.hash_pandas_object(text, index=False).tolist())


def _held_rows(
    releases: list[Release], spec: DatasetSpec, real: Path, holdout: Path
) -> dict[str, tuple[float, float]]:
    """Per release: the share of H's rows it holds verbatim, and REAL's share (chance coincidence).

    H's rows are the utility test rows and the new individuals: a release that holds them
    beyond what REAL does by coincidence (duplicates are common in low-cardinality tables) was
    made from H, and its utility would be scored on rows it contains.
    """
    columns = list(spec.table_columns)
    held = read_cells(holdout)
    keys = pd.util.hash_pandas_object(held[columns].astype("string").fillna("\x00NA"), index=False)
    chance = float(keys.isin(_row_keys(read_cells(real), columns)).mean())
    return {
        r.label: (float(keys.isin(_row_keys(read_cells(r.path), columns)).mean()), chance) for r in releases
    }


# ---------------------------------------------------------------------- run
def _write_configs(conf: Path, name: str, dataset_text: str, releases: list[Release]) -> None:
    (conf / "dataset").mkdir(parents=True, exist_ok=True)
    (conf / "generator").mkdir(parents=True, exist_ok=True)
    (conf / "dataset" / f"{name}.yaml").write_text(dataset_text)
    for release in releases:
        body = {
            "_target_": "generators.fixed_release.FixedRelease",
            "path": str(release.path),
            "unseen_categories": "keep",
            "sep": ",",
            "na_values": None,
            "sha256": release.sha256,
        }
        header = f"# {release.path}, scored by privbench evaluate\n"
        (conf / "generator" / f"{release.label}.yaml").write_text(
            header + yaml.safe_dump(body, sort_keys=False)
        )


def _quoted(value: str) -> str:
    if "'" in value or "\\" in value:
        raise ConfigError(f"path {value!r}: quotes and backslashes are not supported; rename or move it")
    return f"'{value}'"


def _generators(releases: list[Release], has_holdout: bool) -> list[str]:
    """The generator names of the run: the releases as the user named them, then the references."""
    return [r.label for r in releases] + (list(REFERENCES) if has_holdout else [])


def _run(out: Path, name: str, suite: str, releases: list[Release], has_holdout: bool) -> int:
    generators = _generators(releases, has_holdout)
    split = ["split.kind=predefined", "split.control=half_of_test"] if has_holdout else []
    command = [
        sys.executable, "-m", "harness.cli", "run", "-m",
        "--config-dir", str((out / "conf").resolve()),
        f"dataset={name}", f"suite={suite}", f"generator={','.join(generators)}",
        f"name=evaluate_{name}", *split,
        f"hydra.sweep.dir={_quoted(str((out / 'run').resolve()))}",
    ]  # fmt: skip
    print(f"running: privbench {' '.join(command[3:])}", flush=True)
    return subprocess.run(command, env=dict(os.environ), check=False).returncode


def _report(run_dir: Path, out: Path, order: list[str], held: dict[str, tuple[float, float]]) -> None:
    from harness.collect import collect_runs, run_config_text, write_table
    from harness.report import build_report
    from harness.versions import versions

    collection = collect_runs([run_dir])
    for note in collection.notes():
        print(f"note: {note}", file=sys.stderr)
    results = collection.results
    report_dir = out / "report"
    write_table(results, report_dir / "results.parquet")
    datasets = sorted(set(results["dataset"].dropna().astype(str)) - {""})
    title = f"{', '.join(datasets)}: evaluation of the releases" if datasets else "privbench evaluate"
    paths = build_report(
        results, report_dir, title=title, config_text=run_config_text(run_dir), versions=versions()
    )
    summary = summary_table(results, order)
    if held:
        summary = _mark_held_rows(summary, held)
        utility = [c for c in summary.columns if c.startswith("utility: ")]
        if utility:  # a release whose utility was blanked has no utility part or score either
            blanked = summary[utility].isna().all(axis=1)
            summary.loc[blanked, [c for c in ("utility part", "trade-off") if c in summary]] = float("nan")
    summary.to_csv(out / "summary.csv", index=False)
    print(f"report: {paths['report_html']}")
    print(f"        {paths['report_md']}")
    print(f"summary: {out / 'summary.csv'}")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


HELD_MARGIN = 0.05
"""A release holding more of H's rows than REAL does by this share was made from H."""


def _mark_held_rows(summary: pd.DataFrame, held: dict[str, tuple[float, float]]) -> pd.DataFrame:
    """Add ``H rows in release`` and blank the utility of releases that hold the test rows."""
    out = summary.copy()
    out["H rows in release"] = [held.get(label, (float("nan"), 0.0))[0] for label in out["generator"]]
    utility = [c for c in out.columns if c.startswith("utility: ")]
    for i, label in enumerate(out["generator"]):
        share, chance = held.get(label, (0.0, 0.0))
        if share > chance + HELD_MARGIN:
            print(
                f"note: {label} holds {share:.0%} of H's rows verbatim (REAL holds {chance:.0%} by coincidence): "
                "it was made from the rows its utility is tested on, so its utility is not reported",
                file=sys.stderr,
            )
            for column in utility:
                out.loc[out.index[i], column] = float("nan")
    return out


def summary_table(results: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Per generator variant: the privacy headline, its leakage index, the utility headline and the score.

    Rows follow ``order`` (the releases as the user named them, then the references); labels not
    in it follow in the order they were collected, which depends on when each trial finished.

    Every column is the report's (same settings, :func:`harness.report.settings.resolve_settings`):
    the headline privacy output (the one whose calibration separates the raw data from new
    individuals, :mod:`harness.report.power`), its leakage index (0 = rated like new
    individuals, 1 = like the raw training rows; a release beyond new individuals is 0), the
    utility headline, the trade-off score's parts and score on their fixed scales
    (:mod:`harness.report.score`; "privacy part" is NaN where the privacy output has no power)
    and ``reference`` (the report's reference generators).
    """
    from harness.report.calibration import leakage_table
    from harness.report.prepare import prepare
    from harness.report.references import reference_mask, with_floor
    from harness.report.score import fixed_scores
    from harness.report.settings import privacy_axis, resolve_settings

    frame = prepare(results)
    settings = resolve_settings(frame)
    ok = frame[frame["status"] == "ok"]
    collected = list(dict.fromkeys(frame["label"]))
    first = [label for label in order or [] if label in collected]
    labels = first + [label for label in collected if label not in first]
    references = set(frame.loc[reference_mask(frame, settings.reference_names), "label"])
    rows: dict[str, list[Any]] = {"generator": labels, "reference": [label in references for label in labels]}
    leak = leakage_table(frame)
    for role, column in (("privacy", settings.privacy), ("utility", settings.utility)):
        if column is None:
            continue
        means = ok[ok["column"] == column].groupby("label")["value"].mean()
        rows[f"{role}: {column}"] = [means.get(label, float("nan")) for label in labels]
        if role == "privacy" and not leak.empty and column in set(leak.index.get_level_values("column")):
            per_label = leak.xs(column, level="column").mean(axis=0)
            rows["leakage index"] = [per_label.get(label, float("nan")) for label in labels]
    utility = settings.tradeoff_utility or settings.utility
    if settings.privacy is not None and utility is not None:
        scores = fixed_scores(with_floor(frame), privacy=settings.privacy, utility=utility)
        if not scores.empty:
            blind = set(privacy_axis(frame, settings.privacy).unpowered)
            scores.loc[scores["dataset"].isin(blind), ["privacy_part", "score"]] = float("nan")
            means = scores.groupby("label")[["privacy_part", "utility_part", "score"]].mean()
            for name, part in (
                ("privacy part", "privacy_part"),
                ("utility part", "utility_part"),
                ("trade-off", "score"),
            ):
                rows[name] = [means[part].get(label, float("nan")) for label in labels]
    return pd.DataFrame(rows)
