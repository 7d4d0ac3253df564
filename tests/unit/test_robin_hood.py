"""``robin_hood`` (``spec/generators.md`` §6.5; ``004_…`` *Robin Hood*, Algorithm 1): masking
counts computed by hand on small tables, thresholds, infeasible classes, seeding, parameters."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from generators.kanon.fulldomain import KAnonFullDomain
from generators.kanon.robin_hood import MASK, RobinHood, num_to_mask
from harness.checks import contract_data
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "source": {"kind": "path"},
        "columns": {"sex": "categorical", "race": "categorical", "age": "integer", "y": "categorical"},
        "qi_sets": {"default": ["sex", "race"], "numeric": ["sex", "age"]},
    }
)


def table(groups: dict[tuple[str, str], int]) -> pd.DataFrame:
    """Rows (sex, race) repeated as given; every class has >= 3 rows, so OLA at k = 3 keeps the
    bottom node and the equivalence classes are the (sex, race) groups."""
    rows = [key for key, count in groups.items() for _ in range(count)]
    frame = pd.DataFrame(
        {
            "sex": [s for s, _ in rows],
            "race": [r for _, r in rows],
            "age": np.arange(len(rows)) % 50 + 20,
            "y": ["0", "1"] * (len(rows) // 2) + ["0"] * (len(rows) % 2),
        }
    )
    return conform(frame, SPEC)


# masking class M: W 30 (majority for k_target 10), A 3, B 4; masking class F: W 12, B 3
TOY = {("M", "W"): 30, ("M", "A"): 3, ("M", "B"): 4, ("F", "W"): 12, ("F", "B"): 3}


def masked_counts(frame: pd.DataFrame, out: pd.DataFrame) -> dict[tuple[str, str], int]:
    hit = out["race"] == MASK
    return {key: int(n) for key, n in frame[hit].groupby(["sex", "race"]).size().items()}


def effective_k(frame: pd.DataFrame, out: pd.DataFrame, sex: str, race: str) -> float:
    """A_i + C_i·D_ij/A_i from the release (Eq. 5)."""
    in_ec = (frame["sex"] == sex) & (frame["race"] == race)
    in_mc = frame["sex"] == sex
    hit = out["race"] == MASK
    a, c = int(in_ec.sum()), int((in_ec & hit).sum())
    d = int((in_mc & ~in_ec & hit).sum())
    return a + c * d / a


def test_num_to_mask_is_eq5() -> None:
    assert num_to_mask(3, 1, 10) == 21 and num_to_mask(4, 2, 10) == 12 and num_to_mask(4, 3, 10) == 8
    assert num_to_mask(3, 1, 4) == 3  # Fig. 1: A_m = 3, C_m = 1, k = 4 → D_mj = 3


def test_paper_figure_1() -> None:
    """Fig. 1 (k = 4): M has 7 records, m has 3; m masks C_m = 1 and M masks D_mj = 3 records
    (C_M = 3, E_j = 4); m's effective k is 3 + 1·3/3 = 4."""
    frame = table({("M", "W"): 7, ("M", "B"): 3})
    gen = RobinHood(k_initial=3, k_target=4).fit(frame, SPEC, seed=0)
    out = gen.sample()
    assert masked_counts(frame, out) == {("M", "B"): 1, ("M", "W"): 3}
    assert effective_k(frame, out, "M", "B") == 4
    details = gen.details()
    assert details["feasible"] is True and details["n_masked"] == 4
    assert details["effective_k_min"] == 4


