"""``privbench reproduction-report``: ``results/reproductions/REPRODUCTION.md`` from real runs.

For every reproduction experiment the newest run of each profile that holds
``reproduction/checks.json`` is taken (or the run directories given on the command line).
Its checks, tables and figures are copied to ``<out>/<experiment>/<profile>/`` and the
document lists, per published number, the paper's value, ours and the verdict (with the
reason when it differs), the run's cost and machine, and — for a paper profile that was
not run — how many trials it holds and what the quick run's trials cost.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, DataError
from harness.reproduction.checks import VERDICTS, Check
from harness.reproduction.plan import load_plan, reproduction_names
from harness.reproduction.runner import CHECKS_FILE, RUNS_DIR, count_jobs
from harness.storage import atomic_write_bytes, atomic_write_json

DOCUMENT = "REPRODUCTION.md"
PROFILE_ORDER = ("protocol", "paper", "quick")
COPIED = (".md", ".csv", ".png")  # PDFs stay in the run directory (the committed copy stays small)
REGENERATE = "privbench reproduce --all --profile quick && privbench reproduction-report"


@dataclass(frozen=True)
class RunChecks:
    """The ``checks.json`` of one reproduction run."""

    run_dir: Path
    data: dict[str, Any]
    committed: Path | None = None
    """Set when the run is only known from an earlier report's copy (``<out>/<experiment>/<profile>``)."""

    @property
    def experiment(self) -> str:
        return str(self.data["experiment"])

    @property
    def profile(self) -> str:
        return str(self.data["profile"])

    @property
    def checks(self) -> list[Check]:
        return [Check.from_dict(c) for c in self.data.get("checks", [])]

    def verdicts(self) -> dict[str, int]:
        """Count of checks per verdict."""
        counts = dict.fromkeys(VERDICTS, 0)
        for check in self.checks:
            counts[check.verdict] += 1
        return counts


def read_run(run_dir: Path) -> RunChecks:
    """Read ``run_dir/reproduction/checks.json``; raise :class:`DataError` if absent or unreadable."""
    path = Path(run_dir) / "reproduction" / CHECKS_FILE
    if not path.is_file():
        raise DataError(f"{run_dir}: no reproduction/{CHECKS_FILE}; expected a run of `privbench reproduce`")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or "experiment" not in data or "checks" not in data:
        raise DataError(f"{path}: expected an object with 'experiment' and 'checks'")
    return RunChecks(Path(run_dir), data)


def newest_runs(results_dir: Path, experiments: Sequence[str]) -> list[RunChecks]:
    """The newest evaluated run of each (experiment, profile) under ``results_dir``.

    Looks at timestamped runs (``<results>/<experiment>/<timestamp>``) and at the persisted runs
    of ``persist: true`` profiles (``<results>/reproductions/runs/<experiment>/<profile>``); of
    several runs of one profile, the one evaluated last wins.
    """
    found: dict[tuple[str, str], RunChecks] = {}
    for experiment in experiments:
        candidates = [
            *sorted((Path(results_dir) / experiment).glob(f"*/reproduction/{CHECKS_FILE}")),
            *sorted((Path(results_dir) / RUNS_DIR / experiment).glob(f"*/reproduction/{CHECKS_FILE}")),
        ]
        for path in candidates:
            run = read_run(path.parent.parent)
            key = (run.experiment, run.profile)
            if key not in found or str(run.data.get("evaluated", "")) >= str(
                found[key].data.get("evaluated", "")
            ):
                found[key] = run
    return list(found.values())


def committed_runs(
    out_dir: Path, experiments: Sequence[str], present: Sequence[RunChecks]
) -> list[RunChecks]:
    """Runs of an earlier document kept where this machine has no newer run of the same profile.

    A reproduction run lives in an ignored ``results/<experiment>/<timestamp>/`` directory; only
    its checks, tables and figures are committed under ``<out>/<experiment>/<profile>/``. A
    long protocol run made in an earlier session (or on a cluster) is therefore kept from that
    copy, unchanged and labelled as such, instead of disappearing from the regenerated document.
    """
    have = {(r.experiment, r.profile) for r in present}
    kept: list[RunChecks] = []
    for experiment in experiments:
        for path in sorted((Path(out_dir) / experiment).glob(f"*/{CHECKS_FILE}")):
            try:
                data = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                continue
            if not isinstance(data, dict) or (data.get("experiment"), data.get("profile")) in have:
                continue
            if "experiment" not in data or "checks" not in data:
                continue
            kept.append(RunChecks(Path(str(data.get("run_dir", path.parent))), data, committed=path.parent))
    return kept


