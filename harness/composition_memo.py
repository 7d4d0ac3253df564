"""Compose each distinct Hydra defaults tree once per ``privbench run``, not once per job.

One ``privbench run`` composes the same configuration many times: the preflight composes every
job (:mod:`harness.preflight`), Hydra composes the command once to learn its mode
(``Hydra.get_mode``) and once more to run it (``Hydra.run`` / ``Hydra.multirun``), and the
basic launcher composes every job of a sweep again before running it (``load_sweep_config``).
Each composition builds the defaults tree (``create_defaults_list``: the YAML files' defaults
lists) and merges every YAML file of the tree (``_compose_config_from_defaults_list``), about
0.2–0.4 s of CPU each, although jobs that differ only in leaf values (``gen_seed=3``) or in
Hydra's own settings (``hydra.mode=RUN``) have the same tree and the same merged files.

:func:`install` memoises exactly these two steps inside Hydra's config loader; everything
after them (command-line overrides applied to the merged config, ``hydra.overrides``,
``hydra.runtime``, ``hydra.job.override_dirname``) is Hydra's own code on a fresh copy, so
every composition returns the config Hydra would have returned:

* the defaults tree is keyed by the config name, the search path, the overrides that choose
  config groups (those Hydra's ``Overrides`` treats as group overrides, in order) and the
  ``prepend_hydra`` / ``skip_missing`` switches; the other overrides are passed through as the
  composition's config overrides, as Hydra separates them;
* the merged config is keyed by the search path and the resulting defaults list, and handed
  out as a copy (callers modify it): :func:`clone_config`, a pickle round trip, which copies an
  OmegaConf config in half the time of ``copy.deepcopy`` (flags, node types and structured
  config classes included; submitit ships configs to SLURM jobs the same way).

Errors are never memoised (a failing composition raises as before, every time). Entries hold
for one command: :func:`clear` (called by every preflight, which installs the memo) forgets them,
and the key holds the size and modification time of every YAML file under the ``file://``
search-path folders (``--config-dir``), so an edited user config is read again. Packaged
configs (``pkg://``) are taken as fixed while a process runs.
"""

from __future__ import annotations

import copy
import os
import pickle
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hydra._internal import config_loader_impl
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra._internal.defaults_list import DefaultsList

ENV = "PRIVBENCH_COMPOSE_ONCE"
MAX_ENTRIES = 128
"""Entries kept per memo (least recently used dropped): one per distinct tree of a sweep."""

_TREES: OrderedDict[tuple[Any, ...], DefaultsList] = OrderedDict()
_CONFIGS: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_ORIGINAL_CREATE: Callable[..., DefaultsList] = config_loader_impl.create_defaults_list
_ORIGINAL_COMPOSE: Callable[..., Any] = ConfigLoaderImpl._compose_config_from_defaults_list
STATS: dict[str, int] = {"tree_hits": 0, "tree_misses": 0, "config_hits": 0, "config_misses": 0}
"""Hits and misses since the last :func:`clear` (for tests and the overhead benchmark)."""


def install() -> None:
    """Route Hydra's defaults-tree construction and config merging through the memo (idempotent).

    A no-op with ``PRIVBENCH_COMPOSE_ONCE=0`` (every composition reads and merges the YAML
    files, as before issue 18; ``benchmarks/bench_trial_overhead`` compares both).
    """
    if os.environ.get(ENV, "1") == "0":
        return
    config_loader_impl.create_defaults_list = create_defaults_list
    ConfigLoaderImpl._compose_config_from_defaults_list = _compose_config_from_defaults_list  # type: ignore[method-assign]


def uninstall() -> None:
    """Restore Hydra's own functions and forget every entry."""
    config_loader_impl.create_defaults_list = _ORIGINAL_CREATE
    ConfigLoaderImpl._compose_config_from_defaults_list = _ORIGINAL_COMPOSE  # type: ignore[method-assign]
    clear()


def clear() -> None:
    """Forget every memoised tree and config (the next composition reads the YAML files again)."""
    _TREES.clear()
    _CONFIGS.clear()
    for key in STATS:
        STATS[key] = 0


