"""The TRTR memo of ``ml_efficacy``: the real-data baseline fitted once per (data, split, config).

TRTR (train on the real training split T, test on the real test split H) is the same for
every variant of one (dataset, split, metric configuration, seed): the trials of a sweep over
generators or their parameters would each refit it. It is a pure function of T, H, the
classifier with its grid and fixed parameters, the CV settings, the seed and the code, so it is
memoised twice:

* in-process (a small LRU, as before: the jobs of Hydra's basic launcher share a process);
* across processes in the trial cache (:func:`harness.memo.memo` namespace
  ``ml_efficacy_trtr``, one JSON entry per classifier), so the jobs of the joblib and submitit
  launchers, a resumed sweep and a later sweep on the same data reuse it.

The key (:func:`trtr_payload`) holds the digests of T (in canonical row order, the order the
fit uses) and H, the target, task, scores, test classes and feature columns, the classifier and
its resolved grid, every metric parameter that shapes the fit, the CV settings, the seed, the
versions of the libraries that fit, and :data:`TRTR_CODE_VERSION`. A served entry restores the
grid point object itself (tuples stay tuples), so a trial's rows are identical whether the
baseline was fitted or served. ``PRIVBENCH_TRTR_MEMO=0`` switches the cross-process memo off
(``benchmarks/bench_trial_overhead`` compares both); ``runtime.use_cache=false`` disables it too.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import ParameterGrid

from harness.encoding import canonical_row_order
from harness.memo import frame_digest, key_of, memo
from harness.spec import canonical_json
from harness.versions import versions

NAMESPACE = "ml_efficacy_trtr"
"""Namespace of the TRTR entries in the cross-process memo (:mod:`harness.memo`)."""
TRTR_CODE_VERSION = "trtr-v1"
"""Part of every key: bump it when fitting, model selection or scoring changes a TRTR result."""
MEMO_ENV = "PRIVBENCH_TRTR_MEMO"
LIBRARIES: tuple[str, ...] = ("privbench", "numpy", "pandas", "scikit-learn", "xgboost")
"""Packages whose versions are part of the key."""
IN_PROCESS_SIZE = 16


@dataclass
class Fitted:
    """Test scores of one classifier trained on one table, and how it was chosen."""

    scores: dict[str, float]
    cv_score: float | None = None
    best_params: dict[str, Any] = field(default_factory=dict)
    n_configs: int = 1
    n_failed: int = 0
    note: str = ""


TRTR_CACHE: OrderedDict[str, Fitted] = OrderedDict()
"""The in-process LRU (key: :func:`harness.memo.key_of` of the payload)."""


def cross_process_enabled() -> bool:
    """False when ``PRIVBENCH_TRTR_MEMO=0`` (only the in-process LRU is used)."""
    return os.environ.get(MEMO_ENV, "1") != "0"


def trtr_payload(
    *,
    real: pd.DataFrame,
    test: pd.DataFrame,
    task: Mapping[str, Any],
    classifier: str,
    params: Mapping[str, Any],
    grid: Mapping[str, Sequence[Any]],
    cv: Mapping[str, Any],
    seed: int,
) -> dict[str, Any]:
    """Everything a TRTR result depends on (hashed into the memo key).

    Parameters
    ----------
    real, test : DataFrame
        The training split T and the test split H as the metric received them.
    task : mapping
        Target, task kind, scores, headline, test classes and feature columns.
    classifier : str
    params : mapping
        The metric's parameters that shape the fit (``classifiers`` and ``rope`` left out).
    grid : mapping
        The classifier's resolved hyper-parameter grid (``{}``: fixed settings).
    cv : mapping
        Folds, repeats, scheme and model selection of the protocol.
    seed : int
    """
    libraries = versions()
    return {
        "code": TRTR_CODE_VERSION,
        "libraries": {name: libraries.get(name) for name in LIBRARIES},
        "train": frame_digest(canonical_row_order(real)),
        "test": frame_digest(test),
        "task": dict(task),
        "classifier": classifier,
        "params": dict(params),
        "grid": {k: list(v) for k, v in grid.items()},
        "cv": dict(cv),
        "seed": int(seed),
    }


def memoised_trtr(
    payload: Mapping[str, Any], grid: Mapping[str, Sequence[Any]], fit: Callable[[], Fitted]
) -> Fitted:
    """The TRTR result of ``payload``: from this process, from the trial cache, or ``fit()``.

    Parameters
    ----------
    payload : mapping
        From :func:`trtr_payload`.
    grid : mapping
        The classifier's grid (served ``best_params`` are mapped back to its points).
    fit : callable
        Fits and scores the classifier on T (called on a miss only).
    """
    key = key_of(payload)
    hit = TRTR_CACHE.get(key)
    if hit is not None:
        TRTR_CACHE.move_to_end(key)
        return hit
    store = memo(NAMESPACE) if cross_process_enabled() else None
    fitted = None
    if store is not None and store.enabled:
        fitted = from_json(store.get_json(payload), grid)
    if fitted is None:
        fitted = fit()
        if store is not None:
            store.put_json(payload, to_json(fitted))
    TRTR_CACHE[key] = fitted
    while len(TRTR_CACHE) > IN_PROCESS_SIZE:
        TRTR_CACHE.popitem(last=False)
    return fitted


def to_json(fitted: Fitted) -> dict[str, Any]:
    """A :class:`Fitted` as a JSON value (NaN scores stay NaN)."""
    return {
        "scores": {str(k): float(v) for k, v in fitted.scores.items()},
        "cv_score": None if fitted.cv_score is None else float(fitted.cv_score),
        "best_params": jsonable(fitted.best_params),
        "n_configs": int(fitted.n_configs),
        "n_failed": int(fitted.n_failed),
        "note": str(fitted.note),
    }


def from_json(value: Any, grid: Mapping[str, Sequence[Any]]) -> Fitted | None:
    """The :class:`Fitted` of a stored entry, or None for a missing or malformed one."""
    if not isinstance(value, dict):
        return None
    try:
        scores = {str(k): float(v) for k, v in value["scores"].items()}
        cv_score = value["cv_score"]
        return Fitted(
            scores=scores,
            cv_score=None if cv_score is None else float(cv_score),
            best_params=grid_point(value["best_params"], grid),
            n_configs=int(value["n_configs"]),
            n_failed=int(value["n_failed"]),
            note=str(value["note"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def grid_point(stored: Mapping[str, Any], grid: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The point of ``grid`` whose JSON form is ``stored`` (the stored values if none is)."""
    wanted = canonical_json(stored)
    if grid:
        for point in ParameterGrid({k: list(v) for k, v in grid.items()}):
            if canonical_json(jsonable(point)) == wanted:
                return dict(point)
    return dict(stored)


def jsonable(value: Any) -> Any:
    """``value`` with tuples as lists and numpy scalars as Python numbers (for JSON and details)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


__all__ = [
    "MEMO_ENV",
    "NAMESPACE",
    "TRTR_CACHE",
    "TRTR_CODE_VERSION",
    "Fitted",
    "cross_process_enabled",
    "from_json",
    "grid_point",
    "jsonable",
    "memoised_trtr",
    "to_json",
    "trtr_payload",
]
