"""R-BLOG (``spec/reproductions.md`` §4): the ``data_anonymizer_2023`` experiment in its quick
profile, with the properties the Data Anonymizer blog states checked on the results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from harness.storage import read_parquet
from tests.conftest import Runner


def test_data_anonymizer_2023_quick(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "-m", "experiment=data_anonymizer_2023", "profile=quick")
    rows = pd.concat(
        [read_parquet(p) for p in (tmp_path / "results" / "data_anonymizer_2023").rglob("rows.parquet")]
    )
    assert set(rows["generator"]) == {
        "identity",
        "data_anonymizer_default",
        "data_anonymizer_user",
        "kanon_fulldomain",
    }
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["generator", "metric", "error"]]
    reid = rows[rows["metric"] == "reid_score"]
    value = reid.pivot_table(index="generator", columns="variant", values="value")
    assert (reid["qi_set"] == "data_anonymizer").all()

    curves = {}
    for generator, row in reid[reid["variant"] == "reid_mean"].set_index("generator").iterrows():
        curve = json.loads(row["details"])["k_threshold_curve"]
        assert curve["k"] == list(range(1, 51))
        release = np.asarray(curve["release"])
        assert release[0] == 1.0 and np.all(np.diff(release) <= 1e-12)  # non-increasing, 1 at k = 1
        curves[generator] = release
    np.testing.assert_allclose(value["k_anonymity"], 1.0 / value["reid_max"])
    assert value.loc["identity", "reid_max"] == 1.0  # Adult has unique QI combinations
    assert value.loc["data_anonymizer_user", "k_anonymity"] >= 5
    assert value.loc["kanon_fulldomain", "k_anonymity"] >= 5
    # the "User" line lies on or above the "Default" line for every k <= 5
    assert np.all(curves["data_anonymizer_user"][:5] >= curves["data_anonymizer_default"][:5])
    assert value.loc["data_anonymizer_user", "reid_mean"] < value.loc["identity", "reid_mean"]
