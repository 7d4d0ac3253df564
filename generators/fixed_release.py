"""``fixed_release``: release a table someone else produced (a published synthetic file).

Reproductions that score published releases (``spec/reproductions.md`` §11, R-HOLDOUT: the
synthetic Adult files of Platzer & Reutterer 2021, made with MOSTLY AI, synthpop, SDV and a
perturbation baseline) need those files to be releases of a generator, so that every metric
runs on them exactly as on our own generators' output (DESIGN.md: one trial = one release).
This generator ignores the training rows except for checking that the file belongs to the
dataset; it reads the file, conforms it to the dataset spec and releases it unchanged.

Integer codes written as floats are the same codes: many published files (the NIST CRC
releases of sdcMicro, for one) write ``2.0`` where the data has ``2``. In a categorical or
ordinal column whose training values are integer codes (with or without text tokens such as
ACS's ``N``) such a value is released as ``2``; integer columns already parse ``2.0`` as 2. A
non-integral number in such a coded column (``2.5``) is a one-line :class:`DataError` naming
the file, the column and the value.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.datasets.paths import resolve_path
from harness.datasets.readers import read_table
from harness.datasets.source import SourceConfig, parse_source
from harness.dtypes import conform
from harness.errors import ConfigError, DataError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_choice
from harness.spec import CATEGORICAL_KINDS, NUMERIC_KINDS, DatasetSpec

UNSEEN_MODES: tuple[str, ...] = ("error", "keep")
SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
FLOAT_WRITTEN = re.compile(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+")
"""A number written with a decimal point or an exponent (``2.0``, ``2.``, ``2.5``, ``2e0``)."""
MAX_SHOWN = 5
EXAMPLE = "fixed_release_examples/adult_common_rows.csv.gz"
"""Default ``path``: 20 Adult rows whose categories are each column's most frequent ones."""


class FixedRelease(BaseGenerator):
    """Release the rows of a fixed file (a published release or a user's own output).

    ``fit`` reads the file once: CSV (header row with the dataset's column names, gzip'ed or
    not) or parquet. Its columns are conformed to the dataset spec (``harness.dtypes``);
    columns the spec does not list are dropped and named in :meth:`details`. ``sample()``
    returns the whole file; the size is the file's (``fixed_size``) and the seed plays no
    role (``randomised=False``).

    Parameters
    ----------
    path : str
        The file. A relative path is relative to the bundled data root
        (``harness/datasets/files``, e.g. ``adult_mostly_synthetic/adult_mostly.csv.gz``); an
        absolute path or one starting with ``~`` is a user file. Default: :data:`EXAMPLE`
        (a 20-row example of Adult, used by the contract checks).
    unseen_categories : {"error", "keep"}
        A categorical value absent from the training split means the file was not released
        from this training split (``error``, default: :class:`DataError` naming the column), or
        is a token of the release itself, e.g. MOSTLY AI's ``*`` for rare categories (``keep``:
        released as it is; the release is then declared ``generalised_output``).
    sep : str
        CSV field separator.
    na_values : list of str or None
        Strings read as missing; None = those of the dataset's own ``source`` block (Adult's
        ``?``).
    sha256 : str or None
        Expected SHA-256 (hex) of the file's bytes; checked at ``fit`` when given. Variants are
        cached by parameters, not by file content: pin a user file that may change.

    Notes
    -----
    **Decision:** ``releases_original_records`` is True and ``output_kind`` ``synthetic``: a
    file from elsewhere may hold training rows (the flip baselines of R-HOLDOUT copy them), and
    nothing here can tell.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="synthetic",
        releases_original_records=True,
        fixed_size=True,
        randomised=False,
    )

    def __init__(
        self,
        path: str = EXAMPLE,
        unseen_categories: str = "error",
        sep: str = ",",
        na_values: list[str] | None = None,
        sha256: str | None = None,
    ) -> None:
        self.path = path
        self.unseen_categories = unseen_categories
        self.sep = sep
        self.na_values = na_values
        self.sha256 = sha256

    def info(self) -> GeneratorInfo:
        """The capabilities; ``generalised_output`` when unseen categories are kept."""
        return replace(self.capabilities, generalised_output=self.unseen_categories == "keep")

    def _validate_params(self) -> None:
        if not isinstance(self.path, str) or not self.path.strip():
            raise ConfigError(f"`path` must name the release file; got {self.path!r}")
        check_choice("unseen_categories", self.unseen_categories, UNSEEN_MODES)
        if not isinstance(self.sep, str) or not self.sep:
            raise ConfigError(f"`sep` must be a non-empty string; got {self.sep!r}")
        if self.na_values is not None and (
            isinstance(self.na_values, str)
            or not isinstance(self.na_values, (list, tuple))
            or not all(isinstance(v, str) for v in self.na_values)
        ):
            raise ConfigError(f"`na_values` must be null or a list of strings; got {self.na_values!r}")
        if self.sha256 is not None and (
            not isinstance(self.sha256, str) or not SHA256_PATTERN.fullmatch(self.sha256)
        ):
            raise ConfigError(f"`sha256` must be null or 64 lower-case hex digits; got {self.sha256!r}")
        path = self.file()
        if not path.is_file():
            raise ConfigError(f"`path`: release file {path} not found; expected an existing file")

    def file(self) -> Path:
        """The resolved release file (see ``path``)."""
        user = self.path.startswith("~") or Path(self.path).is_absolute()
        return resolve_path(self.path, "path" if user else "bundled", base_dir=None, where="`path`")

    # ------------------------------------------------------------------ fit / sample
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        path = self.file()
        raw = path.read_bytes()
        self.digest_ = hashlib.sha256(raw).hexdigest()
        if self.sha256 is not None and self.digest_ != self.sha256:
            raise DataError(f"{path}: SHA-256 {self.digest_} differs from `sha256` {self.sha256}")
        cells = read_table(path, raw, self._read_options(), names=())
        columns = list(self.spec_.table_columns)
        missing = [c for c in columns if c not in cells.columns]
        if missing:
            raise DataError(
                f"{path}: release lacks column(s) {', '.join(map(repr, missing))} of dataset "
                f"{self.spec_.name!r}; it has {', '.join(map(str, cells.columns))}"
            )
        self.dropped_columns_ = [str(c) for c in cells.columns if c not in set(columns)]
        cells = _integer_codes(cells, self.spec_, train, where=str(path))
        self.release_ = conform(_numbers_as_float(cells, self.spec_), self.spec_, where=str(path))
        self._check_categories(train, path)

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.release_.copy(deep=True)

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return len(self.release_)

    def details(self) -> dict[str, Any]:
        """The file's SHA-256, its row count and the file columns the dataset does not declare."""
        return {
            "sha256": getattr(self, "digest_", None),
            "rows": len(getattr(self, "release_", ())),
            "dropped_columns": list(getattr(self, "dropped_columns_", [])),
        }

    # ------------------------------------------------------------------ helpers
    def _read_options(self) -> SourceConfig:
        """CSV options: ``sep`` and ``na_values`` here, the rest from the dataset's ``source``."""
        source = self.spec_.source
        own = (
            parse_source(source, where=f"dataset {self.spec_.name!r}")
            if source.get("kind") in ("bundled", "path")
            else SourceConfig(kind="path")
        )
        options = SourceConfig(
            kind="path",
            header=True,
            sep=self.sep,
            encoding=own.encoding,
            na_values=own.na_values,
            column_na_values=own.column_na_values,
            keep_default_na=own.keep_default_na,
        )
        if self.na_values is not None:
            options = replace(options, na_values=tuple(self.na_values), column_na_values={})
        return options

    def _check_categories(self, train: pd.DataFrame, path: Path) -> None:
        """With ``unseen_categories: error``, every categorical value must occur in ``train``."""
        if self.unseen_categories == "keep":
            return
        for col in self.spec_.categorical_columns:
            seen = set(train[col].dropna().unique())
            unseen = sorted(set(self.release_[col].dropna().unique()) - seen, key=str)
            if unseen:
                shown = ", ".join(map(repr, unseen[:MAX_SHOWN])) + (" ..." if len(unseen) > MAX_SHOWN else "")
                raise DataError(
                    f"{path}: column {col!r} holds categories absent from the training split ({shown}); "
                    "the file is not a release of this split, or set unseen_categories: keep"
                )


