"""The config registry: a generator, metric, dataset or suite exists when its YAML exists.

Names are YAML file names under the Hydra config root ``experiments/``; there are no
decorator registries and no subclass scanning.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

import experiments
from harness.errors import ConfigError, unknown_name

CONFIG_ROOT = Path(experiments.__file__).resolve().parent
GROUPS: tuple[str, ...] = ("dataset", "generator", "metric", "suite", "experiment", "profile")


USER_DIRS_ENV = "PRIVBENCH_CONFIG_DIRS"
"""User config folders (``os.pathsep``-separated) set by ``privbench --config-dir``; child
processes inherit them."""


def user_config_dirs() -> tuple[Path, ...]:
    """The user config folders of this process (``$PRIVBENCH_CONFIG_DIRS``), in precedence order."""
    raw = os.environ.get(USER_DIRS_ENV, "")
    return tuple(Path(p) for p in raw.split(os.pathsep) if p)


def _with_user_dirs(extra_dirs: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys((*extra_dirs, *user_config_dirs())))


def names(group: str, *, extra_dirs: tuple[Path, ...] = ()) -> list[str]:
    """Sorted names of the YAML configs in ``group`` (plus user config dirs)."""
    if group not in GROUPS:
        raise unknown_name("config group", group, list(GROUPS))
    found: set[str] = set()
    for root in (CONFIG_ROOT, *_with_user_dirs(extra_dirs)):
        folder = Path(root) / group
        if folder.is_dir():
            found.update(p.stem for p in folder.glob("*.yaml"))
    return sorted(found)


def config_path(group: str, name: str, *, extra_dirs: tuple[Path, ...] = ()) -> Path:
    """Path of ``<group>/<name>.yaml``; user dirs take precedence over the bundled root."""
    for root in (*_with_user_dirs(extra_dirs), CONFIG_ROOT):
        path = Path(root) / group / f"{name}.yaml"
        if path.is_file():
            return path
    raise unknown_name(group, name, names(group, extra_dirs=extra_dirs))


def read_config(group: str, name: str, *, extra_dirs: tuple[Path, ...] = ()) -> dict[str, Any]:
    """Parse ``<group>/<name>.yaml`` (without Hydra composition) into a plain dict."""
    path = config_path(group, name, extra_dirs=extra_dirs)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data
