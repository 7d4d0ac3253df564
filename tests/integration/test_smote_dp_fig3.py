"""SMOTE-DP Fig. 3 (``001_…`` §4.1; ``spec/reproductions.md`` §2.1) on ``two_gaussians``.

For each data seed: DP = ``privbayes`` (ε = 1, k = 1, 25 bins, DataSynthesizer's noise scales as
in the reproduction; the spec's Decision) on X, SMOTE = ``smotenc`` (K = 1, full synthetic) on X,
SMOTE-DP = the same PrivBayes on the SMOTE output (``smote_dp``, ε = 1); and the same pair with
``dp_moments`` (ε = 1, strict, public bounds [−6, 9] of x1 and x2 declared in the dataset spec), the DP mechanism the paper's
Theorem 3.2 implies (noise calibrated on a DP clipping radius, so on the spread of the input).
Frobenius norms of the mean and covariance differences against X on (x1, x2), label excluded. The check is the paper's ordering of the median covariance
differences, SMOTE < SMOTE-DP < DP (a ``trend`` check: the paper gives neither its data
nor its DP settings). Run with ``-s`` to see the numbers next to the paper's.

Observed (20 data seeds, median [IQR]; paper in brackets):

=================  ======================  ======================
method             mean F-norm             cov F-norm
=================  ======================  ======================
DP                 0.074 [0.052, 0.092]    0.483 [0.432, 0.624]   (0.375 / 4.154)
SMOTE              0.030 [0.017, 0.040]    0.117 [0.089, 0.152]   (0.399 / 0.291)
SMOTE-DP           0.060 [0.047, 0.091]    0.534 [0.466, 0.607]   (0.356 / 2.727)
DP moments         0.070 [0.060, 0.096]    0.183 [0.160, 0.289]
SMOTE-DP moments   0.075 [0.048, 0.138]    0.276 [0.218, 0.438]
=================  ======================  ======================

Every method here draws its generator seed per data seed (``derive_seed(data_seed, "fig3", method)``).
The committed protocol run of the reproduction has both kinds of trials: its first sweeps run the
20 data seeds with ``gen_seed = 0`` (one DP noise draw per arm, reused: SMOTE < SMOTE-DP < DP on
20/20 seeds with PrivBayes, DP < SMOTE-DP with dp_moments), its ``fig3_*_seeds`` sweeps a DP draw
per data seed (1-20). The reproduction's Fig. 3 claims read only the latter
(``experiments/reproductions/smote_dp_2025_fig3.py``): PrivBayes SMOTE 0.112 < SMOTE-DP 0.469 <
DP 0.520 and dp_moments SMOTE-DP 0.260 vs DP 0.283 (means), SMOTE-DP below DP within noise with
both mechanisms, α̂ 0.9935 and a noise-scale ratio of 1.08 (mean over the 20 seeds).

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

``dp_moments`` (``generators/dp_moments.py``) is the mechanism the theorem needs: Laplace noise on
per-class sums and second moments of records clipped to a DP radius (twice a DP median of the
distances to a DP centre), so the covariance noise scales with r̃² ∝ the spread (a 4x contraction
gives ≈ 4x less noise, ``tests/unit/test_dp_moments.py``). It does not restore the ordering
either: SMOTE 0.117 < DP 0.183 < SMOTE-DP 0.276 (medians), SMOTE-DP below DP on 4/20 seeds.
The premise is there but the contraction is not: α̂ ≈ 0.994 and the noise-scale ratio (SMOTE
output over X) is 1.03 [0.93, 1.23] — the ≈ 1 % the contraction saves is lost in the DP radius
draw — while SMOTE adds its own error (0.117) to what the DP stage estimates. The mechanism's
defaults (median, factor 2, budget shares) were chosen on the DP arm's error alone; with other
generator seeds and the alternatives tried (radius quantile 0.9, factors 1.5 and 2.5, two other
budget splits) SMOTE-DP is below DP on 7–9/20 seeds, never the majority.
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
PRIVBAYES = {"epsilon": 1.0, "k": 1, "histogram_size": 25, "accounting": "datasynthesizer"}
MOMENTS = {"epsilon": 1.0, "strict": True}  # sensitivities from the public bounds of the dataset spec
# the public domain of x1 and x2, declared in the dataset spec as the protocol's Fig. 3 sweeps do
# (6 standard deviations around the simulated class means 0 and 3), never read from the data
PUBLIC_BOUNDS = {c: {"kind": "continuous", "bounds": [-6.0, 9.0]} for c in ("x1", "x2")}
PAPER = {"DP": (0.375, 4.154), "SMOTE": (0.399, 0.291), "SMOTE-DP": (0.356, 2.727)}
METHODS = ("DP", "SMOTE", "SMOTE-DP", "DP moments", "SMOTE-DP moments")
COLUMNS = ["x1", "x2"]
SMOTE = {"knn": 1, "mode": "full_synthetic"}


def configured(name: str, **overrides: Any) -> dict[str, Any]:
    cfg = {k: v for k, v in read_config("generator", name).items() if k != "check_params"}
    return {**cfg, **overrides}


def norms(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[float, float]:
    """(‖μ_S − μ_X‖₂, ‖Σ_S − Σ_X‖_F) on x1, x2 (sample covariances, ddof = 1)."""
    x, s = real[COLUMNS].to_numpy(dtype=float), synthetic[COLUMNS].to_numpy(dtype=float)
    mean = float(np.linalg.norm(s.mean(axis=0) - x.mean(axis=0)))
    cov = float(np.linalg.norm(np.cov(s, rowvar=False) - np.cov(x, rowvar=False), "fro"))
    return mean, cov


def smote_dp(g2: str, g2_params: dict[str, Any]) -> dict[str, Any]:
    return configured("smote_dp", epsilon=1.0, g1_params=SMOTE, g2=g2, g2_params=g2_params)


def cov_scales(details: dict[str, Any]) -> list[float]:
    """The covariance Laplace scale of each class of a ``dp_moments`` fit (scaled space)."""
    return [c["laplace_scales"]["covariance"] for c in details["classes"].values()]


def run_seed(data_seed: int) -> dict[str, Any]:
    spec = load_spec("two_gaussians", {"source": {"params": {"seed": data_seed}}, "columns": PUBLIC_BOUNDS})
    real = load_dataset(spec).frame
    moments = {k: v for k, v in MOMENTS.items() if k != "epsilon"}
    pb = {k: v for k, v in PRIVBAYES.items() if k != "epsilon"}
    methods = {
        "DP": build_generator("privbayes", configured("privbayes", **PRIVBAYES)),
        "SMOTE": build_generator("smotenc", configured("smotenc", **SMOTE)),
        "SMOTE-DP": build_generator("smote_dp", smote_dp("privbayes", pb)),
        "DP moments": build_generator("dp_moments", configured("dp_moments", **MOMENTS)),
        "SMOTE-DP moments": build_generator("smote_dp", smote_dp("dp_moments", moments)),
    }
    row: dict[str, Any] = {"seed": data_seed}
    for method, gen in methods.items():
        gen.fit(real, spec, seed=derive_seed(data_seed, "fig3", method))
        row[method] = norms(real, gen.sample())
        details = gen.details()
        if method == "SMOTE-DP":
            row["alpha_hat"] = details["alpha_hat"]
        if method == "DP moments":
            row["scales_x"] = cov_scales(details)
        if method == "SMOTE-DP moments":
            row["scales_s"] = cov_scales(details["g2"]["details"])
    # the covariance noise on the SMOTE output relative to X (Theorem 3.2: α), mean over the classes
    row["scale_ratio"] = float(np.mean(np.array(row["scales_s"]) / np.array(row["scales_x"])))
    return row


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    rows = [run_seed(s) for s in DATA_SEEDS]
    frame = pd.DataFrame(
        {
            "seed": [r["seed"] for r in rows],
            "alpha_hat": [r["alpha_hat"] for r in rows],
            "scale_ratio": [r["scale_ratio"] for r in rows],
            **{f"{m} mean": [r[m][0] for r in rows] for m in METHODS},
            **{f"{m} cov": [r[m][1] for r in rows] for m in METHODS},
        }
    )
    lines = [f"SMOTE-DP Fig. 3 on two_gaussians, {len(rows)} data seeds (median [IQR]) vs paper:"]
    for method in METHODS:
        paper_mean, paper_cov = PAPER[method.replace(" moments", "")]
        cells = []
        for stat in ("mean", "cov"):
            q1, q2, q3 = frame[f"{method} {stat}"].quantile([0.25, 0.5, 0.75])
            cells.append(f"{stat} F-norm {q2:.3f} [{q1:.3f}, {q3:.3f}]")
        lines.append(f"  {method:17s} {cells[0]}; {cells[1]}   paper: {paper_mean} / {paper_cov}")
    for what in ("alpha_hat", "scale_ratio"):
        a1, a2, a3 = frame[what].quantile([0.25, 0.5, 0.75])
        lines.append(f"  {what} of the SMOTE output: {a2:.4f} [{a1:.4f}, {a3:.4f}]")
    for suffix in ("", " moments"):
        below = int((frame[f"SMOTE-DP{suffix} cov"] < frame[f"DP{suffix} cov"]).sum())
        lines.append(f"  seeds with SMOTE-DP{suffix} cov < DP{suffix} cov: {below}/{len(rows)}")
    print("\n".join(lines))
    return frame


def test_fig3_smote_alone_has_the_smallest_covariance_difference(results: pd.DataFrame) -> None:
    median = results.median()
    assert median["SMOTE cov"] < min(median["SMOTE-DP cov"], median["DP cov"]), median.to_dict()


def test_fig3_smote_output_contracts(results: pd.DataFrame) -> None:
    assert results["alpha_hat"].median() < 1


def test_fig3_smote_has_the_smallest_covariance_error(results: pd.DataFrame) -> None:
    """The part of the paper's ordering that reproduces: SMOTE < SMOTE-DP and SMOTE < DP.

    SMOTE-DP < DP does not reproduce with PrivBayes as the DP stage (see the module docstring):
    it is reported, not asserted or tuned.
    """
    median = results.median()
    assert median["SMOTE cov"] < median["SMOTE-DP cov"], median.to_dict()
    assert median["SMOTE cov"] < median["DP cov"], median.to_dict()


def test_fig3_moments_mechanism_smote_has_the_smallest_covariance_error(results: pd.DataFrame) -> None:
    """With the spread-calibrated mechanism too, SMOTE alone is closest (SMOTE < SMOTE-DP, SMOTE < DP)."""
    median = results.median()
    assert median["SMOTE cov"] < median["SMOTE-DP moments cov"], median.to_dict()
    assert median["SMOTE cov"] < median["DP moments cov"], median.to_dict()


def test_fig3_moments_mechanism_saves_almost_no_noise(results: pd.DataFrame) -> None:
    """Why SMOTE-DP < DP fails with ``dp_moments`` too: SMOTE hardly contracts, so little noise is saved.

    The mechanism's covariance noise scale ∝ r̃² follows the spread of its input (Theorem 3.2's
    premise, ``tests/unit/test_dp_moments.py``: a 4x contraction gives ≈ 4x less noise), but SMOTE
    with K = 1 on 1,000 rows per class contracts by α̂ ≈ 0.99, and the ratio of the noise scales
    (SMOTE output over X) scatters around 1 with the DP radius draw. The ordering itself is
    reported, not asserted (module docstring).
    """
    median = results.median()
    assert median["alpha_hat"] > 0.95, median.to_dict()
    assert median["scale_ratio"] > 0.9, median.to_dict()


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
