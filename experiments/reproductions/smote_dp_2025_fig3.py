"""R-SMOTEDP Fig. 3 checks (``spec/reproductions.md`` §2.1): DP, SMOTE and SMOTE-DP moments on two Gaussians.

The paper gives neither its data nor its DP settings; the spec's Decision (two Gaussians, 1,000
rows per class, 20 data seeds) is what runs, with two DP mechanisms:

* **PrivBayes** (k = 1, 25 bins, ε = 1; the spec's Decision): its noise is calibrated on the
  attribute count, k and n, never on the spread of the data, so the contraction argument of the
  paper's Theorem 3.2 has no handle on it;
* **dp_moments** (``generators/dp_moments.py``, ε = 1, strict, public bounds [−6, 9]): the
  mechanism Theorem 3.2 implies — Laplace noise on per-class sums and second moments of records
  clipped to a DP radius, so the covariance noise scales with r̃² ∝ the spread of the input.

**What the committed protocol run can and cannot say.** Its 20 data seeds all run with
``gen_seed = 0``, and the harness derives a generator's seed from ``gen_seed`` and the generator's
name only (``harness/trial.py``), so every data seed reuses *the same DP noise draw* per arm: the
20 DP covariance errors share one Laplace draw (PrivBayes cov F-norm IQR [0.61, 0.67]) and so do
the 20 SMOTE-DP errors ([0.36, 0.45]); the dp_moments radius is the same draw scaled to each data
set (0.23/0.19 on X, 0.15/0.16 on the SMOTE output, every seed). The run's medians — PrivBayes
SMOTE 0.108 < SMOTE-DP 0.418 < DP 0.632 on 20/20 seeds; dp_moments SMOTE 0.108 < DP 0.166 <
SMOTE-DP 0.525, noise-scale ratio 0.55 — are one DP draw per arm, not an ordering over DP noise.
With the generator seed drawn per data seed the picture changes: over 20 data × 10 generator
seeds (``tests/integration/test_smote_dp_fig3.py``) the PrivBayes medians are SMOTE-DP 0.506 vs
DP 0.517 (SMOTE-DP below DP on 12/20 seeds, paired Wilcoxon p = 0.84), dp_moments gives DP 0.183
< SMOTE-DP 0.276 (4/20) and a noise-scale ratio of 1.03 [0.93, 1.23]; 8 generator seeds on one
data seed put the PrivBayes DP error anywhere in 0.48-0.87 and SMOTE-DP's in 0.35-0.68.
The claims involving a DP arm are therefore decided only on **independent draws**: trials whose
generator seed is used by one data seed only (sweeps ``fig3_*_seeds``, data seed = ``gen_seed`` =
1-20); without them their verdict is *inconclusive* (no noise estimate of the DP stage).

Other findings: SMOTE with K = 1 hardly contracts two classes of 1,000 rows (the pooled α̂ =
tr Cov(S)/tr Cov(X) is 1.000 ± 0.014 over the seeds; per class it is 0.91-1.00, diluted by the
between-class spread SMOTE keeps), and the paper's absolute values (its DP error 4.154, ours
0.6) are not comparable: its data and DP settings are not given. The quick profile runs 3 data
seeds on the holdout split (600 rows per class) with PrivBayes only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from experiments.reproductions.smote_dp_2025_positions import cached
from harness.reproduction import Check, ReproductionRun, not_evaluable, ordered, unavailable, within
from harness.reproduction import uncertainty as unc
from harness.reproduction.checks import fmt
from harness.storage import read_parquet

FIG3_PAPER = {"DP": (0.375, 4.154), "SMOTE": (0.399, 0.291), "SMOTE-DP": (0.356, 2.727)}
FIG3_GENERATORS = {"DP": "privbayes", "SMOTE": "smotenc", "SMOTE-DP": "smote_dp"}
FIG3_DATASET = "two_gaussians"
MECHANISMS = {"PrivBayes": "privbayes", "dp_moments": "dp_moments"}
SEED_OVERRIDE = "dataset.source.params.seed="
TABLE = "tables/fig3_moments.md"
ORDER = ["SMOTE", "SMOTE-DP", "DP"]
PAPER_ORDER = "SMOTE 0.291 < SMOTE-DP 2.727 < DP 4.154"
SHARED_DRAW = (
    "the DP noise is one draw per arm: every data seed ran with the same generator seed (derived from "
    "gen_seed and the generator's name), so the spread over data seeds is not the DP noise; sweeps "
    "fig3_*_seeds (a generator seed per data seed) decide it"
)


# ---------------------------------------------------------------------- selections
def fig3_rows(
    run: ReproductionRun, method: str, metric: str, variant: str, dp: str = "privbayes"
) -> pd.DataFrame:
    """Fig. 3 rows of ``method`` (DP, SMOTE, SMOTE-DP) with the DP mechanism ``dp``."""
    if method == "SMOTE":
        return run.rows(metric, variant, generator="smotenc", dataset=FIG3_DATASET)
    if method == "DP":
        return run.rows(metric, variant, generator=dp, dataset=FIG3_DATASET)
    return run.rows(metric, variant, generator="smote_dp", dataset=FIG3_DATASET, params={"g2": dp})


def fig3_values(
    run: ReproductionRun, method: str, metric: str, variant: str, dp: str = "privbayes"
) -> pd.Series:
    """The ``value`` column of :func:`fig3_rows` (float)."""
    return fig3_rows(run, method, metric, variant, dp)["value"].astype(float)


def data_seeds(run: ReproductionRun) -> dict[str, int]:
    """trial_key → data seed of the Fig. 3 jobs, from each job's ``.hydra/overrides.yaml``.

    A data seed given as ``${gen_seed}`` (sweeps ``fig3_*_seeds``) is the trial's ``gen_seed``.
    Empty when the run directory has no job folders (e.g. a results table evaluated alone).
    """
    return cached(run, ("data_seeds",), lambda: _data_seeds(run))


def _data_seeds(run: ReproductionRun) -> dict[str, int]:
    out: dict[str, int] = {}
    for overrides in Path(run.run_dir).glob("fig3*/*/.hydra/overrides.yaml"):
        try:
            items = yaml.safe_load(overrides.read_text()) or []
            given = next(str(o).split("=", 1)[1] for o in items if str(o).startswith(SEED_OVERRIDE))
            rows = read_parquet(overrides.parent.parent / "rows.parquet")
            keys = rows.drop_duplicates("trial_key")
            for key, gen_seed in zip(keys["trial_key"], keys["gen_seed"]):
                out[str(key)] = int(gen_seed) if "gen_seed" in given else int(given)
        except (OSError, StopIteration, ValueError, KeyError, TypeError, yaml.YAMLError):
            continue
    return out


def seeded(run: ReproductionRun, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with their data seed (``seed``) and whether their generator draw is their own (``own``).

    A generator seed shared by several data seeds of one arm is one noise draw reused: ``own``
    is True only for a (generator, gen_seed) that a single data seed uses.
    """
    seeds = data_seeds(run)
    out = rows.assign(seed=rows["trial_key"].map(seeds)).dropna(subset=["seed"])
    uses = out.groupby(["generator", "gen_seed"])["seed"].transform("nunique")
    return out.assign(own=uses == 1)