def test_hand_computed_masking_continue() -> None:
    """k_target 10, thresholds 1.0 / 0.5. Masking class F is processed first (labels order):
    B (3): C=1 needs D=21 > 12 majority records, C=2 > 1.5 → infeasible. Class M: A (3): C=1,
    D=⌈3·7/1⌉=21 ≤ 30 → 1 A + 21 W; B (4): C=1, D=⌈4·6/1⌉ − 22 = 2 → 1 B + 2 W."""
    frame = table(TOY)
    gen = RobinHood(k_initial=3, k_target=10, on_infeasible="continue").fit(frame, SPEC, seed=3)
    out = gen.sample()
    assert len(out) == len(frame) and list(out.columns) == list(frame.columns)
    assert masked_counts(frame, out) == {("M", "A"): 1, ("M", "B"): 1, ("M", "W"): 23}
    assert out["race"].mask(out["race"] == MASK, frame["race"]).equals(frame["race"])
    for col in ("sex", "age", "y"):
        assert out[col].equals(frame[col])
    # minority classes reach k_target in expectation (Eq. 5): A 3 + 1·24/3, B 4 + 1·24/4
    assert effective_k(frame, out, "M", "A") == 11 and effective_k(frame, out, "M", "B") == 10
    details = gen.details()
    assert details["node"] == {"sex": 0, "race": 0} and details["ola"]["node"] == details["node"]
    assert details["feasible"] is False and details["stopped_early"] is False
    assert details["n_masking_classes"] == 2 and details["n_equivalence_classes"] == 5
    assert details["n_majority_classes"] == 2 and details["n_minority_classes"] == 3
    assert details["n_minority_masked"] == 2 and details["n_infeasible"] == 1
    assert (
        details["n_masked"] == 25 and details["n_masked_majority"] == 23 and details["n_masked_minority"] == 2
    )
    assert details["masked_by_value"] == {"A": 1, "B": 1, "W": 23}
    assert details["infeasible_classes"] == [{"sex": "F", "race": "B", "size": 3}]
    assert details["effective_k_min"] == 10
    (m_class, f_class) = details["masking_classes"]  # most masked first
    assert m_class["key"] == {"sex": "M"} and m_class["n_records"] == 37 and m_class["n_masked"] == 25
    assert m_class["n_majority_records"] == 30
    assert {c["value"]: (c["masked"], c["status"]) for c in m_class["classes"]} == {
        "A": (1, "masked"),
        "B": (1, "masked"),
        "W": (23, "majority"),
    }
    assert f_class["key"] == {"sex": "F"} and f_class["n_masked"] == 0
    masking = gen.artifacts()["masking"]
    assert len(masking) == 5 and set(masking.columns) >= {"size", "masked", "effective_k", "status"}
    assert masking.loc[masking["status"] == "masked", "effective_k"].min() >= 10
    assert set(gen.artifacts()) == {"generalised", "reid", "masking"}
    assert (gen.artifacts()["generalised"]["race"] == MASK).sum() == 25


def test_stop_at_first_infeasible_class() -> None:
    """Algorithm 1 returns at the first infeasible class (F·B, processed first): nothing is masked."""
    frame = table(TOY)
    gen = RobinHood(k_initial=3, k_target=10).fit(frame, SPEC, seed=3)
    out = gen.sample()
    assert out.equals(frame)
    details = gen.details()
    assert details["feasible"] is False and details["stopped_early"] is True
    assert details["n_infeasible"] == 1 and details["n_not_processed"] == 2 and details["n_masked"] == 0
    assert details["infeasible_classes"] == [{"sex": "F", "race": "B", "size": 3}]


def test_thresholds_respected() -> None:
    """threshold_majority 0.5: at most 15 of M's 30 W records. A (3): D=21 > 15 at C=1 and
    C=2 > 1.5 → infeasible; B (4): C=1 D=24 > 15, C=2 D=⌈4·6/2⌉=12 ≤ 15 → 2 B + 12 W
    (effective k 4 + 2·12/4 = 10)."""
    frame = table(TOY)
    gen = RobinHood(k_initial=3, k_target=10, threshold_majority=0.5, on_infeasible="continue")
    out = gen.fit(frame, SPEC, seed=0).sample()
    assert masked_counts(frame, out) == {("M", "B"): 2, ("M", "W"): 12}
    assert effective_k(frame, out, "M", "B") == 10
    details = gen.details()
    assert details["n_infeasible"] == 2
    assert {(c["sex"], c["race"]) for c in details["infeasible_classes"]} == {("F", "B"), ("M", "A")}
    # threshold_minority 0.25: B may mask only 1 record, which needs 24 > 15 → infeasible too
    strict = RobinHood(
        k_initial=3, k_target=10, threshold_majority=0.5, threshold_minority=0.25, on_infeasible="continue"
    ).fit(frame, SPEC, seed=0)
    assert strict.details()["n_masked"] == 0 and strict.details()["n_infeasible"] == 3


