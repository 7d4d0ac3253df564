"""SDV wrappers (``spec/generators.md`` §7.3): metadata from the spec, determinism per seed
(in-process and across processes), output domain and parameter errors. Tiny epochs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sdv")
pytest.importorskip("torch")

from generators.sdv_models import (
    SdvCopulaGAN,
    SdvCTGAN,
    SdvGaussianCopula,
    SdvTVAE,
    build_metadata,
    metadata_dict,
)
from harness.checks import ContractData, contract_data
from harness.errors import ConfigError
from harness.threads import limit_threads
from tests.conftest import REPO

TINY: dict[str, Any] = {"epochs": 2, "batch_size": 50, "embedding_dim": 16}
GAN_TINY: dict[str, Any] = {**TINY, "generator_dim": [32], "discriminator_dim": [32]}


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    """The harness's per-trial thread limit (torch included), as in a real trial."""
    with limit_threads(1):
        yield


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def digest(frame: pd.DataFrame) -> int:
    return int(pd.util.hash_pandas_object(frame, index=True).sum())


def test_metadata_is_built_from_the_spec_kinds(adult: ContractData) -> None:
    spec = adult.spec
    columns = metadata_dict(spec)["columns"]
    assert list(columns) == list(spec.table_columns)
    for col, meta in columns.items():
        kind = spec.kind(col)
        if kind in ("continuous", "integer"):
            assert meta["sdtype"] == "numerical"
            assert meta.get("decimal_places") == (0 if kind == "integer" else None)
        else:
            assert meta == {"sdtype": "categorical"}
        assert "range_min" not in meta and "range_max" not in meta  # nothing from the data
    built = build_metadata(spec).to_dict()
    (table,) = built["tables"].values()
    assert {c: m["sdtype"] for c, m in table["columns"].items()} == {
        c: m["sdtype"] for c, m in columns.items()
    }


@pytest.mark.parametrize(
    "gen",
    [SdvGaussianCopula(), SdvCTGAN(**GAN_TINY), SdvTVAE(**TINY, compress_dims=[32], decompress_dims=[32])],
    ids=["gaussian_copula", "ctgan", "tvae"],
)
def test_same_seed_same_output_and_valid_domain(gen: SdvGaussianCopula, adult: ContractData) -> None:
    train, spec = adult.train, adult.spec
    first = gen.fit(train, spec, seed=3).sample(200)
    again_same_object = gen.sample(200)
    refit = type(gen)(**gen.get_params()).fit(train, spec, seed=3).sample(200)
    pd.testing.assert_frame_equal(first, again_same_object, check_exact=True)
    pd.testing.assert_frame_equal(first, refit, check_exact=True)
    other = type(gen)(**gen.get_params()).fit(train, spec, seed=4).sample(200)
    assert not first.equals(other)

    assert list(first.columns) == list(train.columns) and len(first) == 200
    for col in spec.table_columns:
        kind = spec.kind(col)
        if kind == "integer":
            values = first[col].dropna().to_numpy(dtype=float)
            assert np.array_equal(values, np.rint(values))
        elif kind in ("categorical", "ordinal"):
            assert set(first[col].dropna()) <= set(train[col].dropna())
    assert gen.details()["model"] == gen.model


def test_same_seed_same_output_in_a_fresh_process(adult: ContractData) -> None:
    script = (
        "import pandas as pd\n"
        "from generators.sdv_models import SdvCTGAN\n"
        "from harness.threads import limit_threads\n"
        "from harness.checks import contract_data\n"
        "d = contract_data('adult', n_train=300, n_control=100, n_test=100, seed=0)\n"
        "with limit_threads(1):\n"
        f"    out = SdvCTGAN(**{GAN_TINY!r}).fit(d.train, d.spec, seed=5).sample(150)\n"
        "print(int(pd.util.hash_pandas_object(out, index=True).sum()))\n"
    )
    here = SdvCTGAN(**GAN_TINY).fit(adult.train, adult.spec, seed=5).sample(150)
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    assert int(proc.stdout.strip().splitlines()[-1]) == digest(here)


def test_conditional_on_target_keeps_class_shares(adult: ContractData) -> None:
    train, spec = adult.train, adult.spec
    gen = SdvGaussianCopula(conditional_on_target=True)
    assert gen.info().needs_target
    out = gen.fit(train, spec, seed=0).sample(300)
    assert len(out) == 300
    if not gen.details().get("conditional_failures"):
        expected = train[spec.target].value_counts().sort_index()
        got = out[spec.target].value_counts().sort_index()
        assert (got - expected).abs().max() <= 1


def test_copulagan_runs_with_tiny_epochs(adult: ContractData) -> None:
    out = SdvCopulaGAN(**GAN_TINY).fit(adult.train, adult.spec, seed=0).sample(50)
    assert len(out) == 50 and list(out.columns) == list(adult.train.columns)


@pytest.mark.parametrize(
    ("gen", "message"),
    [
        (
            SdvCTGAN(batch_size=55, pac=10),
            "`batch_size` must be a multiple of `pac`; got batch_size 55 and pac 10",
        ),
        (SdvCopulaGAN(batch_size=500, pac=3), "`batch_size` must be a multiple of `pac`"),
        (SdvCTGAN(epochs=0), "`epochs` must be a positive integer; got 0"),
        (SdvTVAE(batch_size=2.5), "`batch_size` must be a positive integer; got 2.5"),  # type: ignore[arg-type]
        (SdvTVAE(compress_dims=[]), "`compress_dims` must be a non-empty list of positive integers"),
        (SdvCTGAN(generator_dim=[256, 0]), "`generator_dim` must be a non-empty list"),
        (SdvGaussianCopula(default_distribution="cauchy"), "`default_distribution` must be one of"),
        (SdvGaussianCopula(cuda="yes"), "`cuda` must be true or false"),  # type: ignore[arg-type]
        (SdvCTGAN(conditional_on_target=1), "`conditional_on_target` must be true or false"),  # type: ignore[arg-type]
    ],
)
def test_bad_parameters_raise_a_one_line_config_error(
    gen: SdvCTGAN, message: str, adult: ContractData
) -> None:
    with pytest.raises(ConfigError) as err:
        gen.validate_params()
    assert message in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ConfigError):
        gen.fit(adult.train, adult.spec, seed=0)


def test_cuda_declares_non_deterministic() -> None:
    assert SdvCTGAN(cuda=True).info().deterministic is False
    assert SdvCTGAN().info().deterministic is True