def per_seed(run: ReproductionRun, metric: str, variant: str, dp: str, *, own: bool = False) -> pd.DataFrame:
    """One row per data seed, one column per method (DP, SMOTE, SMOTE-DP); empty without seeds.

    ``own``: only trials with their own generator draw (a DP noise draw per data seed).
    """
    columns = {}
    for method in FIG3_GENERATORS:
        rows = seeded(run, fig3_rows(run, method, metric, variant, dp))
        if own:
            rows = rows[rows["own"]]
        columns[method] = rows.groupby("seed")["value"].mean().astype(float)
    return pd.DataFrame(columns).dropna()


def own_draws(run: ReproductionRun, dp: str) -> int:
    """Data seeds whose DP and SMOTE-DP trials have their own generator draw (mechanism ``dp``)."""
    return len(per_seed(run, "moment_frobenius", "cov_norm", dp, own=True))


def _mean(values: pd.Series) -> float:
    values = pd.Series(values, dtype=float).dropna()
    return float(values.mean()) if len(values) else math.nan


def _iqr(values: pd.Series) -> str:
    values = pd.Series(values, dtype=float).dropna()
    if not len(values):
        return ""
    q1, q3 = values.quantile([0.25, 0.75])
    return f"[{q1:.3f}, {q3:.3f}]"