def test_cumulative_majority_budget() -> None:
    """k_target 30, W 30 majority records. X (20): C=1..6 need D > 30, C=7 D=⌈200/7⌉=29 → 7 X +
    29 W (E_j = 36). Y (25): C=3 gives D=⌈125/3⌉ − 36 = 6 but only 1 W is left (Algorithm 1's
    test D ≤ 30 would accept it and leave Y at 25 + 3·37/25 < 30); C=4 gives D = 32 − 36 ≤ 0 →
    4 Y and no W."""
    frame = table({("M", "W"): 30, ("M", "X"): 20, ("M", "Y"): 25})
    gen = RobinHood(k_initial=3, k_target=30).fit(frame, SPEC, seed=0)
    out = gen.sample()
    assert masked_counts(frame, out) == {("M", "W"): 29, ("M", "X"): 7, ("M", "Y"): 4}
    assert effective_k(frame, out, "M", "X") >= 30 and effective_k(frame, out, "M", "Y") >= 30
    assert gen.details()["feasible"] is True


def test_seeding() -> None:
    frame = table(TOY)

    def run(seed: int) -> pd.DataFrame:
        return (
            RobinHood(k_initial=3, k_target=10, on_infeasible="continue").fit(frame, SPEC, seed=seed).sample()
        )

    assert run(5).equals(run(5))
    assert not run(5).equals(run(6))  # which 23 of the 30 W records are masked
    assert masked_counts(frame, run(5)) == masked_counts(frame, run(6))
    assert RobinHood().info().randomised is True and RobinHood().info().generalised_output is True


def test_ola_step_matches_kanon_fulldomain() -> None:
    """Step 1 is kanon_fulldomain(k=k_initial, suppression_limit=0): same node, same release
    outside the masked fairness cells."""
    data = contract_data("adult", n_train=300, n_control=10, n_test=10, seed=0)
    ola = KAnonFullDomain(k=3, suppression_limit=0).fit(data.train, data.spec, seed=0)
    gen = RobinHood(fairness_attr="occupation", k_target=10).fit(data.train, data.spec, seed=0)
    assert gen.details()["node"] == ola.details()["node"]
    base, out = ola.sample(), gen.sample()
    hit = out["occupation"] == MASK
    assert hit.any() and len(out) == len(base) == len(data.train)
    assert out.drop(columns="occupation").equals(base.drop(columns="occupation"))
    assert out.loc[~hit, "occupation"].equals(base.loc[~hit, "occupation"])


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"k_initial": 1}, "`k_initial` must be an integer >= 2"),
        ({"k_target": "30"}, "`k_target` must be an integer >= 2"),
        ({"k_initial": 5, "k_target": 4}, "`k_target` must be >= k_initial (5)"),
        ({"threshold_majority": 1.5}, "`threshold_majority` must be a number in [0, 1]"),
        ({"threshold_minority": -0.1}, "`threshold_minority` must be a number in [0, 1]"),
        ({"on_infeasible": "skip"}, "`on_infeasible` must be one of 'stop', 'continue'"),
        ({"fairness_attr": ""}, "`fairness_attr` must be a column name"),
        ({"loss": "gain"}, "`loss` must be one of"),
        ({"decode": "upper"}, "`decode` must be one of"),
    ],
)
def test_bad_params(params: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        RobinHood(**params).validate_params()
    assert fragment in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("fairness_attr", "qi_set", "fragment"),
    [
        ("ethnicity", "default", "`fairness_attr` names column 'ethnicity', which dataset 'toy' lacks"),
        ("y", "default", "`fairness_attr` 'y' is not in the active QI set"),
        ("age", "numeric", "`fairness_attr` 'age' is integer; expected a categorical or ordinal column"),
    ],
)
def test_bad_fairness_attr(fairness_attr: str, qi_set: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        RobinHood(fairness_attr=fairness_attr).fit(table(TOY), SPEC.with_active_qi(qi_set), seed=0)
    assert fragment in str(err.value) and "\n" not in str(err.value)
