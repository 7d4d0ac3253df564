"""``data_anonymizer`` (``spec/generators.md`` §6.1): property inference, techniques, suppression, presets."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from generators.kanon.data_anonymizer import DataAnonymizer
from generators.kanon.profiling import infer_data_type, infer_information_type, profile_columns
from harness.datasets import load_dataset, load_spec
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec

N = 40
SPEC = DatasetSpec.from_dict(
    {
        "name": "people",
        "columns": {
            "name": "categorical", "email": "categorical", "nric": "categorical", "phone": "categorical",
            "joined": "datetime", "age": "integer", "colour": "categorical", "salary": "continuous",
        },
        "qi_sets": {"default": ["age", "colour", "joined"]},
        "sensitive": ["salary"],
    }
)  # fmt: skip


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    frame = pd.DataFrame(
        {
            "name": [f"Person {i}" for i in range(N)],
            "email": [f"user{i % 8}@example.com" for i in range(N)],  # repeated: not unique, still email
            "nric": [f"{'STFGM'[i % 5]}{1000000 + 7919 * i:07d}{letters[i % 24]}" for i in range(N)],
            "phone": [("+65" if i % 3 == 0 else "") + f"{'689'[i % 3]}{1234567 + i:07d}" for i in range(N)],
            "joined": pd.to_datetime("2019-01-01") + pd.to_timedelta(rng.integers(0, 1000, size=N), unit="D"),
            "age": rng.integers(20, 70, size=N),
            "colour": rng.choice(["red", "green", "blue", "teal"], size=N, p=[0.45, 0.3, 0.2, 0.05]),
            "salary": rng.normal(5000, 1000, size=N).round(2),
        }
    )
    frame.loc[5, "phone"] = "9123 4567"  # spaces are allowed in a handphone number
    return conform(frame, SPEC)


def test_property_inference_on_a_hand_made_table(people: pd.DataFrame) -> None:
    profiles = profile_columns(people, qi=["age", "colour", "joined"], sensitive=["salary"])
    got = {c: (p.data_type, p.information_type, p.sensitivity) for c, p in profiles.items()}
    assert got == {
        "name": ("unique_sparse", "others", "direct_identifier"),
        "email": ("categorical", "email", "direct_identifier"),
        "nric": ("unique_sparse", "NRIC", "direct_identifier"),
        "phone": ("unique_sparse", "handphone", "direct_identifier"),
        "joined": ("datetime", "others", "indirect_identifier"),
        "age": ("numerical", "others", "indirect_identifier"),
        "colour": ("categorical", "others", "indirect_identifier"),
        "salary": ("unique_sparse", "others", "direct_identifier"),  # every salary is distinct
    }


def test_inference_rules() -> None:
    assert infer_data_type(pd.Series(["2020-01-02", "2021-03-04 10:00", "2022/05/06", None])) == "datetime"
    assert infer_data_type(pd.Series(["1", "2", "3"] * 10)) == "categorical"  # codes are not dates
    assert infer_data_type(pd.Series(np.arange(30) % 25)) == "numerical"
    assert infer_data_type(pd.Series(np.arange(30) % 5)) == "categorical"
    assert infer_data_type(pd.Series([np.nan] * 39 + [1.0])) == "unique_sparse"  # null share >= 0.95
    assert infer_data_type(pd.Series([f"v{i % 25}" for i in range(100)])) == "categorical"  # strings
    assert infer_information_type(pd.Series([91234567, 81234567, 61234567])) == "handphone"
    assert infer_information_type(pd.Series(["S1234567D"] * 9 + ["nope"])) == "NRIC"  # 90 %
    assert infer_information_type(pd.Series(["S1234567D"] * 8 + ["nope"] * 2)) == "others"
    assert infer_information_type(pd.Series(["s1234567d"])) == "others"
    assert infer_information_type(pd.Series(["a.b@c.org", "x@y.co.uk"])) == "email"


def test_overrides_replace_inferred_properties(people: pd.DataFrame) -> None:
    profiles = profile_columns(
        people, ["age", "colour", "joined"], ["salary"],
        {"salary": {"data_type": "numerical"}, "colour": {"sensitivity": "non_sensitive"}},
    )  # fmt: skip
    assert profiles["salary"].sensitivity == "sensitive" and profiles["salary"].overridden == ("data_type",)
    assert profiles["colour"].sensitivity == "non_sensitive"


def test_techniques_and_release(people: pd.DataFrame) -> None:
    gen = DataAnonymizer(
        k_target=2, suppression="none", rare_threshold=5, columns={"salary": {"data_type": "numerical"}}
    )
    out = gen.fit(people, SPEC, seed=0).sample()
    details = gen.details()
    assert details["dropped"] == ["name", "email", "nric", "phone"]
    for col in details["dropped"]:
        assert out[col].isna().all()
    assert {c: v["technique"] for c, v in details["columns"].items()} == {
        "name": "drop", "email": "drop", "nric": "drop", "phone": "drop", "joined": "truncate",
        "age": "binning", "colour": "rare", "salary": "keep",
    }  # fmt: skip
    labels = gen.artifacts()["generalised"]
    assert list(labels.columns) == ["age", "colour", "joined"]
    assert labels["joined"].tolist() == people["joined"].dt.year.astype(str).tolist()
    assert (out["joined"] == pd.to_datetime(people["joined"].dt.year.astype(str) + "-01-01")).all()
    assert labels["age"].nunique() <= 5 and labels["age"].str.match(r"^\[\d+, \d+\)$").all()
    assert (out["age"] <= people["age"]).all() and out["age"].dtype == np.int64
    counts = people["colour"].map(people["colour"].value_counts())
    assert (counts < 5).any()
    assert labels["colour"].tolist() == people["colour"].where(counts >= 5, "Other").tolist()
    pd.testing.assert_series_equal(out["salary"], people["salary"])
    assert len(out) == N and details["suppression"] == "none"
    assert json.loads(json.dumps(details)) == details  # recorded as JSON by the runner


def test_row_and_cell_suppression(people: pd.DataFrame) -> None:
    rows = DataAnonymizer(k_target=3, suppression="row").fit(people, SPEC, seed=0)
    details = rows.details()
    out = rows.sample()
    assert details["achieved_k"] >= 3 and len(out) == N - details["n_suppressed"]
    qi = ["age", "colour", "joined"]
    assert rows.artifacts()["generalised"].groupby(qi, dropna=False).size().min() >= 3
    cells = DataAnonymizer(k_target=3, suppression="cells").fit(people, SPEC, seed=0)
    labels = cells.artifacts()["generalised"]
    starred = (labels[qi] == "*").all(axis=1)
    assert len(cells.sample()) == N and starred.sum() == details["n_suppressed"] > 0
    assert cells.sample()["age"][starred].isna().all() and cells.sample()["joined"][starred].isna().all()


def test_technique_overrides_need_profile_user(people: pd.DataFrame) -> None:
    with pytest.raises(ConfigError, match="technique overrides need profile 'user'"):
        DataAnonymizer(columns={"age": {"technique": "keep"}}).validate_params()
    gen = DataAnonymizer(
        profile="user", suppression="none",
        columns={"age": {"technique": "binning", "n_bins": 2, "binning": "quantile"}, "colour": {"technique": "keep"}},
    ).fit(people, SPEC, seed=0)  # fmt: skip
    labels = gen.artifacts()["generalised"]
    assert labels["age"].nunique() == 2
    assert labels["colour"].tolist() == people["colour"].tolist()
    with pytest.raises(ConfigError, match="no hierarchy"):
        DataAnonymizer(profile="user", columns={"colour": {"technique": "hierarchy"}}).fit(
            people, SPEC, seed=0
        )


# ---------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult() -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec("adult").with_active_qi("data_anonymizer")
    frame = load_dataset(spec).frame
    rows = np.random.default_rng(3).choice(len(frame), size=4000, replace=False)
    return spec, frame.iloc[rows].reset_index(drop=True)


def k_curve(labels: pd.DataFrame, qi: list[str], k_max: int = 10) -> np.ndarray:
    """``prop_k_anonymous(k)`` for k = 1 .. k_max (metrics.md P4)."""
    ids = labels.groupby(qi, dropna=False).ngroup()
    sizes = ids.map(ids.value_counts()).to_numpy()
    return np.array([(sizes >= k).mean() for k in range(1, k_max + 1)])


def test_presets_reproduce_the_blog_properties(adult) -> None:  # type: ignore[no-untyped-def]
    """reproductions.md §4: the user release is 5-anonymous and its k-threshold curve lies on or
    above the default one for k <= 5; the default release suppresses nothing."""
    spec, frame = adult
    qi = list(spec.qi)
    default = build_generator("data_anonymizer_default").fit(frame, spec, seed=0)
    user = build_generator("data_anonymizer_user").fit(frame, spec, seed=0)
    assert len(default.sample()) == len(frame) and default.details()["n_suppressed"] == 0
    assert default.details()["columns"]["age"]["n_bins"] == 10
    assert user.details()["achieved_k"] >= 5 and user.details()["suppressed_share"] > 0
    assert user.details()["columns"]["native-country"]["technique"] == "rare"
    assert default.details()["columns"]["native-country"]["technique"] == "hierarchy"
    default_curve = k_curve(default.artifacts()["generalised"], qi)
    user_curve = k_curve(user.artifacts()["generalised"], qi)
    assert (user_curve[:5] >= default_curve[:5]).all() and user_curve[0] == default_curve[0] == 1
    assert (np.diff(default_curve) <= 0).all()
    for gen in (default, user):
        released = gen.sample()
        assert released.groupby(qi, dropna=False).size().min() >= gen.details()["achieved_k"]


def test_auto_coarsens_until_the_suppression_target(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    plain = DataAnonymizer(k_target=5, n_bins=40).fit(frame, spec, seed=0)
    auto = DataAnonymizer(k_target=5, n_bins=40, auto=True, max_suppression=0.005).fit(frame, spec, seed=0)
    steps = auto.details()["auto_iterations"]
    assert plain.details()["suppressed_share"] > 0.005
    assert len(steps) > 1 and steps[0]["suppressed_share"] == pytest.approx(
        plain.details()["suppressed_share"]
    )
    assert auto.details()["suppressed_share"] <= 0.005 and auto.details()["achieved_k"] >= 5
    assert [s["age"]["n_bins"] for s in steps] == [40 // 2**i for i in range(len(steps))]


@pytest.mark.parametrize("algorithm", ["fulldomain", "mondrian"])
def test_algorithms(adult, algorithm: str) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    qi = list(spec.qi)
    gen = DataAnonymizer(k_target=5, algorithm=algorithm, max_suppression=0.02).fit(frame, spec, seed=0)
    out = gen.sample()
    assert gen.details()["achieved_k"] >= 5 and gen.details()["suppressed_share"] <= 0.02
    assert out.groupby(qi, dropna=False).size().min() >= 5
    assert gen.artifacts()["generalised"].groupby(qi, dropna=False).size().min() >= 5
    assert ("node" in gen.details()) == (algorithm == "fulldomain")


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"k_target": 1}, "`k_target` must be an integer >= 2"),
        ({"max_suppression": 1.5}, r"`max_suppression` must be a number in \[0, 1\]"),
        ({"n_bins": 0}, "`n_bins` must be an integer >= 1"),
        ({"suppression": "some"}, "`suppression` must be one of"),
        ({"binning": "kmeans"}, "`binning` must be one of"),
        ({"auto": True, "algorithm": "mondrian"}, "`auto` applies to algorithm 'fixed' only"),
        ({"columns": {"age": {"colour": 1}}}, r"`columns.age`: unknown key\(s\) colour"),
        ({"columns": {"age": {"data_type": "text"}}}, "`columns.age.data_type` must be one of"),
        ({"sensitive": "income"}, "`sensitive` must be a list"),
    ],
)
def test_bad_parameters(params: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        build_generator(
            "data_anonymizer", {"_target_": "generators.kanon.data_anonymizer.DataAnonymizer", **params}
        )
    assert "\n" not in str(info.value)


def test_unknown_columns_and_qi_sets(people: pd.DataFrame) -> None:
    with pytest.raises(ConfigError, match="unknown column 'height'"):
        DataAnonymizer(columns={"height": {"sensitivity": "sensitive"}}).fit(people, SPEC, seed=0)
    with pytest.raises(ConfigError, match="unknown QI set 'nope'"):
        DataAnonymizer(qi="nope").fit(people, SPEC, seed=0)