def _integer_codes(
    cells: pd.DataFrame, spec: DatasetSpec, train: pd.DataFrame, *, where: str
) -> pd.DataFrame:
    """Float-written integer codes (``"2.0"``, ``2.0``) as ``"2"`` in the categorical and
    ordinal columns whose training values are integer codes; a non-integral number there is a
    :class:`DataError` naming ``where``, the column and the value."""
    out = cells.copy()
    for col in spec.table_columns:
        if (
            spec.kind(col) not in CATEGORICAL_KINDS
            or col not in train.columns
            or not _integer_coded(train[col])
        ):
            continue
        values = out[col]
        present = values.notna().to_numpy()
        if not present.any():
            continue
        codes, uniques = pd.factorize(values[present])
        fixed = np.asarray([_code_text(v, col, where) for v in uniques], dtype=object)[codes]
        out[col] = values.astype(object).where(~present, pd.Series(fixed, index=values.index[present]))
    return out


def _integer_coded(train: pd.Series) -> bool:
    """Training values that are integer codes, text tokens allowed (``["1", "2", "N"]``)."""
    labels = pd.Series(train.dropna().astype(str).unique(), dtype=object)
    if labels.empty:
        return False
    integer = labels.str.fullmatch(r"[+-]?\d+")
    numeric = pd.to_numeric(labels, errors="coerce").notna()
    return bool(integer.any()) and not bool((numeric & ~integer).any())


def _code_text(value: object, column: str, where: str) -> object:
    """One code as text: integral numbers as integers, other text unchanged."""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
    else:
        text = str(value).strip()
        if FLOAT_WRITTEN.fullmatch(text) is None:
            return value
        number = float(text)
    if not math.isfinite(number) or not number.is_integer():
        raise DataError(
            f"{where}: column {column!r} holds {value!r} where an integer code is expected "
            "(the column's training values are integer codes)"
        )
    return str(int(number))


def _numbers_as_float(cells: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    """Numeric columns of text cells parsed with ``astype(float)`` (several times faster than
    ``conform``'s ``pd.to_numeric`` on 50,000 strings); a column that fails stays text, so
    ``conform`` names its bad value."""
    out = cells.copy()
    for col in spec.table_columns:
        if spec.kind(col) in NUMERIC_KINDS and out[col].dtype == object:
            try:
                out[col] = out[col].astype("float64")
            except (TypeError, ValueError):
                continue
    return out
