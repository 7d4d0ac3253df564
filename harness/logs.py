"""Quiet third-party logging: privbench's own lines by default, everything with ``--verbose``.

SDV logs a dozen INFO lines per fit (synthesizer events, data-processor steps, copulas' fitted
distributions) and JAX probes for accelerators; in a sweep these bury the one line per trial
that says what happened. :func:`quiet_third_party` adds a filter to the root logger's handlers
(the ones Hydra installs for every job): records below WARNING pass only from privbench's own
loggers; warnings and errors of every library still show. ``privbench --verbose`` (environment
``PRIVBENCH_VERBOSE=1``, inherited by worker processes) shows everything. The filter is added
once per handler; forked trial processes inherit it.
"""

from __future__ import annotations

import logging
import os

VERBOSE_ENV = "PRIVBENCH_VERBOSE"
OWN_LOGGERS: tuple[str, ...] = ("privbench", "harness", "generators", "metrics", "experiments")
"""Logger names (and their children) whose INFO lines are always shown."""
SILENCED: dict[str, int] = {"jax._src.xla_bridge": logging.ERROR}
"""Loggers whose warnings are noise too (JAX's "Unable to initialize backend 'tpu'")."""


class ThirdPartyInfoFilter(logging.Filter):
    """Drop records below WARNING from loggers outside :data:`OWN_LOGGERS`."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        return any(record.name == own or record.name.startswith(own + ".") for own in OWN_LOGGERS)


def verbose() -> bool:
    """True when ``PRIVBENCH_VERBOSE=1`` (``privbench --verbose``)."""
    return os.environ.get(VERBOSE_ENV) == "1"


def quiet_third_party() -> None:
    """Install the filter on the root logger's handlers (a no-op with ``--verbose``)."""
    if verbose():
        return
    for name, level in SILENCED.items():
        logging.getLogger(name).setLevel(level)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, ThirdPartyInfoFilter) for f in handler.filters):
            handler.addFilter(ThirdPartyInfoFilter())
