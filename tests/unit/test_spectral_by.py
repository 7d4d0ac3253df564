"""``spectral_anonymization`` with ``by``: every replicate anonymised on its own (reproductions.md §9)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.spectral import SpectralAnonymization, spectral_anonymize
from harness.datasets import load_dataset, load_spec
from harness.errors import ConfigError, DataError, InfeasibleConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {"name": "groups", "columns": {"g": "categorical", "x": "continuous", "y": "continuous"}}
)


def _train(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"g": np.repeat(["b", "a", "c"], 20), "x": rng.normal(size=60), "y": rng.normal(5, 2, size=60)}
    )


@pytest.mark.parametrize("variant", ["p_sa", "j_sa", "o_sa"])
def test_each_group_is_anonymised_on_its_own(variant: str) -> None:
    train = _train()
    out = SpectralAnonymization(variant=variant, by="g").fit(train, SPEC, seed=4).sample()
    assert out["g"].tolist() == train["g"].tolist()
    # the same draws as anonymising the groups one after the other, in label order
    rng = np.random.default_rng(4)
    for label in ["a", "b", "c"]:
        rows = np.flatnonzero(train["g"].to_numpy() == label)
        expected = spectral_anonymize(train.loc[rows, ["x", "y"]].to_numpy(), variant, rng)
        np.testing.assert_allclose(out.loc[rows, ["x", "y"]].to_numpy(), expected, rtol=1e-12, atol=1e-12)


def test_p_sa_keeps_every_replicate_mean() -> None:
    spec = load_spec("spectral_sim_p3", {"source": {"params": {"n": 30, "replicates": 50}}})
    data = load_dataset(spec).frame
    gen = SpectralAnonymization(variant="p_sa", by="replicate").fit(data, spec, seed=1)
    out = gen.sample()
    means = (
        out.groupby("replicate")[["x1", "x2", "x3"]].mean()
        - data.groupby("replicate")[["x1", "x2", "x3"]].mean()
    )
    assert float(means.abs().to_numpy().max()) < 1e-12
    details = gen.details()
    assert (
        details["n_groups"] == 50 and details["by"] == "replicate" and details["max_abs_mean_shift"] < 1e-12
    )


def test_by_errors() -> None:
    train = _train()
    with pytest.raises(ConfigError, match="`by` names column 'h'"):
        SpectralAnonymization(by="h").fit(train, SPEC, seed=0)
    with pytest.raises(ConfigError, match="`by` must be null or a column name; got ''"):
        SpectralAnonymization(by="").fit(train, SPEC, seed=0)
    with pytest.raises(ConfigError, match="categorical column\\(s\\) g"):
        SpectralAnonymization().fit(train, SPEC, seed=0)  # without by, g is an unsupported categorical
    with pytest.raises(ConfigError, match="must not contain the `by` column 'g'"):
        SpectralAnonymization(by="g", columns=["g", "x"]).fit(train, SPEC, seed=0)
    with pytest.raises(InfeasibleConfigError, match="at least 2 rows in every `by` group"):
        SpectralAnonymization(by="g").fit(pd.concat([train, train.iloc[:1].assign(g="d")]), SPEC, seed=0)
    with pytest.raises(DataError, match="`by` column 'g' has missing values"):
        SpectralAnonymization(by="g").fit(train.assign(g=train["g"].where(train.index > 0)), SPEC, seed=0)
