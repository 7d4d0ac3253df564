"""``privbench validate``: compose and instantiate every config of the registry."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.errors import PrivbenchError, unknown_name
from harness.registry import names
from harness.spec import plain_dict


def _check_generator(name: str) -> None:
    from harness.instantiate import build_generator

    build_generator(name)
    build_generator(name, use_check_params=True)


def _check_metric(name: str) -> None:
    from harness.instantiate import build_metric

    build_metric(name)
    build_metric(name, use_check_params=True)


def _check_dataset(name: str) -> None:
    from harness.datasets import load_dataset, load_spec

    spec = load_spec(name)
    load_dataset(spec)
    for qi_name in spec.qi_sets:
        spec.with_active_qi(qi_name)


def _check_composed(group: str) -> Callable[[str], None]:
    def check(name: str) -> None:
        from harness.app import trial_config
        from harness.instantiate import build_generator, build_metric
        from harness.preflight import compose_job, expand_jobs, hydra_context, job_dict

        with hydra_context():
            jobs = expand_jobs([f"{group}={name}"], multirun=group == "experiment")
            for job in jobs:
                cfg = compose_job(job)
                choices = plain_dict(cfg.hydra.runtime.choices)
                plain = job_dict(cfg)
                trial = trial_config(plain, choices, run_id="validate", base_dir=Path.cwd(), overrides=job)
                build_generator(trial.generator, trial.generator_cfg)
                for metric_name, metric_cfg in trial.metrics.items():
                    build_metric(metric_name, metric_cfg)

    return check


def validate_all(selection: Sequence[str] = ()) -> int:
    """Validate generators, metrics, datasets, suites, profiles and experiments; print a table.

    Parameters
    ----------
    selection : sequence of str
        ``GROUP`` or ``GROUP/NAME`` entries (``dataset``, ``dataset/patients``); empty = every
        config of every group (user config folders included).

    Returns
    -------
    int
        0 when everything is valid, 2 otherwise (an invalid config is bad input, as everywhere).

    Raises
    ------
    ConfigError
        For an unknown group or name in ``selection``.
    """
    checks: dict[str, Callable[[str], None]] = {
        "generator": _check_generator,
        "metric": _check_metric,
        "dataset": _check_dataset,
        "suite": _check_composed("suite"),
        "profile": _check_composed("profile"),
        "experiment": _check_composed("experiment"),
    }
    todo: list[tuple[str, str]] = []
    for entry in selection or list(checks):
        group, _, name = entry.partition("/")
        if group not in checks:
            raise unknown_name("config group", group, list(checks))
        if name and name not in names(group):
            raise unknown_name(group, name, names(group))
        todo += [(group, n) for n in ([name] if name else names(group))]
    failures = 0
    for group, name in todo:
        try:
            checks[group](name)
            print(f"ok    {group:<11} {name}")
        except PrivbenchError as exc:
            failures += 1
            print(f"FAIL  {group:<11} {name}: {exc}")
    print(f"{len(todo) - failures} of {len(todo)} configs valid", file=sys.stderr)
    return 2 if failures else 0
