"""Import SDMetrics without importing torch.

Any ``import sdmetrics.<submodule>`` runs the package's ``__init__``, which imports every
metric family, and ``sdmetrics.single_table.bayesian_network`` imports torch when it is
installed (``try: import torch``): 1.5–7 s of a trial's start-up for a KS statistic, and torch's
threads and memory in every trial process. :func:`sdmetrics_module` imports SDMetrics with the
torch import failing as if torch were absent, then gives every SDMetrics module that recorded
``torch = None`` a stand-in that imports torch on first use. SDMetrics' own classes are used
unchanged (a metric named after SDMetrics equals SDMetrics' call on the same data), and its
Bayesian-network metrics still work where torch is installed.

The SDMetrics wrappers call :func:`preload_sdmetrics` when they are built (preflight and
``prepare_trial`` build the metrics), so the import is never part of a metric's ``metric_s``.

``PRIVBENCH_LAZY_IMPORTS=0`` turns this off (the behaviour before issue 15: SDMetrics imported
as shipped, torch included, on a metric's first ``compute``); ``benchmarks/bench_trial_overhead``
compares both.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from harness.threads import lazy_imports

BLOCKED: tuple[str, ...] = ("torch",)
"""Top-level packages whose import fails while SDMetrics loads."""


def sdmetrics_module(name: str = "") -> ModuleType:
    """``sdmetrics`` (or ``sdmetrics.<name>``), imported without torch where it is not loaded yet.

    Parameters
    ----------
    name : str
        Dotted submodule of ``sdmetrics`` (``"single_column"``, ``"errors"``...); ``""`` = the
        package.

    Returns
    -------
    module

    Notes
    -----
    While SDMetrics loads (once per process), importing torch fails in every thread; trials
    build their metrics in the main thread before any metric or generator runs.
    """
    if "sdmetrics" not in sys.modules and lazy_imports():
        _import_without(BLOCKED)
    return importlib.import_module(f"sdmetrics.{name}" if name else "sdmetrics")


def preload_sdmetrics() -> None:
    """Import SDMetrics now (when a wrapper is built), so no metric's ``metric_s`` pays for it.

    A no-op with ``PRIVBENCH_LAZY_IMPORTS=0`` (SDMetrics is then imported by the first
    ``compute``, as before).
    """
    if lazy_imports():
        sdmetrics_module()


class _Blocker(importlib.abc.MetaPathFinder):
    """A meta-path finder that makes ``import <blocked>`` raise ``ModuleNotFoundError``.

    Nothing is put into ``sys.modules``: libraries that probe ``sys.modules`` for torch (the
    array-API helpers of scipy and scikit-learn) still see it as not imported.
    """

    def __init__(self, blocked: Sequence[str]) -> None:
        self.blocked = tuple(blocked)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".", 1)[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named {fullname!r} (deferred by privbench)", name=fullname)
        return None


class LazyModule:
    """Stands in for a module that an SDMetrics module failed to import: imports it on first use.

    Parameters
    ----------
    name : str
        The module's import name.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


@contextmanager
def _blocked(names: Sequence[str]) -> Iterator[None]:
    blocker = _Blocker(names)
    sys.meta_path.insert(0, blocker)
    try:
        yield
    finally:
        sys.meta_path.remove(blocker)


def _import_without(names: Sequence[str]) -> None:
    """Import ``sdmetrics`` with the packages ``names`` blocked (those already imported are not)."""
    names = [n for n in names if n not in sys.modules]
    if not names:
        importlib.import_module("sdmetrics")
        return
    importlib.import_module("scipy.stats")  # SDMetrics' dependencies initialise outside the window
    before = set(sys.modules)
    try:
        with _blocked(names):
            importlib.import_module("sdmetrics")
    except ImportError:  # a future SDMetrics needs one of them: import it as shipped
        for partial in [m for m in sys.modules if m == "sdmetrics" or m.startswith("sdmetrics.")]:
            del sys.modules[partial]
        importlib.import_module("sdmetrics")
        return
    installed = [n for n in names if importlib.util.find_spec(n) is not None]
    for module_name in set(sys.modules) - before:
        module = sys.modules.get(module_name)
        if module is None or not module_name.startswith("sdmetrics"):
            continue
        for blocked in installed:
            if blocked in vars(module) and vars(module)[blocked] is None:
                setattr(module, blocked, LazyModule(blocked))


__all__ = ["BLOCKED", "LazyModule", "preload_sdmetrics", "sdmetrics_module"]