def build_document(runs: Sequence[RunChecks], out_dir: Path, *, regenerate: str = REGENERATE) -> Path:
    """Copy each run's outputs under ``out_dir`` and write ``out_dir/REPRODUCTION.md``.

    Parameters
    ----------
    runs : sequence of RunChecks
        The runs to report (at most one per experiment and profile).
    out_dir : Path
        Usually ``results/reproductions``.
    regenerate : str
        The command line shown as the way to regenerate the document.

    Returns
    -------
    Path
        The written document.
    """
    if not runs:
        raise DataError("no reproduction runs found; run `privbench reproduce NAME` first")
    out_dir = Path(out_dir)
    by_experiment: dict[str, dict[str, RunChecks]] = {}
    for run in runs:
        by_experiment.setdefault(run.experiment, {})[run.profile] = run
    order = [n for n in reproduction_names() if n in by_experiment] + sorted(
        n for n in by_experiment if n not in reproduction_names()
    )
    for experiment in order:
        for profile, run in by_experiment[experiment].items():
            _copy_outputs(run, out_dir / experiment / profile)
    lines = _header(regenerate)
    lines += _summary(order, by_experiment)
    for experiment in order:
        lines += _section(experiment, by_experiment[experiment])
    path = out_dir / DOCUMENT
    atomic_write_bytes(path, ("\n".join(lines).rstrip() + "\n").encode())
    return path


def _copy_outputs(run: RunChecks, target: Path) -> None:
    if run.committed is not None:
        if Path(run.committed).resolve() != Path(target).resolve():
            shutil.copytree(run.committed, target, dirs_exist_ok=True)
        return  # kept as committed
    if target.exists():
        shutil.rmtree(target)
    source = run.run_dir / "reproduction"
    for relative in run.data.get("artifacts", []):
        src = source / relative
        if src.is_file() and src.suffix in COPIED:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target / relative)
    data = {**run.data, "run_dir": _display_path(run.run_dir)}
    atomic_write_json(target / CHECKS_FILE, data)


def _header(regenerate: str) -> list[str]:
    return [
        "# Paper reproductions",
        "",
        f"Generated by `privbench reproduction-report` on {datetime.now(UTC).date().isoformat()} from the runs "
        "named in each section; do not edit by hand. Regenerate with:",
        "",
        "```bash",
        regenerate,
        "```",
        "",
        "Every row is one number or statement a paper published (`spec/reproductions.md`), the value our run "
        "produced and the verdict: **exact** (an `exact` check passed: equal at the printed precision), "
        "**same ordering or trend** (a `tolerance` or `trend` check passed) or **differs** (failed or not "
        "reproducible offline; the reason is given). Numbers from the `quick` profile (small data, small grids, "
        "few repetitions — what CI runs) are labelled as such and are not the published protocol; the `paper` "
        "profile runs the protocol and is listed with its size and cost where it was not run here.",
        "",
    ]


