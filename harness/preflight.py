"""Validate every job of a run before anything runs.

``privbench run`` composes the config of each job the command would launch (Hydra's
basic-sweeper expansion of the command-line overrides and ``hydra.sweeper.params``), then
builds its trial: dataset spec and data, QI set, split, generator and metrics. The first
bad input stops the command with a one-line error before any trial starts.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from hydra import compose, initialize_config_module
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException
from tqdm import tqdm

from harness import composition_memo, prepared_memo
from harness.errors import ConfigError, PrivbenchError, unknown_name
from harness.registry import GROUPS, names
from harness.spec import plain_dict

GROUP_KEYS = {"dataset", "generator", "suite", "profile", "experiment"}


def search_dirs(overrides: Sequence[str]) -> tuple[Path, ...]:
    """User config dirs named by ``hydra.searchpath=[file://DIR,...]`` overrides."""
    dirs: list[Path] = []
    for override in overrides:
        key, _, value = override.partition("=")
        if key.lstrip("+") != "hydra.searchpath":
            continue
        for item in value.strip("[]").split(","):
            item = item.strip().strip("'\"").replace("\\:", ":")
            if item.startswith("file://"):
                dirs.append(Path(item[len("file://") :]))
    return tuple(dirs)


def check_group_choices(overrides: Sequence[str]) -> None:
    """Raise :class:`ConfigError` for an unknown group option (``generator=nope``), listing valid names."""
    parser = OverridesParser.create()
    try:
        parsed = parser.parse_overrides(list(overrides))
    except HydraException as exc:
        raise ConfigError(f"cannot parse overrides: {_first_line(exc)}") from None
    extra = search_dirs(overrides)
    for override in parsed:
        key = override.get_key_element().lstrip("+~")
        if key not in GROUP_KEYS or override.is_delete():
            continue
        values = (
            list(override.sweep_string_iterator()) if override.is_sweep_override() else [override.value()]
        )
        for value in values:
            if value is None:
                continue
            valid = names(key, extra_dirs=extra)
            if str(value) not in valid:
                raise unknown_name(key, str(value), valid)


def check_repeated_keys(overrides: Sequence[str]) -> None:
    """Raise :class:`ConfigError` when the command line chooses a config group twice (``generator=a generator=b``).

    Hydra keeps the last value silently, so the first would never run; a sweep is written
    ``-m generator=a,b``. A parameter set twice keeps Hydra's rule (the last value wins: scripts
    append overrides to a base command).
    """
    seen: dict[str, str] = {}
    for text in overrides:
        if "=" not in text:
            continue
        key, value = text.split("=", 1)
        bare = key.lstrip("+~")
        if bare not in GROUP_KEYS:
            continue
        if bare in seen:
            raise ConfigError(
                f"{bare} is given twice ({bare}={seen[bare]} and {bare}={value}); expected one value, "
                f"or a sweep: -m {bare}={seen[bare]},{value}"
            )
        seen[bare] = value


@contextmanager
def hydra_context() -> Iterator[None]:
    """Initialise Hydra's global state on the ``experiments`` package (re-entrant)."""
    import harness.slurm_config  # noqa: F401  (registers hydra/launcher=slurm's base node)

    if GlobalHydra.instance().is_initialized():
        yield
        return
    with initialize_config_module(config_module="experiments", version_base=None):
        yield


def compose_job(overrides: Sequence[str]) -> Any:
    """Compose the config of one job (with the ``hydra`` node) or raise :class:`ConfigError`."""
    try:
        return compose(config_name="config", overrides=list(overrides), return_hydra_config=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = (
            f"{mark.name}, line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "a config"
        )
        problem = getattr(exc, "problem", None) or _first_line(exc)
        raise ConfigError(f"{where}: not valid YAML ({problem})") from None
    except (HydraException, OmegaConfBaseException) as exc:
        message = _first_line(exc)
        match = re.match(r"Could not override '([^']+)'", message)
        if match:
            message = _unknown_key_message(
                match.group(1), [o for o in overrides if not _is_key(o, match.group(1))]
            )
        raise ConfigError(message) from None


class JobComposer:
    """Compose many jobs of one sweep, each as :func:`compose_job` would, without paying Hydra per job.

    Hydra's ``compose`` rebuilds the defaults tree and re-reads every YAML file per call (about
    0.5 s), so validating a paper-sized sweep cost minutes before any trial started. Jobs that
    differ only in the values of *leaf* overrides (``generator.k=3``, ``dataset.source.params.seed=7``)
    share the defaults tree: the first such job is composed by Hydra and the others are that
    config with their leaf values set the way Hydra applies command-line overrides (``key=v``
    merges into an existing key, ``+key=v`` adds, ``++key=v`` forces, ``~key`` deletes).
    Any other override — a config group (``generator=...``, ``hydra/launcher=...``), a ``hydra.*``
    key, anything outside the job config's root keys — can change the defaults tree and is part
    of the cache key with its value, as is the list of leaf keys with their prefixes.
    """

    def __init__(self) -> None:
        from harness.app import ROOT_KEYS

        self._parser = OverridesParser.create()
        self._bases: dict[tuple[Any, ...], Any] = {}
        self._root_keys = ROOT_KEYS

    def _is_leaf(self, key: str) -> bool:
        bare = key.lstrip("+~")
        if bare in GROUPS or "/" in bare or "@" in bare:
            return False
        return bare.split(".", 1)[0] in self._root_keys

    def compose(self, overrides: Sequence[str]) -> Any:
        """The job's config (with the ``hydra`` node) or :class:`ConfigError` as from :func:`compose_job`."""
        try:
            parsed = self._parser.parse_overrides(list(overrides))
        except HydraException:
            return compose_job(overrides)  # compose_job reports the parse error
        structural, leaves = [], []
        for text, override in zip(overrides, parsed):
            merges = not override.is_delete() and isinstance(override.value(), dict)  # merged, not set
            if self._is_leaf(override.get_key_element()) and not merges:
                leaves.append(override)
            else:
                structural.append(text)
        signature = (tuple(structural), tuple(o.get_key_element() for o in leaves))
        base = self._bases.get(signature)
        if base is None:
            base = self._bases[signature] = compose_job(overrides)
            return composition_memo.clone_config(base)
        cfg = composition_memo.clone_config(base)
        try:
            with open_dict(cfg):
                for override in leaves:
                    key = override.get_key_element().lstrip("+~")
                    if override.is_delete():
                        parent, _, leaf = key.rpartition(".")
                        node = OmegaConf.select(cfg, parent) if parent else cfg
                        node.pop(leaf, None)
                    else:
                        OmegaConf.update(cfg, key, override.value(), merge=True, force_add=True)
        except (HydraException, OmegaConfBaseException):
            return compose_job(overrides)  # let Hydra produce (and word) the error
        return cfg


def _is_key(override: str, key: str) -> bool:
    return override.split("=", 1)[0].lstrip("+~") == key


def _unknown_key_message(key: str, other_overrides: Sequence[str]) -> str:
    """ "unknown key 'a.b'; expected one of: ..." from the config composed without that override."""
    parent, _, leaf = key.rpartition(".")
    try:
        base = compose(config_name="config", overrides=list(other_overrides))
        node = OmegaConf.select(base, parent) if parent else base
        keys = list(node) if node is not None and hasattr(node, "keys") else []
        valid = sorted(str(k) for k in keys if not str(k).startswith("_") and k != "check_params")
    except (HydraException, OmegaConfBaseException):
        valid = []
    hint = f"; expected one of: {', '.join(valid)}" if valid else ""
    parts = key.split(".")
    if parts[0] == "generator" and len(parts) == 2:
        chosen = _choice("generator", other_overrides)
        hint += (
            f" (not a parameter of generator {chosen!r}; to set a parameter of one generator of a sweep, "
            f"write generator_overrides.<generator>.{parts[1]}=VALUE)"
        )
    return f"unknown config key {key!r}{hint}"


def _choice(group: str, overrides: Sequence[str]) -> str:
    chosen = [o.split("=", 1)[1] for o in overrides if o.split("=", 1)[0].lstrip("+") == group and "=" in o]
    return chosen[-1] if chosen else "(the default)"


def job_dict(cfg: Any) -> dict[str, Any]:
    """The composed job config without its ``hydra`` node, resolved, as a plain dict.

    Each root key is converted on its own (interpolations resolve against the whole config), so
    the config is neither copied nor changed; a missing value (``???``) stays the string ``???``
    as :func:`omegaconf.OmegaConf.to_container` leaves it.
    """
    out: dict[str, Any] = {}
    for key in cfg:
        if key == "hydra":
            continue
        if OmegaConf.is_missing(cfg, key):
            out[key] = "???"
            continue
        value = cfg[key]
        out[key] = OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
    return plain_dict(out)


NESTED_GROUPS = ("generator", "dataset", "suite")


def sweep_safe_overrides(overrides: Sequence[str]) -> list[str]:
    """Rewrite ``generator.knn=3`` as ``generator.knn=choice(3)`` for a multirun.

    Hydra composes a multirun's base config from the non-sweep overrides with every group at
    its default, so ``-m generator=smote,borderline_smote generator.knn=3`` fails on the default
    generator (which has no ``knn``) before any job starts. A one-value sweep is applied per job,
    after the job's group choice, and gives the same job configs.
    """
    parser = OverridesParser.create()
    try:
        parsed = parser.parse_overrides(list(overrides))
    except HydraException:
        return list(overrides)  # preflight reports the parse error
    out = []
    for text, override in zip(overrides, parsed):
        key = override.get_key_element().lstrip("+~")
        nested = "." in key and key.split(".", 1)[0] in NESTED_GROUPS
        if nested and not override.is_sweep_override() and not override.is_delete() and "=" in text:
            head, raw = text.split("=", 1)
            out.append(f"{head}=choice({raw})")
        else:
            out.append(text)
    return out


PER_NAME_ROOTS = ("generator_overrides", "metric_overrides")
"""Root keys holding parameters for one named generator / metric of a sweep."""


def per_name_overrides(overrides: Sequence[str]) -> list[str]:
    """Let ``generator_overrides.smote.knn=3`` (one generator's parameter) be written without ``+``.

    ``generator_overrides`` and ``metric_overrides`` are empty mappings in the root config, so
    Hydra would need ``++``; this is privbench's documented way of setting a parameter of one
    generator (or metric) of a multi-generator sweep, so the prefix is added here.
    """
    out = []
    for text in overrides:
        key = text.split("=", 1)[0]
        if "=" in text and key.split(".", 1)[0] in PER_NAME_ROOTS and key.count(".") >= 2:
            out.append(f"++{text}")
        else:
            out.append(text)
    return out


def check_per_name_overrides(job: Sequence[str]) -> None:
    """Raise :class:`ConfigError` for ``generator_overrides.<name>`` naming no generator.

    ``metric_overrides`` keys are the names metrics have in a suite (``linkability`` for
    ``anonymeter_linkability`` in some suites), which another job's suite may use: not checked.
    """
    for text in job:
        key = text.split("=", 1)[0].lstrip("+~")
        parts = key.split(".")
        if parts[0] == "generator_overrides" and len(parts) >= 2:
            valid = names("generator", extra_dirs=search_dirs(job))
            if parts[1] not in valid:
                raise unknown_name("generator in generator_overrides", parts[1], valid)


def expand_jobs(overrides: Sequence[str], *, multirun: bool) -> list[list[str]]:
    """The override lists of every job the command would launch (basic-sweeper order)."""
    if not multirun:
        return [list(overrides)]
    parser = OverridesParser.create()
    plain = [o for o in parser.parse_overrides(list(overrides)) if not o.is_sweep_override()]
    sweeps = [o for o in parser.parse_overrides(list(overrides)) if o.is_sweep_override()]
    first = compose_job([str(o.input_line) for o in plain] + [_first_value(o) for o in sweeps])
    params = plain_dict(first.hydra.sweeper.get("params") or {})
    arguments = [f"{k}={v}" for k, v in params.items()] + list(overrides)
    batches = BasicSweeper.split_arguments(parser.parse_overrides(arguments), max_batch_size=None)
    return [list(job) for batch in batches for job in batch]


def preflight(overrides: Sequence[str], *, multirun: bool, base_dir: Path) -> int:
    """Compose and build every job; return the number of jobs (:func:`preflight_jobs`)."""
    return len(preflight_jobs(overrides, multirun=multirun, base_dir=base_dir))


def preflight_jobs(overrides: Sequence[str], *, multirun: bool, base_dir: Path) -> list[list[str]]:
    """Compose and build every job; return the override lists of the jobs, in launch order.

    Raises
    ------
    PrivbenchError
        The first bad input found, prefixed with the job's overrides.
    """
    from harness.app import trial_config
    from harness.trial import prepare_trial

    composition_memo.install()  # Hydra's own compositions of these jobs reuse the preflight's
    composition_memo.clear()  # YAML files edited since an earlier command are read again
    prepared_memo.clear()
    check_group_choices(overrides)
    with hydra_context():
        jobs = expand_jobs(overrides, multirun=multirun)
        show = len(jobs) > 20 and os.environ.get("PRIVBENCH_PROGRESS", "1") != "0"
        composer = JobComposer()
        notes: dict[str, None] = {}
        for job in tqdm(jobs, desc="validating trials", unit="trial", disable=not show):
            check_group_choices(job)
            check_per_name_overrides(job)
            cfg = composer.compose(job)
            choices = plain_dict(cfg.hydra.runtime.choices)
            plain = job_dict(cfg)
            try:
                prepared = prepare_trial(
                    trial_config(plain, choices, run_id="preflight", base_dir=base_dir, overrides=job)
                )
                for note in prepared.generator.config_notes():
                    notes.setdefault(note, None)
                if len(jobs) <= prepared_memo.MEMO_SIZE:
                    prepared_memo.remember(prepared)  # the job reuses it if it runs in this process
            except PrivbenchError as exc:
                where = " ".join(job) if len(jobs) > 1 and job else ""
                raise type(exc)(f"{exc}{f' (job: {where})' if where else ''}") from None
    for note in notes:
        print(f"privbench: note: {note}", file=sys.stderr)
    return jobs


def _first_value(override: Any) -> str:
    first = next(iter(override.sweep_string_iterator()))
    return f"{override.get_key_element()}={first}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = lines[0] if lines else type(exc).__name__
    if "Available options" in text or "available options" in text.lower():
        opts = [line for line in lines[1:] if line and not line.lower().startswith("available")]
        head += " Available: " + ", ".join(opts)
    return head


__all__ = [
    "GROUPS",
    "JobComposer",
    "check_group_choices",
    "check_repeated_keys",
    "compose_job",
    "expand_jobs",
    "hydra_context",
    "job_dict",
    "per_name_overrides",
    "preflight",
    "preflight_jobs",
    "sweep_safe_overrides",
]
