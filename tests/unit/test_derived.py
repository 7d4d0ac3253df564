"""Derived-column rules (harness/derived.py) and their use by the trial runner (SD2011(c))."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.cache import VariantCache
from harness.datasets import load_dataset, load_spec
from harness.derived import check_rules, complete, declared_rules, generator_view, parse_rules, reduced_spec
from harness.errors import ConfigError
from harness.instantiate import build_metric
from harness.registry import read_config
from harness.spec import DatasetSpec
from harness.splits import SplitConfig
from harness.trial import TrialConfig, prepare_trial, run_prepared

AGEGR = {
    "kind": "cut",
    "source": "age",
    "breaks": [16, 25, 35, 45, 60, 65],
    "labels": ["16-24", "25-34", "35-44", "45-59", "60-64", "65+"],
}
BMI = {"kind": "product", "factors": {"weight": 1, "height": -2}, "scale": 10000}


def _spec(**extra: object) -> DatasetSpec:
    return DatasetSpec.from_dict(
        {
            "name": "people",
            "columns": {
                "sex": "categorical",
                "age": "integer",
                "agegr": {"kind": "ordinal", "categories": AGEGR["labels"]},
                "height": "integer",
                "weight": "continuous",
                "bmi": "continuous",
            },
            "qi_sets": {"default": ["sex", "agegr"], "both": ["agegr", "bmi"]},
            "sensitive": ["bmi", "weight"],
            **extra,
        }
    )


def test_cut_rule_groups_by_lower_bounds() -> None:
    (rule,) = parse_rules({"agegr": AGEGR}, where="rules")
    frame = pd.DataFrame({"age": [15, 16, 24, 25, 34.0, 64, 65, 97, np.nan]})
    expected = rule.expected(frame)
    assert expected.tolist() == [None, "16-24", "16-24", "25-34", "25-34", "60-64", "65+", "65+", None]


def test_product_rule_is_bmi() -> None:
    (rule,) = parse_rules({"bmi": BMI}, where="rules")
    frame = pd.DataFrame({"weight": [80.0, 50.0, np.nan, 70.0], "height": [200, 100, 170, 0]})
    values = rule.expected(frame).tolist()
    assert values[:2] == pytest.approx([20.0, 50.0], rel=1e-12)  # 80 / 2.0², 50 / 1.0² (float arithmetic)
    assert math.isnan(values[2]) and math.isnan(values[3])  # missing weight; height 0 -> inf -> NA


def test_lookup_rule_learns_the_most_frequent_value_from_the_reference() -> None:
    (rule,) = parse_rules({"code": {"kind": "lookup", "source": "label"}}, where="rules")
    reference = pd.DataFrame({"label": ["a", "a", "a", "b", "b", None], "code": [1, 1, 2, 7, 7, 9]})
    frame = pd.DataFrame({"label": ["b", "a", "zzz", None]})
    assert rule.expected(frame, reference).tolist()[:2] == [7, 1]
    unseen, missing_key = rule.expected(frame, reference).tolist()[2:]
    assert math.isnan(unseen) and missing_key == 9  # an unseen label has no value; NA matches NA


def test_missing_values_are_never_violations() -> None:
    (cut,) = parse_rules({"agegr": AGEGR}, where="rules")
    frame = pd.DataFrame({"age": [20, 30, np.nan, 40], "agegr": ["16-24", "16-24", "35-44", None]})
    checked, agrees = cut.agreement(frame["agegr"], cut.expected(frame))
    assert checked.tolist() == [True, True, False, False]
    assert agrees.tolist() == [True, False, False, False]


def test_product_agreement_uses_the_tolerances() -> None:
    (rule,) = parse_rules({"bmi": {**BMI, "rtol": 0.01, "atol": 0.0}}, where="rules")
    frame = pd.DataFrame({"weight": [80.0, 80.0], "height": [200, 200], "bmi": [20.19, 20.21]})
    _, agrees = rule.agreement(frame["bmi"], rule.expected(frame))
    assert agrees.tolist() == [True, False]  # |20.19 - 20| <= 0.2 < |20.21 - 20|


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"agegr": {"kind": "bins"}}, "rules.agegr.kind must be one of cut, product, lookup; got 'bins'"),
        (
            {"agegr": {**AGEGR, "breaks": [16, 16, 35, 45, 60, 65]}},
            "rules.agegr.breaks must increase strictly",
        ),
        ({"agegr": {**AGEGR, "labels": ["16-24"]}}, "rules.agegr.labels must be a list of 6 labels"),
        ({"agegr": {**AGEGR, "right": True}}, "rules.agegr: unknown key(s) right for kind cut"),
        ({"bmi": {**BMI, "factors": {}}}, "rules.bmi.factors must map column names to powers"),
        ({"bmi": {**BMI, "rtol": -1}}, "rules.bmi.rtol must be >= 0"),
        ({"bmi": {**BMI, "scale": "big"}}, "rules.bmi.scale must be a finite number"),
        ({"code": {"kind": "lookup", "source": []}}, "rules.code.source must be a column name or a list"),
        (["agegr"], "rules must map derived column names to rules"),
    ],
)
def test_malformed_rules_name_the_key(raw: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_rules(raw, where="rules")
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"agegr": {**AGEGR, "source": "years"}}, "column 'years' is not a column of dataset 'people'"),
        ({"agegr": {**AGEGR, "source": "sex"}}, "source 'sex' of a cut rule must be numeric"),
        ({"sex": {**BMI}}, "a product rule derives a numeric column; 'sex' is not"),
        ({"agegr": {**AGEGR, "labels": ["a", "b", "c", "d", "e", "f"]}}, "are not categories of 'agegr'"),
        (
            {"bmi": BMI, "weight": {"kind": "lookup", "source": "bmi"}},
            "rules.bmi: source 'weight' is itself derived",
        ),
    ],
)
def test_rules_must_fit_the_schema(raw: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        check_rules(parse_rules(raw, where="rules"), _spec(), where="rules")
    assert fragment in str(info.value)


def test_reduced_spec_drops_derived_columns_everywhere() -> None:
    spec = _spec(preprocess={"derived_columns": {"agegr": AGEGR, "bmi": BMI}, "recode_missing_codes": True})
    reduced = reduced_spec(spec, declared_rules(spec))
    assert reduced.table_columns == ("sex", "age", "height", "weight")
    assert dict(reduced.qi_sets) == {"default": ("sex",)}  # "both" held only derived columns
    assert reduced.sensitive == ("weight",)
    assert dict(reduced.preprocess) == {"recode_missing_codes": True}


def test_generator_view_and_complete_round_trip() -> None:
    spec = _spec(preprocess={"derived_columns": {"agegr": AGEGR, "bmi": BMI}})
    train = pd.DataFrame(
        {"sex": ["F", "M"], "age": [30, 70], "agegr": ["16-24", "65+"], "height": [200, 100],
         "weight": [80.0, 50.0], "bmi": [1.0, 50.0]}
    )  # fmt: skip
    fit_train, control, fit_spec, rules = generator_view(train, None, spec)
    assert list(fit_train.columns) == ["sex", "age", "height", "weight"] and control is None
    release = complete(fit_train, spec, rules, reference=train)
    assert list(release.columns) == list(spec.table_columns)
    assert release["agegr"].tolist() == ["25-34", "65+"]
    assert release["bmi"].tolist() == pytest.approx([20.0, 50.0], rel=1e-12)
    plain = _spec()
    assert generator_view(train, None, plain)[2] is plain  # no rules: unchanged


def _trial(tmp_path: Path, dataset: str, dataset_cfg: dict[str, object] | None = None) -> TrialConfig:
    return TrialConfig(
        experiment="test",
        run_id="test",
        dataset=dataset,
        dataset_cfg=dataset_cfg or load_spec(dataset).to_dict(),
        generator="cart_synthpop",
        generator_cfg=read_config("generator", "cart_synthpop"),
        metrics={"consistency": read_config("metric", "consistency")},
        split=SplitConfig(kind="none"),
        max_rows=400,
        cache_dir=tmp_path / "cache",
    )


def test_trial_on_sd2011_c_hides_and_recomputes_agegr_and_bmi(tmp_path: Path) -> None:
    prepared = prepare_trial(_trial(tmp_path, "sd2011_c"))
    rows = run_prepared(prepared)
    hit = VariantCache(tmp_path / "cache").get(prepared.variant_key)
    assert hit is not None
    release, _ = hit
    assert list(release.columns) == list(prepared.spec.table_columns)
    ages = release["age"].to_numpy(dtype=float)
    breaks = np.array([16, 25, 35, 45, 60, 65], dtype=float)
    groups = np.array(AGEGR["labels"], dtype=object)[np.searchsorted(breaks, ages, side="right") - 1]
    assert (release["agegr"].to_numpy(dtype=object) == groups).all()
    bmi = release["weight"] / (release["height"] / 100) ** 2
    assert np.allclose(release["bmi"], bmi, equal_nan=True) and (release["bmi"].isna() == bmi.isna()).all()
    # the dataset's own rules drive the consistency metric (rules: null): every row consistent
    values = rows[rows["metric"] == "consistency"].set_index("variant")["value"]
    assert values.to_dict() == {"any": 0.0, "agegr": 0.0, "bmi": 0.0}


def test_malformed_dataset_rules_fail_before_the_trial(tmp_path: Path) -> None:
    cfg = load_spec("sd2011_c").to_dict()
    cfg["preprocess"] = {**cfg["preprocess"], "derived_columns": {"agegr": {**AGEGR, "source": "years"}}}
    with pytest.raises(ConfigError, match="preprocess.derived_columns.agegr: column 'years'"):
        prepare_trial(_trial(tmp_path, "sd2011_c", cfg))


def test_sd2011_versions_differ_as_latner_et_al_describe() -> None:
    a = load_dataset(load_spec("sd2011")).frame
    b = load_dataset(load_spec("sd2011_b")).frame
    numeric = [c for c in a.columns if pd.api.types.is_numeric_dtype(a[c])]
    assert int((a[numeric] < 0).sum().sum()) == 1_556 + 603 + 41 + 3_737 + 4_875  # the -8 codes
    assert int((b[numeric] < 0).sum().sum()) == 0
    assert int(b["wkabdur"].isna().sum()) == 4_875 + int(a["wkabdur"].isna().sum())
    assert [r.column for r in declared_rules(load_spec("sd2011_c"))] == ["agegr", "bmi"]
    assert declared_rules(load_spec("sd2011_b")) == ()


def test_pmse_exclude_derived_equals_pmse_without_those_columns() -> None:
    spec = load_spec("sd2011_c")
    frame = load_dataset(spec).frame.sample(600, random_state=0).reset_index(drop=True)
    real, synthetic = frame.iloc[:300].reset_index(drop=True), frame.iloc[300:].reset_index(drop=True)
    cfg = {**read_config("metric", "pmse"), "nperms": 1}
    excluded = build_metric("pmse", {**cfg, "exclude_derived": True}).compute(real, synthetic, spec, seed=0)
    reduced = reduced_spec(spec, declared_rules(spec))
    keep = list(reduced.table_columns)
    reference = build_metric("pmse", cfg).compute(real[keep], synthetic[keep], reduced, seed=0)
    assert isinstance(excluded, dict) and isinstance(reference, dict)
    assert excluded["pmse"].value == pytest.approx(reference["pmse"].value, abs=1e-12)
    assert excluded["pmse"].details["excluded_columns"] == ["agegr", "bmi"]
    kept = build_metric("pmse", cfg).compute(real, synthetic, spec, seed=0)
    assert isinstance(kept, dict) and kept["pmse"].details["excluded_columns"] == []
