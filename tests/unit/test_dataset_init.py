"""`harness.dataset_init`: kind, target and QI inference, YAML rendering and one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from harness.dataset_init import Inferred, dataset_name, infer, init_dataset, read_cells, render_yaml
from harness.datasets import load_dataset
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec


def _table(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "patient_id": [f"P{i:04d}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["01001", "01002", "02110"], n),
            "stage": rng.integers(1, 5, n),
            "los": rng.normal(5, 2, n).round(2),
            "ward": rng.choice(list("ABCDEFGH"), n),
            "outcome": rng.choice(["died", "lived"], n),
        }
    )


def _inferred(frame: pd.DataFrame, tmp_path: Path, **kwargs: str) -> tuple[pd.DataFrame, Inferred]:
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    cells = read_cells(path)
    return cells, infer(cells, "t", **kwargs)


def test_kinds_target_and_qi_follow_the_documented_rules(tmp_path: Path) -> None:
    _, got = _inferred(_table(), tmp_path)
    kinds = {c.name: c.kind for c in got.columns}
    assert kinds == {
        "patient_id": "identifier",
        "age": "integer",
        "sex": "categorical",
        "zip": "categorical",
        "stage": "ordinal",  # 4 small whole numbers named like a scale
        "los": "continuous",
        "ward": "categorical",
        "outcome": "categorical",
    }
    cats = {c.name: c.categories for c in got.columns}
    assert cats["zip"] == ["01001", "01002", "02110"] and cats["stage"] == ["1", "2", "3", "4"]
    assert (got.target, got.task) == ("outcome", "binary")
    assert got.qi == ["age", "sex", "zip"]
    assert not got.drop_na_target


def test_qi_is_filled_with_low_cardinality_columns_when_names_do_not_help(tmp_path: Path) -> None:
    frame = _table().rename(columns={"age": "a", "sex": "b", "zip": "c"})
    _, got = _inferred(frame, tmp_path)
    assert got.qi == ["a", "b", "c"]  # 2..100 distinct values, table order


def test_given_target_sets_the_task(tmp_path: Path) -> None:
    _, got = _inferred(_table(), tmp_path, target="los")
    assert (got.target, got.task) == ("los", "regression")
    _, got = _inferred(_table(), tmp_path, target="ward")
    assert (got.target, got.task) == ("ward", "multiclass")
    with pytest.raises(DataError, match="'nope' is not a column"):
        _inferred(_table(), tmp_path, target="nope")
    with pytest.raises(DataError, match="identifier"):
        _inferred(_table(), tmp_path, target="patient_id")


def test_missing_values_are_counted_and_a_missing_target_drops_rows(tmp_path: Path) -> None:
    frame = _table()
    frame.loc[:4, "outcome"] = np.nan
    frame.loc[10:12, "los"] = np.nan
    frame["empty"] = np.nan
    cells, got = _inferred(frame, tmp_path)
    lines = "\n".join(got.decisions)
    assert "missing: outcome: 5 of 60 values" in lines and "missing: los: 3 of 60 values" in lines
    assert "drop_na_target=true drops those rows, keeping 55" in lines
    text = render_yaml(got, [{"path": str(tmp_path / "t.csv")}], command="test")
    data = yaml.safe_load(text)
    assert data["preprocess"] == {"drop_na_target": True} and data["source"]["drop"] == ["empty"]
    spec = DatasetSpec.from_dict(data, name="t")
    assert spec.target == "outcome" and "empty" not in spec.table_columns
    loaded = load_dataset(spec).frame
    assert len(loaded) == 55 and loaded["los"].isna().sum() == 3  # only unlabelled rows go


def test_rendered_yaml_quotes_yaml_words_and_codes(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"flag": ["yes", "no"] * 15, "code": ["01", "02", "10"] * 10, "y": ["on", "off"] * 15}
    )
    _, got = _inferred(frame, tmp_path)
    data = yaml.safe_load(render_yaml(got, [{"path": "t.csv"}], command="test"))
    assert data["columns"]["flag"]["categories"] == ["no", "yes"]
    assert data["columns"]["code"]["categories"] == ["01", "02", "10"]
    assert data["target"] == "y" and data["task"] == "binary"


def test_names_are_sanitised() -> None:
    assert dataset_name(Path("My Data-2024.csv.gz"), None) == "my_data_2024"
    assert dataset_name(Path("2024.csv"), None) == "d_2024"
    with pytest.raises(ConfigError, match="--name"):
        dataset_name(Path("x.csv"), "---")


def test_init_refuses_to_overwrite_and_to_shadow_a_bundled_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _table().to_csv(tmp_path / "patients.csv", index=False)
    written = init_dataset(Path("patients.csv"), Path("conf"))
    assert written == Path("conf/dataset/patients.yaml")
    assert yaml.safe_load(written.read_text())["source"]["files"] == [{"path": "patients.csv"}]
    before = written.read_text()
    with pytest.raises(ConfigError, match="exists; not overwritten"):
        init_dataset(Path("patients.csv"), Path("conf"))
    assert written.read_text() == before
    with pytest.raises(ConfigError, match="bundled dataset"):
        init_dataset(Path("patients.csv"), Path("conf"), name="adult")
    assert not Path("conf/dataset/adult.yaml").exists()


def _hr_table(n: int = 120) -> pd.DataFrame:
    """An HR table in the spelling of the IBM attrition data (CamelCase, scales, counts, a flag)."""
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "Age": rng.integers(18, 60, n),
            "Attrition": rng.choice(["No", "Yes"], n, p=[0.84, 0.16]),
            "BusinessTravel": rng.choice(["Non-Travel", "Travel_Rarely", "Travel_Frequently"], n),
            "DistanceFromHome": rng.integers(1, 30, n),
            "Education": rng.integers(1, 6, n),
            "EnvironmentSatisfaction": rng.integers(1, 5, n),
            "Gender": rng.choice(["Female", "Male"], n),
            "JobSatisfaction": rng.integers(1, 5, n),
            "MaritalStatus": rng.choice(["Single", "Married", "Divorced"], n),
            "MonthlyIncome": rng.integers(1000, 20000, n),
            "NumCompaniesWorked": rng.integers(0, 10, n),
            "Rating": rng.choice(["Bad", "Good", "Better", "Best"], n),
            "Mood": rng.choice(["Low", "High", "Medium"], n),
        }
    )


def test_an_hr_table_gets_the_target_scales_counts_qis_and_sensitive_a_user_would_choose(
    tmp_path: Path,
) -> None:
    _, got = _inferred(_hr_table(), tmp_path)
    by_name = {c.name: c for c in got.columns}
    assert (got.target, got.task) == ("Attrition", "binary")  # the outcome, not a 4-level scale
    why = next(line for line in got.decisions if line.startswith("target: "))
    assert "binary column named like an outcome" in why and "--target COL" in why
    assert by_name["Rating"].kind == "ordinal" and by_name["Rating"].categories == [
        "Bad",
        "Good",
        "Better",
        "Best",
    ]
    assert by_name["Mood"].categories == ["Low", "Medium", "High"]
    assert by_name["BusinessTravel"].categories == ["Non-Travel", "Travel_Rarely", "Travel_Frequently"]
    assert by_name["EnvironmentSatisfaction"].kind == "ordinal"  # 1-4 codes named like a rating
    assert by_name["NumCompaniesWorked"].kind == "integer"  # a count stays numeric
    assert by_name["Education"].kind == "integer" and "CHECK" in by_name["Education"].why  # flagged
    assert {"Age", "Gender", "MaritalStatus", "DistanceFromHome", "Education"} <= set(got.qi)
    assert got.sensitive == ["MonthlyIncome"]
    text = render_yaml(got, [{"path": str(tmp_path / "t.csv")}], command="test")
    data = yaml.safe_load(text)
    assert data["sensitive"] == ["MonthlyIncome"] and data["columns"]["Rating"]["kind"] == "ordinal"
    spec = DatasetSpec.from_dict(data, name="t")
    assert len(load_dataset(spec).frame) == 120


def test_roles_can_be_given_and_a_duplicated_header_is_refused(tmp_path: Path) -> None:
    _, got = _inferred(
        _hr_table(), tmp_path, target="JobSatisfaction", qi=["Age", "Gender"], sensitive=["Attrition"]
    )
    assert (got.target, got.qi, got.sensitive) == ("JobSatisfaction", ["Age", "Gender"], ["Attrition"])
    with pytest.raises(DataError, match="--qi 'Nope' is not a usable column"):
        _inferred(_hr_table(), tmp_path, qi=["Nope"])
    path = tmp_path / "dup.csv"
    path.write_text("Age,Sex,Age\n30,F,31\n40,M,41\n")
    with pytest.raises(DataError, match="names column\\(s\\) 'Age' more than once"):
        read_cells(path)
