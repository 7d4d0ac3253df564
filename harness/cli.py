"""The ``privbench`` command line.

::

    privbench run [--debug] [--no-preflight] [--config-dir DIR] [-m] [hydra overrides...]
    privbench collect RUN_DIR [RUN_DIR...] [-o FILE]
    privbench report RUN_DIR [RUN_DIR...] [-o OUT_DIR] [--settings FILE] [--privacy COL] [--utility COL]
                     [--control LABEL] [--baseline real|LABEL] [--blocks COL,...] [--rope PCT] [--alpha A]
                     [--colour-by PARAM] [--tradeoff-utility COL] [--rank-metrics COL,...]
    privbench reproduce NAME [NAME...] | --all [--profile quick|paper] [--run-dir DIR] [hydra overrides...]
    privbench reproduce --evaluate RUN_DIR            # re-evaluate the checks of a finished run
    privbench reproduce NAME --profile paper --dry-run  # validate every trial, print the counts
    privbench reproduction-report [RUN_DIR...] [-o DIR]  # results/reproductions/REPRODUCTION.md
    privbench list {generators,metrics,datasets,experiments,suites,profiles,reproductions}
    privbench list generators --params           # with every parameter's default
    privbench describe NAME                        # parameters, defaults, valid values, how to set them
    privbench validate [GROUP | GROUP/NAME ...]
    privbench init DATA [-o DIR] [--name NAME] [--target COL] [--qi A,B] [--sensitive S]  # DIR/dataset/NAME.yaml
    privbench evaluate REAL SYNTH [SYNTH...] [--holdout H] [--dataset YAML|NAME] [--suite S] [--target COL]
                       [--qi A,B] [--sensitive S] [-o OUT]
    privbench cache {info,clear} [--dataset NAME]  # what privbench keeps of your data, and removing it
    privbench worker {start,stop,status} [--idle-minutes M]  # the warm worker (harness/worker_server.py)

Every command takes ``--config-dir DIR`` (repeatable): your own dataset/, generator/, metric/,
suite/, experiment/ and profile/ YAML folders beside the bundled ones.

``--verbose`` (any command) shows the INFO logging of SDV, copulas and other libraries, which
is filtered out by default. Bad input prints one line (``privbench: error: ...``) and exits 2; ``--debug`` shows the
traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from harness import interrupts
from harness.errors import ConfigError, PrivbenchError
from harness.gc_policy import pause_for_startup, resume_after_startup
from harness.process_exit import exit_process
from harness.registry import USER_DIRS_ENV
from harness.worker_client import run_in_worker

_STARTUP_ENVIRONMENT: dict[str, str] | None = None
"""The environment the console script started with (``worker start`` gives it to the worker)."""

LIST_GROUPS = {
    "generators": "generator",
    "metrics": "metric",
    "datasets": "dataset",
    "experiments": "experiment",
    "suites": "suite",
    "profiles": "profile",
    "reproductions": "experiment",
}


def setup_environment() -> None:
    """Process-wide defaults set before heavy imports: numba's on-disk cache, thread counts."""
    cache_root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "privbench"
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_root / "numba"))
    # limit_threads() starts numba's threading layer in the sweep process; numba's default on
    # Linux is GNU OpenMP, which kills every later forked trial that runs a numba parallel
    # region (UMAP-SMOTENC: "fork() called from a process already using GNU OpenMP").
    os.environ.setdefault("NUMBA_THREADING_LAYER", "forksafe")
    os.environ.setdefault("HYDRA_FULL_ERROR", "1" if os.environ.get("PRIVBENCH_DEBUG") else "0")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``privbench`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    if debug:
        argv.remove("--debug")
        os.environ["PRIVBENCH_DEBUG"] = "1"
    if "--verbose" in argv:  # third-party INFO logging (SDV, copulas, JAX) is shown (harness/logs.py)
        argv.remove("--verbose")
        os.environ["PRIVBENCH_VERBOSE"] = "1"
    setup_environment()
    saved = os.environ.get(USER_DIRS_ENV)
    try:
        argv = _config_dirs(argv)
        with interrupts.catching():  # a Ctrl-C swallowed mid-trial still ends the command
            return _dispatch(argv)
    except PrivbenchError as exc:
        if debug:
            raise
        print(f"privbench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("privbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `privbench list ... | head`
        sys.stderr.close()
        return 0
    finally:
        if saved is None:
            os.environ.pop(USER_DIRS_ENV, None)
        else:
            os.environ[USER_DIRS_ENV] = saved


def _config_dir_help(parser: argparse.ArgumentParser) -> None:
    """Show ``--config-dir`` in a command's ``--help`` (main() takes it out of argv for every command)."""
    if any("--config-dir" in action.option_strings for action in parser._actions):
        return
    parser.add_argument(
        "--config-dir",
        metavar="DIR",
        action="append",
        help="your own dataset/, generator/, metric/, suite/, experiment/, profile/ YAML folders (repeatable)",
    )


def _config_dirs(argv: list[str]) -> list[str]:
    """Take ``--config-dir DIR`` (any command, repeatable) out of ``argv`` and make DIR visible to all.

    The folders go into ``$PRIVBENCH_CONFIG_DIRS`` (the registry, ``list``, ``validate`` and
    child processes read it) and, for ``run`` and ``reproduce``, into Hydra's search path.

    Raises
    ------
    ConfigError
        If a folder does not exist.
    """
    out, dirs, i = [], [], 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--config-dir", "-cd"):
            if i + 1 >= len(argv):
                raise ConfigError(f"{arg} needs a folder (holding dataset/, generator/, ... YAML folders)")
            dirs.append(argv[i + 1])
            i += 2
            continue
        if arg.startswith("--config-dir="):
            dirs.append(arg.split("=", 1)[1])
        else:
            out.append(arg)
        i += 1
    if not dirs:
        return argv
    resolved = [Path(d).resolve() for d in dirs]
    for given, path in zip(dirs, resolved):
        if not path.is_dir():
            raise ConfigError(
                f"--config-dir {given}: no such directory; expected a folder holding dataset/, generator/, "
                "metric/, suite/, experiment/ or profile/ YAML folders"
            )
    os.environ[USER_DIRS_ENV] = os.pathsep.join(
        [str(p) for p in resolved] + [p for p in (os.environ.get(USER_DIRS_ENV) or "").split(os.pathsep) if p]
    )
    if out and out[0] in ("run", "reproduce"):
        out.append("hydra.searchpath=[" + ",".join(f"file://{p}" for p in resolved) + "]")
    return out


def _dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    command, rest = argv[0], argv[1:]
    if command == "run":
        from harness.run_command import run_command

        return run_command(rest)
    resume_after_startup()  # only a trial's stack is imported with the collector paused
    if command == "reproduce":
        return _reproduce(rest)
    parser = _parser()
    args = parser.parse_args(argv)
    if command == "collect":
        return _collect(args)
    if command == "report":
        return _report(args)
    if command == "reproduction-report":
        return _reproduction_report(args)
    if command == "list":
        return _list(args)
    if command == "describe":
        from harness.describe import describe_one

        print("\n".join(describe_one(args.name)))
        return 0
    if command == "validate":
        from harness.validate import validate_all

        return validate_all(args.configs)
    if command == "init":
        from harness.dataset_init import init_cli

        return init_cli(args)
    if command == "cache":
        from harness.cache_command import cache_cli

        return cache_cli(args)
    if command == "records":
        from harness.records_command import records_cli

        return records_cli(args)
    if command == "leak-check":
        from harness.records_command import leak_check_cli

        return leak_check_cli(args)
    if command == "evaluate":
        from harness.evaluate import evaluate_cli

        return evaluate_cli(args)
    if command == "worker":
        from harness.worker_client import worker_command

        environment = dict(os.environ) if _STARTUP_ENVIRONMENT is None else _STARTUP_ENVIRONMENT
        return worker_command(args.action, args.idle_minutes, environment)
    parser.error(f"unknown command {command!r}")
    return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privbench", description="privacy-preserving data publishing benchmarks"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="run a trial or a Hydra multirun (-m)")
    collect = sub.add_parser("collect", help="collect the result rows of runs into one table")
    collect.add_argument("run_dirs", nargs="+", type=Path)
    collect.add_argument("-o", "--output", type=Path, default=None, help="output .parquet or .csv")
    report = sub.add_parser("report", help="tables, statistics and figures of runs")
    report.add_argument("run_dirs", nargs="+", type=Path)
    report.add_argument(
        "-o", "--output", type=Path, default=None, help="report directory (default RUN_DIR/report)"
    )
    report.add_argument(
        "--settings",
        type=Path,
        default=None,
        help="report settings YAML (default RUN_DIR/report.yaml if present)",
    )
    report.add_argument("--privacy", help="privacy metric column, metric or metric/variant")
    report.add_argument("--utility", help="utility metric column, metric or metric/variant")
    report.add_argument("--control", help="generator-variant label compared with the others (Wilcoxon-Holm)")
    report.add_argument("--baseline", help="win/draw/lose baseline: 'real' (the rows' baseline) or a label")
    report.add_argument("--blocks", help="comma-separated block columns of the rank tests")
    report.add_argument("--rope", type=float, help="ROPE half-width in percent (default 1)")
    report.add_argument("--alpha", type=float, help="significance level (default 0.05)")
    report.add_argument(
        "--colour-by", dest="colour_by", help="generator parameter colouring the Pareto scatter"
    )
    report.add_argument(
        "--tradeoff-utility", dest="tradeoff_utility", help="utility column of the trade-off score"
    )
    report.add_argument(
        "--rank-metrics", dest="rank_metrics", help="comma-separated columns of the ranks table"
    )
    sub.add_parser("reproduce", help="run paper reproductions and check them against the papers")
    repro_report = sub.add_parser(
        "reproduction-report", help="write REPRODUCTION.md from the newest reproduction runs"
    )
    repro_report.add_argument("run_dirs", nargs="*", type=Path)
    repro_report.add_argument(
        "-o", "--output", type=Path, default=Path("results/reproductions"), help="output directory"
    )
    lister = sub.add_parser("list", help="list registered configs")
    lister.add_argument("what", choices=sorted(LIST_GROUPS))
    lister.add_argument(
        "--params", action="store_true", help="generators and metrics: parameters and defaults"
    )
    describer = sub.add_parser("describe", help="one config: summary, parameters, defaults and valid values")
    describer.add_argument("name")
    validate = sub.add_parser("validate", help="compose and instantiate every config (or the named ones)")
    validate.add_argument("configs", nargs="*", help="GROUP or GROUP/NAME (default: everything)")
    from harness.cache_command import add_cache_parser
    from harness.dataset_init import add_init_parser
    from harness.evaluate import add_evaluate_parser
    from harness.records_command import add_records_parser

    add_init_parser(sub)
    add_evaluate_parser(sub)
    add_cache_parser(sub)
    add_records_parser(sub)
    worker = sub.add_parser(
        "worker", help="a warm background process that runs commands without start-up imports"
    )
    for command in (collect, report, repro_report, lister, describer, validate, *sub.choices.values()):
        _config_dir_help(command)
    worker.add_argument("action", choices=("start", "stop", "status"))
    worker.add_argument(
        "--idle-minutes",
        type=float,
        default=30.0,
        help="start: stop after this long without a command (default 30)",
    )
    return parser


def _collect(args: argparse.Namespace) -> int:
    from harness.collect import collect_runs, write_table

    collection = collect_runs(args.run_dirs)
    results = collection.results
    output = args.output or (args.run_dirs[0] / "results.parquet")
    write_table(results, output)
    counts = results["status"].value_counts().to_dict()
    print(f"{len(results)} rows from {results['trial_key'].nunique()} trials -> {output}  (status: {counts})")
    for note in collection.notes():
        print(f"note: {note}", file=sys.stderr)
    return 0


def _report(args: argparse.Namespace) -> int:
    from harness.collect import collect_runs, run_config_text, write_table
    from harness.report import build_report
    from harness.report.settings import SETTINGS_FILE, load_settings
    from harness.versions import versions

    flags = {
        key: getattr(args, key)
        for key in (
            "privacy",
            "utility",
            "control",
            "baseline",
            "rope",
            "alpha",
            "colour_by",
            "tradeoff_utility",
        )
    }
    for key in ("blocks", "rank_metrics"):
        value = getattr(args, key)
        flags[key] = None if value is None else [v for v in value.split(",") if v.strip()]
    if args.settings is not None and not args.settings.is_file():
        raise ConfigError(f"report settings file {args.settings} does not exist")
    settings = load_settings(args.settings or (args.run_dirs[0] / SETTINGS_FILE), flags)
    collection = collect_runs(args.run_dirs)
    for note in collection.notes():
        print(f"note: {note}", file=sys.stderr)
    results = collection.results
    out_dir = args.output or (args.run_dirs[0] / "report")
    write_table(results, out_dir / "results.parquet")
    title = ", ".join(sorted(results["experiment"].dropna().unique())) or "privbench report"
    paths = build_report(
        results,
        out_dir,
        title=title,
        config_text=run_config_text(args.run_dirs[0]),
        versions=versions(),
        settings=settings,
    )
    print(f"report: {paths['report_html']}")
    print(f"        {paths['report_md']}")
    print(f"tables: {paths['tables_dir']}")
    print(f"figures: {paths['figures_dir']}")
    return 0


def _reproduce_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="privbench reproduce", description="run paper reproductions")
    parser.add_argument("names", nargs="*", help="reproduction experiments (privbench list reproductions)")
    parser.add_argument("--all", action="store_true", help="every reproduction experiment")
    parser.add_argument("--profile", default="quick", help="reproduction profile (default quick)")
    parser.add_argument("--run-dir", type=Path, default=None, help="run into (or resume) this directory")
    parser.add_argument(
        "--evaluate", type=Path, default=None, metavar="RUN_DIR", help="only re-evaluate checks"
    )
    parser.add_argument("--dry-run", action="store_true", help="validate every trial and print the counts")
    return parser


def _reproduce(rest: list[str]) -> int:
    from harness.reproduction.document import read_run
    from harness.reproduction.plan import load_plan, reproduction_names
    from harness.reproduction.runner import evaluate, reproduce

    overrides = [a for a in rest if "=" in a and not a.startswith("-")]
    args = _reproduce_parser().parse_args([a for a in rest if a not in overrides])
    from harness.preflight import search_dirs

    extra_dirs = search_dirs(overrides)
    if args.evaluate is not None:
        done = read_run(args.evaluate) if (args.evaluate / "reproduction" / "checks.json").is_file() else None
        meta = args.evaluate / "reproduction" / "reproduction.json"
        if done is None and not meta.is_file():
            raise ConfigError(f"{args.evaluate}: not a reproduction run (no reproduction/reproduction.json)")
        import json

        info = done.data if done is not None else json.loads(meta.read_text())
        plan = load_plan(str(info["experiment"]), str(info["profile"]), extra_dirs=extra_dirs)
        return _print_checks(plan.experiment, evaluate(plan, args.evaluate))
    if args.all == bool(args.names):
        raise ConfigError(
            "name one or more reproduction experiments or pass --all; reproductions are: "
            + ", ".join(reproduction_names(extra_dirs=extra_dirs))
        )
    selected = reproduction_names(extra_dirs=extra_dirs) if args.all else args.names
    if args.run_dir is not None and len(selected) > 1:
        raise ConfigError("--run-dir applies to one experiment; got " + ", ".join(selected))
    plans = [load_plan(name, args.profile, extra_dirs=extra_dirs) for name in selected]
    if args.dry_run:
        from harness.reproduction.runner import preflight_plan

        for plan in plans:
            counts = preflight_plan(plan, overrides, Path.cwd())
            shown = ", ".join(f"{k} {v}" for k, v in counts.items()) or "no sweeps"
            print(f"{plan.experiment} ({plan.profile}): {sum(counts.values())} trial(s): {shown}")
        return 0
    worst = 0
    for plan in plans:
        run_dir = reproduce(plan, base_dir=Path.cwd(), extra=overrides, run_dir=args.run_dir)
        print(f"reproduction: {run_dir / 'reproduction' / 'checks.json'}")
        worst = max(worst, _print_checks(plan.experiment, read_run(run_dir).checks))
    return worst


def _print_checks(experiment: str, checks: list[Any]) -> int:
    broken = [c for c in checks if c.error]
    counts: dict[str, int] = {}
    for check in checks:
        label = check.verdict if check.is_claim else f"{check.kind} {check.verdict}"
        counts[label] = counts.get(label, 0) + 1
        print(f"  {label:<22} {check.id}: ours {check.observed} | paper {check.paper}"[:200])
    summary = ", ".join(f"{v} {k}" for k, v in counts.items()) or "no checks"
    print(f"{experiment}: {summary}" + (f"; {len(broken)} check(s) could not be evaluated" if broken else ""))
    return 1 if broken else 0


def _reproduction_report(args: argparse.Namespace) -> int:
    from harness.reproduction.document import build_document, committed_runs, newest_runs, read_run
    from harness.reproduction.plan import reproduction_names
    from harness.reproduction.runner import results_root
    from harness.reproduction.runs import current_run

    if args.run_dirs:  # a stopped persisted run is evaluated on its completed trials
        runs = [current_run(Path(d)) or read_run(d) for d in args.run_dirs]
    else:
        runs = newest_runs(results_root(Path.cwd()), reproduction_names())
    kept = committed_runs(args.output, reproduction_names(), runs)
    path = build_document([*runs, *kept], args.output)
    print(
        f"reproduction report: {path} ({len(runs)} run(s)"
        + (f", {len(kept)} kept from the committed report" if kept else "")
        + ")"
    )
    return 0


def _list(args: argparse.Namespace) -> int:
    from harness.describe import describe

    group = LIST_GROUPS[args.what]
    shown = None
    if args.what == "reproductions":
        from harness.reproduction.plan import reproduction_names

        shown = set(reproduction_names())
    with_params = args.params and group in ("generator", "metric")
    for name, summary in describe(group):
        if shown is None or name in shown:
            print(f"{name:<28} {summary}")
            if with_params:
                from harness.describe import parameters

                params = ", ".join(f"{p.name}={p.default!r}" for p in parameters(group, name))
                print(f"{'':<28}   {params or '(no parameters)'}")
    return 0


def console_main() -> NoReturn:
    """The ``privbench`` console script (and ``python -m harness.cli``): :func:`main`, then the
    process ends without the interpreter's module teardown (:mod:`harness.process_exit`).

    When a warm worker of this interpreter and checkout runs (``privbench worker start``), the
    command runs in it instead and this process waits for its exit code
    (:mod:`harness.worker_client`).
    """
    global _STARTUP_ENVIRONMENT
    served = run_in_worker(sys.argv[1:])  # its context is taken only when a worker listens
    if served is not None:
        exit_process(served)
    _STARTUP_ENVIRONMENT = dict(os.environ)
    pause_for_startup()
    exit_process(main())


if __name__ == "__main__":  # pragma: no cover
    console_main()
