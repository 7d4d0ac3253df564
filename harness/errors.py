"""Exception types of privbench.

Every error a user can cause by bad input derives from :class:`PrivbenchError` and
carries a one-line message naming the file, column or key and what was expected.
The CLI prints such messages without a traceback (unless ``--debug``) and exits
non-zero.
"""

from __future__ import annotations


class PrivbenchError(Exception):
    """Base class of user-facing errors: the message is one line and self-explanatory."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class ConfigError(PrivbenchError, ValueError):
    """A configuration key, name or parameter is invalid."""


class DataError(PrivbenchError, ValueError):
    """A data file or one of its columns is unusable (missing, empty, unreadable, wrong type)."""


class IncomputableMetricError(PrivbenchError):
    """A metric does not apply to this trial (recorded as status ``skipped``, never a crash)."""


class InfeasibleConfigError(PrivbenchError):
    """A generator configuration cannot run on this data (recorded as status ``skipped``)."""


class NotFittedError(PrivbenchError, RuntimeError):
    """``sample`` was called before ``fit``."""


def unknown_name(kind: str, name: str, valid: list[str]) -> ConfigError:
    """Build the error for an unknown registry name, listing the valid names.

    Parameters
    ----------
    kind : str
        What was looked up, e.g. ``"generator"``.
    name : str
        The name that was not found.
    valid : list of str
        The names that exist.
    """
    choices = ", ".join(sorted(valid)) or "(none)"
    return ConfigError(f"unknown {kind} {name!r}; expected one of: {choices}")
