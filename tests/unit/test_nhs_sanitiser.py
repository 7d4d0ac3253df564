"""``nhs_sanitiser`` (``spec/generators.md`` §6.6): each rule on a hand-made table, Texas defaults,
parameters."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from generators.nhs_sanitiser import NhsSanitiser, bin_labels, most_frequent
from harness.checks import contract_data
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "source": {"kind": "path"},
        "columns": {
            "age": "integer",
            "sex": "categorical",
            "charges": "continuous",
            "cat": "categorical",
        },
        "qi_sets": {"default": ["age", "sex"]},
    }
)
NAN = np.nan
FRAME = conform(
    pd.DataFrame(
        {
            "age": [20, 25, 30, 35, 40, 45, 50, 55, 60, NAN],
            "sex": ["F", "F", "F", "M", "M", "M", "M", "F", NAN, "M"],
            "charges": [1.4, 2.5, 3.5, 10.6, 100.2, NAN, 7, 8, 9, 1000],
            "cat": list("aaaabbbccz"),
        }
    ),
    SPEC,
)


def test_defaults_only_impute_and_cast() -> None:
    """Reference defaults: no cap, no rare drop, no k filter. Steps 1–3: sex NaN → M (5 M vs 4 F),
    charges NaN → median 8, charges rounded half to even, age (a QI) binned into 10 intervals
    of width 4 over [20, 60] and released as the lower bound."""
    gen = NhsSanitiser()
    gen.fit(FRAME, SPEC, seed=0)
    out = gen.sample()
    assert len(out) == 10 and gen._expected_rows(None) == 10
    assert out["sex"].tolist() == ["F", "F", "F", "M", "M", "M", "M", "F", "M", "M"]
    assert out["charges"].tolist() == [1, 2, 4, 11, 100, 8, 7, 8, 9, 1000]
    assert out["cat"].tolist() == list("aaaabbbccz")
    # imputed age 40 (median of the nine ages); bins (20,24], (24,28], …; 20 is in the first
    assert out["age"].tolist() == [20, 24, 28, 32, 36, 44, 48, 52, 56, 36]
    details = gen.details()
    assert details["quids"] == ["age", "sex"] and details["imputed"] == {"age": 1, "sex": 1, "charges": 1}
    assert details["bins"] == {"age": [20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60]}
    assert details["n_dropped"] == 0 and details["dropped_rare"] == 0 and details["dropped_anonymity"] == 0
    labels = gen.artifacts()["generalised"]
    assert labels["age"].tolist()[:3] == ["(20,24]", "(24,28]", "(28,32]"]
    assert gen.decode_numeric(["(20,24]"]).tolist() == [20.0]


def test_reference_quirks_truncate() -> None:
    out = NhsSanitiser(reference_quirks=True).fit(FRAME, SPEC, seed=0).sample()
    assert out["charges"].tolist() == [1, 2, 3, 10, 100, 8, 7, 8, 9, 1000]


def test_cap_at_quantile() -> None:
    """Integers [1, 2, 4, 11, 100, 8, 7, 8, 9, 1000]: the 0.8 quantile is 11 + 0.2·89 = 28.8 → 29;
    100 and 1000 are capped."""
    gen = NhsSanitiser(max_quantile=0.8).fit(FRAME, SPEC, seed=0)
    assert gen.sample()["charges"].tolist() == [1, 2, 4, 11, 29, 8, 7, 8, 9, 29]
    assert gen.details()["capped"] == {"charges": {"cap": 29.0, "n_capped": 2}}


def test_rare_categories_and_anonymity_sets() -> None:
    """thresh_rare 1: `cat` z occurs once → row 9 dropped. Age in 4 bins (20,30], (30,40],
    (40,50], (50,60]; anonymity_set_size 2 on (age, sex) after that drop: rows 7 (50-60, F)
    and 8 (50-60, M imputed) are alone → dropped."""
    gen = NhsSanitiser(nbins=4, thresh_rare=1).fit(FRAME, SPEC, seed=0)
    assert len(gen.sample()) == 9
    assert gen.details()["dropped_rare_by_column"] == {"cat": 1}
    assert gen.details()["rare_categories"] == {"cat": ["z"]}

    gen = NhsSanitiser(nbins=4, thresh_rare=1, anonymity_set_size=2).fit(FRAME, SPEC, seed=0)
    out = gen.sample()
    assert len(out) == 7 and gen._expected_rows(None) == 7
    assert out["age"].tolist() == [20, 20, 20, 30, 30, 40, 40]
    assert out["cat"].tolist() == list("aaaabbb")
    details = gen.details()
    assert details["dropped_rare"] == 1 and details["dropped_anonymity"] == 2 and details["n_dropped"] == 3
    assert details["n_released"] == 7
    # a binned QI's rare interval counts as a rare category: (50,60] holds 2 rows
    gen = NhsSanitiser(nbins=4, thresh_rare=2).fit(FRAME, SPEC, seed=0)
    assert gen.details()["dropped_rare_by_column"] == {"age": 4, "cat": 3}
    assert gen.details()["dropped_rare"] == 5  # rows 5, 6 (40-50), 7, 8 (50-60 and c), 9 (z)


def test_explicit_quids() -> None:
    """`quids` replaces the QI set: age is then a non-QI numeric column (cast, not binned)."""
    gen = NhsSanitiser(quids=["sex"], anonymity_set_size=5).fit(FRAME, SPEC, seed=0)
    out = gen.sample()
    assert out["age"].tolist() == [35, 40, 45, 50, 60, 40]  # the four F rows are dropped
    assert out["sex"].tolist() == ["M"] * 6 and gen.details()["dropped_anonymity"] == 4
    assert gen.artifacts() == {}


def test_texas_default_quids() -> None:
    data = contract_data("texas", n_train=400, n_control=10, n_test=10, seed=0)
    gen = NhsSanitiser(anonymity_set_size=3, thresh_rare=2).fit(data.train, data.spec, seed=0)
    out = gen.sample()
    quids = ["PAT_STATE", "SEX_CODE", "RACE", "ETHNICITY", "PAT_AGE"]
    details = gen.details()
    assert details["quids"] == quids and details["bins"] == {}
    assert 0 < len(out) == 400 - details["n_dropped"] == gen._expected_rows(None)
    assert out.groupby(quids, dropna=False).size().min() >= 3
    pd.testing.assert_frame_equal(out, conform(out, data.spec))
    assert gen.sample().equals(
        NhsSanitiser(anonymity_set_size=3, thresh_rare=2).fit(data.train, data.spec, seed=9).sample()
    )


def test_helpers() -> None:
    assert most_frequent(pd.Series(["b", "a", "b", "a", None])) == "a"  # ties: smallest
    assert np.isnan(most_frequent(pd.Series([None, None], dtype=object)))
    edges = np.array([0.0, 1.0, 2.0])
    assert bin_labels(np.array([0.0, 0.5, 1.0, 1.5, 2.0, NAN]), edges).tolist()[:5] == [
        "(0,1]", "(0,1]", "(0,1]", "(1,2]", "(1,2]",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"nbins": 0}, "`nbins` must be an integer >= 1"),
        ({"thresh_rare": -1}, "`thresh_rare` must be an integer >= 0"),
        ({"max_quantile": 1.5}, "`max_quantile` must be a number in [0, 1]"),
        ({"anonymity_set_size": 0}, "`anonymity_set_size` must be an integer >= 1"),
        ({"quids": "age"}, "`quids` must be null or a non-empty list of column names"),
        ({"decode": "upper"}, "`decode` must be one of"),
        ({"reference_quirks": "yes"}, "`reference_quirks` must be true or false"),
    ],
)
def test_bad_params(params: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        NhsSanitiser(**params).validate_params()
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_unknown_quid() -> None:
    with pytest.raises(ConfigError, match="`quids` names unknown column"):
        NhsSanitiser(quids=["zip"]).fit(FRAME, SPEC, seed=0)
