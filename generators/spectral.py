"""Spectral anonymisation: P-SA, J-SA, O-SA (``spec/generators.md`` §6.9).

``004_…`` *Asymptotic Utility of Spectral Anonymization* (Perkonoja, Virta), §2, Eq. (1):
centre X, take the thin SVD X_c = U D Vᵀ, replace every left singular vector u_k
independently (P-SA: random permutation; J-SA: independent fair sign flips; O-SA:
z_k/‖z_k‖ with z_k ~ N(0, I_n), a Haar orthogonal transform in distribution) and release
U₀ D Vᵀ + 1x̄ᵀ. Integer columns are rounded after the transform. All draws come from
``rng_``. With ``by``, every group of rows sharing that column's value (e.g. the replicates
of a simulation study, ``spec/reproductions.md`` §9) is anonymised on its own.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.columns import complete_numeric_matrix
from harness.errors import ConfigError, DataError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_column_list

VARIANTS: tuple[str, ...] = ("p_sa", "j_sa", "o_sa")
ON_CATEGORICAL: tuple[str, ...] = ("error", "pass_through")


def spectral_anonymize(x: np.ndarray, variant: str, rng: np.random.Generator) -> np.ndarray:
    """Spectral anonymisation of ``x`` (n × p, no missing values); unrounded, same shape."""
    n = len(x)
    mean = x.mean(axis=0)
    u, d, vt = np.linalg.svd(x - mean, full_matrices=False)
    u0 = np.empty_like(u)
    for k in range(u.shape[1]):
        if variant == "p_sa":
            u0[:, k] = u[rng.permutation(n), k]
        elif variant == "j_sa":
            u0[:, k] = u[:, k] * (2 * rng.integers(0, 2, size=n) - 1)
        else:
            z = rng.standard_normal(n)
            u0[:, k] = z / np.linalg.norm(z)
    return np.asarray((u0 * d) @ vt + mean)


class SpectralAnonymization(BaseGenerator):
    """Spectral anonymisation of numeric columns (``spec/generators.md`` §6.9).

    Parameters
    ----------
    variant : {"p_sa", "j_sa", "o_sa"}
        Permutation, sign-flip or Haar-orthogonal (default) transform of each u_k.
    columns : list of str, optional
        Numeric columns to transform jointly; None = all numeric columns (except ``by``).
    on_categorical : {"error", "pass_through"}
        ``error``: a dataset with categorical columns is a :class:`ConfigError`
        (``supports_categorical=False``); ``pass_through``: categorical columns are
        released unchanged (rows are then not aligned across column groups; diagnostics
        only).
    by : str, optional
        Column whose values define independent groups: each group's rows are anonymised
        separately (own mean, SVD and random transform) and ``by`` is released unchanged.
        Used for the stacked replicates of ``spectral_sim_p*`` (§9). It may be categorical
        even with ``on_categorical="error"``.

    Notes
    -----
    **Decisions.** Numeric columns not in ``columns`` and datetime columns are released
    unchanged. Missing values in the selected columns raise :class:`DataError`; fewer
    than 2 training rows is :class:`InfeasibleConfigError` (one row cannot be hidden).
    ``details()`` reports the unrounded moments (column means and variances, ddof=1) of
    the transformed data next to the original ones; with ``by`` they are pooled over the
    groups, and ``max_abs_mean_shift`` is the largest |x̄_A − x̄| over groups and columns
    (0 up to rounding for P-SA).
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        supports_categorical=False,
        supports_missing=False,
        fixed_size=True,
    )

    def __init__(
        self,
        variant: str = "o_sa",
        columns: list[str] | None = None,
        on_categorical: str = "error",
        by: str | None = None,
    ) -> None:
        self.variant = variant
        self.columns = columns
        self.on_categorical = on_categorical
        self.by = by

    def info(self) -> GeneratorInfo:
        """Flags: categorical columns only with ``pass_through``; P-SA/J-SA may keep a row."""
        return GeneratorInfo(
            output_kind="transformed",
            # P-SA (identity permutation) and J-SA (all signs +) can return a record unchanged.
            releases_original_records=self.variant != "o_sa",
            supports_categorical=self.on_categorical == "pass_through" or self.by is not None,
            supports_missing=False,
            fixed_size=True,
        )

    def _validate_params(self) -> None:
        if self.variant not in VARIANTS:
            raise ConfigError(
                f"`variant` must be one of {', '.join(map(repr, VARIANTS))}; got {self.variant!r}"
            )
        check_column_list("columns", self.columns)
        if self.on_categorical not in ON_CATEGORICAL:
            raise ConfigError(
                f"`on_categorical` must be one of {', '.join(map(repr, ON_CATEGORICAL))}; got {self.on_categorical!r}"
            )
        if self.by is not None and (not isinstance(self.by, str) or not self.by):
            raise ConfigError(f"`by` must be null or a column name; got {self.by!r}")

    def _selected_columns(self) -> list[str]:
        spec = self.spec_
        if self.by is not None:
            if self.by not in spec.table_columns:
                raise ConfigError(
                    f"spectral_anonymization: `by` names column {self.by!r}, which dataset {spec.name!r} "
                    f"lacks; expected one of {', '.join(spec.table_columns)}"
                )
            others = [c for c in spec.categorical_columns if c != self.by]
            if others and self.on_categorical == "error":
                raise ConfigError(
                    f"generator SpectralAnonymization supports numeric columns only; dataset "
                    f"{spec.name!r} has categorical column(s) {', '.join(others)}"
                )
        if self.columns is None:
            cols = [c for c in spec.numeric_columns if c != self.by]
        else:
            if self.by in self.columns:
                raise ConfigError(
                    f"spectral_anonymization: `columns` must not contain the `by` column {self.by!r}"
                )
            for col in self.columns:
                if not spec.column(col).is_numeric:
                    raise ConfigError(
                        f"spectral_anonymization: column {col!r} is {spec.kind(col)}; "
                        "`columns` must name numeric columns"
                    )
            cols = list(dict.fromkeys(self.columns))
        if not cols:
            raise ConfigError(f"spectral_anonymization: dataset {spec.name!r} has no numeric column")
        return cols

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.columns_ = self._selected_columns()
        x = complete_numeric_matrix(train, self.columns_, "spectral_anonymization")
        groups = self._groups(train)
        smallest = min(len(rows) for rows in groups)
        if smallest < 2:
            where = "training rows" if self.by is None else f"rows in every `by` group ({self.by!r})"
            raise InfeasibleConfigError(f"spectral anonymisation needs at least 2 {where}; got {smallest}")
        anon = np.empty_like(x)
        for rows in groups:
            anon[rows] = spectral_anonymize(x[rows], self.variant, self.rng_)
        out = train.reset_index(drop=True)
        for j, col in enumerate(self.columns_):
            out[col] = np.rint(anon[:, j]) if self.spec_.kind(col) == "integer" else anon[:, j]
        self.out_ = out
        self.unrounded_ = anon
        shifts = [np.abs(anon[rows].mean(axis=0) - x[rows].mean(axis=0)).max() for rows in groups]
        self.details_: dict[str, Any] = {
            "variant": self.variant,
            "columns": list(self.columns_),
            "by": self.by,
            "n_groups": len(groups),
            "max_abs_mean_shift": float(max(shifts)),
            "moments": {
                col: {
                    "mean": float(x[:, j].mean()),
                    "mean_unrounded": float(anon[:, j].mean()),
                    "var": float(x[:, j].var(ddof=1)),
                    "var_unrounded": float(anon[:, j].var(ddof=1)),
                }
                for j, col in enumerate(self.columns_)
            },
        }

    def _groups(self, train: pd.DataFrame) -> list[np.ndarray]:
        """Row positions of each group (one group of all rows without ``by``)."""
        if self.by is None:
            return [np.arange(len(train))]
        labels = train[self.by]
        if labels.isna().any():
            raise DataError(f"spectral_anonymization: `by` column {self.by!r} has missing values")
        codes, _ = pd.factorize(labels, sort=True)
        order = np.argsort(codes, kind="stable")
        return np.split(order, np.cumsum(np.bincount(codes))[:-1])

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.out_.copy(deep=True)

    def details(self) -> dict[str, Any]:
        """Variant, columns and the unrounded moments check (means and variances)."""
        return dict(getattr(self, "details_", {}))
