"""SDV 2.x single-table synthesizers (``spec/generators.md`` §7.3): ``sdv_gaussian_copula``,
``sdv_ctgan``, ``sdv_tvae`` and ``sdv_copulagan``.

The SDV metadata is built from the :class:`DatasetSpec` (never auto-detected):
``continuous`` -> numerical, ``integer`` -> numerical with ``decimal_places: 0``,
``categorical`` / ``ordinal`` -> categorical, ``datetime`` -> datetime. Nothing from the raw data enters the
metadata; SDV's own transformers do learn per-column bounds (``enforce_min_max_values``) and
category frequencies from the training data during ``fit``, so none of these models is DP.

Determinism: ``random``, numpy's legacy RNG and torch are seeded with the trial seed right
before ``synth.fit`` and again before sampling, and the sampling RNG of the wrapped model is
set with ``seed`` (SDV otherwise samples with its fixed seed 73251 whatever the fit seed).
On CPU the output is bit-identical for the same seed, also across processes (same thread
count); GPU training (``cuda: true``) is not bit-reproducible and declares
``deterministic=False``.

``torch`` and ``sdv`` are the optional extra ``privbench[sdv]``; they are imported in ``fit``.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.seeding import derive_seed, seed_everything
from harness.spec import DatasetSpec

DEFAULT_DISTRIBUTIONS: tuple[str, ...] = ("norm", "beta", "truncnorm", "uniform", "gamma", "gaussian_kde")
TABLE = "table"


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"the SDV generators need the optional extra: install privbench[sdv] (torch and sdv); {exc}"
        ) from None


def build_metadata(spec: DatasetSpec) -> Any:
    """SDV ``Metadata`` of the spec's table columns, from the spec's kinds only."""
    metadata_mod = _import("sdv.metadata")
    return metadata_mod.Metadata.load_from_dict(metadata_dict(spec), single_table_name=TABLE)


def metadata_dict(spec: DatasetSpec) -> dict[str, Any]:
    """The single-table metadata dictionary (SDV 2.x layout: no ``computer_representation``).

    No ``range_min`` / ``range_max`` is written: the metadata holds nothing from the data.
    """
    columns: dict[str, dict[str, Any]] = {}
    for col in spec.table_columns:
        kind = spec.kind(col)
        if kind == "continuous":
            columns[col] = {"sdtype": "numerical"}
        elif kind == "integer":
            columns[col] = {"sdtype": "numerical", "decimal_places": 0}
        elif kind == "datetime":
            columns[col] = {"sdtype": "datetime"}
        else:  # categorical, ordinal
            columns[col] = {"sdtype": "categorical"}
    return {"columns": columns}


def _table(result: Any) -> pd.DataFrame:
    """SDV 2.x returns ``{table name: frame}``; SDV 1.x a frame."""
    return result[TABLE] if isinstance(result, dict) else result


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"`{name}` must be a positive integer; got {value!r}")


def _dims(name: str, value: Any) -> None:
    if (
        not isinstance(value, (list, tuple))
        or not value
        or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in value)
    ):
        raise ConfigError(f"`{name}` must be a non-empty list of positive integers; got {value!r}")


def _bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"`{name}` must be true or false; got {value!r}")


class SdvSynthesizer(BaseGenerator):
    """Shared fit/sample of the SDV wrappers; subclasses name the model and its parameters."""

    requires: ClassVar[tuple[str, tuple[str, ...]] | None] = ("sdv", ("torch", "sdv"))

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")
    model: ClassVar[str] = ""
    conditional_on_target: bool
    cuda: bool
    enforce_min_max_values: bool

    def info(self) -> GeneratorInfo:
        return GeneratorInfo(
            output_kind="synthetic",
            needs_target=bool(self.conditional_on_target),
            deterministic=not self.cuda,
        )

    def _validate_params(self) -> None:
        _bool("conditional_on_target", self.conditional_on_target)
        _bool("cuda", self.cuda)
        _bool("enforce_min_max_values", self.enforce_min_max_values)

    def _model_kwargs(self) -> dict[str, Any]:
        raise NotImplementedError

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        _import("torch")
        single_table = _import("sdv.single_table")
        metadata = build_metadata(self.spec_)
        cls = getattr(single_table, self.model)
        synth = cls(
            metadata,
            enforce_min_max_values=self.enforce_min_max_values,
            enforce_rounding=True,
            **self._model_kwargs(),
        )
        seed_everything(self.seed_)  # torch is imported now: seed it right before fit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synth.fit({TABLE: train})  # SDV 2.x: {table name: frame}
        self.synth_ = synth
        self.n_sample_calls_ = 0
        self.conditional_failures_: dict[str, str] = {}
        if self.spec_.target is not None:
            counts = train[self.spec_.target].value_counts(dropna=True, sort=False)
            self.class_shares_ = {str(k): float(v) / len(train) for k, v in counts.items()}
        else:
            self.class_shares_ = {}

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        # Same seed -> same variant, whatever was sampled before from this object.
        seed = derive_seed(self.seed_, "sdv_sample")
        seed_everything(seed)
        self.synth_.reset_sampling()
        self.synth_._set_random_state(seed)
        self.conditional_failures_ = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.conditional_on_target and self.class_shares_:
                out = self._sample_conditional(n)
            else:
                out = _table(self.synth_.sample(num_rows=n))
        return out.reset_index(drop=True)

    def _sample_conditional(self, n: int) -> pd.DataFrame:
        """``002_…``: one ``Condition(target=c, num_rows=n_c)`` per class, n_c by largest remainder.

        A class whose rejection sampling fails is recorded in ``details()`` and its rows are
        filled with unconditional samples (so the declared size holds).
        """
        sampling = _import("sdv.sampling")
        target = self.spec_.target
        classes = sorted(self.class_shares_)
        quotas = np.array([self.class_shares_[c] * n for c in classes])
        counts = np.floor(quotas).astype(int)
        order = np.argsort(-(quotas - counts), kind="stable")
        counts[order[: n - int(counts.sum())]] += 1
        parts: list[pd.DataFrame] = []
        for cls_value, n_c in zip(classes, counts, strict=True):
            if n_c == 0:
                continue
            try:
                part = _table(
                    self.synth_.sample_from_conditions(
                        [sampling.Condition(column_values={target: cls_value}, num_rows=int(n_c))]
                    )
                )
            except Exception as exc:  # rejection sampling can fail for rare classes
                self.conditional_failures_[cls_value] = str(exc).splitlines()[0] if str(exc) else repr(exc)
                part = pd.DataFrame()
            parts.append(part)
        out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        missing = n - len(out)
        if missing > 0:
            out = pd.concat([out, _table(self.synth_.sample(num_rows=missing))], ignore_index=True)
        return out.iloc[:n]

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "metadata": "from DatasetSpec",
            "bounds_from_data": bool(self.enforce_min_max_values),
        }
        if getattr(self, "conditional_failures_", None):
            out["conditional_failures"] = dict(self.conditional_failures_)
        return out


class _NeuralSdv(SdvSynthesizer):
    epochs: int
    batch_size: int
    embedding_dim: int

    def _validate_params(self) -> None:
        super()._validate_params()
        _positive_int("epochs", self.epochs)
        _positive_int("batch_size", self.batch_size)
        _positive_int("embedding_dim", self.embedding_dim)

    def _neural_kwargs(self) -> dict[str, Any]:
        return {
            "epochs": int(self.epochs),
            "batch_size": int(self.batch_size),
            "embedding_dim": int(self.embedding_dim),
            "enable_gpu": bool(self.cuda),
        }


class SdvGaussianCopula(SdvSynthesizer):
    """``GaussianCopulaSynthesizer`` (``sdv_gaussian_copula``).

    Parameters
    ----------
    default_distribution : str
        Marginal family of numeric columns (SDV ≥ 1.0 default ``beta``).
    conditional_on_target : bool
        Sample each class with ``Condition(target=c, num_rows=n_c)`` (``002_…``).
    enforce_min_max_values : bool
        SDV clips numeric output to the training range (bounds learned from the data).
    cuda : bool
        Unused by the copula (kept for a uniform interface); must be a bool.
    """

    model: ClassVar[str] = "GaussianCopulaSynthesizer"

    def __init__(
        self,
        default_distribution: str = "beta",
        conditional_on_target: bool = False,
        enforce_min_max_values: bool = True,
        cuda: bool = False,
    ) -> None:
        self.default_distribution = default_distribution
        self.conditional_on_target = conditional_on_target
        self.enforce_min_max_values = enforce_min_max_values
        self.cuda = cuda

    def info(self) -> GeneratorInfo:
        return GeneratorInfo(output_kind="synthetic", needs_target=bool(self.conditional_on_target))

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.default_distribution not in DEFAULT_DISTRIBUTIONS:
            raise ConfigError(
                f"`default_distribution` must be one of {', '.join(DEFAULT_DISTRIBUTIONS)}; "
                f"got {self.default_distribution!r}"
            )

    def _model_kwargs(self) -> dict[str, Any]:
        return {"default_distribution": self.default_distribution}


class SdvCTGAN(_NeuralSdv):
    """``CTGANSynthesizer`` (``sdv_ctgan``).

    Parameters
    ----------
    epochs, batch_size, embedding_dim : int
        ``batch_size`` must be a multiple of ``pac``.
    generator_dim, discriminator_dim : list of int
        Hidden layer sizes (default ``[256, 256]``).
    pac : int
        Samples per discriminator "pack" (default 10).
    conditional_on_target, enforce_min_max_values, cuda : bool
    """

    model: ClassVar[str] = "CTGANSynthesizer"

    def __init__(
        self,
        epochs: int = 300,
        batch_size: int = 500,
        embedding_dim: int = 128,
        generator_dim: list[int] | tuple[int, ...] = (256, 256),
        discriminator_dim: list[int] | tuple[int, ...] = (256, 256),
        pac: int = 10,
        conditional_on_target: bool = False,
        enforce_min_max_values: bool = True,
        cuda: bool = False,
    ) -> None:
        self.epochs = epochs
        self.batch_size = batch_size
        self.embedding_dim = embedding_dim
        self.generator_dim = generator_dim
        self.discriminator_dim = discriminator_dim
        self.pac = pac
        self.conditional_on_target = conditional_on_target
        self.enforce_min_max_values = enforce_min_max_values
        self.cuda = cuda

    def _validate_params(self) -> None:
        super()._validate_params()
        _dims("generator_dim", self.generator_dim)
        _dims("discriminator_dim", self.discriminator_dim)
        _positive_int("pac", self.pac)
        if self.batch_size % self.pac != 0:
            raise ConfigError(
                f"`batch_size` must be a multiple of `pac`; got batch_size {self.batch_size} and pac {self.pac}"
            )

    def _model_kwargs(self) -> dict[str, Any]:
        return {
            **self._neural_kwargs(),
            "generator_dim": tuple(int(d) for d in self.generator_dim),
            "discriminator_dim": tuple(int(d) for d in self.discriminator_dim),
            "pac": int(self.pac),
        }


class SdvCopulaGAN(SdvCTGAN):
    """``CopulaGANSynthesizer`` (``sdv_copulagan``): CTGAN on copula-transformed numerics.

    Parameters are those of :class:`SdvCTGAN` plus ``default_distribution`` (``beta``).
    """

    model: ClassVar[str] = "CopulaGANSynthesizer"

    def __init__(
        self,
        epochs: int = 300,
        batch_size: int = 500,
        embedding_dim: int = 128,
        generator_dim: list[int] | tuple[int, ...] = (256, 256),
        discriminator_dim: list[int] | tuple[int, ...] = (256, 256),
        pac: int = 10,
        default_distribution: str = "beta",
        conditional_on_target: bool = False,
        enforce_min_max_values: bool = True,
        cuda: bool = False,
    ) -> None:
        super().__init__(
            epochs=epochs,
            batch_size=batch_size,
            embedding_dim=embedding_dim,
            generator_dim=generator_dim,
            discriminator_dim=discriminator_dim,
            pac=pac,
            conditional_on_target=conditional_on_target,
            enforce_min_max_values=enforce_min_max_values,
            cuda=cuda,
        )
        self.default_distribution = default_distribution

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.default_distribution not in DEFAULT_DISTRIBUTIONS:
            raise ConfigError(
                f"`default_distribution` must be one of {', '.join(DEFAULT_DISTRIBUTIONS)}; "
                f"got {self.default_distribution!r}"
            )

    def _model_kwargs(self) -> dict[str, Any]:
        return {**super()._model_kwargs(), "default_distribution": self.default_distribution}


class SdvTVAE(_NeuralSdv):
    """``TVAESynthesizer`` (``sdv_tvae``).

    Parameters
    ----------
    epochs, batch_size, embedding_dim : int
    compress_dims, decompress_dims : list of int
        Encoder / decoder hidden layers (SDV default ``[128, 128]``; TVAE has no
        generator/discriminator).
    conditional_on_target, enforce_min_max_values, cuda : bool
    """

    model: ClassVar[str] = "TVAESynthesizer"

    def __init__(
        self,
        epochs: int = 300,
        batch_size: int = 500,
        embedding_dim: int = 128,
        compress_dims: list[int] | tuple[int, ...] = (128, 128),
        decompress_dims: list[int] | tuple[int, ...] = (128, 128),
        conditional_on_target: bool = False,
        enforce_min_max_values: bool = True,
        cuda: bool = False,
    ) -> None:
        self.epochs = epochs
        self.batch_size = batch_size
        self.embedding_dim = embedding_dim
        self.compress_dims = compress_dims
        self.decompress_dims = decompress_dims
        self.conditional_on_target = conditional_on_target
        self.enforce_min_max_values = enforce_min_max_values
        self.cuda = cuda

    def _validate_params(self) -> None:
        super()._validate_params()
        _dims("compress_dims", self.compress_dims)
        _dims("decompress_dims", self.decompress_dims)

    def _model_kwargs(self) -> dict[str, Any]:
        return {
            **self._neural_kwargs(),
            "compress_dims": tuple(int(d) for d in self.compress_dims),
            "decompress_dims": tuple(int(d) for d in self.decompress_dims),
        }
