"""Bad input to the dataset loader: one-line errors naming the file/column/key; inputs untouched."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.datasets import load_dataset, load_spec
from harness.errors import ConfigError, DataError, PrivbenchError
from harness.spec import DatasetSpec

COLUMNS = {"age": "integer", "sex": "categorical", "y": "categorical"}
GOOD = "age,sex,y\n30,F,0\n40,M,1\n"
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
)


def _spec(
    source: dict[str, Any] | None = None, columns: dict[str, Any] | None = None, **extra: Any
) -> DatasetSpec:
    return DatasetSpec.from_dict(
        {
            "name": "user",
            "columns": columns or COLUMNS,
            "source": source or {"kind": "path", "path": "data.csv"},
            **extra,
        }
    )


@pytest.fixture
def data_file(tmp_path: Path) -> Iterator[Any]:
    """Write ``data.csv`` (or another name); after the test, assert every file is byte- and mtime-identical."""
    written: dict[Path, tuple[bytes, int]] = {}

    def write(content: str | bytes, name: str = "data.csv") -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
        written[path] = (path.read_bytes(), path.stat().st_mtime_ns)
        return path

    yield write
    for path, (content, mtime) in written.items():
        assert path.read_bytes() == content, f"{path} was modified"
        assert path.stat().st_mtime_ns == mtime, f"{path} mtime changed"


def _fails(spec: DatasetSpec, base_dir: Path, error: type[PrivbenchError], pattern: str) -> str:
    with pytest.raises(error, match=pattern) as info:
        load_dataset(spec, base_dir=base_dir)
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_missing_file(tmp_path: Path) -> None:
    message = _fails(
        _spec(),
        tmp_path,
        DataError,
        r"data\.csv: file not found \(dataset 'user': source\.files\[0\]\.path\)",
    )
    assert str(tmp_path) in message


def test_empty_file(tmp_path: Path, data_file: Any) -> None:
    data_file(b"")
    _fails(_spec(), tmp_path, DataError, r"data\.csv: file is empty \(0 bytes\)")
    data_file(" \n\n")
    _fails(_spec(), tmp_path, DataError, r"data\.csv: file is empty \(only whitespace\)")
    data_file(gzip.compress(b""), "empty.csv.gz")
    _fails(
        _spec({"kind": "path", "path": "empty.csv.gz"}), tmp_path, DataError, r"empty\.csv\.gz: file is empty"
    )


def test_header_only_file(tmp_path: Path, data_file: Any) -> None:
    data_file("age,sex,y\n")
    _fails(_spec(), tmp_path, DataError, r"data\.csv: table has no data rows")


def test_binary_garbage(tmp_path: Path, data_file: Any) -> None:
    data_file(bytes(range(256)) * 8)
    _fails(_spec(), tmp_path, DataError, r"data\.csv: binary content \(NUL bytes\); expected a CSV")
    data_file(b"\xff\xfe\xfa\xfb" * 64, "latin.csv")
    _fails(
        _spec({"kind": "path", "path": "latin.csv"}), tmp_path, DataError, r"latin\.csv: not utf-8-sig text"
    )


def test_png_image(tmp_path: Path, data_file: Any) -> None:
    data_file(PNG, "picture.png")
    _fails(
        _spec({"kind": "path", "path": "picture.png"}), tmp_path, DataError, r"picture\.png: binary content"
    )


def test_json_object(tmp_path: Path, data_file: Any) -> None:
    data_file(json.dumps({"age": [30, 40], "sex": ["F", "M"]}), "data.json")
    _fails(
        _spec({"kind": "path", "path": "data.json"}),
        tmp_path,
        DataError,
        r"data\.json: looks like JSON, not a CSV",
    )


def test_corrupt_gzip_and_parquet(tmp_path: Path, data_file: Any) -> None:
    data_file(gzip.compress(GOOD.encode())[:20], "cut.csv.gz")
    _fails(
        _spec({"kind": "path", "path": "cut.csv.gz"}),
        tmp_path,
        DataError,
        r"cut\.csv\.gz: not a readable gzip",
    )
    data_file(GOOD, "fake.parquet")
    _fails(
        _spec({"kind": "path", "path": "fake.parquet"}),
        tmp_path,
        DataError,
        r"fake\.parquet: not a readable parquet",
    )


def test_ragged_csv(tmp_path: Path, data_file: Any) -> None:
    data_file("age,sex,y\n30,F,0\n40,M,1,extra\n")
    _fails(
        _spec(), tmp_path, DataError, r"data\.csv: not a consistent CSV table \(.*Expected 3 fields in line 3"
    )


def test_headerless_file_with_wrong_field_count(tmp_path: Path, data_file: Any) -> None:
    data_file("30,F\n40,M\n")
    spec = _spec({"kind": "path", "path": "data.csv", "header": False})
    _fails(
        spec,
        tmp_path,
        DataError,
        r"data\.csv: rows have 2 field\(s\) but .* give 3 column\(s\) \(age, sex, y\)",
    )


def test_declared_column_missing_lists_available(tmp_path: Path, data_file: Any) -> None:
    data_file("age,gender,y\n30,F,0\n40,M,1\n")
    _fails(
        _spec(),
        tmp_path,
        DataError,
        r"data\.csv: declared column\(s\) 'sex' not found in the file; available: age, gender, y",
    )


def test_undeclared_file_column(tmp_path: Path, data_file: Any) -> None:
    data_file("age,sex,y,zip\n30,F,0,1000\n40,M,1,1200\n")
    _fails(
        _spec(), tmp_path, DataError, r"data\.csv: file column\(s\) 'zip' are not declared; .*source\.drop"
    )


def test_drop_of_absent_column(tmp_path: Path, data_file: Any) -> None:
    data_file(GOOD)
    spec = _spec({"kind": "path", "path": "data.csv", "drop": ["ID"]})
    _fails(spec, tmp_path, DataError, r"source\.drop names column\(s\) 'ID', which are not in the file")


def test_all_nan_column(tmp_path: Path, data_file: Any) -> None:
    data_file("age,sex,y\n30,,0\n40,,1\n")
    _fails(_spec(), tmp_path, DataError, r"data\.csv: column 'sex' is empty \(all 2 values missing\)")


def test_single_class_target(tmp_path: Path, data_file: Any) -> None:
    data_file("age,sex,y\n30,F,1\n40,M,1\n")
    spec = _spec(target="y", task="binary")
    _fails(spec, tmp_path, DataError, r"data\.csv: target 'y' has a single class '1'; task 'binary' needs")
    data_file("age,sex,y\n30,F,1\n40,M,2\n50,M,3\n")
    _fails(spec, tmp_path, DataError, r"target 'y' has 3 classes; task 'binary' needs exactly 2")


def test_non_numeric_value_in_numeric_column(tmp_path: Path, data_file: Any) -> None:
    data_file("age,sex,y\n30,F,0\nforty,M,1\n")
    _fails(
        _spec(),
        tmp_path,
        DataError,
        r"data\.csv: column 'age' must be numeric \(integer\); got a non-numeric value in 1 row\(s\), the first in data row \d+",
    )


def test_value_outside_declared_categories(tmp_path: Path, data_file: Any) -> None:
    data_file(GOOD)
    columns = {**COLUMNS, "sex": {"kind": "categorical", "categories": ["F"]}}
    _fails(
        _spec(columns=columns),
        tmp_path,
        DataError,
        r"column 'sex' has value\(s\) 'M' outside its declared categories",
    )


def test_error_names_the_failing_file_of_several(tmp_path: Path, data_file: Any) -> None:
    data_file(GOOD, "a.csv")
    data_file("age,sex,y\nold,F,0\n", "b.csv")
    source = {"kind": "path", "files": [{"path": "a.csv"}, {"path": "b.csv", "role": "test"}]}
    message = _fails(_spec(source), tmp_path, DataError, r"b\.csv: column 'age' must be numeric")
    assert "a.csv" not in message


def test_qi_or_target_not_declared(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"QI set 'default' names column 'zip', which is not a declared column"
    ):
        _spec(qi_sets={"default": ["age", "zip"]})
    with pytest.raises(
        ConfigError, match=r"target 'label' is not a declared column; expected one of: age, sex, y"
    ):
        _spec(target="label")
    folder = tmp_path / "dataset"
    folder.mkdir()
    (folder / "mine.yaml").write_text(
        "name: mine\ncolumns: {a: integer}\nsource: {kind: path, path: x.csv}\nqi_sets: {q: [b]}\n"
    )
    with pytest.raises(ConfigError, match=r"dataset 'mine': QI set 'q' names column 'b'"):
        load_spec("mine", extra_dirs=(tmp_path,))


def test_yaml_name_must_match_file_name(tmp_path: Path) -> None:
    (tmp_path / "dataset").mkdir()
    (tmp_path / "dataset" / "mine.yaml").write_text(
        "name: other\ncolumns: {a: integer}\nsource: {kind: path, path: x}\n"
    )
    with pytest.raises(ConfigError, match=r"key 'name' must equal the file name 'mine'; got 'other'"):
        load_spec("mine", extra_dirs=(tmp_path,))


@pytest.mark.parametrize(
    ("source", "pattern"),
    [
        (
            {"kind": "remote", "path": "x"},
            r"source\.kind must be one of bundled, path, simulated; got 'remote'",
        ),
        (
            {"kind": "path", "path": "x", "delimiter": ";"},
            r"unknown source key\(s\) delimiter for kind 'path'",
        ),
        ({"kind": "path"}, r"source needs exactly one of 'path' .* or 'files'"),
        (
            {"kind": "path", "path": "x", "header": "yes"},
            r"source\.header must be true, false or replace; got 'yes'",
        ),
        (
            {"kind": "path", "files": [{"path": "x", "role": "holdout"}]},
            r"source\.files\[0\]\.role must be one of",
        ),
        (
            {"kind": "path", "path": "x", "format": "xlsx"},
            r"source\.format must be one of csv, parquet; got 'xlsx'",
        ),
        ({"kind": "bundled", "path": "../../../etc/passwd"}, r"must be relative to the bundled data root"),
        ({"kind": "path", "path": "x", "names": ["a"]}, r"source\.names needs header: false or replace"),
        (
            {"kind": "simulated", "generator": "three_gaussians"},
            r"source\.generator must be one of robin_hood_population, spectral_dgp, two_gaussians; "
            r"got 'three_gaussians'",
        ),
    ],
)
def test_bad_source_block(tmp_path: Path, source: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern) as info:
        load_dataset(_spec(source), base_dir=tmp_path)
    assert "\n" not in str(info.value)


def test_bad_test_index(tmp_path: Path, data_file: Any) -> None:
    data_file(GOOD)
    data_file(json.dumps({"3": [0, 5]}), "idx.json")
    spec = _spec({"kind": "path", "path": "data.csv", "test_index": {"path": "idx.json", "key": "3"}})
    _fails(
        spec,
        tmp_path,
        DataError,
        r"idx\.json: test index 5 is not a row position; expected integers in 0\.\.1",
    )
    spec = _spec({"kind": "path", "path": "data.csv", "test_index": {"path": "idx.json", "key": "4"}})
    _fails(spec, tmp_path, DataError, r"idx\.json: test index has no key '4'; expected one of: 3")


def test_bad_preprocess_switch(tmp_path: Path, data_file: Any) -> None:
    data_file(GOOD)
    spec = _spec(preprocess={"recode_missing_codes": "yes"})
    _fails(spec, tmp_path, ConfigError, r"preprocess\.recode_missing_codes must be true or false; got 'yes'")


def _write_dataset(root: Path, name: str, text: str) -> None:
    (root / "dataset").mkdir(parents=True, exist_ok=True)
    (root / "dataset" / f"{name}.yaml").write_text(text)


def test_dataset_variant_inherits_its_base_through_defaults(tmp_path: Path) -> None:
    _write_dataset(
        tmp_path, "variant", "defaults: [adult, _self_]\nname: variant\npreprocess: {drop_na_rows: true}\n"
    )
    spec, base = load_spec("variant", extra_dirs=(tmp_path,)), load_spec("adult")
    assert spec.name == "variant" and spec.preprocess == {"drop_na_rows": True}
    assert spec.columns == base.columns and spec.qi_sets == base.qi_sets and spec.source == base.source


@pytest.mark.parametrize(
    ("files", "pattern"),
    [
        (
            {"a": "defaults: [b]\nname: a\n", "b": "defaults: [a]\nname: b\n"},
            r"defaults form a cycle \(a -> b -> a\)",
        ),
        ({"a": "defaults: adult\nname: a\n"}, "defaults must be a list"),
        (
            {"a": "defaults: [{override: adult}]\nname: a\n"},
            "a defaults entry must be a dataset name or _self_",
        ),
        ({"a": "defaults: [nope]\nname: a\n"}, "unknown dataset 'nope'"),
        ({"a": "defaults: [adult]\n"}, "key 'name' must equal the file name 'a'; got 'adult'"),
    ],
)
def test_bad_dataset_defaults_fail_with_one_line(tmp_path: Path, files: dict[str, str], pattern: str) -> None:
    for name, text in files.items():
        _write_dataset(tmp_path, name, text)
    with pytest.raises(ConfigError, match=pattern) as info:
        load_spec("a", extra_dirs=(tmp_path,))
    assert "\n" not in str(info.value)


def test_conversion_errors_name_rows_never_values() -> None:
    """An error can reach shareable result rows (issue 29): it names rows, never the real values."""
    from harness.dtypes import convert_column

    for kind, values in (("integer", ["1", "Jane Doe", "3"]), ("datetime", ["2024-01-02", "Jane Doe"])):
        with pytest.raises(DataError) as info:
            convert_column(pd.Series(values), kind, where="people.csv: column 'x'")
        assert "Jane" not in str(info.value) and "the first in data row 2" in str(info.value)
