"""kmarginal_tvd (spec/metrics.md F7): hand-computed values and the Platzer & Reutterer
reference values of spec/reproductions.md §11."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.kmarginal_tvd import KMarginalTVD

# the reference files are vendored (byte for byte) with the package: a clone needs no ../shared
HOLDOUT = Path(__file__).resolve().parents[2] / "harness" / "datasets" / "files" / "adult_mostly_synthetic"
# spec/reproductions.md §11 (tradeoff.csv, adult rows); tolerance ±0.001 on tvd
REFERENCE_TVD = {
    "adult_mostly": 0.0244317568063156,
    "adult_synthpop": 0.0185452847148756,
    "adult_ctgan": 0.263185777639583,
    "adult_tvae": 0.493010923115621,
    "adult_gaussian_copula": 0.450247543961218,
    "adult_flip10": 0.0295230359765127,
    "adult_flip50": 0.106113725004286,
}
REFERENCE_HOLDOUT_TVD = 0.0208950952409451
TOLERANCE = 0.001

SPEC = DatasetSpec(name="tiny", columns=(ColumnSpec("x", "continuous"), ColumnSpec("c", "categorical")))
REAL = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["a", "a", "b", "c"]})
SYN = pd.DataFrame({"x": [1.0, 1.0, 4.0, 9.0], "c": ["a", "b", "b", "a"]})
# bins=2: T's breaks (1, 2.5, 4); T's x codes (0, 0, 1, 1), S's (0, 0, 1, _other_).
# top_categories=1: "a" kept; T's c codes (a, a, o, o), S's (a, o, o, a).


def test_one_way_marginals_by_hand() -> None:
    out = KMarginalTVD(k=1, bins=2, top_categories=1).compute(REAL, SYN, SPEC)
    # x: |.5-.5| + |.5-.25| + |0-.25| -> TVD .25; c: equal frequencies -> 0
    assert out["tvd"].value == pytest.approx(0.125, abs=1e-15)
    assert out["tvd"].details["n_marginals"] == 2


def test_two_way_marginal_by_hand() -> None:
    out = KMarginalTVD(k=2, bins=2, top_categories=1).compute(REAL, SYN, SPEC)
    # T cells (0,a) .5, (1,o) .5; S cells (0,a), (0,o), (1,o), (other,a) .25 each -> TVD .5
    assert out["tvd"].value == pytest.approx(0.5, abs=1e-15)


def test_identical_data_is_perfect_and_holdout_gives_the_ratio() -> None:
    same = KMarginalTVD(k=2, bins=2, top_categories=1).compute(REAL, REAL.copy(), SPEC, control=SYN)
    assert same["tvd"].value == 0.0
    assert same["tvd"].baseline == pytest.approx(0.5)
    assert same["tvd_ratio"].value == 0.0
    without_control = KMarginalTVD(k=2, bins=2, top_categories=1).compute(REAL, SYN, SPEC)
    assert set(without_control) == {"tvd"} and without_control["tvd"].baseline is None


def test_the_removed_sdnist_variant_names_its_replacement() -> None:
    with pytest.raises(ConfigError, match="`variant: sdnist` was removed.*metric sdnist_kmarginal") as err:
        KMarginalTVD(variant="sdnist").validate_params()
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="metric sdnist_kmarginal"):
        KMarginalTVD(variant="sdnist").compute(REAL, SYN, SPEC)


def test_too_few_columns_is_incomputable() -> None:
    with pytest.raises(IncomputableMetricError, match="3-way marginals need at least 3 columns"):
        KMarginalTVD().compute(REAL, SYN, SPEC)


@pytest.fixture(scope="module")
def platzer() -> tuple[DatasetSpec, pd.DataFrame, pd.DataFrame]:
    if not HOLDOUT.is_dir():
        pytest.fail(
            f"reference data not found at {HOLDOUT}: the vendored adult_mostly_synthetic files are missing"
        )
    trn = pd.read_csv(HOLDOUT / "adult_trn.csv.gz")
    val = pd.read_csv(HOLDOUT / "adult_val.csv.gz")
    # The reference bins the columns pandas reads as numbers (education-num included) by
    # quantiles and keeps '?' as a category; the spec mirrors those dtypes.
    columns = tuple(
        ColumnSpec(c, "integer" if pd.api.types.is_integer_dtype(trn[c]) else "categorical")
        for c in trn.columns
    )
    return DatasetSpec(name="adult_mostly_synthetic", columns=columns), trn, val


@pytest.mark.parametrize("name", sorted(REFERENCE_TVD))
def test_platzer_reproduces_the_reference_tvd(platzer, name: str) -> None:
    spec, trn, val = platzer
    syn = pd.read_csv(HOLDOUT / f"{name}.csv.gz")
    out = KMarginalTVD().compute(trn, syn, spec, control=val)
    assert out["tvd"].value == pytest.approx(REFERENCE_TVD[name], abs=TOLERANCE)
    assert out["tvd"].baseline == pytest.approx(REFERENCE_HOLDOUT_TVD, abs=TOLERANCE)
    assert out["tvd_ratio"].value == pytest.approx(REFERENCE_TVD[name] / REFERENCE_HOLDOUT_TVD, rel=0.05)
    assert out["tvd"].details["n_marginals"] == 455  # all 3-way combinations of 15 columns


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"variant": "nist"}, "`variant` must be one of"),
        ({"k": 0}, "`k` must be an integer >= 1"),
        ({"bins": 2.5}, "`bins` must be an integer >= 1"),
        ({"top_categories": 0}, "`top_categories` must be null or an integer >= 1"),
    ],
)
def test_bad_params_are_one_line_config_errors(params, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        KMarginalTVD(**params).validate_params()
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    assert build_metric("kmarginal_tvd").get_params() == {
        "variant": "platzer",
        "k": 3,
        "bins": 5,
        "top_categories": 5,
    }


def test_sparse_counting_gives_the_dense_value(monkeypatch: pytest.MonkeyPatch) -> None:
    import metrics.fidelity.kmarginal_tvd as module

    dense = KMarginalTVD(k=2, bins=2, top_categories=1).compute(REAL, SYN, SPEC)["tvd"].value
    monkeypatch.setattr(module, "MAX_DENSE_CELLS", 1)
    assert KMarginalTVD(k=2, bins=2, top_categories=1).compute(REAL, SYN, SPEC)["tvd"].value == dense
