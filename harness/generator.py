"""`BaseGenerator`: the template every generator subclasses.

The base class owns validation, seeding and output checks; a plugin implements only
``_fit`` and ``_sample`` (as imbalanced-learn's samplers implement ``_fit_resample``).
Hyper-parameters are stored unchanged in ``__init__`` and validated in
``_validate_params``; fitted state ends in ``_``; the only RNG is ``self.rng_``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from harness.dtypes import conform
from harness.errors import ConfigError, DataError, NotFittedError
from harness.params import ParamsMixin
from harness.seeding import seed_everything
from harness.spec import DatasetSpec

OutputKind = Literal["synthetic", "transformed", "mixed", "subset"]


@dataclass(frozen=True)
class GeneratorInfo:
    """Capability flags of a generator (``spec/generators.md`` §1.3).

    Attributes
    ----------
    output_kind : {"synthetic", "transformed", "mixed", "subset"}
    releases_original_records : bool
        True if a training row can appear unchanged in the output.
    formal_dp : dict or None
        ``{"epsilon": ..., "delta": ..., "unit": ...}`` for formally DP generators.
    supports_categorical, supports_missing, needs_target, needs_qi, needs_gpu : bool
    deterministic : bool
        False if the wrapped library cannot be made deterministic.
    generalised_output : bool
        Values may be hierarchy labels, intervals or ``*``.
    needs_control : bool
        The generator is given the control split (only ``real_holdout``).
    fixed_size : bool
        Transform-type: ``sample`` accepts only ``n_rows=None``.
    randomised : bool
        The output depends on the seed. False for seed-independent algorithms (e.g.
        ``identity``, full-domain k-anonymity): the contract checks then require identical
        output for every seed and no draw from ``rng_``; when True they require that
        different seeds give different output (``harness.checks``).
    """

    output_kind: OutputKind = "synthetic"
    releases_original_records: bool = False
    formal_dp: dict[str, Any] | None = None
    supports_categorical: bool = True
    supports_missing: bool = True
    needs_target: bool = False
    needs_qi: bool = False
    needs_gpu: bool = False
    deterministic: bool = True
    generalised_output: bool = False
    needs_control: bool = False
    fixed_size: bool = False
    randomised: bool = True

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of the flags (for results metadata)."""
        return asdict(self)