def create_defaults_list(
    repo: Any,
    config_name: str | None,
    overrides_list: Sequence[Any],
    prepend_hydra: bool,
    skip_missing: bool,
) -> DefaultsList:
    """Hydra's ``create_defaults_list``, built once per group choices and search path.

    Parameters and result as Hydra's function; the result's ``config_overrides`` are the
    non-group overrides of this call, in their order.
    """
    groups, others = _split_overrides(repo, overrides_list)
    lines = tuple(o.input_line for o in groups)
    if any(line is None for line in lines):
        return _ORIGINAL_CREATE(repo, config_name, list(overrides_list), prepend_hydra, skip_missing)
    key = (_sources_key(repo), config_name, lines, prepend_hydra, skip_missing)
    cached = _TREES.get(key)
    if cached is None and skip_missing:  # a tree complete without skipping has nothing to skip
        key = (*key[:-1], False)
        cached = _TREES.get(key)
    if cached is not None:
        _TREES.move_to_end(key)
    if cached is None:
        STATS["tree_misses"] += 1
        cached = _ORIGINAL_CREATE(repo, config_name, groups, prepend_hydra, skip_missing)
        _remember(_TREES, key, cached)
    else:
        STATS["tree_hits"] += 1
    choices = copy.deepcopy(cached.overrides)
    choices.config_overrides = list(others)
    return DefaultsList(
        defaults=copy.deepcopy(cached.defaults),
        defaults_tree=copy.deepcopy(cached.defaults_tree),
        config_overrides=list(others),
        overrides=choices,
    )


def _compose_config_from_defaults_list(self: ConfigLoaderImpl, defaults: list[Any], repo: Any) -> Any:
    """Hydra's merge of the defaults list's YAML files, done once per list and search path."""
    key = (
        _sources_key(repo),
        tuple((d.config_path, d.parent, d.package, d.is_self, d.primary, d.override_key) for d in defaults),
    )
    cached = _CONFIGS.get(key)
    if cached is not None:
        _CONFIGS.move_to_end(key)
    if cached is None:
        STATS["config_misses"] += 1
        composed = _ORIGINAL_COMPOSE(self, defaults, repo)
        _remember(_CONFIGS, key, clone_config(composed))
        return composed
    STATS["config_hits"] += 1
    return clone_config(cached)


def clone_config(cfg: Any) -> Any:
    """An independent copy of an OmegaConf config (equal, with the same flags and node types).

    A pickle round trip: about half the time of ``copy.deepcopy`` on a composed privbench job
    config (16 vs 30 ms), which the memo's hits and the preflight's per-job configs pay.
    ``copy.deepcopy`` where pickling fails: a joblib launcher with one worker runs its jobs in
    the launching process, where Hydra's plugin scan has re-imported the launcher's structured
    config class, so pickle no longer finds that class under its name.
    """
    try:
        return pickle.loads(pickle.dumps(cfg, protocol=pickle.HIGHEST_PROTOCOL))
    except pickle.PicklingError:
        return copy.deepcopy(cfg)


def _split_overrides(repo: Any, overrides: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """(group overrides, config overrides) as Hydra's ``Overrides`` tells them apart.

    Sweep overrides belong to neither (Hydra skips them when building the tree).
    """
    groups, others = [], []
    for override in overrides:
        if override.is_sweep_override():
            continue
        if isinstance(override.value(), dict) or not repo.group_exists(override.key_or_group):
            others.append(override)
        else:
            groups.append(override)
    return groups, others


def _sources_key(repo: Any) -> tuple[Any, ...]:
    """The search path, with a fingerprint of the YAML files under its ``file://`` folders."""
    key: list[Any] = []
    for source in repo.get_sources():
        entry: tuple[Any, ...] = (type(source).__name__, source.provider, source.path)
        if source.scheme() == "file":
            entry += (_folder_fingerprint(Path(source.path)),)
        key.append(entry)
    return tuple(key)


def _folder_fingerprint(root: Path) -> tuple[tuple[str, int, int], ...]:
    """(relative path, size, modification time) of every YAML file under ``root``."""
    out = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith((".yaml", ".yml")):
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                out.append((os.path.relpath(path, root), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(out))


def _remember(memo: OrderedDict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any) -> None:
    memo[key] = value
    memo.move_to_end(key)
    while len(memo) > MAX_ENTRIES:
        memo.popitem(last=False)


__all__ = ["ENV", "MAX_ENTRIES", "STATS", "clear", "create_defaults_list", "install", "uninstall"]
