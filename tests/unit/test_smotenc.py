"""`smotenc` (spec/generators.md §4.4): hand-checked toy cases, a neighbour-level check of
every new row against imbalanced-learn's SMOTE-NC rule, the reference pipeline recomputed
directly with imbalanced-learn, output schema, seeding, quirks and infeasible inputs."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest
from imblearn.over_sampling import SMOTENC
from sklearn.preprocessing import MinMaxScaler

from generators.smotenc import MISSING_LABEL, SmoteNC, allocate, oversample_counts
from harness.checks import ContractData, contract_data
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec

TOY_SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"x": "continuous", "w": "continuous", "c": "categorical", "y": "categorical"},
        "target": "y",
        "task": "binary",
    }
)


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300)


def toy_segments() -> pd.DataFrame:
    """Two classes, each two far-apart pairs of points with their own category."""
    rows = [
        (0.0, 0.0, "p", "A"), (1.0, 1.0, "p", "A"), (10.0, 0.0, "q", "A"), (11.0, 1.0, "q", "A"),
        (100.0, 0.0, "r", "B"), (101.0, 1.0, "r", "B"), (110.0, 0.0, "s", "B"), (111.0, 1.0, "s", "B"),
    ]  # fmt: skip
    return conform(pd.DataFrame(rows, columns=["x", "w", "c", "y"]), TOY_SPEC)


def random_toy(seed: int = 0, sizes: tuple[int, int] = (40, 25)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    frame = pd.DataFrame(
        {
            "x": rng.normal(0, 3, n),
            "w": rng.uniform(-50, 50, n),
            "c": rng.choice(["u", "v", "z"], n),
            "y": np.repeat(["A", "B"], sizes),
        }
    )
    return conform(frame, TOY_SPEC)


# ---------------------------------------------------------------------- reference checks
def smote_nc_neighbours(num: np.ndarray, cat: np.ndarray, k: int) -> np.ndarray:
    """The k nearest same-class neighbours of each row in imbalanced-learn's SMOTE-NC metric.

    Squared distance = squared Euclidean on the (scaled) numeric columns + one squared
    median standard deviation (population std of the class's numeric columns) per
    categorical mismatch. ``num`` and ``cat`` hold one class; row i's own index is excluded.
    """
    med = float(np.median(num.std(axis=0)))
    d2 = ((num[:, None, :] - num[None, :, :]) ** 2).sum(axis=2)
    if cat.shape[1]:
        d2 = d2 + med**2 * (cat[:, None, :] != cat[None, :, :]).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    return np.argsort(d2, axis=1, kind="stable")[:, :k]


def assert_smote_rows(
    base_num: np.ndarray,
    base_cat: np.ndarray,
    new_num: np.ndarray,
    new_cat: np.ndarray,
    k: int,
    *,
    space: np.ndarray | None = None,
) -> None:
    """Every new row lies on a segment between a base row and one of its k neighbours, and
    each of its categories is a most frequent one among that base row's k neighbours.

    ``space`` (default ``base_num``) is where neighbours are searched (e.g. min–max scaled).
    """
    nn = smote_nc_neighbours(base_num if space is None else space, base_cat, k)
    a = np.repeat(np.arange(len(base_num)), k)
    b = nn.ravel()
    start, direction = base_num[a], base_num[b] - base_num[a]
    length2 = (direction**2).sum(axis=1)
    scale = np.abs(base_num).max(axis=0) + 1.0
    for s_num, s_cat in zip(new_num, new_cat):
        u = ((s_num - start) * direction).sum(axis=1) / length2
        closest = start + np.clip(u, 0, 1)[:, None] * direction
        on_segment = (np.abs(closest - s_num) / scale).max(axis=1) < 1e-9
        on_segment &= (u >= -1e-12) & (u <= 1 + 1e-12)
        assert on_segment.any(), f"new row {s_num} is on no SMOTE segment"
        ok = False
        for pair in np.flatnonzero(on_segment):
            neighbours = base_cat[nn[a[pair]]]
            modes = []
            for j in range(base_cat.shape[1]):
                counts = Counter(neighbours[:, j])
                top = max(counts.values())
                modes.append({v for v, c in counts.items() if c == top})
            ok |= all(s_cat[j] in modes[j] for j in range(base_cat.shape[1]))
        assert ok, f"categories {s_cat} are not the neighbours' most frequent ones"


def reference_smotenc(train: pd.DataFrame, spec: DatasetSpec, *, k: int, seed: int) -> pd.DataFrame:
    """The spec's full-synthetic steps written directly with scikit-learn and imbalanced-learn."""
    target = spec.target
    assert target is not None
    num = [c for c in spec.numeric_columns if c != target]
    cat = [c for c in spec.categorical_columns if c != target]
    scaler = MinMaxScaler().fit(train[num].to_numpy(float))
    X = pd.concat(
        [pd.DataFrame(scaler.transform(train[num].to_numpy(float)), columns=num), train[cat].astype(str)],
        axis=1,
    )
    strategy = {c: 2 * n for c, n in train[target].value_counts().items()}
    sampler = SMOTENC(
        categorical_features=list(range(len(num), len(num) + len(cat))),
        k_neighbors=k,
        sampling_strategy=strategy,
        random_state=seed,
    )
    X_res, y_res = sampler.fit_resample(X, train[target])
    new = X_res.iloc[len(train) :].reset_index(drop=True)
    new[num] = np.trunc(scaler.inverse_transform(new[num].to_numpy(float)))
    new[target] = np.asarray(y_res)[len(train) :]
    return conform(new, spec)


# ---------------------------------------------------------------------- hand-checked
def test_toy_rows_lie_on_their_pair_segment_with_the_neighbours_category() -> None:
    train = toy_segments()
    out = SmoteNC(knn=1, scale_numeric="none").fit(train, TOY_SPEC, seed=3).sample()
    assert out["y"].tolist().count("A") == 4 and out["y"].tolist().count("B") == 4
    offsets = {"A": {0.0: "p", 10.0: "q"}, "B": {100.0: "r", 110.0: "s"}}
    for x, w, c, y in out.itertuples(index=False):
        offset = x - w  # each pair lies on the line x = offset + w, 0 <= w <= 1
        assert 0.0 <= w <= 1.0
        assert any(np.isclose(offset, o) for o in offsets[y]), (x, w, y)
        expected = next(cat for o, cat in offsets[y].items() if np.isclose(offset, o))
        assert c == expected  # knn=1: the category of the single neighbour


@pytest.mark.parametrize(("knn", "scale"), [(1, "none"), (3, "minmax"), (5, "minmax")])
def test_every_new_row_follows_the_smote_nc_rule(knn: int, scale: str) -> None:
    train = random_toy(seed=knn)
    out = SmoteNC(knn=knn, scale_numeric=scale).fit(train, TOY_SPEC, seed=11).sample()
    scaler = MinMaxScaler().fit(train[["x", "w"]].to_numpy())
    for cls in ("A", "B"):
        base, new = train[train["y"] == cls], out[out["y"] == cls]
        base_num = base[["x", "w"]].to_numpy()
        space = scaler.transform(base_num) if scale == "minmax" else base_num
        assert_smote_rows(
            base_num,
            base[["c"]].to_numpy(),
            new[["x", "w"]].to_numpy(),
            new[["c"]].to_numpy(),
            knn,
            space=space,
        )


def test_equals_the_reference_pipeline_recomputed_with_imblearn(adult: ContractData) -> None:
    train = adult.train.dropna().reset_index(drop=True)  # the reference turns NaN into "nan"
    ours = SmoteNC(knn=5, reference_quirks=True).fit(train, adult.spec, seed=42).sample()
    pd.testing.assert_frame_equal(ours, reference_smotenc(train, adult.spec, k=5, seed=42))


def test_numeric_only_table_falls_back_to_smote() -> None:
    spec = DatasetSpec.from_dict(
        {"name": "num", "columns": {"x": "continuous", "w": "continuous", "y": "categorical"}, "target": "y"}
    )
    train = random_toy(seed=2)[["x", "w", "y"]]
    gen = SmoteNC(knn=2, scale_numeric="none").fit(train, spec, seed=0)
    out = gen.sample()
    assert gen.details()["sampler"] == "SMOTE"
    for cls in ("A", "B"):
        base, new = train[train["y"] == cls], out[out["y"] == cls]
        empty = np.empty((len(base), 0), dtype=object)
        assert_smote_rows(
            base[["x", "w"]].to_numpy(), empty, new[["x", "w"]].to_numpy(), empty[: len(new)], 2
        )


# ---------------------------------------------------------------------- output
def test_schema_class_counts_and_integers(adult: ContractData) -> None:
    gen = SmoteNC().fit(adult.train, adult.spec, seed=0)
    out = gen.sample()
    assert list(out.columns) == list(adult.train.columns)
    pd.testing.assert_frame_equal(out, conform(out, adult.spec))
    assert out["income"].value_counts().to_dict() == adult.train["income"].value_counts().to_dict()
    for col in adult.spec.numeric_columns:  # all integer in Adult
        assert out[col].dtype == np.int64
    for col in adult.spec.categorical_columns:
        assert set(out[col].dropna()) <= set(adult.train[col].dropna())
    assert MISSING_LABEL not in set(out.astype(str).to_numpy().ravel())
    assert out["workclass"].isna().any() == adult.train["workclass"].isna().any()
    details = gen.details()
    json.dumps(details)
    assert details["class_counts"] == details["new_rows"] == {"<=50K": 235, ">50K": 65}
    assert details["sampler"] == "SMOTENC" and details["n_out"] == 300 and details["random_state"] == 0
    assert gen.info().output_kind == "synthetic" and not gen.info().releases_original_records


def test_sample_n_spreads_rows_over_classes(adult: ContractData) -> None:
    gen = SmoteNC().fit(adult.train, adult.spec, seed=0)
    counts = adult.train["income"].value_counts().to_dict()
    for n in (7, 601):
        out = gen.sample(n)
        assert len(out) == n
        assert out["income"].value_counts().to_dict() == {c: v for c, v in allocate(counts, n).items() if v}


def test_allocate_largest_remainders() -> None:
    assert allocate({"a": 3, "b": 1}, 7) == {"a": 5, "b": 2}
    assert allocate({"a": 1, "b": 1}, 3) == {"a": 2, "b": 1}
    assert allocate({"a": 235, "b": 65}, 300) == {"a": 235, "b": 65}
    assert sum(allocate({"a": 5, "b": 7, "c": 11}, 1000).values()) == 1000


def test_same_seed_identical_different_seed_differs(adult: ContractData) -> None:
    a = SmoteNC().fit(adult.train, adult.spec, seed=5).sample()
    b = SmoteNC().fit(adult.train, adult.spec, seed=5).sample()
    c = SmoteNC().fit(adult.train, adult.spec, seed=6).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_a_second_sample_draws_new_rows(adult: ContractData) -> None:
    gen = SmoteNC().fit(adult.train, adult.spec, seed=5)
    assert not gen.sample().equals(gen.sample())


def test_reference_quirks_truncate_integers() -> None:
    int_spec = DatasetSpec.from_dict(
        {**TOY_SPEC.to_dict(), "columns": {**TOY_SPEC.to_dict()["columns"], "w": "integer"}}
    )
    train = random_toy(seed=4)
    train_int = conform(train.assign(w=np.rint(train["w"])), int_spec)
    # the same table with w declared continuous: the same rows, unrounded
    raw = SmoteNC(knn=3).fit(train_int.astype({"w": float}), TOY_SPEC, seed=9).sample()
    fixed = SmoteNC(knn=3).fit(train_int, int_spec, seed=9).sample()
    quirk = SmoteNC(knn=3, reference_quirks=True).fit(train_int, int_spec, seed=9).sample()
    assert (raw["w"] != np.round(raw["w"])).any()  # something to round
    np.testing.assert_array_equal(fixed["w"], np.rint(raw["w"]).astype(np.int64))
    np.testing.assert_array_equal(quirk["w"], np.trunc(raw["w"]).astype(np.int64))
    assert (fixed["w"] != quirk["w"]).any()
    pd.testing.assert_frame_equal(fixed.drop(columns="w"), quirk.drop(columns="w"))


def test_missing_categories_stay_missing() -> None:
    train = random_toy(seed=5)
    train.loc[train.index[::3], "c"] = np.nan
    out = SmoteNC(knn=1).fit(train, TOY_SPEC, seed=1).sample()
    assert out["c"].isna().any()
    assert set(out["c"].dropna()) <= {"u", "v", "z"}


# ---------------------------------------------------------------------- oversample mode
def test_oversample_matches_imblearn_float_strategy(adult: ContractData) -> None:
    train = adult.train.dropna().reset_index(drop=True)
    gen = SmoteNC(mode="oversample", ratio=0.6, scale_numeric="none", reference_quirks=True)
    out = gen.fit(train, adult.spec, seed=3).sample()
    num = list(adult.spec.numeric_columns)
    cat = [c for c in adult.spec.categorical_columns if c != "income"]
    X = pd.concat([train[num].astype(float), train[cat]], axis=1)
    sampler = SMOTENC(
        categorical_features=list(range(len(num), len(num) + len(cat))),
        k_neighbors=5,
        sampling_strategy=0.6,
        random_state=3,
    )
    X_res, y_res = sampler.fit_resample(X, train["income"])
    expected = X_res.assign(income=np.asarray(y_res))
    expected[num] = np.trunc(expected[num].to_numpy(float))
    pd.testing.assert_frame_equal(out, conform(expected, adult.spec))
    pd.testing.assert_frame_equal(out.iloc[: len(train)], train)  # originals first, unchanged
    origin = gen.artifacts()["row_origin"]["row_origin"]
    assert origin.eq("original").sum() == len(train) and origin.eq("synthetic").sum() == len(out) - len(train)
    info = gen.info()
    assert info.output_kind == "mixed" and info.releases_original_records and info.fixed_size
    with pytest.raises(ConfigError, match="n_rows must be None"):
        gen.sample(7)


def test_oversample_counts() -> None:
    assert oversample_counts({"a": 100, "b": 20}, 1.0) == {"a": 0, "b": 80}
    assert oversample_counts({"a": 100, "b": 20, "c": 50}, 0.6) == {"a": 0, "b": 40, "c": 10}
    with pytest.raises(InfeasibleConfigError, match="cannot remove rows"):
        oversample_counts({"a": 100, "b": 50}, 0.25)


# ---------------------------------------------------------------------- infeasible / invalid
def test_class_with_at_most_knn_rows_is_infeasible() -> None:
    train = random_toy(seed=6, sizes=(20, 5))
    with pytest.raises(InfeasibleConfigError, match=r"more than knn=5 rows .* 'B' \(5 rows\)"):
        SmoteNC(knn=5).fit(train, TOY_SPEC, seed=0)
    SmoteNC(knn=4).fit(train, TOY_SPEC, seed=0).sample()


def test_small_classes_drop_leaves_out_classes_of_at_most_knn_rows() -> None:
    train = random_toy(seed=6, sizes=(20, 5))
    gen = SmoteNC(knn=5, small_classes="drop").fit(train, TOY_SPEC, seed=0)
    out = gen.sample()
    assert Counter(out["y"]) == {"A": 20}
    assert gen.details()["dropped_classes"] == ["B"]
    assert gen.details()["new_rows"] == {"A": 20, "B": 0}
    assert Counter(gen.sample(30)["y"]) == {"A": 30}
    kept = SmoteNC(knn=4, small_classes="drop").fit(train, TOY_SPEC, seed=0)
    assert Counter(kept.sample()["y"]) == {"A": 20, "B": 5}
    assert kept.details()["dropped_classes"] == []
    tiny = random_toy(seed=6, sizes=(3, 2))
    with pytest.raises(InfeasibleConfigError, match="every class has at most knn=5 rows"):
        SmoteNC(knn=5, small_classes="drop").fit(tiny, TOY_SPEC, seed=0)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"task": "regression"}, "regression target"),
        (
            {"columns": {"x": "categorical", "w": "categorical", "c": "categorical", "y": "categorical"}},
            "numeric",
        ),
    ],
)
def test_unsupported_tables_are_infeasible(change: dict[str, Any], needle: str) -> None:
    base = TOY_SPEC.to_dict()
    if change.get("task") == "regression":
        spec = DatasetSpec.from_dict(
            {**base, "columns": {**base["columns"], "y": "continuous"}, "task": "regression"}
        )
        train = random_toy().assign(y=np.arange(65.0))
    else:
        spec = DatasetSpec.from_dict({**base, **change})
        train = conform(random_toy(), spec)
    with pytest.raises(InfeasibleConfigError, match=needle):
        SmoteNC().fit(conform(train, spec), spec, seed=0)


