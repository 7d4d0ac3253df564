"""fixed_release: a fixed file released unchanged (reproductions.md §11), its read options and errors."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from generators.fixed_release import EXAMPLE, FixedRelease
from harness.datasets import DATA_ROOT, load_dataset, load_spec
from harness.errors import ConfigError, DataError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"n": "integer", "x": "continuous", "c": {"kind": "categorical"}, "y": "categorical"},
        "source": {"kind": "path", "path": "unused.csv", "na_values": ["?"]},
    }
)
TRAIN = pd.DataFrame({"n": [1, 2, 3], "x": [0.5, 1.5, 2.5], "c": ["a", "b", "a"], "y": ["u", "v", "u"]})
RELEASE = "x,n,c,y,extra\n1.25,7,b,u,9\n2.5,?,a,v,9\n"
# columns in another order, an undeclared column, '?' = missing (the dataset's source.na_values)


def _write(tmp_path: Path, text: str, name: str = "release.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _fit(path: Path | str, **params: object) -> FixedRelease:
    generator = FixedRelease(path=str(path), **params)  # type: ignore[arg-type]
    generator.fit(TRAIN, SPEC, seed=0)
    return generator


def test_releases_the_file_conformed_to_the_spec(tmp_path: Path) -> None:
    path = _write(tmp_path, RELEASE)
    generator = _fit(path)
    out = generator.sample()
    expected = pd.DataFrame(
        {"n": [7.0, np.nan], "x": [1.25, 2.5], "c": ["b", "a"], "y": ["u", "v"]}, dtype=object
    ).astype({"n": "float64", "x": "float64"})
    pd.testing.assert_frame_equal(out, expected)  # integer column with NA -> float64 (harness.dtypes)
    assert generator.details() == {
        "sha256": hashlib.sha256(RELEASE.encode()).hexdigest(),
        "rows": 2,
        "dropped_columns": ["extra"],
    }
    info = generator.info()
    assert not info.randomised and info.fixed_size and not info.generalised_output
    with pytest.raises(ConfigError, match="n_rows must be None"):
        generator.sample(1)


def test_seed_plays_no_role_and_gzip_and_parquet_are_read(tmp_path: Path) -> None:
    csv = _write(tmp_path, RELEASE)
    gz = tmp_path / "release.csv.gz"
    gz.write_bytes(gzip.compress(RELEASE.encode()))
    pq = tmp_path / "release.parquet"
    _fit(csv).sample().to_parquet(pq)
    first = FixedRelease(path=str(csv)).fit(TRAIN, SPEC, seed=0).sample()
    for path, seed in ((csv, 7), (gz, 0), (pq, 3)):
        pd.testing.assert_frame_equal(
            FixedRelease(path=str(path)).fit(TRAIN, SPEC, seed=seed).sample(), first
        )


def test_na_values_and_sep_parameters(tmp_path: Path) -> None:
    path = _write(tmp_path, "n;x;c;y\n1;NULL;a;?\n")
    # explicit na_values replace the dataset's '?': 'NULL' is missing; '?' is a category absent from T
    with pytest.raises(
        DataError, match=r"column 'y' holds categories absent from the training split \('\?'\)"
    ):
        _fit(path, sep=";", na_values=["NULL"])
    out = _fit(path, sep=";", na_values=["NULL"], unseen_categories="keep").sample()
    assert out["x"].isna().all() and out["y"].tolist() == ["?"]
    assert FixedRelease(path=str(path), unseen_categories="keep").info().generalised_output


def test_relative_paths_are_bundled_files() -> None:
    generator = build_generator("fixed_release")
    assert isinstance(generator, FixedRelease)
    assert generator.file() == DATA_ROOT / EXAMPLE
    adult = load_dataset(load_spec("adult"))
    out = generator.fit(adult.frame, adult.spec, seed=0).sample()
    assert out.shape == (20, 15) and set(out["occupation"]) == {"Craft-repair"}
    assert out["education-num"].tolist() == ["9"] * 20  # ordinal codes of bundled Adult


def test_sha256_pins_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, RELEASE)
    digest = hashlib.sha256(RELEASE.encode()).hexdigest()
    assert len(_fit(path, sha256=digest).sample()) == 2
    with pytest.raises(DataError, match="differs from `sha256`"):
        _fit(path, sha256="0" * 64)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"path": ""}, "`path` must name the release file"),
        ({"path": "no/such/file.csv"}, "`path`: release file .* not found"),
        ({"path": "../../generators/fixed_release.py"}, "must be relative to the bundled data root"),
        ({"unseen_categories": "drop"}, "`unseen_categories` must be one of"),
        ({"sep": ""}, "`sep` must be a non-empty string"),
        ({"na_values": "?"}, "`na_values` must be null or a list of strings"),
        ({"sha256": "abc"}, "`sha256` must be null or 64 lower-case hex digits"),
    ],
)
def test_bad_parameters_are_one_line_config_errors(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        FixedRelease(**params).validate_params()
    assert "\n" not in str(info.value)


def test_missing_file_at_fit_and_bad_content_are_one_line_data_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, "n,x,c\n1,2.0,a\n")
    with pytest.raises(DataError, match=r"release lacks column\(s\) 'y' of dataset 'toy'; it has n, x, c"):
        _fit(path)
    path = _write(tmp_path, "n,x,c,y\nseven,2.0,a,u\n", "bad.csv")
    with pytest.raises(
        DataError,
        match=r"column 'n' must be numeric \(integer\); got a non-numeric value in 1 row\(s\), the first in data row \d+",
    ):
        _fit(path)
    path = _write(tmp_path, "n,x,c,y\n1,2.0,zzz,u\n", "unseen.csv")
    with pytest.raises(DataError) as info:
        _fit(path)
    assert "column 'c' holds categories absent from the training split ('zzz')" in str(info.value)
    assert "\n" not in str(info.value)
    gone = _write(tmp_path, RELEASE, "gone.csv")
    generator = FixedRelease(path=str(gone))
    generator.validate_params()
    gone.unlink()
    with pytest.raises(ConfigError, match="not found"):
        generator.fit(TRAIN, SPEC, seed=0)


CODES = DatasetSpec.from_dict(
    {
        "name": "codes",
        "columns": {
            "n": "integer",
            "c": "categorical",
            "o": "ordinal",
            "w": "categorical",
            "z": "categorical",
        },
        "source": {"kind": "path", "path": "unused.csv"},
    }
)
CODES_TRAIN = pd.DataFrame(
    {"n": [1, 2, 3], "c": ["1", "2", "N"], "o": ["0", "1", "2"], "w": ["a", "b", "a"], "z": ["1.5", "2", "2"]}
)
# c: integer codes with the text token N; o: integer codes; w: text; z: not integer codes ("1.5")


def test_integer_codes_written_as_floats_are_the_codes(tmp_path: Path) -> None:
    path = _write(tmp_path, "n,c,o,w,z\n2.0,1.0,2.00,a,2\n3,N,0,b,1.5\n1.0,2,1.,a,2\n")
    out = FixedRelease(path=str(path)).fit(CODES_TRAIN, CODES, seed=0).sample()
    expected = pd.DataFrame(
        {
            "n": [2, 3, 1],
            "c": ["1", "N", "2"],
            "o": ["2", "0", "1"],
            "w": ["a", "b", "a"],
            "z": ["2", "1.5", "2"],
        }
    ).astype({"c": object, "o": object, "w": object, "z": object})
    pd.testing.assert_frame_equal(out, expected)
    # the same codes as floats in parquet
    pq = tmp_path / "release.parquet"
    pd.DataFrame({"n": [2.0], "c": [1.0], "o": [2.0], "w": ["a"], "z": ["2"]}).to_parquet(pq)
    out = FixedRelease(path=str(pq)).fit(CODES_TRAIN, CODES, seed=0).sample()
    assert out.iloc[0].tolist() == [2, "1", "2", "a", "2"]


def test_a_non_integral_code_is_a_one_line_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "n,c,o,w,z\n2,1.5,2,a,2\n")
    with pytest.raises(DataError) as info:
        FixedRelease(path=str(path), unseen_categories="keep").fit(CODES_TRAIN, CODES, seed=0)
    message = str(info.value)
    assert message.startswith(f"{path}: column 'c' holds '1.5' where an integer code is expected")
    assert "\n" not in message
    path = _write(tmp_path, "n,c,o,w,z\n2,1,2e-1,a,2\n", "exp.csv")
    with pytest.raises(DataError, match=r"column 'o' holds '2e-1' where an integer code is expected"):
        FixedRelease(path=str(path)).fit(CODES_TRAIN, CODES, seed=0)


def test_an_acs_release_with_float_codes_is_the_data(tmp_path: Path) -> None:
    acs = load_dataset(load_spec("nist_acs_ma2019"))
    rows = acs.frame.head(40)
    text = rows.copy()
    for col in acs.spec.categorical_columns:
        if col != "PUMA":
            text[col] = text[col].map(lambda v: v if v == "N" else f"{v}.0")  # as sdcMicro writes them
    text["PINCP"] = text["PINCP"].map(lambda v: "N" if pd.isna(v) else f"{v:.1f}")
    text["POVPIP"] = text["POVPIP"].map(lambda v: "N" if pd.isna(v) else f"{v:.1f}")
    path = tmp_path / "kanon.csv"
    text.to_csv(path, index=False)
    out = FixedRelease(path=str(path)).fit(acs.frame, acs.spec, seed=0).sample()
    pd.testing.assert_frame_equal(out, rows.reset_index(drop=True), check_dtype=False)