def _agreement(frame: pd.DataFrame) -> str:
    if frame.empty:
        return ""
    both = int(((frame["SMOTE"] < frame["SMOTE-DP"]) & (frame["SMOTE-DP"] < frame["DP"])).sum())
    return f"full ordering on {both}/{len(frame)} data seeds"


def _alpha(run: ReproductionRun) -> float:
    """Mean α̂ = tr Cov(S) / tr Cov(X) of the SMOTE (K = 1) releases (NaN without rows)."""
    return _mean(fig3_values(run, "SMOTE", "covariance_contraction", ""))


def _ordering_uncertainty(run: ReproductionRun, dp: str, order: list[str]) -> tuple[dict, str]:
    """Paired bootstrap over data seeds with their own DP draws; no intervals (a note) without them."""
    own = per_seed(run, "moment_frobenius", "cov_norm", dp, own=True)
    if len(own) >= 2:
        entries = unc.ordering({m: own[m] for m in own.columns}, order)
        record = unc.record(
            f"paired bootstrap (95 %) of each difference of mean covariance F-norms over {len(own)} data seeds, "
            "each with its own generator seed", [e for e in entries if e is not None], n=len(own),
        )  # fmt: skip
        return record, f"{len(own)} data seeds with their own DP draw; {_agreement(own)}"
    shared = per_seed(run, "moment_frobenius", "cov_norm", dp)
    record = unc.record(f"none: {SHARED_DRAW}", [], n=0, note=SHARED_DRAW)
    return record, f"means over {len(shared)} data seeds sharing one DP draw per arm; {_agreement(shared)}"


# ---------------------------------------------------------------------- claims
def check_fig3_ordering(run: ReproductionRun, dp: str = "privbayes") -> Check:
    """Mean covariance F-norm SMOTE < SMOTE-DP < DP (Fig. 3), DP = PrivBayes (the spec's Decision)."""
    moments = dp == "dp_moments"
    check_id = "fig3-moments-cov-ordering" if moments else "fig3-cov-ordering"
    claim = ("Fig. 3 with Theorem 3.2's mechanism (dp_moments): covariance F-norm SMOTE < SMOTE-DP < DP"
             if moments else "Fig. 3: covariance F-norm SMOTE < SMOTE-DP < DP (DP = PrivBayes)")  # fmt: skip
    paper = PAPER_ORDER + (
        ' ("any differentially private data generator can be used as a substitute")' if moments else ""
    )
    means = {m: _mean(fig3_values(run, m, "moment_frobenius", "cov_norm", dp)) for m in FIG3_GENERATORS}
    if not math.isfinite(means["DP"]):
        reason = (
            "quick profile: the dp_moments sweeps run in the protocol profile"
            if run.quick
            else f"no {dp} Fig. 3 rows"
        )
        return unavailable(check_id, claim, paper, "trend", reason, kind="claim")
    record, how = _ordering_uncertainty(run, dp, ORDER)
    check = ordered(
        check_id, claim, paper, means, ORDER, kind="claim", uncertainty=record, reason=how,
        if_failed=f"SMOTE-DP is not between SMOTE and DP; SMOTE (K = 1) contracts by α̂ = {fmt(_alpha(run), 4)} only",
        evidence=[TABLE],
    )  # fmt: skip
    return replace(check, observed=_listed({m: means[m] for m in ORDER}))


def _listed(values: dict[str, float]) -> str:
    """``a 0.1, b 0.5, c 0.2`` (no ``<`` between numbers that need not be in that order)."""
    return ", ".join(f"{k} {fmt(v)}" for k, v in values.items())


def check_fig3_moments_ordering(run: ReproductionRun) -> Check:
    """The Fig. 3 ordering with dp_moments, the spread-calibrated mechanism Theorem 3.2 implies."""
    return check_fig3_ordering(run, "dp_moments")


