"""sdnist_unique_exact_match: SDNist v2.2's unique exact matches, against SDNist's own numbers
(the oracle releases of ``tests/fixtures/sdnist_crc/oracle/``) and by hand."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from harness.errors import ConfigError
from harness.instantiate import build_metric
from harness.metric import as_outputs
from harness.spec import DatasetSpec
from metrics.privacy.sdnist_unique_exact_match import SDNistUniqueExactMatch
from tests.unit.test_sdnist_kmarginal import EXPECTED, PUBLISHED, release, target


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_counts_equal_sdnist_v2_2(file: str) -> None:
    spec, real, synthetic = release(file)
    expected = EXPECTED[file]
    out = as_outputs(SDNistUniqueExactMatch().compute(real, synthetic, spec))
    assert out["count"].value == expected["unique_exact_matches"]
    assert out["percent"].value == expected["unique_exact_match_percent"]
    details = out["count"].details
    assert details["unique_target_records"] == expected["unique_target_records"]
    assert details["percent_unique_target_records"] == expected["unique_target_percent"]
    assert details["dropped_columns"] == expected["values_out_of_bound"]
    n_unique = expected["unique_target_records"]
    assert out["percent_of_unique"].value == pytest.approx(100 * expected["unique_exact_matches"] / n_unique)


def test_the_target_against_itself_matches_every_unique_record() -> None:
    spec, real = target("ma2019")
    out = as_outputs(SDNistUniqueExactMatch().compute(real, real.copy(), spec))
    assert out["count"].value == 7626  # 8 of the 7,634 records have a twin
    assert out["percent"].value == 99.9 and out["percent_of_unique"].value == 100.0


# one release per distinct (target, columns): the others publish the same numbers
DISTINCT = [
    "k_anonymity_k_6_demographic_focused_na2019",
    "mwem_pgm_GirishKumar",
    "mostlyai_sd_platform_MichaelPlatzer_2",
]


@pytest.mark.parametrize("release_name", DISTINCT)
def test_unique_target_records_as_in_the_published_crc_reports(release_name: str) -> None:
    published = PUBLISHED["releases"][release_name]
    spec, real = target(published["excerpt"])
    columns = published.get("deid_features")  # a release of some columns: T on those columns
    if columns:
        spec = replace(
            spec, columns=tuple(c for c in spec.columns if c.name in columns), qi_sets={}, sensitive=()
        )
        real = real[list(spec.table_columns)]
    details = as_outputs(SDNistUniqueExactMatch().compute(real, real, spec))["count"].details
    assert details["unique_target_records"] == published["unique_target_records"]
    assert details["percent_unique_target_records"] == published["unique_target_percent"]


SPEC = DatasetSpec.from_dict(
    {"name": "toy", "columns": {"c": "categorical", "n": "integer", "x": "continuous"}}
)
REAL = pd.DataFrame({"c": ["a", "a", "b", "c", "d"], "n": [1, 1, 2, 3, 4], "x": [0.5, 0.5, 1.0, None, 2.0]})
SYN = pd.DataFrame({"c": ["a", "b", "c", "d", "e"], "n": [1, 2, 3, 4, 5], "x": [0.5, 1.0, None, 2.5, 1.0]})
# T unique: b, c, d (a is twice). S holds b exactly, c with the same missing x (= N), d with
# another x -> 2 matched; percent 2/5 = 40.0, of the unique 2/3.


def test_counts_by_hand() -> None:
    out = as_outputs(SDNistUniqueExactMatch().compute(REAL, SYN, SPEC))
    assert out["count"].value == 2.0
    assert out["percent"].value == 40.0
    assert out["percent_of_unique"].value == pytest.approx(200 / 3)
    assert out["count"].details["unique_target_records"] == 3
    assert out["count"].details["percent_unique_target_records"] == 60.0
    assert out["count"].goal is None and SDNistUniqueExactMatch.goal == "minimise"


def test_float_written_codes_match_their_integers() -> None:
    spec = DatasetSpec.from_dict({"name": "codes", "columns": {"c": "categorical", "k": "categorical"}})
    real = pd.DataFrame({"c": ["1", "2", "N"], "k": ["0", "1", "1"]})
    syn = pd.DataFrame({"c": ["1.0", "2.00", "N"], "k": [0.0, 1.0, 1.0]})
    assert as_outputs(SDNistUniqueExactMatch().compute(real, syn, spec))["count"].value == 3.0


def test_density_is_compared_in_its_bins() -> None:
    spec, real = target("ma2019")
    moved = real.copy()
    moved["DENSITY"] = moved["DENSITY"] + 1.0  # every PUMA's density stays in its bin
    assert as_outputs(SDNistUniqueExactMatch().compute(real, moved, spec))["count"].value == 7626
    assert (
        as_outputs(SDNistUniqueExactMatch(data_dictionary=None).compute(real, moved, spec))["count"].value
        == 0
    )


def test_bad_params_and_yaml() -> None:
    with pytest.raises(ConfigError, match="`data_dictionary` must be null, 'auto' or a file path"):
        SDNistUniqueExactMatch(data_dictionary=3).validate_params()  # type: ignore[arg-type]
    assert build_metric("sdnist_unique_exact_match").get_params() == {"data_dictionary": "auto"}