class BaseGenerator(ParamsMixin):
    """Base class of all generators.

    Subclasses define ``__init__`` with explicit keyword parameters stored verbatim as
    attributes, set the class attribute ``capabilities`` (or override :meth:`info` when flags depend on parameters), and implement
    :meth:`_fit` and :meth:`_sample`. Optional hooks: :meth:`_validate_params`,
    :meth:`_validate_spec`, :meth:`_expected_rows`.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo()
    #: The optional extra of privbench that installs the libraries this generator imports, and
    #: their top-level modules, e.g. ``("sdv", ("torch", "sdv"))``; None for the core install.
    requires: ClassVar[tuple[str, tuple[str, ...]] | None] = None

    # ------------------------------------------------------------------ parameters

    @classmethod
    def missing_extra(cls) -> str | None:
        """One line naming the optional extra to install when a required module is absent, else None.

        Looks the modules up without importing them (``importlib.util.find_spec``), so the check
        costs nothing when they are installed (torch's import alone takes seconds).
        """
        if cls.requires is None:
            return None
        extra, modules = cls.requires
        missing = [m for m in modules if not _installed(m)]
        if not missing:
            return None
        return (
            f"{cls.__name__} needs the optional extra privbench[{extra}] ({', '.join(missing)} not installed): "
            f"pip install 'privbench[{extra}]' (python3 -m harness.bootstrap test installs every extra)"
        )

    def info(self) -> GeneratorInfo:
        """Return the capability flags of this generator (may depend on its parameters)."""
        return self.capabilities

    def _validate_params(self) -> None:
        """Raise :class:`ConfigError` for impossible parameters (override in plugins)."""

    def config_notes(self) -> list[str]:
        """What a user should know about legal but surprising parameters (override in plugins).

        One line each, e.g. a DP generator whose ε turns privacy off. ``privbench run`` prints
        each distinct note once, after validating the trials.
        """
        return []

    def validate_params(self) -> None:
        """Validate the hyper-parameters without data (called by ``privbench validate``)."""
        self._validate_params()

    def _validate_spec(self, spec: DatasetSpec) -> None:
        """Raise :class:`ConfigError` when ``spec`` lacks what the parameters need (override in plugins).

        E.g. the ``strict`` mode of the DP generators needs every column's public domain.
        """

    def validate_spec(self, spec: DatasetSpec) -> None:
        """Validate the parameters against the dataset schema, without data.

        Called by :meth:`fit`, and meant for the trial's preflight (one-line
        :class:`ConfigError` before any trial runs): a missing optional extra, impossible
        parameters, a schema the parameters cannot use.
        """
        missing = self.missing_extra()
        if missing:
            raise ConfigError(missing)
        self._validate_params()
        self._validate_spec(spec)

    # ------------------------------------------------------------------ template
    def fit(
        self,
        train: pd.DataFrame,
        spec: DatasetSpec,
        *,
        seed: int,
        control: pd.DataFrame | None = None,
    ) -> BaseGenerator:
        """Fit the generator on the training split.

        Parameters
        ----------
        train : DataFrame
            Training rows with exactly the spec's table columns.
        spec : DatasetSpec
            Schema; ``spec.qi`` is the trial's active QI set.
        seed : int
            Seeds ``self.rng_`` (the only RNG harness code draws from) and the global
            RNGs of wrapped libraries.
        control : DataFrame, optional
            The control split; passed only to generators whose ``info().needs_control``.

        Returns
        -------
        self
        """
        self.validate_spec(spec)
        info = self.info()
        _check_table(train, spec, "training table")
        if len(train) == 0:
            raise DataError("training table is empty; expected at least one row")
        if info.needs_target and spec.target is None:
            raise ConfigError(
                f"generator {type(self).__name__} needs a target column; dataset {spec.name!r} has none"
            )
        if info.needs_qi and not spec.qi:
            raise ConfigError(
                f"generator {type(self).__name__} needs a QI set; dataset {spec.name!r} defines none"
            )
        if info.needs_control and control is None:
            raise ConfigError(f"generator {type(self).__name__} needs the control split")
        if not info.supports_categorical and spec.categorical_columns:
            raise ConfigError(
                f"generator {type(self).__name__} supports numeric columns only; dataset "
                f"{spec.name!r} has categorical column(s) {', '.join(spec.categorical_columns)}"
            )
        self.spec_ = spec
        self.seed_ = int(seed)
        self.rng_ = np.random.default_rng(self.seed_)
        seed_everything(self.seed_)
        self.n_train_ = len(train)
        self.training_categories_ = {
            c: frozenset(train[c].dropna().unique()) for c in spec.categorical_columns
        }
        self._fit(train.copy(deep=True), control.copy(deep=True) if control is not None else None)
        self.fitted_ = True
        return self

    def sample(self, n_rows: int | None = None) -> pd.DataFrame:
        """Generate the released table.

        Parameters
        ----------
        n_rows : int, optional
            Number of rows; None = the method's natural output size. Transform-type
            generators (``info().fixed_size``) accept only None.

        Returns
        -------
        DataFrame
            Same columns and order as the training table, dtypes per the spec.
        """
        if not getattr(self, "fitted_", False):
            raise NotFittedError(f"{type(self).__name__}.sample called before fit")
        info = self.info()
        if n_rows is not None:
            if info.fixed_size:
                raise ConfigError(
                    f"{type(self).__name__} returns its natural output size; n_rows must be None, "
                    f"got {n_rows!r}"
                )
            if isinstance(n_rows, bool) or not isinstance(n_rows, (int, np.integer)) or n_rows < 1:
                raise ConfigError(f"n_rows must be a positive integer or None; got {n_rows!r}")
            n_rows = int(n_rows)
        out = self._sample(n_rows)
        out = conform(out, self.spec_, where=f"{type(self).__name__} output")
        self._check_output(out, n_rows)
        return out

    # ------------------------------------------------------------------ hooks
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        raise NotImplementedError

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        raise NotImplementedError

    def _expected_rows(self, n_rows: int | None) -> int | None:
        """Declared output size for ``n_rows`` (None when it is random)."""
        return self.n_train_ if n_rows is None else n_rows

    def details(self) -> dict[str, Any]:
        """JSON-serialisable diagnostics of the last fit/sample (e.g. ``alpha_hat``, ``n_risky``).

        The runner records them in the variant's sidecar and in the details of the trial's
        cost rows. Override in plugins; the default is empty.
        """
        return {}

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """Extra tables of the last sample, stored next to the variant in the cache.

        E.g. a generalised release's raw labels (``"generalised"``) or each output row's
        origin (``"row_origin"``: original / synthetic / generalised / suppressed). Override
        in plugins; the default is none.
        """
        return {}

    # ------------------------------------------------------------------ checks
    def _check_output(self, out: pd.DataFrame, n_rows: int | None) -> None:
        name = type(self).__name__
        expected = self._expected_rows(n_rows)
        if expected is not None and len(out) != expected:
            raise RuntimeError(f"{name} returned {len(out)} rows; declared {expected}")
        if self.info().generalised_output:
            return
        for col, seen in self.training_categories_.items():
            values = set(out[col].dropna().unique())
            unseen = values - seen
            if unseen:
                raise RuntimeError(
                    f"{name} output column {col!r} holds categories not seen in training: "
                    + ", ".join(sorted(map(repr, unseen))[:5])
                )


def _check_table(frame: pd.DataFrame, spec: DatasetSpec, what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"{what} must be a pandas DataFrame; got {type(frame).__name__}")
    expected = list(spec.table_columns)
    if list(frame.columns) != expected:
        missing = [c for c in expected if c not in frame.columns]
        extra = [c for c in frame.columns if c not in expected]
        raise DataError(
            f"{what} columns do not match dataset {spec.name!r}: missing {missing}, unexpected {extra}"
            + ("" if missing or extra else " (order differs)")
        )


def _installed(module: str) -> bool:
    """True when ``module`` can be imported (found on the path; not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
