"""The dataset layer: every bundled dataset, quirk repairs, user files, simulated data, digests."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from harness.datasets import (
    DATA_ROOT,
    LoadedDataset,
    clear_cache,
    load_dataset,
    load_hierarchy,
    load_spec,
    simulate,
)
from harness.errors import ConfigError
from harness.registry import names
from harness.spec import DatasetSpec

REPO = Path(__file__).resolve().parents[2]

# name: (rows, columns, rows of the predefined test split or None)
EXPECTED: dict[str, tuple[int, int, int | None]] = {
    "adult": (48_842, 15, 16_281),
    "adult_complete": (45_222, 15, 15_060),
    "adult_platzer": (48_842, 15, 24_421),
    "adult_robin_hood": (45_175, 15, 15_036),
    "adult_uci": (48_842, 13, 16_281),
    "bank_marketing": (45_211, 17, None),
    "compas": (7_214, 17, None),
    "credit_risk": (32_581, 12, None),
    "dry_bean": (13_611, 17, None),
    "ds3": (1_055, 33, 211),
    "ds38": (7_032, 32, 1_406),
    "ds43": (7_970, 37, 1_594),
    "ds55": (15_545, 6, 3_109),
    "employee": (4_653, 9, None),
    "german_credit": (1_000, 21, None),
    "german_credit_kaggle": (1_000, 10, None),
    "letter": (20_000, 17, None),
    "loan": (5_000, 13, None),
    "magic": (19_020, 11, None),
    "nist_acs_national2019": (27_253, 24, None),
    "nist_acs_ma2019": (7_634, 24, None),
    "nist_acs_tx2019": (9_276, 24, None),
    "nist_acs_national2019_core": (27_253, 11, None),
    "occupancy": (20_560, 6, 12_417),
    "robin_hood_simulation": (100_000, 4, None),
    "sd2011": (5_000, 35, None),
    "sd2011_b": (5_000, 35, None),
    "sd2011_c": (5_000, 35, None),
    "sd2011_raab": (5_000, 9, None),
    "spectral_sim_p2": (10_000, 3, None),
    "spectral_sim_p3": (10_000, 4, None),
    "spectral_sim_p6": (10_000, 7, None),
    "texas": (50_000, 18, None),
    "two_gaussians": (2_000, 3, None),
}

DTYPES = {"continuous": "float64", "categorical": "object", "ordinal": "object"}


@pytest.fixture(scope="module")
def loaded() -> dict[str, LoadedDataset]:
    """Every registered dataset, loaded once for the module."""
    return {name: load_dataset(load_spec(name)) for name in names("dataset")}


def _spec(columns: dict[str, Any], source: dict[str, Any], **extra: Any) -> DatasetSpec:
    return DatasetSpec.from_dict({"name": "user", "columns": columns, "source": source, **extra})


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


# ---------------------------------------------------------------------- bundled datasets
@pytest.mark.parametrize("name", names("dataset"))
def test_every_dataset_loads_with_expected_shape(name: str, loaded: dict[str, LoadedDataset]) -> None:
    data = loaded[name]
    spec = data.spec
    assert name in EXPECTED, f"add the expected shape of dataset {name!r} to EXPECTED"
    rows, cols, n_test = EXPECTED[name]
    assert data.frame.shape == (rows, cols)
    assert tuple(data.frame.columns) == spec.table_columns
    assert isinstance(data.frame.index, pd.RangeIndex)
    for col in spec.table_columns:
        kind = spec.kind(col)
        expected = DTYPES.get(kind)
        if kind == "integer":
            expected = "float64" if data.frame[col].isna().any() else "int64"
        assert str(data.frame[col].dtype) == expected, (col, kind)
    if n_test is None:
        assert data.test_mask is None
    else:
        assert data.test_mask is not None and data.test_mask.dtype == bool
        assert data.test_mask.shape == (rows,) and int(data.test_mask.sum()) == n_test
    assert re.fullmatch(r"[0-9a-f]{64}", data.digest)
    assert all(Path(f).is_file() for f in data.files)
    # metadata every YAML must have
    assert spec.name == name and spec.description and spec.licence and spec.citation
    assert spec.qi_sets and spec.sensitive
    raw = yaml.safe_load((REPO / "experiments" / "dataset" / f"{name}.yaml").read_text())
    assert raw["name"] == name
    if spec.task in ("binary", "multiclass"):
        n_classes = data.frame[spec.target].nunique()
        assert n_classes == 2 if spec.task == "binary" else n_classes > 2


def test_class_and_missing_counts_match_provenance(loaded: dict[str, LoadedDataset]) -> None:
    def counts(name: str, col: str, rows: Any = slice(None)) -> dict[str, int]:
        return {str(k): int(v) for k, v in loaded[name].frame.loc[rows, col].value_counts().items()}

    adult = loaded["adult"]
    assert counts("adult", "income") == {"<=50K": 37_155, ">50K": 11_687}
    assert int((~adult.test_mask).sum()) == 32_561  # type: ignore[operator]
    assert adult.frame[["workclass", "occupation", "native-country"]].isna().sum().tolist() == [
        2_799,
        2_809,
        857,
    ]
    assert len(adult.frame.loc[~adult.test_mask].dropna()) == 30_162  # type: ignore[operator]
    assert counts("ds38", "binaryClass", ~loaded["ds38"].test_mask) == {"P": 5_002, "N": 624}  # type: ignore[operator]
    assert counts("ds55", "state", ~loaded["ds55"].test_mask) == {"1": 8_354, "0": 4_082}  # type: ignore[operator]
    assert counts("bank_marketing", "y") == {"no": 39_922, "yes": 5_289}
    assert counts("credit_risk", "loan_status") == {"0": 25_473, "1": 7_108}
    assert loaded["credit_risk"].frame[["person_emp_length", "loan_int_rate"]].isna().sum().tolist() == [
        895,
        3_116,
    ]
    assert counts("employee", "LeaveOrNot") == {"0": 3_053, "1": 1_600}
    assert counts("loan", "Personal Loan") == {"0": 4_520, "1": 480}
    assert counts("magic", "class") == {"g": 12_332, "h": 6_688}
    assert counts("german_credit", "credit") == {"1": 700, "2": 300}
    assert counts("german_credit_kaggle", "Risk") == {"good": 700, "bad": 300}
    assert counts("dry_bean", "Class")["BOMBAY"] == 522
    assert loaded["letter"].frame["Letter"].nunique() == 26
    texas = loaded["texas"].spec
    assert (len(texas.categorical_columns), len(texas.numeric_columns)) == (11, 7)
    assert "01" in set(loaded["texas"].frame["PAT_AGE"])  # codes stay text
    sd = loaded["sd2011"]
    assert (len(sd.spec.categorical_columns), len(sd.spec.numeric_columns)) == (21, 14)
    assert int((sd.frame["income"] == -8).sum()) == 603 and int(sd.frame["income"].isna().sum()) == 683
    nist = loaded["nist_acs_national2019"].frame
    assert int(nist["PINCP"].isna().sum()) == 4_247 and int((nist["MSP"] == "N").sum()) == 4_247
    compas = loaded["compas"].frame
    assert not {"name", "first", "last", "dob", "id"} & set(compas.columns)


def test_privatesmote_tables_have_five_qi_sets_from_list_key_vars(loaded: dict[str, LoadedDataset]) -> None:
    key_vars = pd.read_csv(DATA_ROOT / "privatesmote_openml" / "list_key_vars.csv.gz")
    for name, ds_id in (("ds38", 38), ("ds43", 43), ("ds55", 55)):
        row = key_vars.loc[key_vars["ds"] == ds_id, "set_key_vars"].iloc[0]
        reference = json.loads(row.replace("'", '"'))
        spec = loaded[name].spec
        assert list(spec.qi_sets) == [f"qi{i}" for i in range(5)]
        assert [list(s) for s in spec.qi_sets.values()] == reference
    ds3 = loaded["ds3"].spec
    predictors = [c for c in ds3.table_columns if c != "Class"]
    rng = np.random.default_rng(0)
    drawn = [
        [predictors[j] for j in sorted(rng.choice(len(predictors), size=8, replace=False))] for _ in range(5)
    ]
    assert [list(s) for s in ds3.qi_sets.values()] == drawn


def test_adult_hierarchies_cover_every_value(loaded: dict[str, LoadedDataset]) -> None:
    adult = loaded["adult"]
    age = load_hierarchy(adult.spec, "age")
    assert age.shape == (100, 5) and set(age["level4"]) == {"*"}
    for col in adult.spec.hierarchies:
        level0 = set(load_hierarchy(adult.spec, col)["level0"])
        values = set(adult.frame[col].dropna().astype(str))
        assert values <= level0, (col, sorted(values - level0)[:3])
    with pytest.raises(ConfigError, match="no hierarchy for column 'fnlwgt'"):
        load_hierarchy(adult.spec, "fnlwgt")


def test_vendored_files_match_their_checksums() -> None:
    lines = (DATA_ROOT / "SHA256SUMS").read_text().splitlines()
    listed = {}
    for line in lines:
        digest, rel = line.split(maxsplit=1)
        listed[rel.removeprefix("./")] = digest
    on_disk = {
        str(p.relative_to(DATA_ROOT)) for p in DATA_ROOT.rglob("*") if p.is_file() and p.name != "SHA256SUMS"
    }
    assert set(listed) == on_disk
    for rel, digest in listed.items():
        assert hashlib.sha256((DATA_ROOT / rel).read_bytes()).hexdigest() == digest, rel
    for folder in {Path(rel).parts[0] for rel in listed}:
        assert (DATA_ROOT / folder / "PROVENANCE.md").is_file(), folder


# ---------------------------------------------------------------------- digest and cache
def test_digest_is_stable_across_loads_and_processes() -> None:
    spec = load_spec("german_credit")
    first = load_dataset(spec).digest
    clear_cache()
    assert load_dataset(spec).digest == first
    code = "from harness.datasets import load_dataset, load_spec; print(load_dataset(load_spec('german_credit')).digest)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == first
    # the active QI set does not change the data, so not the digest either; other specs do
    assert load_dataset(spec.with_active_qi("default")).digest == first
    recoded = load_spec("german_credit", {"preprocess": {"recode_missing_codes": True}})
    assert load_dataset(recoded).digest != first


def test_digest_changes_when_the_file_changes(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.csv", "a,b\n1,x\n2,y\n")
    spec = _spec({"a": "integer", "b": "categorical"}, {"kind": "path", "path": "t.csv"})
    before = load_dataset(spec, base_dir=tmp_path)
    _write(path, "a,b\n1,x\n3,y\n")
    after = load_dataset(spec, base_dir=tmp_path)
    assert before.digest != after.digest
    assert after.frame["a"].tolist() == [1, 3]


def test_repeated_loads_return_independent_copies() -> None:
    spec = load_spec("employee")
    first = load_dataset(spec)
    first.frame.loc[0, "Age"] = -1
    del first.frame["City"]
    second = load_dataset(spec)
    assert second.frame.loc[0, "Age"] != -1 and "City" in second.frame.columns
    assert second.frame is not load_dataset(spec).frame


def test_load_spec_deep_merges_overrides_and_rejects_unknown_names() -> None:
    spec = load_spec("two_gaussians", {"source": {"params": {"seed": 7}}, "active_qi": "default"})
    assert spec.source["generator"] == "two_gaussians"
    assert spec.source["params"] == {"seed": 7, "n_per_class": 1000}
    with pytest.raises(ConfigError, match=r"unknown dataset 'adlut'; expected one of: .*adult"):
        load_spec("adlut")


# ---------------------------------------------------------------------- quirk repairs
def test_utf8_bom_is_removed(tmp_path: Path) -> None:
    _write(tmp_path / "bom.csv", "\ufeffID,Age\n1,25\n2,45\n".encode())
    data = load_dataset(
        _spec({"ID": "identifier", "Age": "integer"}, {"kind": "path", "path": "bom.csv"}), base_dir=tmp_path
    )
    assert list(data.frame.columns) == ["Age"]  # the identifier column is dropped, and was found
    assert data.frame["Age"].tolist() == [25, 45]


def test_adult_style_junk_line_suffix_and_question_marks(tmp_path: Path) -> None:
    _write(tmp_path / "train.data", "39, State-gov, <=50K\n50, ?, >50K\n")
    _write(tmp_path / "test.data", "|1x3 Cross validator\n25, Private, <=50K.\n38, ?, >50K.\n\n")
    spec = _spec(
        {"age": "integer", "workclass": "categorical", "income": "categorical"},
        {
            "kind": "path",
            "files": [
                {"path": "train.data", "role": "train"},
                {"path": "test.data", "role": "test", "skiprows": 1},
            ],
            "header": False,
            "skipinitialspace": True,
            "na_values": ["?"],
            "strip_suffix": {"income": "."},
        },
        target="income",
        task="binary",
    )
    data = load_dataset(spec, base_dir=tmp_path)
    assert data.frame["income"].tolist() == ["<=50K", ">50K", "<=50K", ">50K"]
    assert data.frame["workclass"].isna().tolist() == [False, True, False, True]
    assert data.test_mask.tolist() == [False, False, True, True]  # type: ignore[union-attr]


def test_added_header_is_replaced_by_declared_names(tmp_path: Path) -> None:
    _write(tmp_path / "letter.data", "Letter,1,2\nT,2,8\nI,5,12\n")
    spec = _spec(
        {"Letter": "categorical", "x-box": "integer", "y-box": "integer"},
        {"kind": "path", "path": "letter.data", "header": "replace"},
    )
    frame = load_dataset(spec, base_dir=tmp_path).frame
    assert list(frame.columns) == ["Letter", "x-box", "y-box"] and frame["x-box"].tolist() == [2, 5]


def test_header_with_fewer_names_than_fields_is_replaced_with_source_names(tmp_path: Path) -> None:
    _write(tmp_path / "occ.txt", '"date","T","Occupancy"\n"1","2015-02-04 17:51:00",23.1,1\n"2","x",23.2,0\n')
    spec = _spec(
        {"T": "continuous", "Occupancy": "categorical"},
        {"kind": "path", "path": "occ.txt", "header": "replace", "names": ["id", "date", "T", "Occupancy"],
         "drop": ["id", "date"]},
    )  # fmt: skip
    frame = load_dataset(spec, base_dir=tmp_path).frame
    assert frame["T"].tolist() == [23.1, 23.2] and frame["Occupancy"].tolist() == ["1", "0"]


def test_header_lines_repeated_inside_the_data_are_dropped(tmp_path: Path) -> None:
    _write(tmp_path / "cat.csv", "a,b\n1,x\na,b\n2,y\n a , b \n3,z\n")
    spec = _spec({"a": "integer", "b": "categorical"}, {"kind": "path", "path": "cat.csv"})
    frame = load_dataset(spec, base_dir=tmp_path).frame
    assert frame["a"].tolist() == [1, 2, 3] and frame["a"].dtype == np.int64


def test_crlf_line_ends_and_gzip(tmp_path: Path) -> None:
    _write(tmp_path / "crlf.csv.gz", gzip.compress(b"a,b\r\n1,x\r\n2,\r\n"))
    spec = _spec({"a": "integer", "b": "categorical"}, {"kind": "path", "path": "crlf.csv.gz"})
    frame = load_dataset(spec, base_dir=tmp_path).frame
    assert frame["b"].tolist()[0] == "x" and pd.isna(frame["b"].iloc[1])


def test_repeated_header_names_get_pandas_suffixes(tmp_path: Path) -> None:
    _write(tmp_path / "dup.csv", "score,n,score\n1,2,1\n")
    spec = _spec(
        {"score": "integer", "n": "integer", "score.1": "integer"}, {"kind": "path", "path": "dup.csv"}
    )
    assert list(load_dataset(spec, base_dir=tmp_path).frame.columns) == ["score", "n", "score.1"]


def test_missing_codes_are_recoded_only_when_asked(tmp_path: Path) -> None:
    _write(tmp_path / "sd.csv", 'income,work\n-8,"-8"\n800,"YES"\nNA,"NO"\n')
    columns = {
        "income": {"kind": "integer", "missing_codes": [-8]},
        "work": {"kind": "categorical", "missing_codes": [-8]},
    }
    raw = load_dataset(_spec(columns, {"kind": "path", "path": "sd.csv"}), base_dir=tmp_path).frame
    assert raw["income"].tolist()[:2] == [-8.0, 800.0] and raw["work"].tolist() == ["-8", "YES", "NO"]
    spec = _spec(columns, {"kind": "path", "path": "sd.csv"}, preprocess={"recode_missing_codes": True})
    recoded = load_dataset(spec, base_dir=tmp_path).frame
    assert recoded["income"].isna().tolist() == [True, False, True]
    assert recoded["work"].isna().tolist() == [True, False, False]
    sd2011 = load_dataset(load_spec("sd2011", {"preprocess": {"recode_missing_codes": True}})).frame
    assert int(sd2011["income"].isna().sum()) == 603 + 683 and not (sd2011["nociga"] == -8).any()


def test_per_column_na_values_and_rename(tmp_path: Path) -> None:
    _write(tmp_path / "acs.csv", "MSP,PINCP\nN,N\n1,1200.0\n")
    spec = _spec(
        {"msp": "categorical", "PINCP": "continuous"},
        {"kind": "path", "path": "acs.csv", "na_values": {"PINCP": ["N"]}, "rename": {"MSP": "msp"}},
    )
    frame = load_dataset(spec, base_dir=tmp_path).frame
    assert frame["msp"].tolist() == ["N", "1"] and frame["PINCP"].isna().tolist() == [True, False]


def test_test_index_file_marks_test_rows(tmp_path: Path) -> None:
    _write(tmp_path / "t.csv", "a,y\n1,p\n2,n\n3,p\n4,n\n")
    _write(tmp_path / "idx.json", json.dumps({"7": [3, 0]}))
    spec = _spec(
        {"a": "integer", "y": "categorical"},
        {"kind": "path", "path": "t.csv", "test_index": {"path": "idx.json", "key": 7}},
        target="y",
    )
    data = load_dataset(spec, base_dir=tmp_path)
    assert data.test_mask.tolist() == [True, False, False, True]  # type: ignore[union-attr]
    assert str(tmp_path / "idx.json") in data.files


# ---------------------------------------------------------------------- user data
def test_user_yaml_from_datasets_md_loads_a_csv(tmp_path: Path) -> None:
    text = (REPO / "DATASETS.md").read_text()
    block = text.split("## Adding your own data", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    _write(tmp_path / "configs" / "dataset" / "my_patients.yaml", block)
    _write(
        tmp_path / "data" / "patients.csv",
        "patient_id,age,sex,zip,blood_pressure,smoker,weight,admitted,outcome\n"
        "p1,34,F,1000,120.5,no,70.2,2023-01-03,0\n"
        "p2,51,M,1200,?,yes,-1,2023-02-11,1\n"
        "p3,29,F,1000,110.0,unknown,80,2023-03-30,0\n",
    )
    spec = load_spec("my_patients", extra_dirs=(tmp_path / "configs",))
    data = load_dataset(spec, base_dir=tmp_path)
    assert data.frame.shape == (3, 8) and "patient_id" not in data.frame.columns
    assert pd.isna(data.frame.loc[1, "blood_pressure"]) and pd.isna(data.frame.loc[2, "smoker"])
    assert pd.isna(data.frame.loc[1, "weight"])  # missing code -1 recoded
    assert str(data.frame["admitted"].dtype) == "datetime64[ns]"
    assert spec.qi == ("age", "sex", "zip")


def test_user_parquet_file_absolute_path(tmp_path: Path) -> None:
    table = pd.DataFrame({"x": [1.5, 2.5, 3.5], "n": [1, 2, 3], "c": ["a", "b", "a"], "y": [0, 1, 1]})
    path = tmp_path / "user.parquet"
    table.to_parquet(path)
    spec = _spec(
        {"x": "continuous", "n": "integer", "c": "categorical", "y": "categorical"},
        {"kind": "path", "path": str(path)},
        target="y",
        task="binary",
    )
    frame = load_dataset(spec).frame
    assert frame["x"].tolist() == [1.5, 2.5, 3.5] and frame["n"].dtype == np.int64
    assert frame["y"].tolist() == ["0", "1", "1"]


# ---------------------------------------------------------------------- simulated
def test_two_gaussians_matches_the_decision() -> None:
    data = load_dataset(load_spec("two_gaussians"))
    frame = data.frame
    assert frame.shape == (2000, 3) and frame["label"].value_counts().to_dict() == {"0": 1000, "1": 1000}
    assert data.files == () and data.test_mask is None
    big = simulate("two_gaussians", {"seed": 1, "n_per_class": 40_000})
    for label, mean, cov in (("0", [0, 0], [[1, 0.5], [0.5, 1]]), ("1", [3, 3], [[1, -0.3], [-0.3, 1]])):
        xy = big.loc[big["label"] == label, ["x1", "x2"]].to_numpy()
        np.testing.assert_allclose(xy.mean(axis=0), mean, atol=0.03)
        np.testing.assert_allclose(np.cov(xy.T), cov, atol=0.03)
    rng = np.random.default_rng(0)
    expected0 = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], size=1000)
    np.testing.assert_array_equal(frame.loc[:999, ["x1", "x2"]].to_numpy(), expected0)


def test_two_gaussians_seed_changes_data_and_digest() -> None:
    base = load_dataset(load_spec("two_gaussians"))
    again = load_dataset(load_spec("two_gaussians"))
    other = load_dataset(load_spec("two_gaussians", {"source": {"params": {"seed": 1}}}))
    pd.testing.assert_frame_equal(base.frame, again.frame)
    assert base.digest == again.digest != other.digest
    assert not np.allclose(base.frame["x1"], other.frame["x1"])
    with pytest.raises(ConfigError, match=r"unknown source.params key\(s\) sed"):
        load_dataset(load_spec("two_gaussians", {"source": {"params": {"sed": 1}}}))
    with pytest.raises(ConfigError, match=r"source.params.n_per_class must be an integer >= 1; got 0"):
        load_dataset(load_spec("two_gaussians", {"source": {"params": {"n_per_class": 0}}}))
