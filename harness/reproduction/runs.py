"""The runs ``privbench reproduction-report`` reports: evaluated, stopped-and-persisted, or committed.

A run is known by its ``reproduction/checks.json``. Three kinds are found:

* timestamped runs ``<results>/<experiment>/<timestamp>`` (evaluated when they finished);
* persisted runs ``<results>/reproductions/runs/<experiment>/<profile>`` of ``persist: true``
  profiles. One stopped part-way (a sitting ended) has job directories but no ``checks.json``,
  or one older than its job directories: it is evaluated on the trials it completed, into a
  scratch folder (the committed run directory is left as it is), and reported as incomplete;
* runs only known from an earlier document's copy ``<out>/<experiment>/<profile>/checks.json``.

In an incomplete run a check that found no value for its claim is reported as
:data:`NOT_EVALUATED` (its trials have not run yet) instead of ``differs``.
"""

from __future__ import annotations

import atexit
import json
import math
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, DataError
from harness.reproduction.adequacy import Gate
from harness.reproduction.checks import Check
from harness.reproduction.plan import load_plan
from harness.reproduction.runner import CHECKS_FILE, META_FILE, RUNS_DIR, completed_jobs, evaluate
from harness.reproduction.verdict import CHECK_VERDICTS, CLAIM_VERDICTS, KINDS

NOT_EVALUATED = "not evaluated"
"""Verdict of a check of an incomplete run whose trials have not run yet."""
REPORT_VERDICTS: tuple[str, ...] = (*CLAIM_VERDICTS, NOT_EVALUATED)
"""Claim verdicts as the report counts them (:data:`NOT_EVALUATED` for an incomplete run's)."""
_NO_VALUE = ("", "nan", "–", "none")


@dataclass(frozen=True)
class RunChecks:
    """The ``checks.json`` of one reproduction run.

    Attributes
    ----------
    run_dir : Path
        The run directory (job directories and ``reproduction/``).
    data : dict
        The parsed ``checks.json``.
    committed : Path, optional
        Set when the run is only known from an earlier report's copy (``<out>/<experiment>/<profile>``).
    outputs : Path, optional
        Where its checks.json, tables and figures are when not in ``run_dir/reproduction`` (a stopped
        persisted run evaluated by the report into a scratch folder).
    """

    run_dir: Path
    data: dict[str, Any]
    committed: Path | None = None
    outputs: Path | None = None

    @property
    def experiment(self) -> str:
        return str(self.data["experiment"])

    @property
    def profile(self) -> str:
        return str(self.data["profile"])

    @property
    def checks(self) -> list[Check]:
        return [Check.from_dict(c) for c in self.data.get("checks", [])]

    @property
    def source(self) -> Path:
        """The folder holding the run's checks.json, tables and figures."""
        return Path(self.outputs) if self.outputs is not None else Path(self.run_dir) / "reproduction"

    @property
    def trials(self) -> int:
        """Trials with rows."""
        return int(self.data.get("cost", {}).get("trials") or 0)

    @property
    def planned(self) -> int:
        """Trials the profile plans (0 when unknown)."""
        return int(self.data.get("cost", {}).get("planned") or 0)

    @property
    def incomplete(self) -> bool:
        """Whether the run stopped before all its planned trials had rows."""
        return self.planned > self.trials

    @property
    def gates(self) -> list[Gate]:
        return [Gate.from_dict(g) for g in self.data.get("gates", [])]

    def verdict(self, check: Check) -> str:
        """The check's verdict, or :data:`NOT_EVALUATED` for a check of an incomplete run with no value."""
        if (
            self.incomplete
            and not check.passed
            and check.level != "not reproducible"
            and not check.not_evaluable
            and _no_value(check)
        ):
            return NOT_EVALUATED
        return check.verdict

    def verdicts(self) -> dict[str, int]:
        """Claims per verdict (:data:`REPORT_VERDICTS`)."""
        counts = dict.fromkeys(REPORT_VERDICTS, 0)
        for check in self.checks:
            if check.is_claim:
                counts[self.verdict(check)] += 1
        return counts

    def other_checks(self) -> dict[str, dict[str, int]]:
        """Setup, arithmetic and sanity checks: ``{kind: {passes, fails, not evaluated}}``."""
        counts = {
            kind: dict.fromkeys((*CHECK_VERDICTS, NOT_EVALUATED), 0) for kind in KINDS if kind != "claim"
        }
        for check in self.checks:
            if not check.is_claim:
                counts[check.kind][self.verdict(check)] += 1
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


