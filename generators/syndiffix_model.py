"""SynDiffix synthesis (``spec/generators.md`` §7.8), wrapping the ``syndiffix`` package.

Source: ``004_…`` *A Comparison of SynDiffix Multi-table Versus Single-table Synthetic
Data* (Francis), §2: multi-dimensional search trees with range snapping, sticky noise and
aggregation with suppression. The module is not named ``syndiffix`` so that it does not
shadow the package.

Seeding: SynDiffix's noise is *sticky*: a function of the data, the node and a secret salt.
The generator seed is mapped to the salt (first 16 bytes of SHA-256 of
``"privbench-syndiffix:<seed>"``), so the same seed gives the same output and a different
seed different noise. The library's non-cryptographic "unsafe" RNG (fixed at 0 in the
package) is reseeded from the seed after the trees are built, so the values drawn inside the
buckets also depend on the seed.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.dtypes import convert_column
from harness.errors import ConfigError, DataError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_int

SALT_PREFIX = "privbench-syndiffix:"


def salt_for_seed(seed: int) -> bytes:
    """The 16-byte SynDiffix salt of a generator seed (stable across processes)."""
    return hashlib.sha256(f"{SALT_PREFIX}{int(seed)}".encode()).digest()[:16]


class SynDiffix(BaseGenerator):
    """SynDiffix single- or multi-table synthesis (``spec/generators.md`` §7.8).

    Parameters
    ----------
    columns : "all", None or list of list of str
        None / ``"all"``: one synthesis over all columns (single table). A list of column
        subsets: multi-table mode, one synthesis per subset (all with the same salt, as the
        method requires); the released table is still the all-column synthesis and each
        subset's table is returned by :meth:`artifacts` as ``table_<i>``.
    aid_column : str, optional
        Column identifying the person (several rows per person allowed); None = one row per
        person. It is not synthesised and is released as all-missing.
    low_threshold : int
        Absolute suppression threshold (rows), default 3.
    low_mean_gap : float
        Mean suppression threshold = ``low_threshold + low_mean_gap * layer_sd`` (default 5).
    layer_sd : float
        SD of the suppression-threshold noise.
    layer_noise_sd : float
        SD of each sticky-noise layer of a bucket count (two layers: total ≈ 1.4 by default).
    value_safe_columns : list of str, optional
        Categorical columns whose values are not identifying, passed to SynDiffix as
        ``value_safe_columns``: their rare values are released as they are.
    max_weight : float
        Largest total weight of a column cluster of SynDiffix's default clustering
        (``DefaultClustering(max_weight=...)``, library default 15): wide tables are
        synthesised as stitched clusters of related columns; smaller clusters are faster and
        keep fewer joint dependencies.
    solver_alpha : float
        Cooling rate of the simulated annealing that searches the column clusters
        (``DefaultClustering(solver_alpha=...)``, library default 0.01, about 28,500 steps);
        larger values cool faster (1.0: about 290 steps), for quick runs.

    Notes
    -----
    **Decisions.** For other categorical columns SynDiffix replaces a value that is not
    backed by enough rows with ``"<common prefix>*<number>"``, a label outside the training
    domain; the wrapper releases such cells as missing (they are counted in
    ``details()["unsafe_values"]``), which keeps the protection and the rule that released
    categories were seen in training. The natural output size is SynDiffix's (≈ n, noisy);
    ``sample(n)`` draws n rows of the synthesised table with ``rng_`` (without replacement
    when n does not exceed it, the surplus with replacement otherwise): never a second
    synthesis, which would average out the sticky noise. Synthesis happens in ``fit``.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(
        self,
        columns: list[list[str]] | str | None = None,
        aid_column: str | None = None,
        low_threshold: int = 3,
        low_mean_gap: float = 2.0,
        layer_sd: float = 1.0,
        layer_noise_sd: float = 1.0,
        value_safe_columns: list[str] | None = None,
        max_weight: float = 15.0,
        solver_alpha: float = 0.01,
    ) -> None:
        self.columns = columns
        self.aid_column = aid_column
        self.low_threshold = low_threshold
        self.low_mean_gap = low_mean_gap
        self.layer_sd = layer_sd
        self.layer_noise_sd = layer_noise_sd
        self.value_safe_columns = value_safe_columns
        self.max_weight = max_weight
        self.solver_alpha = solver_alpha

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        cols = self.columns
        if (
            cols is not None
            and cols != "all"
            and (
                isinstance(cols, str)
                or not isinstance(cols, (list, tuple))
                or not cols
                or not all(
                    isinstance(sub, (list, tuple)) and sub and all(isinstance(c, str) for c in sub)
                    for sub in cols
                )
            )
        ):
            raise ConfigError(
                f"`columns` must be null, 'all' or a non-empty list of non-empty column lists; got {cols!r}"
            )
        if self.aid_column is not None and not isinstance(self.aid_column, str):
            raise ConfigError(f"`aid_column` must be null or a column name; got {self.aid_column!r}")
        check_int("low_threshold", self.low_threshold, 1)
        weight = self.max_weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 1 < weight < float("inf"):
            raise ConfigError(f"`max_weight` must be a finite number > 1; got {weight!r}")
        alpha = self.solver_alpha
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < float("inf"):
            raise ConfigError(f"`solver_alpha` must be a finite number > 0; got {alpha!r}")
        for key in ("low_mean_gap", "layer_sd", "layer_noise_sd"):
            value = getattr(self, key)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0 <= value < float("inf")
            ):
                raise ConfigError(f"`{key}` must be a non-negative finite number; got {value!r}")
        safe = self.value_safe_columns
        if safe is not None and (
            isinstance(safe, str)
            or not isinstance(safe, (list, tuple))
            or not all(isinstance(c, str) for c in safe)
        ):
            raise ConfigError(f"`value_safe_columns` must be null or a list of column names; got {safe!r}")

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return n_rows  # natural size ≈ n, noisy

    # ------------------------------------------------------------------ fit
    def _check_columns(self, names: list[str], key: str) -> None:
        table = set(self.spec_.table_columns)
        unknown = [c for c in names if c not in table]
        if unknown:
            raise ConfigError(
                f"syndiffix: `{key}` names unknown column(s) {', '.join(map(repr, unknown))}; "
                f"expected columns of dataset {self.spec_.name!r}"
            )

    def _synthesize(self, data: pd.DataFrame, pids: pd.DataFrame | None, salt: bytes) -> pd.DataFrame:
        from syndiffix import Synthesizer
        from syndiffix.clustering.strategy import DefaultClustering
        from syndiffix.common import AnonymizationParams, SuppressionParams

        params = AnonymizationParams(
            salt=salt,
            low_count_params=SuppressionParams(
                low_threshold=int(self.low_threshold),
                layer_sd=float(self.layer_sd),
                low_mean_gap=float(self.low_mean_gap),
            ),
            layer_noise_sd=float(self.layer_noise_sd),
        )
        safe = [c for c in (self.value_safe_columns or []) if c in data.columns]
        synth = Synthesizer(
            data.reset_index(drop=True),
            pids=pids,
            anonymization_params=params,
            value_safe_columns=safe or None,
            clustering=DefaultClustering(
                max_weight=float(self.max_weight), solver_alpha=float(self.solver_alpha)
            ),
        )
        if hasattr(synth, "forest") and hasattr(synth.forest, "unsafe_rng"):
            synth.forest.unsafe_rng = random.Random(self.seed_)
        return synth.sample()

    def _to_spec(self, frame: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, dict[str, int]]:
        """Our dtypes for ``columns``; unsafe (``*``) category labels become missing."""
        out: dict[str, pd.Series] = {}
        unsafe: dict[str, int] = {}
        for col in columns:
            kind = self.spec_.kind(col)
            values = frame[col].reset_index(drop=True)
            if self.spec_.column(col).is_categorical:
                labels = convert_column(values, kind, where=f"syndiffix output column {col!r}")
                bad = labels.notna() & ~labels.isin(self.training_categories_.get(col, frozenset()))
                unsafe[col] = int(bad.sum())
                out[col] = labels.where(~bad, np.nan)
            else:
                out[col] = convert_column(values, kind, where=f"syndiffix output column {col!r}")
        return pd.DataFrame(out, index=pd.RangeIndex(len(frame))), unsafe

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        aid = self.aid_column
        if aid is not None:
            self._check_columns([aid], "aid_column")
        if self.value_safe_columns:
            self._check_columns(list(self.value_safe_columns), "value_safe_columns")
        synth_cols = [c for c in spec.table_columns if c != aid]
        if not synth_cols:
            raise ConfigError("syndiffix: no column left to synthesise besides `aid_column`")
        data = train[synth_cols].reset_index(drop=True)
        for col in synth_cols:
            if spec.column(col).is_categorical:  # strings (an all-missing column must not read as float)
                data[col] = data[col].astype(object)
        pids: pd.DataFrame | None = None
        if aid is not None:
            if train[aid].isna().any():
                raise DataError(
                    f"syndiffix: `aid_column` {aid!r} has missing values; every row needs a person id"
                )
            pids = pd.DataFrame({aid: train[aid].astype(str).to_numpy()})
        salt = salt_for_seed(self.seed_)
        subsets: list[list[str]] = []
        if isinstance(self.columns, (list, tuple)):
            for sub in self.columns:
                self._check_columns(list(sub), "columns")
                if aid is not None and aid in sub:
                    raise ConfigError(f"syndiffix: `columns` subset {list(sub)} holds the aid column {aid!r}")
                subsets.append([c for c in synth_cols if c in set(sub)])  # table order

        main = self._synthesize(data, pids, salt)
        table, unsafe = self._to_spec(main, synth_cols)
        if aid is not None:
            table[aid] = np.full(
                len(table), np.nan, dtype=object if spec.column(aid).is_categorical else float
            )
        self.table_ = table[list(spec.table_columns)]
        self.unsafe_ = unsafe
        self.tables_: dict[str, pd.DataFrame] = {}
        self.table_columns_: dict[str, list[str]] = {}
        for i, sub in enumerate(subsets):
            name = f"table_{i}"
            if sub == synth_cols:
                sub_table = self.table_[sub].copy()
            else:
                sub_table, _ = self._to_spec(self._synthesize(data[sub], pids, salt), sub)
            self.tables_[name] = sub_table
            self.table_columns_[name] = sub

    # ------------------------------------------------------------------ sample
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        table = self.table_
        if n_rows is None:
            return table.copy(deep=True)
        m = len(table)
        if m == 0:
            raise DataError("syndiffix: the synthesised table is empty; cannot draw rows from it")
        if n_rows <= m:
            idx = self.rng_.choice(m, size=n_rows, replace=False)
        else:
            idx = np.concatenate([self.rng_.permutation(m), self.rng_.integers(0, m, size=n_rows - m)])
        return table.iloc[idx].reset_index(drop=True)

    # ------------------------------------------------------------------ reporting
    def artifacts(self) -> dict[str, pd.DataFrame]:
        """The multi-table mode's per-subset tables (``table_<i>``; columns in ``details()``)."""
        return {name: t.copy(deep=True) for name, t in getattr(self, "tables_", {}).items()}

    def details(self) -> dict[str, Any]:
        """Rows synthesised, unsafe category cells released as missing, and the tables."""
        if not hasattr(self, "table_"):
            return {}
        return {
            "n": int(self.n_train_),
            "rows": len(self.table_),
            "salt": "sha256('privbench-syndiffix:<seed>')[:16]",
            "aid_column": self.aid_column,
            "anonymization": {
                "low_threshold": int(self.low_threshold),
                "max_weight": float(self.max_weight),
                "mean_threshold": float(self.low_threshold + self.low_mean_gap * self.layer_sd),
                "layer_sd": float(self.layer_sd),
                "layer_noise_sd": float(self.layer_noise_sd),
            },
            "unsafe_values": dict(self.unsafe_),
            "tables": {
                name: {"columns": cols, "rows": len(self.tables_[name])}
                for name, cols in self.table_columns_.items()
            },
        }