def _summary(order: Sequence[str], by_experiment: dict[str, dict[str, RunChecks]]) -> list[str]:
    lines = [
        "## Summary",
        "",
        "| id | experiment | profile | checks | exact | same ordering or trend | differs | trials | run time |",
        "|:---|:---|:---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [(profile, experiment) for experiment in order for profile in _profiles(by_experiment[experiment])]
    rows.sort(key=lambda r: PROFILE_ORDER.index(r[0]) if r[0] in PROFILE_ORDER else len(PROFILE_ORDER))
    for profile, experiment in rows:
        run = by_experiment[experiment][profile]
        counts = run.verdicts()
        cost = run.data.get("cost", {})
        lines.append(
            f"| {run.data.get('id', '')} | [`{experiment}`](#{_anchor(run)}) | {profile} | {len(run.checks)} | "
            f"{counts['exact']} | {counts['same ordering or trend']} | {counts['differs']} | "
            f"{cost.get('trials', 0)} | {_duration(cost.get('wall_seconds'))} |"
        )
    return [*lines, ""]


def _section(experiment: str, runs: dict[str, RunChecks]) -> list[str]:
    first = runs[_profiles(runs)[0]]
    data = first.data
    lines = [
        f"## {data.get('id', '')} — {data.get('title', '')} (`{experiment}`)",
        "",
        f"Paper: `{data.get('paper', '')}`" + (f", {data['section']}" if data.get("section") else "") + ".",
        "",
    ]
    for profile in _profiles(runs):
        lines += _profile_block(experiment, runs[profile])
    for profile in ("protocol", "paper"):
        if profile not in runs:
            lines += _not_run(experiment, profile, runs.get("quick"))
    return lines


def _profile_block(experiment: str, run: RunChecks) -> list[str]:
    data, profile = run.data, run.profile
    cost = data.get("cost", {})
    machine = cost.get("machine") or {}
    where = f"{experiment}/{profile}"
    lines = [
        f"### Profile `{profile}`"
        + (" (quick-profile numbers, not the published protocol)" if profile == "quick" else ""),
        "",
    ]
    if data.get("profile_description"):
        lines += [str(data["profile_description"]), ""]
    kept = " (kept from the committed report: no newer run of this profile on the machine that wrote it)"
    trials, planned = int(cost.get("trials", 0)), int(cost.get("planned") or 0)
    size = f"{trials} trials"
    if planned > trials:
        size = (
            f"**incomplete: {trials} of {planned} trials** (checks read the trials run so far; "
            f"`privbench reproduce {experiment} --profile {profile} hydra/launcher=local` resumes it)"
        )
    sittings = int(cost.get("sittings") or 0)
    if sittings > 1:
        size += f", {sittings} sittings"
    lines += [
        f"Run `{_display_path(run.run_dir)}`{kept if run.committed is not None else ''}: "
        f"{size}, statuses "
        f"{_statuses(cost.get('statuses', {}))}, wall clock {_duration(cost.get('wall_seconds'))} "
        f"(fit {_duration(cost.get('fit_seconds'))}, sample {_duration(cost.get('sample_seconds'))}, metrics "
        f"{_duration(cost.get('metric_seconds'))}) on {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores, "
        f"{machine.get('memory_gb', '?')} GB, GPU {machine.get('gpu', 'none')}. Checks: [`checks.json`]({where}/{CHECKS_FILE}).",
        "",
        f"| check | paper | ours ({profile}) | level | verdict | reason / note |",
        "|:---|:---|:---|:---|:---|:---|",
    ]
    for check in run.checks:
        verdict = f"**{check.verdict}**" if check.verdict == "differs" else check.verdict
        note = check.reason + (f" (evaluation error: {check.error})" if check.error else "")
        evidence = " ".join(f"[{Path(e).stem}]({where}/{e})" for e in check.evidence)
        lines.append(
            f"| {_cell(check.claim)} | {_cell(check.paper)} | {_cell(check.observed)} | {check.level} | {verdict} | "
            f"{_cell(note)}{(' ' + evidence) if evidence else ''} |"
        )
    lines.append("")
    if data.get("artifacts_error"):
        lines += [
            f"Regenerating the tables and figures failed: `{_cell(str(data['artifacts_error']).splitlines()[-1])}`",
            "",
        ]
    tables = [a for a in data.get("artifacts", []) if a.endswith(".md")]
    figures = [a for a in data.get("artifacts", []) if a.endswith(".png")]
    if tables:
        lines += ["Tables: " + ", ".join(f"[{Path(t).stem}]({where}/{t})" for t in tables) + ".", ""]
    for figure in figures:
        lines += [f"![{Path(figure).stem}]({where}/{figure})", ""]
    return lines


def _not_run(experiment: str, profile: str, quick: RunChecks | None) -> list[str]:
    try:
        plan = load_plan(experiment, profile)
    except ConfigError:
        return []  # the experiment has no such profile
    try:
        jobs = sum(count_jobs(plan).values())
    except Exception as exc:  # a malformed profile is reported, not fatal for the document
        return [f"{profile.capitalize()} profile: could not be expanded ({exc}).", ""]
    text = f"{profile.capitalize()} profile: {jobs:,} trials; not run here."
    if plan.description:
        text += f" {plan.description}"
    if quick is not None:
        cost = quick.data.get("cost", {})
        trials = max(int(cost.get("trials", 0)), 1)
        per_trial = (cost.get("wall_seconds") or 0.0) / trials
        text += (
            f" The quick profile's trials took {per_trial:.1f} s each on average (wall clock); paper trials use "
            "the full data and the published grids and repetitions, so they take longer"
        )
        if plan.persist:
            text += (
                f" (run and resume it with `privbench reproduce {experiment} --profile {profile} "
                "hydra/launcher=local`; its job directories are committed as they complete)."
            )
        else:
            text += f" (run it on a cluster: `privbench reproduce {experiment} --profile {profile} hydra/launcher=slurm`)."
    return [text, ""]


def _profiles(runs: dict[str, RunChecks]) -> list[str]:
    return sorted(
        runs, key=lambda p: (PROFILE_ORDER.index(p) if p in PROFILE_ORDER else len(PROFILE_ORDER), p)
    )


def _anchor(run: RunChecks) -> str:
    title = f"{run.data.get('id', '')} — {run.data.get('title', '')} (`{run.experiment}`)"
    keep = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return keep.replace(" ", "-")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _statuses(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def _duration(seconds: Any) -> str:
    if seconds is None:
        return "–"
    seconds = float(seconds)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _display_path(path: Path) -> str:
    path = Path(path).resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        parts = path.parts
        return str(Path(*parts[parts.index("results") :])) if "results" in parts else str(path)


__all__ = ["DOCUMENT", "RunChecks", "build_document", "committed_runs", "newest_runs", "read_run"]
