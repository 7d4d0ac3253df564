"""`rus`, `smote`, `borderline_smote` (spec/generators.md §4.1–§4.3): hand-checked toy cases,
segment checks of every new row, output order, infeasible inputs, seeding and parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.resampling import BorderlineSmote, RandomUnderSampling, Smote
from harness.checks import ContractData, contract_data
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"x": "continuous", "n": "integer", "y": "categorical"},
        "target": "y",
        "task": "binary",
    }
)
CAT_SPEC = DatasetSpec.from_dict(
    {
        "name": "toycat",
        "columns": {"x": "continuous", "c": "categorical", "y": "categorical"},
        "target": "y",
        "task": "binary",
    }
)


def toy(sizes: tuple[int, int] = (40, 10), seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    frame = pd.DataFrame(
        {"x": rng.normal(0, 3, n), "n": rng.integers(0, 100, n), "y": np.repeat(["maj", "min"], sizes)}
    )
    return conform(frame, SPEC)


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300)


# ---------------------------------------------------------------------- RUS
@pytest.mark.parametrize("ratio", [0.25, 0.5, 1.0])
def test_rus_is_a_subset_with_the_requested_ratio(ratio: float) -> None:
    train = toy((40, 10))
    gen = RandomUnderSampling(ratio=ratio).fit(train, SPEC, seed=3)
    out = gen.sample()
    counts = out["y"].value_counts()
    assert counts["min"] == 10 and counts["maj"] == int(10 / ratio)
    assert len(out) == 10 + int(10 / ratio)
    # every output row is a training row, each at most once, in training order
    keys = list(map(tuple, train.to_numpy()))
    positions = [keys.index(tuple(row)) for row in out.to_numpy()]
    assert positions == sorted(set(positions))
    assert gen.info().output_kind == "subset" and gen.info().releases_original_records
    assert set(gen.artifacts()["row_origin"]["row_origin"]) == {"original"}
    assert gen.details()["kept_rows"] == {"maj": int(10 / ratio), "min": 10}


def test_rus_ratio_below_current_is_infeasible() -> None:
    train = toy((20, 10))  # current ratio 0.5
    with pytest.raises(InfeasibleConfigError, match=r"^ratio 0.25 is below the current minority/majority"):
        RandomUnderSampling(ratio=0.25).fit(train, SPEC, seed=0)
    out = RandomUnderSampling(ratio=0.5).fit(train, SPEC, seed=0).sample()  # equal: keeps everything
    pd.testing.assert_frame_equal(out, train)


def test_rus_needs_a_binary_target() -> None:
    train = toy((20, 10))
    single = train[train["y"] == "maj"].reset_index(drop=True)
    with pytest.raises(InfeasibleConfigError, match="needs a binary target"):
        RandomUnderSampling().fit(single, SPEC, seed=0)


def test_rus_same_seed_identical_other_seed_differs() -> None:
    train = toy((40, 10))
    a = RandomUnderSampling(ratio=0.5).fit(train, SPEC, seed=1).sample()
    b = RandomUnderSampling(ratio=0.5).fit(train, SPEC, seed=1).sample()
    c = RandomUnderSampling(ratio=0.5).fit(train, SPEC, seed=2).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


# ---------------------------------------------------------------------- SMOTE
def test_smote_hand_checked_two_minority_points() -> None:
    """Minority = two points; with knn=1 every new row lies on the segment between them."""
    rows = [(float(i), i, "maj") for i in range(10, 20)] + [(0.0, 0, "min"), (4.0, 8, "min")]
    train = conform(pd.DataFrame(rows, columns=["x", "n"] + ["y"]), SPEC)
    gen = Smote(knn=1, ratio=1.0).fit(train, SPEC, seed=0)
    out = gen.sample()
    assert len(out) == 12 + 8
    pd.testing.assert_frame_equal(out.iloc[:12], train)  # originals first, unchanged
    new = out.iloc[12:]
    assert (new["y"] == "min").all()
    assert ((new["x"] >= 0) & (new["x"] <= 4)).all()
    # n = 2·x on the segment, rounded half to even
    np.testing.assert_array_equal(new["n"].to_numpy(), np.rint(2 * new["x"].to_numpy()))
    assert list(gen.artifacts()["row_origin"]["row_origin"]) == ["original"] * 12 + ["synthetic"] * 8
    assert gen.details()["new_rows"] == {"min": 8} and gen.details()["sampler"] == "SMOTE"


@pytest.mark.parametrize("cls", [Smote, BorderlineSmote])
@pytest.mark.parametrize("ratio", [0.5, 1.0])
def test_new_rows_lie_on_segments_between_minority_rows(cls: type[Smote], ratio: float) -> None:
    train = toy((60, 12), seed=4)
    out = cls(knn=3, ratio=ratio).fit(train, SPEC, seed=7).sample()
    pd.testing.assert_frame_equal(out.iloc[: len(train)], train)
    new = out.iloc[len(train) :]
    if cls is Smote:
        assert len(new) == int(60 * ratio) - 12
    assert (new["y"] == "min").all()
    minority = train.loc[train["y"] == "min", "x"].to_numpy()
    # each new x = a + u (b - a) for two minority rows a, b; check with the x column and a
    # 1-D segment: it lies within the minority range
    assert ((new["x"] >= minority.min() - 1e-9) & (new["x"] <= minority.max() + 1e-9)).all()


def test_smote_new_rows_are_on_a_2d_segment() -> None:
    """Continuous 2-D check: each new point is collinear with, and between, two minority rows."""
    spec = DatasetSpec.from_dict(
        {"name": "t2", "columns": {"a": "continuous", "b": "continuous", "y": "categorical"}, "target": "y"}
    )
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"a": rng.normal(size=30), "b": rng.normal(size=30), "y": ["maj"] * 22 + ["min"] * 8}
    )
    train = conform(frame, spec)
    out = Smote(knn=2, ratio=1.0).fit(train, spec, seed=5).sample()
    minority = train.loc[train["y"] == "min", ["a", "b"]].to_numpy()
    for point in out.iloc[30:][["a", "b"]].to_numpy():
        found = False
        for i in range(len(minority)):
            for j in range(len(minority)):
                if i == j:
                    continue
                d = minority[j] - minority[i]
                u = float(np.dot(point - minority[i], d) / np.dot(d, d))
                if -1e-9 <= u <= 1 + 1e-9 and np.allclose(minority[i] + u * d, point, atol=1e-9):
                    found = True
        assert found, point


def test_smote_same_seed_identical() -> None:
    train = toy((40, 10))
    a = Smote(knn=3).fit(train, SPEC, seed=11).sample()
    b = Smote(knn=3).fit(train, SPEC, seed=11).sample()
    c = Smote(knn=3).fit(train, SPEC, seed=12).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


@pytest.mark.parametrize("cls", [Smote, BorderlineSmote])
def test_categorical_columns_are_infeasible_by_default(cls: type[Smote], adult: ContractData) -> None:
    with pytest.raises(
        InfeasibleConfigError, match=r"interpolates numeric columns only .*categorical feature"
    ):
        cls().fit(adult.train, adult.spec, seed=0)


@pytest.mark.parametrize("cls", [Smote, BorderlineSmote])
def test_on_categorical_smotenc_delegates(cls: type[Smote], adult: ContractData) -> None:
    gen = cls(on_categorical="smotenc").fit(adult.train, adult.spec, seed=0)
    out = gen.sample()
    n = len(adult.train)
    counts = adult.train[adult.spec.target].value_counts()
    assert len(out) == n + counts.max() - counts.min()
    pd.testing.assert_frame_equal(out.iloc[:n], adult.train.reset_index(drop=True), check_dtype=False)
    assert gen.details()["sampler"] == "SMOTENC" and gen.details()["on_categorical"] == "smotenc"


def test_smote_infeasible_cases() -> None:
    train = toy((20, 10))  # ratio 0.5
    with pytest.raises(InfeasibleConfigError, match=r"^ratio 0.5 asks for 10 rows of minority class 'min'"):
        Smote(ratio=0.5).fit(train, SPEC, seed=0)
    with pytest.raises(InfeasibleConfigError, match=r"^every class needs more than knn=10 rows"):
        Smote(knn=10).fit(train, SPEC, seed=0)
    single = train[train["y"] == "maj"].reset_index(drop=True)
    with pytest.raises(InfeasibleConfigError, match="needs a binary target"):
        Smote().fit(single, SPEC, seed=0)
    with pytest.raises(InfeasibleConfigError, match=r"more than m_neighbors=10 training rows"):
        BorderlineSmote(knn=1).fit(toy((7, 3)), SPEC, seed=0)


def test_fixed_size() -> None:
    train = toy((40, 10))
    for gen in (RandomUnderSampling(), Smote(), BorderlineSmote()):
        gen.fit(train, SPEC, seed=0)
        assert gen.info().fixed_size
        with pytest.raises(ConfigError):
            gen.sample(5)


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: RandomUnderSampling(ratio=0), "`ratio` must be a number in \\(0, 1\\]"),
        (lambda: RandomUnderSampling(ratio=1.5), "`ratio` must be a number in \\(0, 1\\]"),
        (lambda: Smote(ratio=-0.1), "`ratio`"),
        (lambda: Smote(knn=0), "`knn` must be an integer >= 1"),
        (lambda: BorderlineSmote(knn=0), "`knn` must be an integer >= 1"),
        (lambda: Smote(on_categorical="drop"), "`on_categorical` must be one of"),
        (lambda: BorderlineSmote(ratio=True), "`ratio`"),
    ],
)
def test_bad_params_one_line_config_error(build, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=match) as info:
        build().validate_params()
    assert "\n" not in str(info.value)
