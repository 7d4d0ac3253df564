"""Versions of privbench and the libraries whose behaviour shapes results."""

from __future__ import annotations

import platform
from functools import lru_cache
from importlib import metadata

import harness

TRACKED = (
    "numpy", "pandas", "pyarrow", "scipy", "scikit-learn", "xgboost", "statsmodels", "imbalanced-learn",
    "umap-learn", "sdmetrics", "sdv", "anonymeter", "torch", "hydra-core",
)  # fmt: skip


ALIASES: dict[str, tuple[str, ...]] = {"xgboost": ("xgboost", "xgboost-cpu")}
"""Distributions of one library: ``xgboost-cpu`` is xgboost without CUDA (recorded as ``xgboost``)."""


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """Mapping of package name to installed version (absent packages omitted)."""
    out = {"privbench": harness.__version__, "python": platform.python_version()}
    for name in TRACKED:
        for distribution in ALIASES.get(name, (name,)):
            try:
                out[name] = metadata.version(distribution)
                break
            except metadata.PackageNotFoundError:
                continue
    return out
