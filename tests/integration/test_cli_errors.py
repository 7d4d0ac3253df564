"""Bad input: one line naming the key/file/column and what was expected, exit 2, no traceback,
nothing run, input files untouched."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import Runner


def assert_one_line_error(proc, *fragments: str) -> None:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("privbench: error:")]
    assert len(errors) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in errors[0], errors[0]


@pytest.mark.parametrize(
    ("override", "fragments"),
    [
        ("generator=nope", ["unknown generator 'nope'", "identity", "independent_marginals"]),
        ("dataset=nope", ["unknown dataset 'nope'", "adult"]),
        ("suite=nope", ["unknown suite 'nope'", "default"]),
        ("generator=identity,nope", ["unknown generator 'nope'"]),
    ],
)
def test_unknown_names_list_valid_ones(privbench: Runner, override: str, fragments: list[str]) -> None:
    proc = privbench("run", *(["-m"] if "," in override else []), override, check=False)
    assert_one_line_error(proc, *fragments)


def test_unknown_metric_in_suite_lists_valid_ones(privbench: Runner, tmp_path: Path) -> None:
    suite_dir = tmp_path / "conf" / "suite"
    suite_dir.mkdir(parents=True)
    (suite_dir / "mine.yaml").write_text("defaults:\n  - /metric@metrics.nope: nope\n")
    proc = privbench("run", "--config-dir", str(tmp_path / "conf"), "suite=mine", check=False)
    assert_one_line_error(proc, "nope", "dcr_nndr")


def test_unknown_qi_set(privbench: Runner) -> None:
    proc = privbench("run", "qi_set=nope", "data.max_rows=400", check=False)
    assert_one_line_error(proc, "unknown QI set 'nope'", "expected one of")


def test_negative_timeout(privbench: Runner) -> None:
    proc = privbench("run", "runtime.timeout_s=-5", "data.max_rows=400", check=False)
    assert_one_line_error(proc, "runtime.timeout_s must be > 0")


def test_impossible_generator_parameter(privbench: Runner) -> None:
    proc = privbench("run", "generator=subsample", "generator.p=1.5", "data.max_rows=400", check=False)
    assert_one_line_error(proc, "p")


def test_unknown_generator_parameter(privbench: Runner) -> None:
    proc = privbench("run", "generator=subsample", "+generator.ratio=2", "data.max_rows=400", check=False)
    assert_one_line_error(proc, "unknown parameter(s) ratio", "expected some of: p")


def _user_dataset(tmp_path: Path, name: str, frame: pd.DataFrame | None, *, target: str = "y", text: str | None = None,
                  qi: tuple[str, ...] = ("a", "b")) -> tuple[Path, Path]:  # fmt: skip
    data = tmp_path / f"{name}.csv"
    if text is not None:
        data.write_bytes(text.encode() if isinstance(text, str) else text)
    elif frame is not None:
        frame.to_csv(data, index=False)
    conf = tmp_path / "conf" / "dataset"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / f"{name}.yaml").write_text(
        f"name: {name}\nsource: {{kind: path, files: [{{path: {data.name}}}]}}\n"
        "columns: {a: integer, b: categorical, c: continuous, y: categorical}\n"
        f"target: {target}\ntask: binary\nqi_sets: {{main: [{', '.join(qi)}]}}\n"
    )
    return data, tmp_path / "conf"


def _digest(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def _frame(n: int = 60) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": range(n),
            "b": ["x", "y", "z"] * (n // 3),
            "c": [0.5 * i for i in range(n)],
            "y": ["p", "q"] * (n // 2),
        }
    )


@pytest.mark.parametrize(
    ("case", "fragments"),
    [
        ("one_class", ["target 'y'", "single class"]),
        ("empty", ["empty"]),
        ("binary", ["patients.csv"]),
        ("all_nan", ["'c'", "missing"]),
        ("missing_column", ["'c'", "not found"]),
    ],
)
def test_bad_user_data(privbench: Runner, tmp_path: Path, case: str, fragments: list[str]) -> None:
    frame = _frame()
    text = None
    if case == "one_class":
        frame["y"] = "p"
    elif case == "all_nan":
        frame["c"] = float("nan")
    elif case == "missing_column":
        frame = frame.drop(columns="c")
    elif case == "empty":
        text = ""
    elif case == "binary":
        text = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"
    data, conf = _user_dataset(tmp_path, "patients", frame, text=text)
    before = _digest(data)
    proc = privbench("run", "--config-dir", str(conf), "dataset=patients", "suite=fast", check=False)
    assert_one_line_error(proc, *fragments)
    assert _digest(data) == before
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("rows.parquet"))


def test_qi_column_not_in_data(privbench: Runner, tmp_path: Path) -> None:
    data, conf = _user_dataset(tmp_path, "patients", _frame(), qi=("a", "zip"))
    proc = privbench("run", "--config-dir", str(conf), "dataset=patients", "suite=fast", check=False)
    assert_one_line_error(proc, "'zip'")


def test_debug_shows_traceback(privbench: Runner) -> None:
    proc = privbench("run", "--debug", "runtime.timeout_s=-5", "data.max_rows=400", check=False)
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr


def test_collect_on_missing_dir(privbench: Runner, tmp_path: Path) -> None:
    proc = privbench("collect", str(tmp_path / "nowhere"), check=False)
    assert_one_line_error(proc, "nowhere", "no such run directory")


@pytest.mark.parametrize(
    ("override", "fragments"),
    [
        ("runtime.timeot_s=5", ["unknown config key 'runtime.timeot_s'", "timeout_s"]),
        ("generator.pp=5", ["unknown config key 'generator.pp'", "expected one of: p"]),
        ("splitt.kind=kfold", ["unknown config key 'splitt.kind'"]),
    ],
)
def test_misspelt_keys_name_the_valid_ones(privbench: Runner, override: str, fragments: list[str]) -> None:
    proc = privbench("run", "generator=subsample", override, check=False)
    assert_one_line_error(proc, *fragments)


def test_config_dir_is_honoured_by_list_and_validate(privbench: Runner, tmp_path: Path) -> None:
    _, conf = _user_dataset(tmp_path, "patients", _frame())
    listed = privbench("list", "datasets", "--config-dir", str(conf)).stdout.split()
    assert "patients" in listed and "adult" in listed
    checked = privbench("--config-dir", str(conf), "validate", "dataset/patients")
    assert checked.stdout.split() == ["ok", "dataset", "patients"]
    assert "1 of 1 configs valid" in checked.stderr


@pytest.mark.parametrize("command", [("list", "datasets"), ("validate",), ("run", "suite=fast")])
def test_missing_config_dir_is_named(privbench: Runner, tmp_path: Path, command: tuple[str, ...]) -> None:
    proc = privbench(*command, "--config-dir", str(tmp_path / "nope"), check=False)
    assert_one_line_error(proc, f"--config-dir {tmp_path / 'nope'}: no such directory")


def test_validate_names_an_unknown_config(privbench: Runner) -> None:
    proc = privbench("validate", "dataset/nope", check=False)
    assert_one_line_error(proc, "unknown dataset 'nope'", "adult")


@pytest.mark.parametrize(
    ("override", "fragments"),
    [
        ("generator.on_categorical=smotenc", ["'generator.on_categorical'", "not a parameter of generator 'identity'",
                                              "generator_overrides.<generator>.on_categorical=VALUE"]),
        ("generator_overrides.smot.knn=1", ["unknown generator in generator_overrides 'smot'", "smote"]),
        ("generator_overrides.smote.nope=1", ["generator 'smote': unknown parameter(s) nope", "knn"]),
    ],
)  # fmt: skip
def test_per_generator_parameter_errors(privbench: Runner, override: str, fragments: list[str]) -> None:
    proc = privbench(
        "run", "-m", "generator=smote,identity", override, "data.max_rows=300", "suite=fast", check=False
    )
    assert_one_line_error(proc, *fragments)


def test_yaml_syntax_error_names_file_and_line(privbench: Runner, tmp_path: Path) -> None:
    conf = tmp_path / "conf" / "dataset"
    conf.mkdir(parents=True)
    (conf / "bad.yaml").write_text(
        "name: bad\nsource: {kind: path, files: [{path: d.csv}]\ncolumns: {a: integer}\n"
    )
    proc = privbench("run", "--config-dir", str(tmp_path / "conf"), "dataset=bad", check=False)
    assert_one_line_error(proc, f"{conf / 'bad.yaml'}, line 3, column 1: not valid YAML")


def test_too_few_rows_for_the_split(privbench: Runner, tmp_path: Path) -> None:
    _, conf = _user_dataset(tmp_path, "five", _frame().head(5))
    proc = privbench("run", "--config-dir", str(conf), "dataset=five", "suite=fast", check=False)
    assert_one_line_error(proc, "5 rows and 2 classes are too few for split 'holdout'", "split.kind=none")
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("rows.parquet"))


def test_dataset_name_must_equal_its_file_name(privbench: Runner, tmp_path: Path) -> None:
    _, conf = _user_dataset(tmp_path, "patients", _frame())
    yaml_path = conf / "dataset" / "patients.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("name: patients", "name: other"))
    proc = privbench("run", "--config-dir", str(conf), "dataset=patients", "suite=fast", check=False)
    assert_one_line_error(proc, "key 'name' must equal the file name 'patients'", "got 'other'")


def test_a_group_chosen_twice_is_an_error(privbench: Runner) -> None:
    proc = privbench("run", "generator=identity", "generator=mondrian", "suite=fast", check=False)
    assert_one_line_error(proc, "generator is given twice", "-m generator=identity,mondrian")


def test_duplicated_csv_column_names(privbench: Runner, tmp_path: Path) -> None:
    frame = _frame()
    data, conf = _user_dataset(tmp_path, "patients", frame)
    header, *rows = data.read_text().splitlines()
    data.write_text("\n".join([header.replace(",c,", ",a,"), *rows]) + "\n")
    proc = privbench("run", "--config-dir", str(conf), "dataset=patients", "suite=fast", check=False)
    assert_one_line_error(
        proc, "declared column(s) 'c' not found", "'a.1': a header name that appears more than once"
    )


def _read_only(folder: Path) -> Callable[[], None]:
    """Make ``folder`` unwritable, even for root (``chattr +i``); return the undo."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return lambda: folder.chmod(0o755)
    proc = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(
            f"root ignores permission bits and this filesystem refuses chattr +i: {proc.stderr.strip()}"
        )
    return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_results_directory_that_is_not_writable(privbench: Runner, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    undo = _read_only(results)
    try:
        proc = privbench("run", "data.max_rows=300", "suite=fast", check=False)
    finally:
        undo()
    assert_one_line_error(proc, f"results directory {results}: {results} is not writable")
    assert list(results.iterdir()) == []


def test_results_directory_that_is_a_file(privbench: Runner, tmp_path: Path) -> None:
    (tmp_path / "results").write_text("not a folder")
    proc = privbench("run", "data.max_rows=300", "suite=fast", check=False)
    assert_one_line_error(proc, f"{tmp_path / 'results'} is a file; expected a folder")
    assert (tmp_path / "results").read_text() == "not a folder"


def test_validate_exits_2_on_an_invalid_config_and_documents_config_dir(
    privbench: Runner, tmp_path: Path
) -> None:
    conf = tmp_path / "conf" / "generator"
    conf.mkdir(parents=True)
    (conf / "broken.yaml").write_text("_target_: generators.kanon.fulldomain.KAnonFullDomain\nk: 1\n")
    proc = privbench("--config-dir", str(tmp_path / "conf"), "validate", "generator/broken", check=False)
    assert (
        proc.returncode == 2 and "FAIL  generator   broken" in proc.stdout
    )  # bad input: 2, as the README says
    assert "0 of 1 configs valid" in proc.stderr
    assert "--config-dir DIR" in privbench("validate", "--help").stdout
