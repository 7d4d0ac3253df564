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

Only the SDMetrics subpackages a metric uses are loaded (issue 18): the package's ``__init__``
imports every metric family, the reports and their plotly figures (about 0.5 s of CPU), where a
KS statistic needs ``sdmetrics.single_column``. The light subpackages (:data:`LIGHT`) are
imported on their own, with the package itself registered but not yet initialised; the first
use of anything else (an attribute of ``sdmetrics``, any other subpackage) runs the package's
``__init__`` then, without torch as above, so ``import sdmetrics`` code anywhere sees the
package exactly as shipped. ``PRIVBENCH_SDMETRICS_PARTIAL=0`` imports the whole package (as
before issue 18).

``PRIVBENCH_LAZY_IMPORTS=0`` turns this off (the behaviour before issue 15: SDMetrics imported
as shipped, torch included, on a metric's first ``compute``); ``benchmarks/bench_trial_overhead``
compares both.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from harness.threads import lazy_imports

BLOCKED: tuple[str, ...] = ("torch",)
"""Top-level packages whose import fails while SDMetrics loads."""

LIGHT: tuple[str, ...] = ("base", "errors", "goal", "utils", "warnings", "single_column", "column_pairs")
"""SDMetrics modules imported without the package's ``__init__`` (they import nothing else of it)."""

PARTIAL_ENV = "PRIVBENCH_SDMETRICS_PARTIAL"


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
        if name.split(".", 1)[0] in LIGHT and os.environ.get(PARTIAL_ENV, "1") != "0":
            _register_partial()
        else:
            _import_without(BLOCKED)
    if not name:
        _complete_partial()
        return sys.modules["sdmetrics"]
    return importlib.import_module(f"sdmetrics.{name}")


def preload_sdmetrics(*names: str) -> None:
    """Import SDMetrics now (when a wrapper is built), so no metric's ``metric_s`` pays for it.

    Parameters
    ----------
    *names : str
        The SDMetrics subpackages the metric uses (``"single_column"``, ``"errors"``); none = the
        whole package.

    A no-op with ``PRIVBENCH_LAZY_IMPORTS=0`` (SDMetrics is then imported by the first
    ``compute``, as before).
    """
    if lazy_imports():
        for name in names or ("",):
            sdmetrics_module(name)


class _PartialPackage(importlib.abc.MetaPathFinder):
    """Completes the registered but uninitialised ``sdmetrics`` before a non-light submodule loads.

    The submodule is then in ``sys.modules`` (the package's ``__init__`` imported it); the spec
    returned hands that module to the import system instead of loading it a second time.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if parts[0] != "sdmetrics" or len(parts) < 2 or parts[1] in LIGHT:
            return None
        _complete_partial()
        module = sys.modules.get(fullname)
        if module is None:
            return None  # not imported by the package's __init__: the ordinary finders load it
        return importlib.util.spec_from_loader(fullname, _Loaded(module))


class _Loaded(importlib.abc.Loader):
    """A loader whose module is already loaded (see :class:`_PartialPackage`)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        return None


_FINDER = _PartialPackage()


def _register_partial() -> None:
    """Put ``sdmetrics`` into ``sys.modules`` without running its ``__init__`` (see the module notes)."""
    spec = importlib.util.find_spec("sdmetrics")
    if spec is None or spec.loader is None:
        importlib.import_module("sdmetrics")  # raises the usual ModuleNotFoundError
        return
    package = importlib.util.module_from_spec(spec)
    package.__getattr__ = _package_getattr  # type: ignore[method-assign]  # PEP 562: completes on first use
    sys.modules["sdmetrics"] = package
    sys.meta_path.insert(0, _FINDER)


def _package_getattr(attr: str) -> Any:
    """``sdmetrics.<attr>`` on the uninitialised package: initialise it, then look again."""
    _complete_partial()
    return getattr(sys.modules["sdmetrics"], attr)


def _complete_partial() -> None:
    """Run the ``__init__`` of a partially imported ``sdmetrics`` (without torch); else nothing."""
    if _FINDER not in sys.meta_path:
        return
    sys.meta_path.remove(_FINDER)
    package = sys.modules["sdmetrics"]
    vars(package).pop("__getattr__", None)
    spec = package.__spec__
    assert spec is not None and spec.loader is not None
    names = [n for n in BLOCKED if n not in sys.modules]
    before = set(sys.modules)
    try:
        with _blocked(names):
            spec.loader.exec_module(package)
    except ImportError:  # a future SDMetrics needs one of them: initialise it as shipped
        spec.loader.exec_module(package)
        return
    _stand_in(names, set(sys.modules) - before)


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
    _stand_in(names, set(sys.modules) - before)


def _stand_in(names: Sequence[str], loaded: set[str]) -> None:
    """Give the SDMetrics modules among ``loaded`` a :class:`LazyModule` for each blocked ``names``."""
    installed = [n for n in names if importlib.util.find_spec(n) is not None]
    for module_name in loaded:
        module = sys.modules.get(module_name)
        if module is None or not module_name.startswith("sdmetrics"):
            continue
        for blocked in installed:
            if blocked in vars(module) and vars(module)[blocked] is None:
                setattr(module, blocked, LazyModule(blocked))


__all__ = ["BLOCKED", "LIGHT", "PARTIAL_ENV", "LazyModule", "preload_sdmetrics", "sdmetrics_module"]
