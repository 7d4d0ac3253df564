"""Build generator and metric objects from their YAML configs.

A config is a mapping with ``_target_`` (the class path) and the constructor parameters.
Reserved keys, removed before construction:

* ``check_params``: small parameter values the contract checks and tests use instead of
  the defaults (e.g. few epochs).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from harness.errors import ConfigError
from harness.generator import BaseGenerator
from harness.metric import BaseMetric
from harness.registry import read_config
from harness.spec import _plain

RESERVED_KEYS: tuple[str, ...] = ("_target_", "check_params")


def split_config(cfg: Mapping[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Split a config into (target path, constructor params, check params)."""
    plain = _plain(cfg)
    target = plain.get("_target_")
    if not target:
        raise ConfigError(
            "config has no '_target_' key; expected the class path, e.g. generators.baselines.Identity"
        )
    params = {k: v for k, v in plain.items() if k not in RESERVED_KEYS}
    return str(target), params, dict(plain.get("check_params") or {})


def import_target(target: str) -> type:
    """Import ``package.module.Class``; raise :class:`ConfigError` if it does not exist."""
    module_name, _, attr = target.rpartition(".")
    try:
        module = importlib.import_module(module_name)
        found: type = getattr(module, attr)
        return found
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"_target_ {target!r} cannot be imported: {exc}") from None


def build(kind: str, name: str, cfg: Mapping[str, Any], *, use_check_params: bool = False) -> Any:
    """Instantiate the class of ``cfg`` with its parameters.

    Parameters
    ----------
    kind : {"generator", "metric"}
    name : str
        Registry name, for messages.
    cfg : mapping
        The config (``_target_`` + parameters).
    use_check_params : bool
        Overlay ``check_params`` on the parameters (contract checks, tests).
    """
    base = {"generator": BaseGenerator, "metric": BaseMetric}[kind]
    target, params, check = split_config(cfg)
    if use_check_params:
        params.update(check)
    cls: Any = import_target(target)
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ConfigError(f"{kind} {name!r}: _target_ {target!r} is not a {base.__name__} subclass")
    klass = cast("type[BaseGenerator] | type[BaseMetric]", cls)
    allowed = klass._param_names()
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ConfigError(
            f"{kind} {name!r}: unknown parameter(s) {', '.join(unknown)}; expected some of: "
            + (", ".join(allowed) or "(none)")
        )
    try:
        obj = klass(**params)
    except TypeError as exc:
        raise ConfigError(f"{kind} {name!r}: {exc}") from None
    obj.validate_params()
    return obj


def build_generator(
    name: str,
    cfg: Mapping[str, Any] | None = None,
    *,
    use_check_params: bool = False,
    extra_dirs: tuple[Path, ...] = (),
) -> BaseGenerator:
    """Instantiate generator ``name`` from ``cfg`` (default: its YAML in ``experiments/generator``)."""
    if cfg is None:
        cfg = read_config("generator", name, extra_dirs=extra_dirs)
    obj = build("generator", name, cfg, use_check_params=use_check_params)
    assert isinstance(obj, BaseGenerator)
    return obj


def build_metric(
    name: str,
    cfg: Mapping[str, Any] | None = None,
    *,
    use_check_params: bool = False,
    extra_dirs: tuple[Path, ...] = (),
) -> BaseMetric:
    """Instantiate metric ``name`` from ``cfg`` (default: its YAML in ``experiments/metric``)."""
    if cfg is None:
        cfg = read_config("metric", name, extra_dirs=extra_dirs)
    obj = build("metric", name, cfg, use_check_params=use_check_params)
    assert isinstance(obj, BaseMetric)
    return obj


@dataclass(frozen=True)
class GeneratorBuilder:
    """Picklable factory of fresh, unfitted generators of one configuration.

    Given to metrics that refit the generator (``BaseMetric.needs_generator``).

    Attributes
    ----------
    name : str
        Generator registry name.
    cfg : mapping, optional
        Its configuration (``_target_`` and parameters); default its YAML.
    use_check_params : bool
        Apply the config's ``check_params`` (contract checks).
    """

    name: str
    cfg: Mapping[str, Any] | None = None
    use_check_params: bool = False

    def __call__(self) -> BaseGenerator:
        """A new generator built from the configuration."""
        return build_generator(self.name, self.cfg, use_check_params=self.use_check_params)
