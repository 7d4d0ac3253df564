"""raab_disclosure (spec/metrics.md P10): every formula by hand, each option, Raab's Table 2 and SD2011."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.datasets.loader import load_dataset, load_spec
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import as_outputs
from harness.spec import DatasetSpec
from metrics.privacy.raab_disclosure import RaabDisclosure
from metrics.privacy.raab_measures import (
    attribute_measures,
    disclosure_measures,
    group_numeric,
    identity_measures,
)

KEYS = ["k1", "k2"]

# GT (N_d = 10). q = k1|k2; d_tq per cell:
#   A|x: a a      A|y: a b      B|x: b      B|y: c      C|x: a a b      C|y: NA
GT = pd.DataFrame(
    {
        "k1": ["A", "A", "A", "A", "B", "B", "C", "C", "C", "C"],
        "k2": ["x", "x", "y", "y", "x", "y", "x", "x", "x", "y"],
        "t": ["a", "a", "a", "b", "b", "c", "a", "a", "b", None],
    }
)
# SD (N_s = 8):  A|x: a    A|y: b b    B|x: b    C|x: a b    D|x: a (SD only)    C|y: NA
SD = pd.DataFrame(
    {
        "k1": ["A", "A", "A", "B", "C", "C", "D", "C"],
        "k2": ["x", "y", "y", "x", "x", "x", "x", "y"],
        "t": ["a", "b", "b", "b", "a", "b", "a", None],
    }
)

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"k1": "categorical", "k2": "categorical", "t": "categorical"},
        "qi_sets": {"default": KEYS},
        "sensitive": ["t"],
    }
)


# ---------------------------------------------------------------------- formulas
def test_identity_measures_by_hand() -> None:
    ident = identity_measures(GT, SD, KEYS)
    # GT uniques: B|x, B|y, C|y; in SD: B|x (1), C|y (1); B|y absent.
    assert ident.UiO == pytest.approx(30.0)
    assert ident.UiS == pytest.approx(100 * 4 / 8)  # A|x, B|x, D|x, C|y unique in SD
    assert ident.UiOiS == pytest.approx(20.0)
    assert ident.repU == pytest.approx(20.0)
    assert (ident.n_levels_gt, ident.n_levels_sd, ident.n_levels_all) == (6, 6, 7)
    assert (ident.n_gt, ident.n_sd) == (10, 8)


def test_attribute_measures_by_hand() -> None:
    m = attribute_measures(GT, SD, KEYS, "t")
    assert m.Dorig == pytest.approx(50.0)  # A|x (2) + B|x + B|y + C|y
    assert m.iS == pytest.approx(90.0)  # all but B|y
    assert m.DiS == pytest.approx(60.0)  # A|x (2), A|y (2), B|x, C|y
    assert m.DiSCO == pytest.approx(50.0)  # (A|x,a) 2 + (A|y,b) + (B|x,b) + (C|y,NA)
    assert m.DiSDiO == pytest.approx(40.0)  # DiSCO without (A|y,b)
    assert pytest.approx(65.0) == m.DCAP  # 2 + 1 + 1 + 0.5*2 + 0.5*1 + 1
    assert m.CAPd == pytest.approx(100 * (2 + 0.5 + 0.5 + 1 + 1 + 4 / 3 + 1 / 3 + 1) / 10)
    assert pytest.approx(100 * 5 / 9) == m.TCAP  # N_d,both = 9
    assert m.TCAP_matched == pytest.approx(100 * 5 / 6)  # over the DiS records
    assert m.baseCAPd == pytest.approx(100 * (0.5**2 + 0.3**2 + 0.1**2 + 0.1**2))
    assert m.max_denom == 2.0  # s_tq of (A|y, b)
    assert m.mean_denom == pytest.approx((1 * 2 + 2 * 1 + 1 * 1 + 1 * 1) / 5)
    assert m.mean_denom_cells == pytest.approx((1 + 2 + 1 + 1) / 4)
    o = attribute_measures(GT, SD, KEYS, "t", denom_source="original")  # synthpop's d_tq denominators
    assert (o.max_denom, o.mean_denom, o.mean_denom_cells) == pytest.approx((2.0, 7 / 5, 5 / 4))
    assert o.DiSCO == m.DiSCO
    assert (m.n_disco, m.n_both, m.n_excluded, m.n_target_levels) == (5, 9, 0, 4)
    assert m.one_way_level == "a" and m.one_way_share == pytest.approx(0.4)
    assert m.one_way_flag is False


def test_identical_release_gives_the_gt_measures() -> None:
    ident, att = disclosure_measures(GT, GT.copy(), KEYS, ["t"])
    m = att["t"]
    assert ident.repU == ident.UiO == pytest.approx(30.0)
    assert m.DiSCO == m.DiSDiO == m.Dorig == pytest.approx(50.0)
    assert pytest.approx(m.CAPd) == m.DCAP
    assert m.iS == 100.0


def test_kolb_example_as_gt_sd_pair() -> None:
    # spec P11's Kolb et al. example read as GT = original, SD = synthetic.
    sd = pd.DataFrame({"k1": [1, 1, 4, 4, 4, 5], "k2": [2, 2, 12, 12, 12, 12], "t": [3, 5, 4, 4, 4, 10]})
    gt = pd.DataFrame({"k1": [1, 1, 4, 4, 4, 5], "k2": [2, 2, 12, 12, 12, 12], "t": [3, 3, 4, 4, 9, 10]})
    m = attribute_measures(gt, sd, KEYS, "t")
    assert m.DiSCO == pytest.approx(100 * 3 / 6)
    assert pytest.approx(100 * 3 / 6) == m.TCAP  # every GT q occurs in the SD
    assert m.TCAP_matched == pytest.approx(100 * 3 / 4)  # Taub et al.'s TCAP: 3 of 4 matched
    assert m.Dorig == pytest.approx(100 * 3 / 6)  # (1,2): 3 3 and (5,12): 10


# ---------------------------------------------------------------------- options
def test_not_targetslev() -> None:
    m = attribute_measures(GT, SD, KEYS, "t", not_targetslev=["a"])
    assert m.Dorig == pytest.approx(30.0)
    assert m.DiSCO == pytest.approx(30.0)
    assert m.DiSDiO == pytest.approx(20.0)
    assert m.iS == pytest.approx(40.0)
    assert m.DiS == pytest.approx(30.0)
    assert pytest.approx(35.0) == m.DCAP
    assert m.CAPd == pytest.approx(100 * (7 + 2 / 3 - 2 - 0.5 - 4 / 3) / 10)
    assert m.baseCAPd == pytest.approx(100 * (3 * 3 + 1 + 1) / 100)
    assert pytest.approx(100 * 3 / 9) == m.TCAP  # denominators never shrink
    assert m.n_excluded == 5
    # identity measures do not depend on the target
    assert identity_measures(GT, SD, KEYS).repU == pytest.approx(20.0)


def test_not_targetslev_matches_values_and_text() -> None:
    gt = pd.DataFrame({"k1": ["A", "A", "B"], "k2": ["x", "x", "x"], "t": [0, 0, 5]})
    for levels in ([0], ["0"]):
        assert attribute_measures(gt, gt, KEYS, "t", not_targetslev=levels).Dorig == pytest.approx(100 / 3)


def test_use_targets_na_false() -> None:
    m = attribute_measures(GT, SD, KEYS, "t", use_targets_na=False)
    assert m.Dorig == pytest.approx(40.0)
    assert m.DiSCO == pytest.approx(40.0)
    assert m.DiSDiO == pytest.approx(30.0)
    assert m.iS == pytest.approx(80.0)
    assert m.n_excluded == 1


def test_use_keys_na_false() -> None:
    gt = pd.DataFrame({"k1": ["A", "B", "B"], "k2": [None, "x", "x"], "t": ["a", "b", "b"]})
    sd = pd.DataFrame({"k1": ["A", "B"], "k2": [None, "x"], "t": ["a", "b"]})
    with_na = disclosure_measures(gt, sd, KEYS, ["t"])
    without = disclosure_measures(gt, sd, KEYS, ["t"], use_keys_na=False)
    assert with_na[0].UiO == with_na[0].repU == pytest.approx(100 / 3)  # A|NA is a level
    assert without[0].UiO == without[0].repU == 0.0
    assert with_na[1]["t"].DiSCO == pytest.approx(100.0)
    assert without[1]["t"].DiSCO == pytest.approx(200 / 3)
    assert without[1]["t"].n_excluded == 1


def test_denom_lim_synthetic_and_original() -> None:
    m = attribute_measures(GT, SD, KEYS, "t", denom_lim=1)
    assert m.Dorig == pytest.approx(30.0)  # d_tq <= 1 leaves the GT uniques = UiO
    assert m.DiSCO == pytest.approx(40.0)  # (A|y, b) has s_tq = 2
    assert m.DiS == pytest.approx(40.0)  # A|y (s_.q = 2) drops out
    assert m.DiSDiO == pytest.approx(40.0)
    assert m.max_denom == 1.0 and m.mean_denom == 1.0
    o = attribute_measures(GT, SD, KEYS, "t", denom_lim=1, denom_source="original")
    assert o.DiSCO == pytest.approx(30.0)  # (A|x, a) has d_tq = 2; (A|y, b) has d_tq = 1
    assert o.max_denom == 1.0
    assert attribute_measures(GT, SD, KEYS, "t", denom_lim=2).DiSCO == pytest.approx(50.0)


def test_one_way_flag() -> None:
    m = attribute_measures(GT, SD, KEYS, "t", one_way_threshold=0.4)
    assert m.one_way_flag is True
    gt = pd.DataFrame({"k1": list("ABCDE"), "k2": ["x"] * 5, "t": ["0", "0", "0", "0", "9"]})
    flagged = attribute_measures(gt, gt, KEYS, "t")
    assert flagged.one_way_level == "0" and flagged.one_way_share == pytest.approx(0.8)
    assert flagged.one_way_flag is True


def test_group_numeric_quantiles() -> None:
    x = pd.Series(np.arange(1, 9))
    g, s = group_numeric(x, x.copy(), 4)
    assert list(g) == [
        "[1, 2.75)", "[1, 2.75)", "[2.75, 4.5)", "[2.75, 4.5)",
        "[4.5, 6.25)", "[4.5, 6.25)", "[6.25, 8]", "[6.25, 8]",
    ]  # fmt: skip
    assert list(s) == list(g)
    g2, _ = group_numeric(pd.Series([1.0, np.nan]), pd.Series([8.0]), 3)
    assert g2.iloc[0] == "[1, 3.3333333)" and g2.iloc[1] is None


def test_ngroups_target_and_keys() -> None:
    gt = pd.DataFrame({"k1": ["A", "A", "B", "B"], "k2": ["x"] * 4, "t": [1.0, 2.0, 7.0, 8.0]})
    assert attribute_measures(gt, gt, KEYS, "t").Dorig == 0.0
    grouped = attribute_measures(gt, gt, KEYS, "t", ngroups_target=2)
    assert grouped.Dorig == pytest.approx(100.0)
    assert grouped.n_target_levels == 2
    ages = pd.DataFrame({"age": [20, 21, 60, 61], "s": ["m"] * 4, "t": ["a", "a", "b", "c"]})
    assert identity_measures(ages, ages, ["age", "s"]).UiO == pytest.approx(100.0)
    assert identity_measures(ages, ages, ["age", "s"], ngroups_keys=2).UiO == 0.0
    assert identity_measures(ages, ages, ["age", "s"], ngroups_keys={"age": 2}).UiO == 0.0
    m = attribute_measures(ages, ages, ["age", "s"], "t", ngroups_keys=2)
    assert m.Dorig == pytest.approx(50.0)  # the two young ones share q and target a


def test_levels_aligned_across_dtypes() -> None:
    gt = pd.DataFrame({"k1": [1, 2], "k2": ["x", "x"], "t": [1, 2]})
    sd = pd.DataFrame({"k1": [1.0, 2.0], "k2": ["x", "x"], "t": [1.0, 2.0]})
    assert attribute_measures(gt, sd, KEYS, "t").DiSCO == pytest.approx(100.0)


# ---------------------------------------------------------------------- metric
def test_metric_outputs() -> None:
    out = as_outputs(RaabDisclosure().compute(GT, SD, SPEC, seed=0))
    assert set(out) == {"repU", "DiSCO:t"}
    assert out["repU"].value == pytest.approx(20.0) and out["repU"].baseline == pytest.approx(30.0)
    disco = out["DiSCO:t"]
    assert disco.value == pytest.approx(50.0) and disco.baseline == pytest.approx(50.0)
    assert disco.details["DCAP"] == pytest.approx(65.0)
    assert disco.details["keys"] == KEYS and disco.details["target"] == "t"


def test_metric_options_are_passed_on() -> None:
    metric = RaabDisclosure(not_targetslev={"t": ["a"]}, use_targets_na=False, denom_lim=1)
    out = as_outputs(metric.compute(GT, SD, SPEC, seed=0))
    # DiSCO cells left: (B|x, b) only ((A|y, b) has s_tq = 2, (C|y, NA) is a missing target)
    assert out["DiSCO:t"].value == pytest.approx(10.0)
    assert out["DiSCO:t"].details["excluded_levels"] == ["a"]


def test_metric_defaults_and_incomputable() -> None:
    no_qi = DatasetSpec.from_dict({"name": "toy", "columns": dict.fromkeys(["k1", "k2", "t"], "categorical")})
    with pytest.raises(IncomputableMetricError):
        RaabDisclosure().compute(GT, SD, no_qi, seed=0)
    out = as_outputs(RaabDisclosure(keys=KEYS, targets=["t"]).compute(GT, SD, no_qi, seed=0))
    assert out["DiSCO:t"].value == pytest.approx(50.0)
    with pytest.raises(IncomputableMetricError):  # no sensitive column, no target
        RaabDisclosure(keys=KEYS).compute(GT, SD, no_qi, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"keys": "k1"}, "keys"),
        ({"keys": ["k1", "k1"]}, "keys"),
        ({"targets": []}, "targets"),
        ({"not_targetslev": ["a"]}, "not_targetslev"),
        ({"not_targetslev": {"t": "a"}}, "not_targetslev.t"),
        ({"use_targets_na": "no"}, "use_targets_na"),
        ({"use_keys_na": 1}, "use_keys_na"),
        ({"denom_lim": 0}, "denom_lim"),
        ({"denom_lim": 1.5}, "denom_lim"),
        ({"denom_source": "gt"}, "denom_source"),
        ({"ngroups_target": 1}, "ngroups_target"),
        ({"ngroups_keys": {"age": 1}}, "ngroups_keys"),
        ({"ngroups_keys": "5"}, "ngroups_keys"),
        ({"one_way_threshold": 0.0}, "one_way_threshold"),
        ({"one_way_threshold": 1.5}, "one_way_threshold"),
    ],
)
def test_bad_params(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        RaabDisclosure(**params).validate_params()
    message = str(err.value)
    assert f"`{key}`" in message and "\n" not in message


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"keys": ["k1", "zz"]}, "`keys` names unknown column(s) zz"),
        ({"targets": ["k1"]}, "`targets` must not include key column(s) k1"),
        ({"targets": ["zz"]}, "`targets` names unknown column(s) zz"),
        ({"not_targetslev": {"zz": [0]}}, "`not_targetslev` names unknown column(s) zz"),
    ],
)
def test_bad_columns(params: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        RaabDisclosure(**params).compute(GT, SD, SPEC, seed=0)


def test_yaml_builds_with_defaults() -> None:
    from harness.registry import read_config

    metric = build_metric("raab_disclosure", read_config("metric", "raab_disclosure"))
    assert isinstance(metric, RaabDisclosure)
    assert metric.get_params() == RaabDisclosure().get_params()


# ---------------------------------------------------------------------- R-RAAB
ADULT_KEYS = ["age", "occupation", "race", "sex"]
ONE_WAY: dict[str, list[Any]] = {
    "capital-gain": [0],
    "capital-loss": [0],
    "native-country": ["United-States"],
}
# spec/reproductions.md §6.1, Table 2 "orig" columns C0..C4 (Dorig %).
TABLE2_ORIG = {
    "capital-gain": (22.55, 0.21, 0.21, 0.21, 2.68),
    "capital-loss": (30.61, 0.08, 0.08, 0.08, 2.68),
    "education-num": (3.71, 3.71, 3.71, 2.68, 2.68),
    "hours-per-week": (4.36, 4.36, 4.36, 2.68, 2.68),
    "income": (4.97, 4.97, 3.51, 1.74, 2.68),
    "marital-status": (8.23, 8.23, 8.23, 2.68, 2.68),
    "native-country": (17.09, 0.94, 0.83, 0.73, 2.68),
    "relationship": (5.17, 5.17, 5.17, 2.68, 2.68),
    "workclass": (14.27, 14.27, 9.14, 2.45, 2.68),
}
TABLE2_COLUMNS: tuple[dict[str, Any], ...] = (
    {},
    {"not_targetslev": ONE_WAY},
    {"not_targetslev": ONE_WAY, "use_targets_na": False},
    {"not_targetslev": ONE_WAY, "use_targets_na": False, "denom_lim": 1},
    {"denom_lim": 1},
)


@pytest.fixture(scope="module")
def adult_uci() -> pd.DataFrame:
    """R arules' AdultUCI as Raab used it: 48,842 rows, income NA for the adult.test rows.

    The bundled loader strips the trailing "." of adult.test's labels; in AdultUCI those
    labels do not match the factor levels and become NA. fnlwgt and education are dropped.
    """
    loaded = load_dataset(load_spec("adult"))
    frame = loaded.frame.drop(columns=["fnlwgt", "education"])
    assert loaded.test_mask is not None and int(loaded.test_mask.sum()) == 16281
    frame.loc[loaded.test_mask, "income"] = None
    assert frame.shape == (48842, 13)
    return frame


def test_adult_table2_original_columns_exact(adult_uci: pd.DataFrame) -> None:
    targets = [c for c in adult_uci.columns if c not in ADULT_KEYS]
    assert sorted(targets) == sorted(TABLE2_ORIG)
    for column, options in enumerate(TABLE2_COLUMNS):
        ident, att = disclosure_measures(adult_uci, adult_uci, ADULT_KEYS, targets, **options)
        assert round(ident.UiO, 2) == 2.68
        for target, published in TABLE2_ORIG.items():
            assert round(att[target].Dorig, 2) == published[column], (target, column)
        if column == 0:
            # Raab flags exactly these three for one-way checks (levels 0, 0, United-States);
            # on the identical release the 80 % rule flags the same three.
            flagged = {t: a.one_way_level for t, a in att.items() if a.one_way_flag}
            assert flagged == {"capital-gain": "0", "capital-loss": "0", "native-country": "United-States"}


def test_adult_table2_through_the_metric(adult_uci: pd.DataFrame) -> None:
    spec = load_spec("adult").with_active_qi("raab")
    real = adult_uci.assign(fnlwgt=0, education="x")[list(spec.table_columns)]
    metric = RaabDisclosure(not_targetslev=ONE_WAY, use_targets_na=False, denom_lim=1)
    out = as_outputs(metric.compute(real, real, spec, seed=0))
    for target in spec.sensitive:
        assert round(out[f"DiSCO:{target}"].baseline or 0.0, 2) == TABLE2_ORIG[target][3]
        assert out[f"DiSCO:{target}"].value == out[f"DiSCO:{target}"].baseline  # identical release


def test_sd2011_gt_references() -> None:
    frame = load_dataset(load_spec("sd2011")).frame
    keys = ["sex", "age", "region", "placesize"]
    ident, att = disclosure_measures(frame, frame, keys, ["depress"])
    assert ident.n_levels_gt == 3459  # "q ... has 3,459 levels in the GT"
    assert round(att["depress"].Dorig, 1) == 53.3  # "53.3% (Dorig)"
    assert round(att["depress"].CAPd) == 74  # "The corresponding rate from the GT (CAPd) was 74%"
    assert att["depress"].n_target_levels == 23  # "The depression score has 23 levels"
