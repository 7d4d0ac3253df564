"""Parameter checks shared by the k-anonymity generators (one-line :class:`ConfigError`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.errors import ConfigError


def validate_k(name: str, value: Any) -> None:
    """``value`` is an integer >= 2."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
        raise ConfigError(f"`{name}` must be an integer >= 2; got {value!r}")


def validate_share(name: str, value: Any) -> None:
    """``value`` is a number in [0, 1]."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(float(value))
        or not 0 <= float(value) <= 1
    ):
        raise ConfigError(f"`{name}` must be a number in [0, 1]; got {value!r}")


def validate_widths(widths: Any) -> None:
    """``widths`` is None or a mapping column → positive number or list of positive numbers."""
    if widths is None:
        return
    if not isinstance(widths, Mapping):
        raise ConfigError(f"`widths` must be a mapping column -> width; got {widths!r}")
    for col, width in widths.items():
        values = width if isinstance(width, (list, tuple)) else [width]
        if not values or any(
            isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w <= 0
            for w in values
        ):
            raise ConfigError(f"`widths.{col}` must be a positive number or a list of them; got {width!r}")


def choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    """``value`` is one of ``choices``."""
    if value not in choices:
        raise ConfigError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}")