def check_fig3_smote_closest(run: ReproductionRun) -> Check:
    """SMOTE alone has the smallest covariance F-norm (Fig. 3: "SMOTE ... has the smallest covariance difference")."""
    means = {m: _mean(fig3_values(run, m, "moment_frobenius", "cov_norm")) for m in FIG3_GENERATORS}
    own = per_seed(run, "moment_frobenius", "cov_norm", "privbayes", own=True)
    if len(own) >= 2:
        entries = [unc.paired_difference(own[m], own["SMOTE"], f"{m} − SMOTE") for m in ("SMOTE-DP", "DP")]
        record = unc.record(f"paired bootstrap (95 %) over {len(own)} data seeds with their own generator seed",
                            [e for e in entries if e is not None], n=len(own))  # fmt: skip
    else:
        record = unc.record(f"none: {SHARED_DRAW}", [], n=0, note=SHARED_DRAW)
    check = ordered(
        "fig3-smote-closest", "Fig. 3: SMOTE has the smallest covariance F-norm (SMOTE < SMOTE-DP, SMOTE < DP)",
        "SMOTE 0.291 vs SMOTE-DP 2.727, DP 4.154", {"SMOTE": means["SMOTE"], "min(SMOTE-DP, DP)":
        min(means["SMOTE-DP"], means["DP"])}, ["SMOTE", "min(SMOTE-DP, DP)"], kind="claim", uncertainty=record,
        reason=f"means over data seeds; SMOTE-DP {fmt(means['SMOTE-DP'])}, DP {fmt(means['DP'])}", evidence=[TABLE],
        if_failed="a DP release matches the data's covariance at least as closely as SMOTE's interpolation",
    )  # fmt: skip
    return replace(check, observed=_listed({m: means[m] for m in ORDER}))


def _ratio_interval(frame: pd.DataFrame) -> dict | None:
    """Bootstrap over data seeds of max/min of the three methods' mean mean-F-norms."""
    if len(frame) < 2:
        return None
    values = frame[list(FIG3_GENERATORS)].to_numpy(float)
    rng = np.random.default_rng(unc.SEED)
    means = values[rng.integers(0, len(values), size=(unc.N_BOOT, len(values)))].mean(axis=1)
    ratios = means.max(axis=1) / means.min(axis=1)
    point = values.mean(axis=0)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return unc.interval(
        "max/min of the mean F-norms", float(point.max() / point.min()), float(low), float(high)
    )


def check_fig3_mean_norms_comparable(run: ReproductionRun) -> Check:
    """The three mean F-norms lie within a factor 2 of each other (Fig. 3: 0.356-0.399, "approximately the same")."""
    means = {m: _mean(fig3_values(run, m, "moment_frobenius", "mean_norm")) for m in FIG3_GENERATORS}
    values = [v for v in means.values() if math.isfinite(v)]
    ratio = max(values) / min(values) if len(values) == 3 and min(values) > 0 else math.nan
    own = per_seed(run, "moment_frobenius", "mean_norm", "privbayes", own=True)
    entry = _ratio_interval(own)
    record = (unc.record(f"bootstrap (95 %) over {len(own)} data seeds with their own generator seed", [entry], n=len(own))
              if entry else unc.record(f"none: {SHARED_DRAW}", [], n=0, note=SHARED_DRAW))  # fmt: skip
    return within(
        "fig3-mean-norms", "Fig. 3: the three mean F-norms within a factor 2 (max/min ≤ 2)",
        '"All three result in approximately the same norm for the mean" (DP 0.375, SMOTE 0.399, SMOTE-DP 0.356)',
        ratio, 1.0, 2.0, kind="claim", uncertainty=record,
        reason="means over data seeds; " + ", ".join(f"{k} {fmt(v)}" for k, v in means.items()),
        if_failed="SMOTE's mean error is the sampling error of interpolated real rows; the DP arms add noise to "
        "the mean", evidence=[TABLE],
    )  # fmt: skip


def check_fig3_contraction(run: ReproductionRun) -> Check:
    """SMOTE's output contracts: mean α̂ < 1 (Eq. 3, Theorem 3.1's premise; covariance_contraction)."""
    rows = seeded(run, fig3_rows(run, "SMOTE", "covariance_contraction", ""))
    own = rows[rows["own"]] if rows["own"].sum() >= 2 else rows
    what = ("data seeds with their own SMOTE seed" if own is not rows else
            "data seeds (one SMOTE seed reused; its 2,000 interpolations per release average out)")  # fmt: skip
    return within(
        "fig3-smote-contracts", "SMOTE (K = 1) output contracts: mean α̂ = tr Cov(S) / tr Cov(X) < 1",
        "tr(Σ_z) < tr(Σ_x0) (Eq. 3): SMOTE reduces the sensitivity (Theorem 3.1)", None, None, 1.0 - 1e-9,
        kind="claim", digits=4, samples=own.groupby("seed")["value"].mean() if len(own) else None,
        method=f"{own['seed'].nunique() if len(own) else 0} {what}",
        reason="α̂ pools both classes: the between-class spread, which SMOTE keeps, dilutes the within-class "
        "contraction of K = 1 interpolation",
        if_failed="the SMOTE output is not narrower than the data",
    )  # fmt: skip


