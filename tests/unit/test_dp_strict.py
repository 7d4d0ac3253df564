"""Strict mode of PrivBayes / DataSynthesizer and the public domain of the dataset spec.

Strict mode must take every piece of the domain from the spec: the fitted bins are the same for
two neighbouring training tables that differ in one record holding an extreme value and a rare
category, the release stays within the public domain, and a spec without the public domain is a
one-line error. The smartnoise generators are tested in ``test_dp_strict_smartnoise.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from generators.dp_domain import PublicColumn, fit_to_domain, public_domain
from generators.privbayes import DataSynthesizerGenerator, PrivBayes
from harness.dtypes import conform
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

COLOURS = ["red", "orange", "green", "blue", "violet"]  # "violet" never occurs in TABLE_A
STRICT_SPEC = DatasetSpec.from_dict(
    {
        "name": "toy_public",
        "columns": {
            "colour": {"kind": "categorical", "domain": COLOURS},
            "shade": {"kind": "categorical", "domain": ["warm", "cool"]},
            "size": {"kind": "integer", "bounds": [0, 100]},
            "score": {"kind": "continuous", "bounds": [-10, 10]},
            "rating": {"kind": "integer", "bounds": [1, 5]},
            "flag": {"kind": "ordinal", "categories": ["NA", "None"], "nullable": True},
        },
    }
)
PLAIN_SPEC = DatasetSpec.from_dict(
    {"name": "toy_plain", "columns": {c.name: c.kind for c in STRICT_SPEC.columns}}
)


def table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    colour = rng.choice(np.array(COLOURS[:4], dtype=object), size=n)
    offset = pd.Series(colour).map({"red": 0, "orange": 10, "green": 20, "blue": 30}).to_numpy()
    frame = pd.DataFrame(
        {
            "colour": colour,
            "shade": pd.Series(colour).map(
                {"red": "warm", "orange": "warm", "green": "cool", "blue": "cool"}
            ),
            "size": offset + rng.integers(0, 10, size=n),
            "score": rng.normal(size=n) + offset / 10,
            "rating": rng.integers(2, 5, size=n),
            "flag": rng.choice(np.array(["NA", "None", None], dtype=object), size=n, p=[0.5, 0.3, 0.2]),
        }
    )
    return conform(frame, STRICT_SPEC)


TABLE_A = table(300, seed=1)
# the neighbour: the last record replaced by one with extreme values and a category absent from A
TABLE_B = TABLE_A.copy()
TABLE_B.loc[len(TABLE_B) - 1, ["colour", "shade", "size", "score", "rating", "flag"]] = [
    "violet", "cool", 10**6, -1e4, 5, np.nan,
]  # fmt: skip
TABLE_B = conform(TABLE_B, STRICT_SPEC)


def bins_of(gen: Any) -> list[tuple[object, ...]]:
    return [
        (a.name, a.categorical, tuple(a.values.tolist()), a.low, a.high, a.has_missing, a.kind)
        for a in gen.attributes_
    ]


def within_public_domain(out: pd.DataFrame) -> None:
    assert set(out["colour"].dropna()) <= set(COLOURS)
    assert set(out["shade"].dropna()) <= {"warm", "cool"}
    assert set(out["flag"].dropna()) <= {"NA", "None"}
    assert out["size"].between(0, 100).all() and out["score"].between(-10, 10).all()
    assert set(out["rating"]) <= {1, 2, 3, 4, 5}


# ---------------------------------------------------------------------- (b) the domain is public
@pytest.mark.parametrize("neighbours", ["replace_one", "add_remove"])
def test_strict_bins_do_not_depend_on_the_data(neighbours: str) -> None:
    fits = [
        PrivBayes(epsilon=1.0, k=2, strict=True, neighbours=neighbours).fit(t, STRICT_SPEC, seed=0)
        for t in (TABLE_A, TABLE_B)
    ]
    assert bins_of(fits[0]) == bins_of(fits[1])
    bins = fits[0].details()["bins"]
    assert bins["size"]["left_edges"] == pytest.approx(list(np.linspace(0, 100, 21)[:-1]))
    assert bins["score"]["max"] == 10.0 and bins["score"]["left_edges"][0] == -10.0
    assert bins["colour"] == {"type": "categorical", "n_bins": 5, "missing_bin": False}
    assert bins["rating"] == {
        "type": "categorical",
        "n_bins": 5,
        "missing_bin": False,
    }  # 1..5 from the bounds
    assert bins["flag"]["missing_bin"] is True and bins["shade"]["missing_bin"] is False
    for gen in fits:
        within_public_domain(gen.sample(3000))
        formal = gen.info().formal_dp
        assert formal is not None and formal["end_to_end"] is True and formal["neighbours"] == neighbours
        assert "reason" not in formal
        assert gen.details()["strict"] is True


def test_without_strict_the_bins_follow_the_data() -> None:
    # the control of the test above: the same neighbouring tables give different bins
    fits = [PrivBayes(epsilon=1.0).fit(t, STRICT_SPEC, seed=0) for t in (TABLE_A, TABLE_B)]
    assert bins_of(fits[0]) != bins_of(fits[1])
    formal = fits[0].info().formal_dp
    assert (
        formal is not None
        and formal["end_to_end"] is False
        and "domain read from the training data" in formal["reason"]
    )


def test_strict_releases_public_levels_absent_from_training() -> None:
    # ε small: the count noise gives "violet" (public, never in TABLE_A) mass; the base class's
    # check of released categories allows the public levels
    gen = PrivBayes(epsilon=0.05, strict=True).fit(TABLE_A, STRICT_SPEC, seed=0)
    assert "violet" in gen.training_categories_["colour"]
    out = gen.sample(5000)
    within_public_domain(out)
    assert "violet" in set(out["colour"])


def test_strict_random_and_independent_modes_use_the_public_domain() -> None:
    for mode in ("random", "independent"):
        gens = [
            DataSynthesizerGenerator(mode=mode, epsilon=0.5, accounting="calibrated", strict=True)
            for _ in "ab"
        ]
        fits = [g.fit(t, STRICT_SPEC, seed=0) for g, t in zip(gens, (TABLE_A, TABLE_B), strict=True)]
        assert bins_of(fits[0]) == bins_of(fits[1])
        within_public_domain(fits[0].sample(2000))


def test_strict_clamps_numbers_to_the_public_bounds() -> None:
    domain = public_domain(STRICT_SPEC, "test")
    clamped = fit_to_domain(TABLE_B, domain, STRICT_SPEC, "test")
    assert clamped["size"].iloc[-1] == 100 and clamped["score"].iloc[-1] == -10
    assert clamped.drop(columns=["size", "score"]).equals(TABLE_B.drop(columns=["size", "score"]))
    assert domain["colour"] == PublicColumn("colour", "categorical", tuple(COLOURS), None, None, False)
    assert domain["flag"].levels == ("NA", "None") and domain["flag"].nullable  # categories serve as levels


# ---------------------------------------------------------------------- (c) one-line errors
def test_strict_without_public_domain_is_a_one_line_config_error() -> None:
    with pytest.raises(ConfigError) as err:
        PrivBayes(strict=True).fit(TABLE_A, PLAIN_SPEC, seed=0)
    message = str(err.value)
    assert "\n" not in message
    assert "dataset 'toy_plain'" in message and "column 'colour'" in message and "domain" in message
    assert "'size' (bounds)" in message and "'score' (bounds)" in message  # every gap listed
    # validate_spec checks without data (the trial preflight)
    with pytest.raises(ConfigError, match="strict mode"):
        PrivBayes(strict=True).validate_spec(PLAIN_SPEC)
    PrivBayes().validate_spec(PLAIN_SPEC)  # not strict: no public domain needed


def test_only_bounds_missing_names_the_column_and_the_key() -> None:
    columns = {c.name: STRICT_SPEC.to_dict()["columns"][c.name] for c in STRICT_SPEC.columns}
    columns["score"] = {"kind": "continuous"}
    spec = DatasetSpec.from_dict({"name": "no_score_bounds", "columns": columns})
    with pytest.raises(ConfigError) as err:
        PrivBayes(strict=True).validate_spec(spec)
    assert "dataset 'no_score_bounds' column 'score' (continuous) has no `bounds: [low, high]`" in str(
        err.value
    )
    assert "also" not in str(err.value)


def test_out_of_domain_training_values_are_data_errors() -> None:
    bad = TABLE_A.copy()
    bad.loc[0, "colour"] = "teal"
    with pytest.raises(DataError, match=r"column 'colour' holds 1 value\(s\) outside its public domain"):
        PrivBayes(strict=True).fit(bad, STRICT_SPEC, seed=0)
    missing = TABLE_A.copy()
    missing.loc[0, "shade"] = np.nan
    with pytest.raises(DataError, match=r"column 'shade' has missing values.*nullable: true"):
        PrivBayes(strict=True).fit(missing, STRICT_SPEC, seed=0)


# ---------------------------------------------------------------------- the spec's public domain
def test_public_domain_keys_round_trip_and_change_the_digest() -> None:
    data = STRICT_SPEC.to_dict()
    assert data["columns"]["size"]["bounds"] == [0, 100]
    assert data["columns"]["colour"]["domain"] == COLOURS and data["columns"]["flag"]["nullable"] is True
    again = DatasetSpec.from_dict(data)
    assert again == STRICT_SPEC and again.digest() == STRICT_SPEC.digest()
    assert STRICT_SPEC.public_domain_gaps() == {}
    assert PLAIN_SPEC.public_domain_gaps()["size"] == "bounds: [low, high]"


@pytest.mark.parametrize(
    ("column", "needle"),
    [
        ({"kind": "integer", "bounds": [5, 1]}, "low < high"),
        ({"kind": "integer", "bounds": [1]}, "[low, high]"),
        ({"kind": "continuous", "bounds": [0, "x"]}, "finite numbers"),
        ({"kind": "categorical", "bounds": [0, 1]}, "bounds apply to"),
        ({"kind": "integer", "domain": ["a"]}, "domain applies to"),
        ({"kind": "categorical", "domain": ["a", "a"]}, "more than once"),
        ({"kind": "categorical", "domain": []}, "non-empty"),
        ({"kind": "categorical", "nullable": "yes"}, "nullable must be true or false"),
        ({"kind": "ordinal", "categories": ["a", "b"], "domain": ["a"]}, "must hold every declared category"),
        ({"kind": "datetime", "bounds": ["2020-01-01", "later"]}, "two dates"),
    ],
)
def test_bad_public_domain_keys_are_one_line_config_errors(column: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        DatasetSpec.from_dict({"name": "bad", "columns": {"x": column}})
    assert "\n" not in str(err.value) and needle in str(err.value) and "column 'x'" in str(err.value)


def test_declaring_the_domain_does_not_change_non_strict_generators() -> None:
    for gen in (PrivBayes(epsilon=1.0), DataSynthesizerGenerator(k=1)):
        plain = type(gen)(**gen.get_params()).fit(TABLE_A, PLAIN_SPEC, seed=3).sample()
        public = type(gen)(**gen.get_params()).fit(TABLE_A, STRICT_SPEC, seed=3).sample()
        pd.testing.assert_frame_equal(plain, public)


def test_bundled_specs_declare_their_public_domain() -> None:
    from harness.datasets import load_dataset, load_spec

    for name in ("adult", "german_credit"):
        spec = load_spec(name)
        assert spec.public_domain_gaps() == {}, name
        frame = load_dataset(spec).frame
        fit_to_domain(frame, public_domain(spec, "test"), spec, "test")  # every value in the domain
    adult = load_spec("adult")
    assert [c for c in adult.table_columns if adult.column(c).nullable] == [
        "workclass",
        "occupation",
        "native-country",
    ]
