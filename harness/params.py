"""Constructor-parameter introspection shared by generators and metrics (as scikit-learn's)."""

from __future__ import annotations

import inspect
from typing import Any


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