def class_stats(run: ReproductionRun, key: str, *, own: bool = True) -> dict[str, dict[int, list[float]]]:
    """Per method (DP, SMOTE-DP) and data seed: ``key`` of each class of the dp_moments fits.

    ``key`` is ``covariance`` (the Laplace scale of the second moment, scaled space) or
    ``clipped_share`` (a diagnostic of the fit, read from the data and not released). ``own``:
    only trials with their own generator draw.
    """
    out: dict[str, dict[int, list[float]]] = {"DP": {}, "SMOTE-DP": {}}
    for method, found_in in out.items():
        generator = "dp_moments" if method == "DP" else "smote_dp"
        params = None if method == "DP" else {"g2": "dp_moments"}
        rows = seeded(
            run, run.rows("fit_seconds", "", generator=generator, dataset=FIG3_DATASET, params=params)
        )
        if own:
            rows = rows[rows["own"]]
        for seed, text in zip(rows["seed"], rows["details"]):
            details = json.loads(text).get("generator") or {}
            if method == "SMOTE-DP":
                details = (details.get("g2") or {}).get("details") or {}
            classes = (details.get("classes") or {}).values()
            values = [float(c["laplace_scales"][key] if key == "covariance" else c[key]) for c in classes]
            if values:
                found_in[int(seed)] = values
    return out


def noise_ratios(run: ReproductionRun, *, own: bool = True) -> pd.Series:
    """Per data seed: mean over classes of the covariance noise scale on the SMOTE output / on X."""
    scales = class_stats(run, "covariance", own=own)
    common = sorted(set(scales["DP"]) & set(scales["SMOTE-DP"]))
    ratios = [float(np.mean(np.array(scales["SMOTE-DP"][k]) / np.array(scales["DP"][k]))) for k in common]
    return pd.Series(ratios, index=common, dtype=float)


def check_fig3_moments_noise_ratio(run: ReproductionRun) -> Check:
    """Theorem 3.2 (Δf_S = α·Δf): the mechanism's noise on the SMOTE output is smaller than on X."""
    claim = "Theorem 3.2 with dp_moments: covariance noise scale on the SMOTE output / on X < 1"
    paper = "Δf_S = α·Δf with 0 < α < 1 (§3.2, Eq. 5): the noise on SMOTE output is α times smaller"
    shared, own = noise_ratios(run, own=False), noise_ratios(run)
    if shared.empty:
        reason = (
            "quick profile: the dp_moments sweeps run in the protocol profile"
            if run.quick
            else "no paired dp_moments fits"
        )
        return unavailable("fig3-moments-noise-ratio", claim, paper, "trend", reason, kind="claim")
    if len(own) >= 2:
        return within("fig3-moments-noise-ratio", claim, paper, None, None, 1.0 - 1e-9, kind="claim", digits=4,
                      samples=own, method=f"{len(own)} data seeds, each with its own DP radius draw",
                      reason=f"α̂ of the SMOTE output {fmt(_alpha(run), 4)}")  # fmt: skip
    return within(
        "fig3-moments-noise-ratio", claim, paper, float(shared.mean()), None, 1.0 - 1e-9, kind="claim", digits=4,
        uncertainty=unc.record(f"none: {SHARED_DRAW}", [], n=0, note=SHARED_DRAW),
        reason=f"mean over {len(shared)} data seeds, IQR {_iqr(shared)}: one DP radius draw per arm scaled to each "
        f"data set, so its spread is not the radius noise; α̂ of the SMOTE output {fmt(_alpha(run), 4)}",
    )  # fmt: skip


