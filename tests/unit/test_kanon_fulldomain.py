"""``kanon_fulldomain`` (``spec/generators.md`` §6.2): hand-checked toy release and Adult properties."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from generators.kanon.fulldomain import KAnonFullDomain
from harness.datasets import load_dataset, load_hierarchy, load_spec
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec
from tests.unit.test_kanon_lattice import AGE_TABLE, AGES, ZIP_TABLE, ZIPS


@pytest.fixture
def toy(tmp_path: Path) -> tuple[DatasetSpec, pd.DataFrame]:
    """The 10-row table of ``test_kanon_lattice`` with its hierarchies as ARX-format files."""
    for name, table in (("age", AGE_TABLE), ("zip", ZIP_TABLE)):
        table.to_csv(tmp_path / f"{name}.csv", sep=";", header=False, index=False)
    spec = DatasetSpec.from_dict(
        {
            "name": "toy",
            "source": {"kind": "path"},
            "columns": {"age": "integer", "zip": "categorical", "disease": "categorical"},
            "qi_sets": {"default": ["age", "zip"]},
            "hierarchies": {"age": str(tmp_path / "age.csv"), "zip": str(tmp_path / "zip.csv")},
        }
    )
    frame = conform(pd.DataFrame({"age": AGES, "zip": ZIPS, "disease": list("abcdeabcde")}), spec)
    return spec, frame


def test_hand_checked_release(toy) -> None:  # type: ignore[no-untyped-def]
    """k = 2 without suppression: the k-minimal nodes are (age band, exact zip) and (exact age,
    zip prefix); the latter has the lower entropy (0.6 vs 0.951), so ages stay exact and zips
    become 130** / 148** (see ``test_kanon_lattice``)."""
    spec, frame = toy
    gen = KAnonFullDomain(k=2, suppression_limit=0.0).fit(frame, spec, seed=0)
    out = gen.sample()
    assert out["age"].tolist() == AGES and out["disease"].tolist() == frame["disease"].tolist()
    assert out["zip"].tolist() == ["130**"] * 4 + ["148**"] * 6
    details = gen.details()
    assert details["node"] == {"age": 0, "zip": 1}
    assert details["n_k_minimal"] == 2 and details["loss_value"] == pytest.approx(0.6)
    assert details["achieved_k"] == 2 and details["n_classes"] == 5 and details["n_suppressed"] == 0
    assert details["reid_mean"] == pytest.approx(0.5) and details["reid_max"] == 0.5
    assert [r["levels"] for r in details["ranking"]] == [{"age": 0, "zip": 1}, {"age": 1, "zip": 0}]
    artifacts = gen.artifacts()
    assert artifacts["generalised"]["age"].tolist() == [str(a) for a in AGES]
    assert artifacts["reid"]["reid"].tolist() == [0.5] * 10
    # second best node: age bands (decoded to the band's lower bound), zips exact
    second = KAnonFullDomain(k=2, suppression_limit=0.0, top_n=2).fit(frame, spec, seed=0)
    assert second.details()["node"] == {"age": 1, "zip": 0}
    assert second.sample()["age"].tolist() == [20] * 4 + [30] * 6
    assert second.artifacts()["generalised"]["age"].tolist() == ["20-29"] * 4 + ["30-39"] * 6
    assert (
        KAnonFullDomain(k=2, suppression_limit=0.0, top_n=2, decode="midpoint")
        .fit(frame, spec, seed=0)
        .sample()["age"]
        .tolist()
        == [24] * 4 + [34] * 6
    )  # 24.5 and 34.5 rounded half to even
    with pytest.raises(InfeasibleConfigError, match="top_n=3"):
        KAnonFullDomain(k=2, top_n=3).fit(frame, spec, seed=0)


def test_hand_checked_row_suppression(toy) -> None:  # type: ignore[no-untyped-def]
    """k = 3 with up to 40 % suppressed: node (age band, exact zip); the four 20s rows (classes
    of 2) are suppressed."""
    spec, frame = toy
    gen = KAnonFullDomain(k=3, suppression_limit=0.4).fit(frame, spec, seed=0)
    out = gen.sample()
    assert len(out) == 6 and gen._expected_rows(None) == 6
    assert out["age"].tolist() == [30] * 6 and out["zip"].tolist() == ZIPS[4:]
    details = gen.details()
    assert details["n_suppressed"] == 4 and details["suppressed_share"] == pytest.approx(0.4)
    assert gen.artifacts()["reid"]["source_row"].tolist() == [4, 5, 6, 7, 8, 9]
    with pytest.raises(InfeasibleConfigError, match="11-anonymous"):
        KAnonFullDomain(k=11).fit(frame, spec, seed=0)


def test_default_hierarchies_on_the_toy(toy) -> None:  # type: ignore[no-untyped-def]
    """``hierarchy: default``: age in 5-year intervals (21..37: widths 5, 10, 20), zip {value, *}."""
    spec, frame = toy
    gen = KAnonFullDomain(k=2, suppression_limit=0.0, hierarchy="default", loss="precision").fit(
        frame, spec, seed=0
    )
    assert gen.details()["hierarchies"]["age"]["widths"] == ["5", "10", "20"]
    assert gen.details()["hierarchies"]["zip"]["kind"] == "flat"
    labels = gen.artifacts()["generalised"]
    assert set(labels["age"]) <= {
        "[20, 25)",
        "[35, 40)",
        "[20, 30)",
        "[30, 40)",
        "[0, 20)",
        "[20, 40)",
        "*",
    } | {str(a) for a in AGES}
    widths = KAnonFullDomain(k=2, suppression_limit=0.0, widths={"age": [10, 20]}).fit(frame, spec, seed=0)
    assert widths.details()["hierarchies"]["age"] == {
        "kind": "intervals",
        "widths": ["10", "20"],
        "levels": 4,
    }


# ---------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult() -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec("adult")
    frame = load_dataset(spec).frame
    rows = np.random.default_rng(1).choice(len(frame), size=3000, replace=False)
    return spec, frame.iloc[rows].reset_index(drop=True)


def class_min(frame: pd.DataFrame, columns: list[str]) -> int:
    return int(frame.groupby(columns, dropna=False).size().min())


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_release_is_k_anonymous_on_adult(adult, k: int) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    qi = list(spec.qi)
    gen = KAnonFullDomain(k=k, suppression_limit=0.01).fit(frame, spec, seed=0)
    out = gen.sample()
    labels = gen.artifacts()["generalised"]
    assert class_min(labels, qi) >= k  # raw generalised labels
    assert class_min(out, qi) >= k  # decoded release
    details = gen.details()
    assert details["achieved_k"] >= k and details["n_suppressed"] <= 0.01 * len(frame)
    assert len(out) == len(frame) - details["n_suppressed"] == len(labels)
    assert details["reid_max"] <= 1 / k and details["reid_mean"] == pytest.approx(
        details["n_classes"] / len(out)
    )
    reid = gen.artifacts()["reid"]
    assert (reid["reid"] == 1 / reid["ec_size"]).all() and reid["reid"].max() == details["reid_max"]
    assert set(details["information_loss"]) == {"entropy", "discernibility", "precision"}
    assert details["loss_value"] == details["information_loss"]["entropy"]
    # non-QI columns are the training rows' values
    kept = frame.iloc[reid["source_row"]].reset_index(drop=True)
    pd.testing.assert_series_equal(out["fnlwgt"], kept["fnlwgt"])


def test_no_suppression_and_loss_choice_on_adult(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    strict = KAnonFullDomain(k=5, suppression_limit=0.0).fit(frame, spec, seed=0)
    assert len(strict.sample()) == len(frame) and strict.details()["n_suppressed"] == 0
    results = {}
    for loss in ("entropy", "discernibility", "precision"):
        gen = KAnonFullDomain(k=5, loss=loss).fit(frame, spec, seed=0)
        ranking = gen.details()["ranking"]
        values = [r[loss] for r in ranking]
        assert values == sorted(values) and gen.details()["loss_value"] == values[0]
        results[loss] = gen.details()["information_loss"]
    # each measure's choice is optimal for that measure among the k-minimal nodes
    for loss in results:
        assert results[loss][loss] <= min(r[loss] for r in results.values()) + 1e-12


def test_exhaustive_search_gives_the_same_release(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    ola = KAnonFullDomain(k=5, search="ola").fit(frame, spec, seed=0)
    full = KAnonFullDomain(k=5, search="exhaustive").fit(frame, spec, seed=0)
    pd.testing.assert_frame_equal(ola.sample(), full.sample())
    assert ola.details()["nodes_evaluated"] < full.details()["nodes_evaluated"] == 2160


def test_decode_lower_and_midpoint_on_adult(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    lower = KAnonFullDomain(k=5, hierarchy="default", loss="precision")
    lower.fit(frame, spec, seed=0)
    mid = KAnonFullDomain(k=5, hierarchy="default", loss="precision", decode="midpoint").fit(
        frame, spec, seed=0
    )
    labels = lower.artifacts()["generalised"]["age"]
    level = lower.details()["node"]["age"]
    assert 0 < level < 6, "the test needs an interval level for age"
    width = float(lower.details()["hierarchies"]["age"]["widths"][level - 1])
    low = labels.str.extract(r"\[(\d+),")[0].astype(float)
    assert (lower.sample()["age"] == low).all()
    assert (mid.sample()["age"] == np.rint(low + width / 2)).all()
    assert lower.sample()["age"].dtype == np.int64
    assert (lower.decode_numeric(labels) == low).all()


def test_arx_age_labels_are_released_as_shipped(adult) -> None:  # type: ignore[no-untyped-def]
    """With only age as QI (k = 5, no suppression) the rare old ages force an ARX band level; the
    labels are ARX's as shipped (age 20 is in the band labelled 15-19 / 10-19 / 0-19) and the
    released value is the label's lower bound."""
    spec, frame = adult
    only_age = DatasetSpec.from_dict({**spec.to_dict(), "qi_sets": {"age": ["age"]}}, name="adult")
    gen = KAnonFullDomain(k=5, suppression_limit=0.0).fit(frame, only_age, seed=0)
    level = gen.details()["node"]["age"]
    assert 1 <= level <= 3
    table = load_hierarchy(spec, "age").set_index("level0")[f"level{level}"]
    labels = gen.artifacts()["generalised"]["age"]
    ages = frame["age"].iloc[gen.artifacts()["reid"]["source_row"]].to_numpy()
    assert (labels.to_numpy() == table.loc[ages.astype(str)].to_numpy()).all()
    assert set(labels[ages == 20]) == {{1: "15-19", 2: "10-19", 3: "0-19"}[level]}
    released = gen.sample()["age"].to_numpy()
    assert (released == labels.str.split("-").str[0].astype(int).to_numpy()).all()
    assert (released[ages == 20] < 20).all()  # the off-by-one label, as shipped


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"k": 1}, "`k` must be an integer >= 2"),
        ({"k": 2.5}, "`k` must be an integer >= 2"),
        ({"k": True}, "`k` must be an integer >= 2"),
        ({"suppression_limit": -0.1}, r"`suppression_limit` must be a number in \[0, 1\]"),
        ({"suppression_limit": 1.5}, r"`suppression_limit` must be a number in \[0, 1\]"),
        ({"loss": "gini"}, "`loss` must be one of"),
        ({"search": "greedy"}, "`search` must be one of"),
        ({"top_n": 0}, "`top_n` must be an integer >= 1"),
        ({"decode": "upper"}, "`decode` must be one of"),
        ({"hierarchy": "mine"}, "`hierarchy` must be one of"),
        ({"widths": {"age": -5}}, "`widths.age` must be a positive number"),
    ],
)
def test_bad_parameters_raise_one_line_config_errors(params: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        build_generator(
            "kanon_fulldomain", {"_target_": "generators.kanon.fulldomain.KAnonFullDomain", **params}
        )
    assert "\n" not in str(info.value)


def test_unknown_width_column(toy) -> None:  # type: ignore[no-untyped-def]
    spec, frame = toy
    with pytest.raises(ConfigError, match="unknown column"):
        KAnonFullDomain(widths={"height": 5}).fit(frame, spec, seed=0)
    with pytest.raises(ConfigError, match="zip is not numeric"):
        KAnonFullDomain(widths={"zip": 5}).fit(frame, spec, seed=0)


def test_capabilities() -> None:
    info = KAnonFullDomain().info()
    assert info.generalised_output and info.needs_qi and info.fixed_size and not info.randomised
    assert info.output_kind == "transformed"
