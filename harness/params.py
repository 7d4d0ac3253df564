"""Constructor-parameter introspection shared by generators and metrics (as scikit-learn's)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.errors import ConfigError


class ParamsMixin:
    """``get_params`` from the ``__init__`` signature; parameters are stored verbatim as attributes."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def get_params(self) -> dict[str, Any]:
        """Return the constructor parameters and their current values."""
        return {name: getattr(self, name) for name in self._param_names()}


def check_int(name: str, value: Any, minimum: int) -> None:
    """Raise :class:`ConfigError` unless ``value`` is an int >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ConfigError(f"`{name}` must be an integer >= {minimum}; got {value!r}")


def check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    """Raise :class:`ConfigError` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ConfigError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}")


def check_bool(name: str, value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"`{name}` must be true or false; got {value!r}")


def check_column_list(name: str, value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is None or a non-empty list of column names."""
    if value is not None and (
        isinstance(value, str)
        or not isinstance(value, (list, tuple))
        or not value
        or not all(isinstance(c, str) for c in value)
    ):
        raise ConfigError(f"`{name}` must be null or a non-empty list of column names; got {value!r}")
