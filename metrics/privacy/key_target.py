"""Key and target columns of the attribute-disclosure metrics (Raab's measures, TCAP).

Both metrics attack a target column through a set of key columns: ``keys`` default to the
active QI set, ``targets`` to the dataset's sensitive columns (or its target) that are not
keys. :class:`KeyTargetMetric` resolves and validates them once for both.
"""

from __future__ import annotations

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric
from harness.spec import DatasetSpec


class KeyTargetMetric(BaseMetric):
    """A metric with ``keys`` and ``targets`` parameters (lists of column names or None)."""

    keys: list[str] | None
    targets: list[str] | None

    def key_columns(self, spec: DatasetSpec) -> list[str]:
        """The key columns: ``keys``, else the active QI set.

        Raises
        ------
        ConfigError
            A configured key is not a column of the dataset.
        IncomputableMetricError
            No keys are configured and the dataset has no QI set.
        """
        if self.keys is not None:
            self._check_known("keys", self.keys, spec)
            return list(self.keys)
        if not spec.qi:
            raise IncomputableMetricError(
                f"metric {self.name} needs key columns; dataset {spec.name!r} has no QI set and `keys` is null"
            )
        return list(spec.qi)

    def target_columns(self, spec: DatasetSpec, keys: list[str]) -> list[str]:
        """The targets: ``targets``, else the sensitive columns (or the target) that are not keys.

        Raises
        ------
        ConfigError
            A configured target is unknown or is one of the keys.
        IncomputableMetricError
            No target is configured and the dataset declares no usable one.
        """
        if self.targets is not None:
            self._check_known("targets", self.targets, spec)
            clash = [t for t in self.targets if t in keys]
            if clash:
                raise ConfigError(
                    f"metric {self.name}: `targets` must not include key column(s) {', '.join(clash)}"
                )
            return list(dict.fromkeys(self.targets))
        candidates = list(spec.sensitive) or ([spec.target] if spec.target is not None else [])
        chosen = [t for t in candidates if t not in keys]
        if not chosen:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} declares no sensitive column or target "
                "outside the keys; set `targets`"
            )
        return chosen

    def _check_known(self, key: str, columns: list[str], spec: DatasetSpec) -> None:
        unknown = [c for c in columns if c not in spec.table_columns]
        if unknown:
            raise ConfigError(
                f"metric {self.name}: `{key}` names unknown column(s) {', '.join(unknown)} "
                f"of dataset {spec.name!r}"
            )