def test_single_class_and_missing_numeric_are_infeasible() -> None:
    single = random_toy().assign(y="A")
    with pytest.raises(InfeasibleConfigError, match="single class"):
        SmoteNC().fit(single, TOY_SPEC, seed=0)
    holes = random_toy()
    holes.loc[3, "x"] = np.nan
    with pytest.raises(InfeasibleConfigError, match="missing numeric values; column"):
        SmoteNC().fit(holes, TOY_SPEC, seed=0)


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"knn": 0}, "`knn` must be an integer >= 1; got 0"),
        ({"knn": 2.5}, "`knn` must be an integer >= 1; got 2.5"),
        ({"mode": "balance"}, "`mode` must be one of 'full_synthetic', 'oversample'; got 'balance'"),
        ({"scale_numeric": "zscore"}, "`scale_numeric` must be one of 'minmax', 'none'; got 'zscore'"),
        ({"ratio": 0}, "`ratio` must be a number in (0, 1]; got 0"),
        ({"ratio": 1.5}, "`ratio` must be a number in (0, 1]; got 1.5"),
        ({"reference_quirks": "yes"}, "`reference_quirks` must be true or false; got 'yes'"),
        ({"small_classes": "keep"}, "`small_classes` must be one of 'error', 'drop'; got 'keep'"),
    ],
)
def test_invalid_parameters(params: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        SmoteNC(**params).validate_params()
    assert str(err.value) == needle


def test_yaml_defaults_are_the_public_behaviour() -> None:
    gen = build_generator("smotenc")
    assert gen.get_params() == {
        "knn": 5, "mode": "full_synthetic", "ratio": 1.0, "scale_numeric": "minmax", "reference_quirks": False,
        "small_classes": "error",
    }  # fmt: skip
