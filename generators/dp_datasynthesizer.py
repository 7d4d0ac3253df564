"""The ``backend: datasynthesizer`` of ``datasynthesizer`` / ``privbayes``: DataSynthesizer 0.1.13 itself.

:class:`LibraryBackend` is the half of :class:`generators.privbayes.DataSynthesizerGenerator`
that describes the training table with the library (``DataDescriber``) and generates with its
``DataGenerator``, on files in a private temporary directory, with the global ``random`` /
``numpy.random`` seeded (by the library) from seeds derived from the generator's seed. The
library's worker pool is replaced by an in-process ``map`` and its prints and global warning
filter are silenced (:func:`library_quiet`). It has only the library's noise scales
(``accounting: datasynthesizer``) and reads the domain from the data (no ``strict``); see the
module docstring of :mod:`generators.privbayes`.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from generators.dp_bayesnet import Attribute, auto_k, from_raw_values, raw_values
from harness.seeding import derive_seed


class LibraryBackend:
    """Fit and sample through the DataSynthesizer library (mixin of ``DataSynthesizerGenerator``)."""

    attributes_: list[Attribute]
    model_: Any
    k_used_: int | None
    root_: str
    network_: list[tuple[str, list[str]]]
    n_tables_: int | None
    epsilon_split_: dict[str, float]
    laplace_scale_: float | None
    n_samples_: int
    seed_: int
    k: int
    histogram_size: int
    category_threshold: int

    def _mode(self) -> str:
        raise NotImplementedError

    @property
    def epsilon_(self) -> float:
        """ε as a float (defined by the generator)."""
        raise NotImplementedError

    def _fit_library(self, train: pd.DataFrame) -> None:
        """Describe ``train`` with DataSynthesizer in a private temporary directory."""
        from DataSynthesizer.DataDescriber import DataDescriber

        frame, types = self._library_frame(train)
        kinds = {a.name: a.categorical for a in self.attributes_}
        mode = self._mode()
        eps = self.epsilon_
        n, d = frame.shape
        describe_seed = derive_seed(self.seed_, "datasynthesizer", "describe")
        with tempfile.TemporaryDirectory(prefix="privbench-ds-") as tmp:
            path = Path(tmp) / "train.csv"
            frame.to_csv(path, index=False)
            describer = DataDescriber(
                histogram_bins=self.histogram_size, category_threshold=self.category_threshold
            )
            common: dict[str, Any] = {
                "attribute_to_datatype": types,
                "attribute_to_is_categorical": {name: kinds[name] for name in frame.columns},
                "attribute_to_is_candidate_key": {name: False for name in frame.columns},
                "seed": describe_seed,
            }
            with library_quiet():
                if mode == "independent":
                    describer.describe_dataset_in_independent_attribute_mode(str(path), epsilon=eps, **common)
                else:
                    k = self.k or auto_k(d, n)
                    self.k_used_ = k
                    describer.describe_dataset_in_correlated_attribute_mode(
                        str(path), k=k, epsilon=eps, **common
                    )
            describer.save_dataset_description_to_file(str(Path(tmp) / "description.json"))
            self.model_ = json.loads((Path(tmp) / "description.json").read_text())
        if mode == "correlated":
            network = self.model_["bayesian_network"]
            self.root_ = network[0][1][0]
            self.network_ = [(str(c), [str(p) for p in ps]) for c, ps in network]
            self.n_tables_ = d - (len(network[-1][1]) if network else 0)
            if eps:
                self.epsilon_split_ = {"structure": eps / 2, "conditionals": eps / 2}
                self.laplace_scale_ = self.n_tables_ / (eps / 2)
        elif eps:
            self.epsilon_split_ = {"marginals": eps}
            self.laplace_scale_ = (2 / n) / (eps / d)

    def _library_frame(self, train: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
        """The table as written for the library: categories as tokens ``c0, c1, …``.

        Tokens keep the library's CSV reader from turning categories into numbers or missing
        values ("NA", "None", "1", " x"). Columns without any value are left out (the library
        fails on them) and released as all missing.
        """
        frame = {}
        types = {}
        for a in self.attributes_:
            if a.n_bins == 0:
                continue
            column = train[a.name]
            if a.kind in ("categorical", "ordinal", "identifier"):
                codes = a.encode(column)
                frame[a.name] = pd.Series([f"c{c}" if c < a.n_bins else None for c in codes], dtype=object)
                types[a.name] = "String"
            else:
                frame[a.name] = pd.Series(
                    raw_values(column, a.kind) if a.kind == "datetime" else column.to_numpy()
                )
                types[a.name] = "Integer" if a.kind == "integer" else "Float"
        return pd.DataFrame(frame), types

    def _sample_library(self, n: int) -> pd.DataFrame:
        from DataSynthesizer.DataGenerator import DataGenerator

        seed = derive_seed(self.seed_, "datasynthesizer", "generate", self.n_samples_)
        self.n_samples_ += 1
        with tempfile.TemporaryDirectory(prefix="privbench-ds-") as tmp:
            path = Path(tmp) / "description.json"
            path.write_text(json.dumps(self.model_))
            generator = DataGenerator()
            with library_quiet():
                if self._mode() == "independent":
                    generator.generate_dataset_in_independent_mode(n, str(path), seed=seed)
                else:
                    generator.generate_dataset_in_correlated_attribute_mode(n, str(path), seed=seed)
            synthetic = generator.synthetic_dataset
        out = {}
        for a in self.attributes_:
            if a.name not in synthetic.columns:
                out[a.name] = pd.Series(np.full(n, np.nan))
                continue
            values = synthetic[a.name].reset_index(drop=True)
            if a.kind in ("categorical", "ordinal", "identifier"):
                lookup = {f"c{i}": v for i, v in enumerate(a.values)}
                out[a.name] = values.map(lookup).astype(object)
            else:
                out[a.name] = from_raw_values(pd.to_numeric(values), a.kind)
        return pd.DataFrame(out)


class _SerialPool:
    """Stand-in for ``multiprocessing.Pool`` inside DataSynthesizer: ``map`` in process."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> _SerialPool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn: Any, items: Any) -> list[Any]:
        return list(map(fn, items))


@contextlib.contextmanager
def library_quiet() -> Iterator[None]:
    """Run DataSynthesizer without its worker pool, its prints and its global warning filter."""
    import DataSynthesizer.lib.PrivBayes as library

    original = library.Pool
    library.Pool = _SerialPool
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        library.Pool = original
