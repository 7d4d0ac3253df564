"""sdnist_kmarginal: SDNist v2.2's k-marginal score, against SDNist's own numbers and by hand.

The oracle fixtures (``tests/fixtures/sdnist_crc/oracle/``, PROVENANCE.md there) are releases
derived from the bundled MA / TX excerpts that exercise every rule (percentile bins and the
release mapping, N, DENSITY bins and top-coding, float-written codes, out-of-domain columns, a
release without PUMA); ``expected.json`` holds the scores SDNist v2.2.0's code gives them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from generators.fixed_release import FixedRelease
from harness.datasets import load_dataset, load_spec
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import as_outputs
from harness.spec import DatasetSpec
from metrics.fidelity.sdnist_kmarginal import SDNistKMarginal
from metrics.fidelity.sdnist_prepare import (
    MISSING_LABEL,
    bin_density,
    code_labels,
    density_edges,
    dictionary_for,
    percentile_bins,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sdnist_crc"
ORACLE = FIXTURES / "oracle"
EXPECTED = json.loads((ORACLE / "expected.json").read_text())["releases"]
PUBLISHED = json.loads((FIXTURES / "published.json").read_text())


@cache
def target(name: str) -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec(f"nist_acs_{name}")
    return spec, load_dataset(spec).frame


def release(file: str) -> tuple[DatasetSpec, pd.DataFrame, pd.DataFrame]:
    """(spec, T, S) of an oracle release, read by the fixed_release generator as a run would."""
    spec, real = target(EXPECTED[file]["target"])
    columns = EXPECTED[file]["columns"]
    if columns != "all":  # a release of some columns: the dataset view with those columns
        spec = replace(
            spec, columns=tuple(c for c in spec.columns if c.name in columns), qi_sets={}, sensitive=()
        )
        real = real[list(spec.table_columns)]
    generator = FixedRelease(path=str(ORACLE / file), unseen_categories="keep")
    generator.fit(real, spec, seed=0)
    return spec, real, generator.sample()


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_score_equals_sdnist_v2_2(file: str) -> None:
    spec, real, synthetic = release(file)
    expected = EXPECTED[file]
    out = as_outputs(SDNistKMarginal().compute(real, synthetic, spec))["score"]
    assert abs(out.value - expected["k_marginal_score"]) <= 1  # SDNist publishes int(score)
    assert out.details["score_unrounded"] == pytest.approx(expected["k_marginal_unrounded"], abs=1e-9)
    assert out.value == int(out.details["score_unrounded"])
    assert out.details["dropped_columns"] == expected["values_out_of_bound"]
    grouped = "PUMA" in spec.table_columns and "PUMA" not in expected["values_out_of_bound"]
    assert out.details["group_column"] == ("PUMA" if grouped else None)


def test_the_target_against_itself_scores_1000() -> None:
    spec, real = target("ma2019")
    out = as_outputs(SDNistKMarginal().compute(real, real.copy(), spec))["score"]
    assert out.value == 1000.0
    assert out.details["n_marginals"] == 231  # C(22, 2): every column but PUMA and INDP
    assert set(out.details["group_scores"]) == set(real["PUMA"])
    assert all(v == 1000.0 for v in out.details["group_scores"].values())
    assert out.details["coding"]["DENSITY"] == "DENSITY log bins"
    assert out.details["coding"]["PINCP"] == "percentile bins (int)"
    assert out.details["coding"]["NOC"] == "codes"


@pytest.mark.parametrize(
    ("name", "frac", "tolerance"),
    [("ma2019", 0.1, 8), ("ma2019", 0.5, 5), ("ma2019", 0.9, 3), ("national2019", 0.3, 5)],
)
def test_subsamples_score_as_in_the_published_crc_reports(name: str, frac: float, tolerance: int) -> None:
    # SDNist's reports score one random frac-sample of the target: the tolerance is sampling noise
    spec, real = target(name)
    published = PUBLISHED["subsample_scores"][name]["scores"][str(frac)]
    sample = real.sample(frac=frac, random_state=0).reset_index(drop=True)
    score = as_outputs(SDNistKMarginal().compute(real, sample, spec))["score"].value
    assert abs(score - published) <= tolerance


# ---------------------------------------------------------------------- rules by hand
def test_percentile_bins_and_the_release_mapping() -> None:
    # T ranks .25 .5 .75 1 -> int(2 * rank): 0 1 1 and 1 (rank 1 -> last bin); bin 0 max 1
    t_bins, s_bins = percentile_bins(
        np.array([1.0, 2.0, 3.0, 4.0, np.nan]),
        np.array([0.0, 1.0, 1.9, 7.0, np.nan]),
        integer_valued=True,
        n_bins=2,
    )
    assert t_bins.tolist() == [0, 1, 1, 1, -1]  # N (missing) -> -1
    assert s_bins.tolist() == [0, 0, 0, 1, -1]  # 1.9 truncated to 1 (SDNist's astype(int))
    # ties averaged: ranks .5 .5 .5 1 -> one bin, 1, the last: it takes only values above 0
    t_bins, s_bins = percentile_bins(
        np.array([5.0, 5.0, 5.0, 9.0]), np.array([-3.0, 0.0, 3.0, 12.0]), integer_valued=True, n_bins=2
    )
    assert t_bins.tolist() == [1, 1, 1, 1]
    assert s_bins.tolist() == [-3, 0, 1, 1]  # values no bin takes keep their own value
    # 20 bins (SDNist): bin i holds ranks in [i/20, (i+1)/20); middle bins take (previous max, max]
    t = np.arange(1.0, 41.0)
    t_bins, s_bins = percentile_bins(t, np.array([2.0, 2.5, 3.0, 40.0, 99.0]), integer_valued=False)
    assert t_bins[:4].tolist() == [0, 1, 1, 2] and t_bins[-1] == 19
    assert s_bins.tolist() == [1, 1, 1, 19, 19]  # bin 1 = (1, 3]; fractional column: no truncation


def test_density_bins_from_the_dictionary() -> None:
    dictionary, _ = dictionary_for("auto", load_spec("nist_acs_ma2019"))
    assert dictionary is not None
    edges, n_max = density_edges(dictionary["DENSITY"])
    assert n_max == pytest.approx(52864.7 + 500)
    assert edges[:3] == pytest.approx([0.0, 150.0, 309.67177891])
    assert len(edges) == 15 and edges[-1] == pytest.approx(n_max)
    values = np.array([2872.7, 2646.7, 100.0, 1e6, -5.0, 0.0])
    labels = bin_density(values, edges, n_max)
    assert labels[:4].tolist() == [7, 6, 0, 13]  # 1e6 is top-coded to max + 400: last bin
    assert np.isnan(labels[4:]).all()  # negative -> 0, and 0 is in no (right-closed) bin
    assert dictionary_for("auto", load_spec("adult")) == (None, None)


def test_codes_written_as_floats_are_integers() -> None:
    values = pd.Series(["1.0", "2", 3.0, "N", None, "007", "2.5", "A", "-1.00"], dtype=object)
    assert code_labels(values).tolist() == ["1", "2", "3", "N", MISSING_LABEL, "007", "2.5", "A", "-1"]


TINY = DatasetSpec.from_dict(
    {"name": "tiny", "columns": {"PUMA": "categorical", "A": "categorical", "B": "ordinal"}}
)
T_TINY = pd.DataFrame({"PUMA": ["p", "p", "q", "q"], "A": ["0", "1", "0", "1"], "B": ["0", "1", "1", "0"]})
S_TINY = pd.DataFrame({"PUMA": ["p", "p", "q", "q"], "A": ["0", "1.0", "0", "0"], "B": ["0", "1", "1", "1"]})
# one 3-marginal PUMA x A x B; T cells .25 each; S: (p,0,0) .25, (p,1,1) .25 ("1.0" = "1"), (q,0,1) .5
# L1 = |.25-.5| + |.25-0| = .5 -> score (2 - .5) * 500 = 750; per PUMA: p 0 -> 1000,
# q min(.5, .5) * 4/2 = 1 -> 0


def test_score_by_hand() -> None:
    out = as_outputs(SDNistKMarginal().compute(T_TINY, S_TINY, TINY))["score"]
    assert out.value == 750.0 and out.details["score_unrounded"] == 750.0
    assert out.details["n_marginals"] == 1 and out.details["group_column"] == "PUMA"
    assert out.details["group_scores"] == {"p": 1000.0, "q": 0.0}
    assert out.details["data_dictionary"] is None  # not an ACS dataset


def test_without_the_group_column_the_marginals_are_plain_pairs() -> None:
    spec = DatasetSpec.from_dict({"name": "tiny2", "columns": {"A": "categorical", "B": "categorical"}})
    out = as_outputs(SDNistKMarginal().compute(T_TINY[["A", "B"]], S_TINY[["A", "B"]], spec))["score"]
    # 2-marginal A x B: T .25 each; S (0,0) .25, (1,1) .25, (0,1) .5 -> L1 .5 -> 750
    assert out.value == 750.0 and out.details["group_column"] is None and "group_scores" not in out.details
    # group_column null: PUMA becomes a pair column (3 pairs)
    assert (
        as_outputs(SDNistKMarginal(group_column=None).compute(T_TINY, S_TINY, TINY))["score"].details[
            "n_marginals"
        ]
        == 3
    )


def test_truncation_and_excluded_columns() -> None:
    spec = DatasetSpec.from_dict(
        {
            "name": "t3",
            "columns": {"A": "categorical", "B": "categorical", "C": "categorical", "INDP": "categorical"},
        }
    )
    real = pd.DataFrame({"A": list("abc"), "B": list("xyz"), "C": list("uvw"), "INDP": list("123")})
    syn = pd.DataFrame({"A": list("abb"), "B": list("xyz"), "C": list("uvw"), "INDP": list("999")})
    out = as_outputs(SDNistKMarginal().compute(real, syn, spec))["score"]
    # pairs AB, AC: L1 2/3 each, BC: 0 -> mean 4/9 -> 1000 - 2000/9 = 777.78 -> 777
    assert out.details["score_unrounded"] == pytest.approx(1000 - 2000 / 9)
    assert out.value == 777.0 and out.details["columns"] == ["A", "B", "C"]


def test_too_few_columns_is_incomputable() -> None:
    with pytest.raises(IncomputableMetricError, match="marginals need two columns"):
        as_outputs(
            SDNistKMarginal().compute(
                T_TINY[["PUMA", "A"]], S_TINY[["PUMA", "A"]], replace(TINY, columns=TINY.columns[:2])
            )
        )


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"group_column": 3}, "`group_column` must be null or a column name"),
        ({"exclude_columns": "INDP"}, "`exclude_columns` must be a list of column names"),
        ({"data_dictionary": ""}, "`data_dictionary` must be null, 'auto' or a file path"),
        ({"percentile_bins": 0}, "`percentile_bins` must be an integer >= 1"),
    ],
)
def test_bad_params_are_one_line_config_errors(params: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        SDNistKMarginal(**params).validate_params()
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    assert build_metric("sdnist_kmarginal").get_params() == {
        "group_column": "PUMA",
        "exclude_columns": ["INDP"],
        "data_dictionary": "auto",
        "percentile_bins": 20,
    }