def check_fig3_untestable(run: ReproductionRun) -> list[Check]:
    """The absolute Fig. 3 values and the 10-D repetition: not testable with this setup."""
    values = {m: (_mean(fig3_values(run, m, "moment_frobenius", "mean_norm")),
                  _mean(fig3_values(run, m, "moment_frobenius", "cov_norm"))) for m in FIG3_PAPER}  # fmt: skip
    return [
        not_evaluable(
            "fig3-values", "Fig. 3: the printed mean and covariance F-norms of DP, SMOTE and SMOTE-DP",
            "DP 0.375 / 4.154, SMOTE 0.399 / 0.291, SMOTE-DP 0.356 / 2.727",
            "the paper gives neither its data (sizes, means, covariances) nor its DP mechanism's settings; values on "
            "the spec's stand-in data are not comparable (testing them needs the paper's data and settings)",
            level="tolerance", observed="; ".join(f"{m} {fmt(a)} / {fmt(b)}" for m, (a, b) in values.items()),
        ),
        not_evaluable(
            "fig3-10d", "§4.1: the same conclusion on 10-dimensional data with various numbers of informative attributes",
            '"Similar experiments were repeated on 10-dimensional artificial datasets ... The same conclusion can be drawn"',
            "this run has no 10-D sweep; testing it needs make_classification(n_features=10, n_informative ∈ {2, 5, "
            "10}) with the three Fig. 3 arms (spec §2.1, optional) and a generator seed per data seed",
        ),
    ]  # fmt: skip


# ---------------------------------------------------------------------- setup
def check_fig3_setup(run: ReproductionRun) -> list[Check]:
    """Fig. 3 replication read from the run: data seeds per arm, rows per release, independent DP draws."""
    counts = {
        m: int(seeded(run, fig3_rows(run, m, "moment_frobenius", "cov_norm"))["seed"].nunique())
        for m in FIG3_GENERATORS
    }
    rows = fig3_rows(run, "DP", "moment_frobenius", "cov_norm")
    n_train = int(pd.to_numeric(rows["n_train"]).median()) if len(rows) else 0
    own = {label: own_draws(run, dp) for label, dp in MECHANISMS.items()}
    return [
        within("setup-fig3-seeds", "Fig. 3: at least 20 data seeds per arm, 2,000 rows each (1,000 per class)",
               "spec §2.1 Decision: 20 data seeds, 1,000 rows per class", min(counts.values()), 20, None,
               kind="setup", digits=0,
               reason=", ".join(f"{m} {n}" for m, n in counts.items()) + f" data seeds; {n_train:,} training rows"),
        within("setup-fig3-dp-draws", "Fig. 3: a DP noise draw of its own in at least 20 data seeds (DP and SMOTE-DP)",
               "the DP noise is part of what Fig. 3 compares", min(own.values()), 20, None, kind="setup", digits=0,
               reason="data seeds whose DP and SMOTE-DP trials have their own generator seed: "
               + ", ".join(f"{k} {v}" for k, v in own.items()),
               if_failed=SHARED_DRAW),
    ]  # fmt: skip


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_fig3_smote_closest, check_fig3_ordering, check_fig3_moments_ordering, check_fig3_mean_norms_comparable,
    check_fig3_contraction, check_fig3_moments_noise_ratio, check_fig3_untestable, check_fig3_setup,
]  # fmt: skip


# ---------------------------------------------------------------------- artifact
def fig3_table(run: ReproductionRun) -> None:
    """``tables/fig3_moments.md``: means and IQRs over data seeds per method and mechanism."""
    rows = []
    for label, dp in MECHANISMS.items():
        for method, (mean_paper, cov_paper) in FIG3_PAPER.items():
            if method == "SMOTE" and dp != "privbayes":
                continue  # SMOTE does not depend on the DP mechanism
            mean = fig3_values(run, method, "moment_frobenius", "mean_norm", dp)
            cov = fig3_values(run, method, "moment_frobenius", "cov_norm", dp)
            if not len(cov):
                continue
            alpha = fig3_values(run, method, "covariance_contraction", "", dp)
            own = int(seeded(run, fig3_rows(run, method, "moment_frobenius", "cov_norm", dp))["own"].sum())
            rows.append({"method": method if method == "SMOTE" else f"{method} ({label})", "trials": len(cov),
                         "own generator draws": own, "mean F-norm (mean)": _mean(mean), "mean F-norm IQR": _iqr(mean),
                         "cov F-norm (mean)": _mean(cov), "cov F-norm IQR": _iqr(cov), "alpha (mean)": _mean(alpha),
                         "paper mean F-norm": mean_paper, "paper cov F-norm": cov_paper})  # fmt: skip
    run.write_table(
        "fig3_moments", pd.DataFrame(rows),
        caption="Fig. 3: means over data seeds vs the paper ('own generator draws': trials whose generator seed "
        "no other data seed uses; the others share one DP noise draw per arm)",
    )  # fmt: skip