def current_run(run_dir: Path, *, extra_dirs: tuple[Path, ...] = ()) -> RunChecks | None:
    """A persisted run's checks as of its completed job directories (None when it has neither).

    ``checks.json`` is read when it covers every completed job; otherwise (a sitting stopped before
    the checks were evaluated, or later sittings added jobs) the run is evaluated on its completed
    trials into a scratch folder, removed when the process exits.

    Parameters
    ----------
    run_dir : Path
        ``<results>/reproductions/runs/<experiment>/<profile>``.
    extra_dirs : tuple of Path
        Further config directories (the experiment's YAML).
    """
    run_dir = Path(run_dir)
    done = completed_jobs(run_dir)
    if (run_dir / "reproduction" / CHECKS_FILE).is_file():
        run = read_run(run_dir)
        cost = run.data.get("cost", {})
        if int(cost.get("completed_jobs", cost.get("trials")) or 0) >= done:
            return run
    meta_path = run_dir / "reproduction" / META_FILE
    if not meta_path.is_file() or not done:
        return None
    meta = json.loads(meta_path.read_text())
    try:
        plan = load_plan(str(meta["experiment"]), str(meta["profile"]), extra_dirs=extra_dirs)
    except (ConfigError, KeyError) as exc:
        print(f"privbench: {run_dir}: not evaluated ({exc})", file=sys.stderr)
        return None
    scratch = Path(tempfile.mkdtemp(prefix="privbench-reproduction-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    print(f"privbench: {run_dir}: evaluating the {done} completed job(s) of a stopped run", file=sys.stderr)
    evaluate(plan, run_dir, out_dir=scratch)
    data = json.loads((scratch / CHECKS_FILE).read_text())
    return RunChecks(run_dir, data, outputs=scratch)


def newest_runs(
    results_dir: Path, experiments: Sequence[str], *, extra_dirs: tuple[Path, ...] = ()
) -> list[RunChecks]:
    """The newest evaluated run of each (experiment, profile) under ``results_dir``.

    Looks at timestamped runs (``<results>/<experiment>/<timestamp>``) and at the persisted runs
    of ``persist: true`` profiles (``<results>/reproductions/runs/<experiment>/<profile>``, stopped
    ones evaluated on their completed trials: :func:`current_run`, with ``extra_dirs`` as further
    config directories); of several runs of one profile, the one evaluated last wins.
    """
    found: dict[tuple[str, str], RunChecks] = {}
    for experiment in experiments:
        runs = [
            read_run(path.parent.parent)
            for path in sorted((Path(results_dir) / experiment).glob(f"*/reproduction/{CHECKS_FILE}"))
        ]
        for run_dir in sorted((Path(results_dir) / RUNS_DIR / experiment).glob("*/")):
            persisted = current_run(run_dir, extra_dirs=extra_dirs)
            if persisted is not None:
                runs.append(persisted)
        for run in runs:
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
            if any("kind" not in c for c in data["checks"]):
                print(
                    f"privbench: {path}: written before checks had kinds (issue 27); not kept: run the profile again",
                    file=sys.stderr,
                )
                continue
            kept.append(RunChecks(Path(str(data.get("run_dir", path.parent))), data, committed=path.parent))
    return kept


def _no_value(check: Check) -> bool:
    """Whether a check found no value for its claim (no rows, or one side of an ordering missing)."""
    if check.error or check.observed.strip().lower() in _NO_VALUE or "no value" in check.reason:
        return True
    values = check.value.values() if isinstance(check.value, Mapping) else ()
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


__all__ = [
    "NOT_EVALUATED",
    "REPORT_VERDICTS",
    "RunChecks",
    "committed_runs",
    "current_run",
    "newest_runs",
    "read_run",
]
