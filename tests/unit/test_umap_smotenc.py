"""`umap_smotenc` (spec/generators.md §5.2) on a 600-row Adult sample: output schema and
class counts, the latent SMOTE-NC rule, the decoding path, privacy (no copied numeric
record), seeding, the truncation quirk, infeasible inputs and the numba disk cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest

import generators.umap_smotenc as umap_smotenc
from generators.smotenc import MISSING_LABEL
from generators.umap_smotenc import UmapSmoteNC, enable_numba_cache, exact_knn
from harness.checks import contract_data
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec
from harness.threads import limit_threads
from tests.unit.test_smotenc import TOY_SPEC, assert_smote_rows, random_toy

EPOCHS = 60  # few UMAP epochs keep the file fast; the algorithm is unchanged


class Fitted(NamedTuple):
    train: pd.DataFrame
    spec: DatasetSpec
    gen: UmapSmoteNC
    out: pd.DataFrame
    details: dict[str, Any]  # of the first sample (later tests sample again)


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    """One BLAS thread, as in a trial: UMAP's inverse transform makes thousands of tiny
    LAPACK calls (scipy's Delaunay), which a threaded BLAS slows down by orders of magnitude."""
    with limit_threads(1):
        yield


@pytest.fixture(scope="module")
def fitted(one_thread: None) -> Fitted:
    data = contract_data("adult", n_train=600, n_control=50, n_test=50, seed=1)
    gen = UmapSmoteNC(umap_n_epochs=EPOCHS)
    gen.fit(data.train, data.spec, seed=0)
    out = gen.sample()
    return Fitted(data.train, data.spec, gen, out, gen.details())


def decoded(gen: UmapSmoteNC) -> np.ndarray:
    """Numeric columns of the last sample, unrounded: scaler⁻¹(UMAP⁻¹(latent coordinates))."""
    coords = gen.latent_new_.iloc[:, : gen.n_components].to_numpy(dtype=float)
    scaled = np.asarray(gen.umap_.inverse_transform(coords), dtype=np.float64)  # UMAP returns float32
    return np.asarray(gen.scaler_.inverse_transform(scaled))


# ---------------------------------------------------------------------- output
def test_schema_class_counts_and_integers(fitted: Fitted) -> None:
    train, spec, out = fitted.train, fitted.spec, fitted.out
    assert list(out.columns) == list(train.columns) and len(out) == len(train)
    pd.testing.assert_frame_equal(out, conform(out, spec))
    assert out["income"].value_counts().to_dict() == train["income"].value_counts().to_dict()
    for col in spec.numeric_columns:  # all integer in Adult
        assert out[col].dtype == np.int64
    for col in spec.categorical_columns:
        assert set(out[col].dropna()) <= set(train[col].dropna())
    assert MISSING_LABEL not in set(out.astype(str).to_numpy().ravel())


def test_no_synthetic_record_copies_a_training_record_in_the_numeric_columns(fitted: Fitted) -> None:
    num = list(fitted.spec.numeric_columns)
    real = set(map(tuple, fitted.train[num].to_numpy()))
    assert not any(tuple(row) in real for row in fitted.out[num].to_numpy())


def test_latent_rows_follow_the_smote_nc_rule(fitted: Fitted) -> None:
    gen, k = fitted.gen, fitted.gen.smote_k
    base, new = gen.latent_, gen.latent_new_
    y_new = fitted.out["income"].to_numpy()
    for cls in ("<=50K", ">50K"):
        b = base[gen.labels_ == cls].to_numpy()
        n = new[y_new == cls].to_numpy()
        assert_smote_rows(b[:, :2].astype(float), b[:, 2:], n[:, :2].astype(float), n[:, 2:], k)


def test_numeric_columns_are_the_decoded_latent_rows(fitted: Fitted) -> None:
    gen, out = fitted.gen, fitted.out
    np.testing.assert_array_equal(out[list(gen.numeric_)].to_numpy(), np.rint(decoded(gen)).astype(np.int64))
    latent_cats = gen.latent_new_.iloc[:, gen.n_components :].to_numpy()
    out_cats = out[list(gen.categorical_)].fillna(MISSING_LABEL).to_numpy()
    np.testing.assert_array_equal(out_cats, latent_cats)


def test_same_seed_identical_different_seed_differs(fitted: Fitted) -> None:
    again = UmapSmoteNC(umap_n_epochs=EPOCHS).fit(fitted.train, fitted.spec, seed=0).sample()
    pd.testing.assert_frame_equal(again, fitted.out)
    other = UmapSmoteNC(umap_n_epochs=EPOCHS).fit(fitted.train, fitted.spec, seed=1).sample()
    assert not other.equals(fitted.out)


def test_reference_quirks_truncate_integers(fitted: Fitted) -> None:
    raw = decoded(fitted.gen)
    quirk = UmapSmoteNC(umap_n_epochs=EPOCHS, reference_quirks=True)
    quirk.fit(fitted.train, fitted.spec, seed=0)
    out = quirk.sample()
    num = list(fitted.gen.numeric_)
    np.testing.assert_array_equal(out[num].to_numpy(), np.trunc(raw).astype(np.int64))
    assert (out[num].to_numpy() != fitted.out[num].to_numpy()).any()
    pd.testing.assert_frame_equal(out.drop(columns=num), fitted.out.drop(columns=num))
    assert quirk.details()["mode"] == "reference"


def test_sample_n_spreads_rows_over_classes(fitted: Fitted) -> None:
    out = fitted.gen.sample(9)
    assert len(out) == 9
    assert out["income"].value_counts().to_dict() == {"<=50K": 7, ">50K": 2}  # 453/147 of 600


def test_details(fitted: Fitted) -> None:
    details = fitted.details
    json.dumps(details)
    counts = fitted.train["income"].value_counts().to_dict()
    assert details["class_counts"] == details["new_rows"] == counts
    assert details["umap"] == {
        "n_neighbors": 15, "min_dist": 0.1, "n_components": 2, "n_epochs": EPOCHS, "knn": "exact",
        "random_state": 0,
    }  # fmt: skip
    assert details["smote_k"] == 5 and details["sampler"] == "SMOTENC" and details["mode"] == "fixed"
    assert set(details["seconds"]) == {"umap_fit", "smote", "inverse_transform"}


def test_umap_kernels_use_the_numba_disk_cache(fitted: Fitted) -> None:
    from numba.core.caching import FunctionCache
    from umap import layouts, umap_

    assert isinstance(umap_.smooth_knn_dist._cache, FunctionCache)
    assert isinstance(layouts._nb_optimize_layout_euclidean_single_epoch._cache, FunctionCache)
    assert isinstance(umap_.fast_intersection._cache, FunctionCache)  # supervised UMAP
    assert enable_numba_cache() == 0  # already on in this process


def test_exact_neighbours_are_given_to_umap(fitted: Fitted, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(umap_smotenc, "APPROXIMATE_FROM", 100)  # as if the sample were large
    gen = UmapSmoteNC(umap_n_epochs=EPOCHS, umap_knn="exact")
    gen.fit(fitted.train, fitted.spec, seed=0)
    knn = exact_knn(gen.scaler_.transform(fitted.train[list(gen.numeric_)].to_numpy(float)), 15)
    assert knn is not None
    np.testing.assert_array_equal(gen.umap_.knn_indices, knn[0])
    out = gen.sample()
    assert out["income"].value_counts().to_dict() == fitted.train["income"].value_counts().to_dict()
    assert gen.details()["umap"]["knn"] == "exact"


def test_exact_knn() -> None:
    rng = np.random.default_rng(0)
    assert exact_knn(rng.random((4095, 3)), 15) is None  # umap-learn's own exact search
    X = rng.random((4096, 3))
    indices, dists = exact_knn(X, 15)  # type: ignore[misc]
    assert (
        indices.shape == dists.shape == (4096, 15) and indices.dtype == np.int32 and dists.dtype == np.float32
    )
    np.testing.assert_array_equal(indices[:, 0], np.arange(4096))  # each row is its own nearest
    brute = np.sort(((X[:50, None, :] - X[None, :, :]) ** 2).sum(axis=2), axis=1)[:, :15] ** 0.5
    np.testing.assert_allclose(dists[:50], brute, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------- infeasible / invalid
def test_regression_target_is_infeasible() -> None:
    base = TOY_SPEC.to_dict()
    spec = DatasetSpec.from_dict(
        {**base, "columns": {**base["columns"], "y": "continuous"}, "task": "regression"}
    )
    train = conform(random_toy().assign(y=np.arange(65.0)), spec)
    with pytest.raises(InfeasibleConfigError, match="regression target"):
        UmapSmoteNC().fit(train, spec, seed=0)


def test_small_class_is_infeasible() -> None:
    train = random_toy(sizes=(30, 3))
    with pytest.raises(InfeasibleConfigError, match=r"more than smote_k=5 rows .* 'B' \(3 rows\)"):
        UmapSmoteNC().fit(train, TOY_SPEC, seed=0)


def test_mode_alias() -> None:
    assert UmapSmoteNC(mode="reference").reference and not UmapSmoteNC(mode="fixed").reference
    assert UmapSmoteNC(reference_quirks=True).reference and not UmapSmoteNC().reference


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"umap_n_neighbors": 1}, "`umap_n_neighbors` must be an integer >= 2; got 1"),
        ({"n_components": 1}, "`n_components` must be an integer >= 2; got 1"),
        ({"smote_k": 0}, "`smote_k` must be an integer >= 1; got 0"),
        ({"umap_n_epochs": 0}, "`umap_n_epochs` must be an integer >= 1; got 0"),
        ({"umap_min_dist": -0.1}, "`umap_min_dist` must be a number in [0, 1]; got -0.1"),
        ({"umap_knn": "annoy"}, "`umap_knn` must be one of 'auto', 'exact'; got 'annoy'"),
        ({"mode": "paper"}, "`mode` must be one of fixed, reference or null; got 'paper'"),
        ({"mode": "fixed", "reference_quirks": True}, "`mode` is 'fixed' but `reference_quirks` is true"),
    ],
)
def test_invalid_parameters(params: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        UmapSmoteNC(**params).validate_params()
    assert str(err.value).startswith(needle)


def test_yaml_defaults() -> None:
    gen = build_generator("umap_smotenc")
    assert gen.get_params() == {
        "umap_n_neighbors": 15, "umap_min_dist": 0.1, "n_components": 2, "smote_k": 5,
        "umap_n_epochs": None, "umap_knn": "exact", "reference_quirks": False, "mode": None,
    }  # fmt: skip
