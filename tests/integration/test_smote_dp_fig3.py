"""SMOTE-DP Fig. 3 (``001_…`` §4.1; ``spec/reproductions.md`` §2.1) on ``two_gaussians``.

For each data seed: DP = ``privbayes`` (ε = 1, k = 1, 25 bins; the spec's Decision) on X,
SMOTE = ``smotenc`` (K = 1, full synthetic) on X, SMOTE-DP = the same PrivBayes on the SMOTE
output (``smote_dp``, ε = 1). Frobenius norms of the mean and covariance differences against
X on (x1, x2), label excluded. The check is the paper's ordering of the median covariance
differences, SMOTE < SMOTE-DP < DP (a ``trend`` check: the paper gives neither its data
nor its DP settings). Run with ``-s`` to see the numbers next to the paper's.

Observed (20 data seeds, median [IQR]; paper in brackets):

=========  ======================  ======================
method     mean F-norm             cov F-norm
=========  ======================  ======================
DP         0.074 [0.052, 0.092]    0.483 [0.432, 0.624]   (0.375 / 4.154)
SMOTE      0.030 [0.017, 0.040]    0.117 [0.089, 0.152]   (0.399 / 0.291)
SMOTE-DP   0.060 [0.047, 0.091]    0.534 [0.466, 0.607]   (0.356 / 2.727)
=========  ======================  ======================

SMOTE alone is closest, as in the paper, but SMOTE-DP is not between SMOTE and DP: its
covariance error is that of DP (12/20 seeds below DP; over 20 data x 10 generator seeds the
medians are 0.506 vs 0.517, paired Wilcoxon p = 0.84). Why: PrivBayes' noise is fixed by
ε, the number of attributes, k and n (Laplace (d − k)/ε₂ on counts, exponential mechanism
with the worst-case MI sensitivity), never by the spread of the data, so the contraction
argument of the paper's Theorem 3.2 (noise ∝ a covariance-based Δf_S) has no handle on it;
and SMOTE with K = 1 barely contracts 2-D data with 1,000 rows per class (the nearest
neighbour is very close: α̂ ≈ 0.994, per seed between about 0.96 and 1.04 because SMOTE
draws its base rows with replacement), so G2 sees almost the same table. Most of the DP
error is structural: with k = 1 PrivBayes usually picks label → x1, label → x2, which drops
the within-class correlations (0.5 and −0.3). The paper's absolute numbers are not
reproduced either (its DP error is 9x ours; its settings are not given). The ordering test
is therefore reported, not asserted: only SMOTE < SMOTE-DP and SMOTE < DP are checked.

Other DP stages do not restore the ordering either (ε = 1, covariance F-norm medians, DP vs
SMOTE-DP): ``mst`` (20 bins, 6 seeds) 1.55 vs 1.64, SMOTE-DP below DP on 2/6 seeds;
``pategan`` (30 iterations, 4 seeds) 5.23 vs 5.91, 0/4. Both calibrate their noise on a fixed
domain (bins, clipped gradients), not on the covariance of the input, so the contraction by
SMOTE (α̂ ≈ 1 here) buys nothing: recorded as a paper discrepancy in the issue notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.datasets import load_dataset, load_spec
from harness.instantiate import build_generator
from harness.registry import read_config
from harness.seeding import derive_seed
from harness.storage import read_parquet
from tests.conftest import Runner

DATA_SEEDS = range(20)  # the spec's Decision: 20 data seeds
PRIVBAYES = {"epsilon": 1.0, "k": 1, "histogram_size": 25}
PAPER = {"DP": (0.375, 4.154), "SMOTE": (0.399, 0.291), "SMOTE-DP": (0.356, 2.727)}
COLUMNS = ["x1", "x2"]


def configured(name: str, **overrides: Any) -> dict[str, Any]:
    cfg = {k: v for k, v in read_config("generator", name).items() if k != "check_params"}
    return {**cfg, **overrides}


def norms(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[float, float]:
    """(‖μ_S − μ_X‖₂, ‖Σ_S − Σ_X‖_F) on x1, x2 (sample covariances, ddof = 1)."""
    x, s = real[COLUMNS].to_numpy(dtype=float), synthetic[COLUMNS].to_numpy(dtype=float)
    mean = float(np.linalg.norm(s.mean(axis=0) - x.mean(axis=0)))
    cov = float(np.linalg.norm(np.cov(s, rowvar=False) - np.cov(x, rowvar=False), "fro"))
    return mean, cov


def run_seed(data_seed: int) -> dict[str, Any]:
    spec = load_spec("two_gaussians", {"source": {"params": {"seed": data_seed}}})
    real = load_dataset(spec).frame
    methods = {
        "DP": build_generator("privbayes", configured("privbayes", **PRIVBAYES)),
        "SMOTE": build_generator("smotenc", configured("smotenc", knn=1, mode="full_synthetic")),
        "SMOTE-DP": build_generator(
            "smote_dp",
            configured(
                "smote_dp",
                epsilon=PRIVBAYES["epsilon"],
                g1_params={"knn": 1, "mode": "full_synthetic"},
                g2="privbayes",
                g2_params={"k": PRIVBAYES["k"], "histogram_size": PRIVBAYES["histogram_size"]},
            ),
        ),
    }
    row: dict[str, Any] = {"seed": data_seed}
    for method, gen in methods.items():
        gen.fit(real, spec, seed=derive_seed(data_seed, "fig3", method))
        row[method] = norms(real, gen.sample())
        if method == "SMOTE-DP":
            row["alpha_hat"] = gen.details()["alpha_hat"]
    return row


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    rows = [run_seed(s) for s in DATA_SEEDS]
    frame = pd.DataFrame(
        {
            "seed": [r["seed"] for r in rows],
            "alpha_hat": [r["alpha_hat"] for r in rows],
            **{f"{m} mean": [r[m][0] for r in rows] for m in PAPER},
            **{f"{m} cov": [r[m][1] for r in rows] for m in PAPER},
        }
    )
    lines = [f"SMOTE-DP Fig. 3 on two_gaussians, {len(rows)} data seeds (median [IQR]) vs paper:"]
    for method, (paper_mean, paper_cov) in PAPER.items():
        cells = []
        for stat in ("mean", "cov"):
            q1, q2, q3 = frame[f"{method} {stat}"].quantile([0.25, 0.5, 0.75])
            cells.append(f"{stat} F-norm {q2:.3f} [{q1:.3f}, {q3:.3f}]")
        lines.append(f"  {method:9s} {cells[0]}; {cells[1]}   paper: {paper_mean} / {paper_cov}")
    a1, a2, a3 = frame["alpha_hat"].quantile([0.25, 0.5, 0.75])
    lines.append(f"  alpha_hat of the SMOTE output: {a2:.4f} [{a1:.4f}, {a3:.4f}]")
    lines.append(
        f"  seeds with SMOTE-DP cov < DP cov: {int((frame['SMOTE-DP cov'] < frame['DP cov']).sum())}/{len(rows)}"
    )
    print("\n".join(lines))
    return frame


def test_fig3_smote_alone_has_the_smallest_covariance_difference(results: pd.DataFrame) -> None:
    median = results.median()
    assert median["SMOTE cov"] < min(median["SMOTE-DP cov"], median["DP cov"]), median.to_dict()


def test_fig3_smote_output_contracts(results: pd.DataFrame) -> None:
    assert results["alpha_hat"].median() < 1


def test_fig3_smote_has_the_smallest_covariance_error(results: pd.DataFrame) -> None:
    """The part of the paper's ordering that reproduces: SMOTE < SMOTE-DP and SMOTE < DP.

    SMOTE-DP < DP does not reproduce with PrivBayes as the DP stage (see the module docstring;
    medians 0.53 vs 0.48 over 20 data seeds): it is reported, not asserted or tuned.
    """
    median = results.median()
    assert median["SMOTE cov"] < median["SMOTE-DP cov"], median.to_dict()
    assert median["SMOTE cov"] < median["DP cov"], median.to_dict()


# ---------------------------------------------------------------------- one CLI trial
@pytest.mark.parametrize("generator", ["privbayes", "smote_dp"])
def test_cli_trial(privbench: Runner, tmp_path: Path, generator: str) -> None:
    privbench("run", f"generator={generator}", "dataset=adult", "data.max_rows=1500", "suite=fast")
    (rows_file,) = (tmp_path / "results").rglob("rows.parquet")
    rows = read_parquet(rows_file)
    assert (rows["status"] == "ok").all(), rows[["metric", "status", "error"]]
    assert (rows["generator"] == generator).all()
    details = json.loads(rows.loc[rows["metric"] == "fit_seconds", "details"].iloc[0])["generator"]
    if generator == "privbayes":
        assert details["epsilon_split"] == {"structure": 0.5, "conditionals": 0.5}
        assert len(details["bayesian_network"]) == 14  # Adult: 15 columns, 14 children
    else:
        assert 0 < details["alpha_hat"] < 1 and details["privacy_unit"] == "smote_output"
