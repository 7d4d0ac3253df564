"""R-ROBINHOOD checks (``spec/reproductions.md`` §10): Robin Hood vs OLA k-anonymity.

Paper: ``004_…`` *Robin Hood: A De-identification Method to Preserve Minority Representation
for Disparities Research* (Brown et al.), §3.1–3.3, Figs 3–5 (figures only: every simulation
statement is a ``trend`` check), Appendix Figs 7–8 (hierarchies, images).

What is checked:

* **Exact.** The paper's Adult table: 45,175 records, race shares 86 % White, 9 % Black, 3 %
  Asian-Pac-Islander, 1 % Amer-Indian-Eskimo, 0.8 % Other (±0.5 percentage points, the printed
  precision) — the raw-data trial's training size and the loaded ``adult_robin_hood`` table.
* **Trend, S1** (super-minority share 0.01, k / k_target swept; Fig. 3): suppression keeps
  race exact up to a threshold k and then generalises minority and super-minority to "Other"
  (paper: up to k = 11); without suppression the same happens at a smaller k (paper: k = 5);
  suppression is the most accurate below its threshold; Robin Hood's expected odds ratio is
  below the truth for the super-minority and above it for the minority, does not change with
  k_target, and is the most accurate at the largest k.
* **Trend, S2** (k = k_target = 30, share x swept; Fig. 4): Robin Hood the most accurate at
  every x and equal to the raw data for x ≥ 0.02; no suppression never equal to the raw data
  but improving with x; suppression the least accurate and removing the super-minority
  entirely (odds ratio 1) for x < 0.006.
* **Trend, Adult** (Fig. 5): suppression flips the sign of some disparity (e.g. Asian-Pac-
  Islander), no suppression flips none, Robin Hood is the most consistent across k and, from
  its k_initial = 3 step, gives Amer-Indian-Eskimo, Asian-Pac-Islander and Other one
  ("Not Black or White") odds ratio.

"Accuracy" is the metric's absolute log odds-ratio error against the raw data of the same
repetition, averaged over repetitions and the minority levels (``mean_abs_log_or_error``);
"most accurate" compares those means.

Differences from the paper (explained, not tuned):

* 20 repetitions instead of 100 (**Decision** of §10); the quick profile runs one population of
  100,000 records at k ∈ {5, 30}, so its thresholds are coarser and it has no S2 / Adult releases.
* The generalisation hierarchies of Figs 7–8 are images. **Decision** of §10: ARX's Adult files
  where they cover a QI (age, sex, workclass, marital-status, native-country, occupation),
  ``generators.md`` §6.0's default elsewhere (education-num: ``{value, *}``); race from the
  paper's text (simulation: minority and super-minority → "Other"; Adult: Amer-Indian-Eskimo,
  Asian-Pac-Islander, Other → "Not Black or White"; ``adult/hierarchies/robin_hood`` and
  ``robin_hood_simulation`` PROVENANCE.md). ARX's age hierarchy has uniform 5/10/20-year bands
  up to 90 and the Adult age distribution has a thin tail, so the sparse old-age cells of the
  super-minority decide which node OLA's entropy criterion picks: without suppression it can
  generalise race to "*" (not "Other") already at k_initial = 3 — then Robin Hood has nothing to
  mask and its odds ratios are those of k-anonymity without suppression. The checks report what
  our hierarchies give; the paper's own age hierarchy may top-code old ages.
* S2's race shares: the paper writes {0.9 − x, 0.09, x}, which sums to 0.99 (S1's
  {0.9, 0.09, 0.01} sums to 1): **Decision:** the majority gets 1 − 0.09 − x.
* Robin Hood runs Algorithm 1 as the reference code does (an infeasible minority class is flagged
  and the masking goes on: ``on_infeasible: continue``); the paper's pseudocode returns.
* A generalised age enters the models as its interval's lower bound (``decode: lower``;
  "Age is treated as a continuous variable, regardless of generalization" does not say which
  number); a numeric covariate generalised to "*" in every row is left out of the release model.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from harness.datasets.simulations.robin_hood import TRUE_ODDS_RATIOS
from harness.reproduction import Check, ReproductionRun, exact, trend, unavailable

METRIC = "odds_ratio_preservation"
HEADLINE = "mean_abs_log_or_error"
SIMULATION = "robin_hood_simulation"
ADULT = "adult_robin_hood"
SUPP, NOSUPP, RH, RAW = "kanon_ola_suppress1", "kanon_ola_nosuppress", "robin_hood", "identity"
METHODS = (SUPP, NOSUPP, RH)
LABELS = {
    SUPP: "k-anon. 1 % suppression",
    NOSUPP: "k-anon. no suppression",
    RH: "Robin Hood",
    RAW: "raw data",
}
S1_SHARE = 0.01
S2_K = 30
ADULT_ROWS = 45_175
ADULT_SHARES = {  # §3.1, verbatim: "86% … White race, 9% … Black, 3% … Asian-Pac-Islander, 1% … Amer-Indian-Eskimo, and 0.8% … Other"
    "White": 86.0,
    "Black": 9.0,
    "Asian-Pac-Islander": 3.0,
    "Amer-Indian-Eskimo": 1.0,
    "Other": 0.8,
}
NBW = ("Amer-Indian-Eskimo", "Asian-Pac-Islander", "Other")
EQUAL_TO_RAW = 0.05
"""|log OR(Robin Hood) − log OR(raw)| below which S2's "equals that of the raw data" holds."""
FLAT_IN_K = 0.1
"""Largest change of Robin Hood's mean log odds ratio over k_target that counts as "does not change"."""


# ---------------------------------------------------------------------- collected rows
@cache
def _job_params(run_dir: Path) -> dict[str, dict[str, Any]]:
    """trial_key -> the job's dataset source params (from each job's ``.hydra/config.yaml``)."""
    out: dict[str, dict[str, Any]] = {}
    for rows in Path(run_dir).glob("*/*/rows.parquet"):
        config = rows.parent / ".hydra" / "config.yaml"
        if not config.is_file():
            continue
        params = (yaml.safe_load(config.read_text()).get("dataset") or {}).get("source", {}).get(
            "params"
        ) or {}
        for key in pd.read_parquet(rows, columns=["trial_key"])["trial_key"].dropna().unique():
            out[str(key)] = dict(params)
    return out


def odds(run: ReproductionRun) -> pd.DataFrame:
    """One row per (trial, race level): method, k, share x, seeds, odds ratios and how the level was released."""
    rows = run.rows(METRIC, HEADLINE)
    if rows.empty:
        return pd.DataFrame()
    params = _job_params(Path(run.run_dir))
    out = []
    for _, row in rows.iterrows():
        details = json.loads(row["details"])
        generator = str(row["generator"])
        k = row.get("param.k_target") if generator == RH else row.get("param.k")
        source = params.get(str(row["trial_key"]), {})
        for level, entry in details["levels"].items():
            out.append(
                {
                    "dataset": str(row["dataset"]),
                    "method": generator,
                    "k": int(k) if k is not None and not pd.isna(k) else None,
                    "x": float(source.get("super_minority_share", S1_SHARE)),
                    "seed": int(source.get("seed", 0)),
                    "gen_seed": int(row["gen_seed"]),
                    "n_train": int(row["n_train"]),
                    "level": level,
                    "or_orig": entry["or_orig"],
                    "or_release": entry["or_release"],
                    "log_or_orig": entry["log_or_orig"],
                    "log_or_release": entry["log_or_release"],
                    "release_level": entry["release_level"],
                    "error": entry["error"],
                    "sign_flip": entry["sign_flip"],
                    "dropped": ",".join(details.get("release_covariates_dropped") or []),
                }
            )
    return pd.DataFrame(out)


def _sim(run: ReproductionRun) -> pd.DataFrame:
    frame = odds(run)
    return frame[frame["dataset"] == SIMULATION] if len(frame) else frame


def _s1(run: ReproductionRun) -> pd.DataFrame:
    frame = _sim(run)
    return frame[np.isclose(frame["x"], S1_SHARE)] if len(frame) else frame


def _s2(run: ReproductionRun) -> pd.DataFrame:
    frame = _sim(run)
    if frame.empty:
        return frame
    if frame["x"].nunique() < 2:
        return frame.iloc[:0]
    return frame[frame["method"].isin(METHODS) & (frame["k"] == S2_K)]


def _exact_share(part: pd.DataFrame) -> pd.Series:
    """Per k: share of repetitions in which minority and super-minority are both released as themselves."""
    kept = part.groupby(["k", "seed", "gen_seed"])["release_level"].apply(
        lambda s: bool((s == "exact").all())
    )
    return kept.groupby(level="k").mean()


def _threshold(part: pd.DataFrame) -> int | None:
    """Largest k up to which race is exact in most repetitions (None when never)."""
    share = _exact_share(part).sort_index()
    exact_ks = [int(k) for k, v in share.items() if v >= 0.5]
    if not exact_ks:
        return None
    below = [int(k) for k in share.index if k <= max(exact_ks)]
    return max(exact_ks) if all(share[k] >= 0.5 for k in below) else min(exact_ks)


def _release_levels(part: pd.DataFrame) -> str:
    counts = part["release_level"].value_counts()
    return ", ".join(f"{level} ×{n}" for level, n in counts.items())


def _mean_error(part: pd.DataFrame) -> pd.Series:
    """Mean absolute log-OR error per (method, k) over repetitions and levels."""
    return part.groupby(["method", "k"])["error"].mean()


def _note(run: ReproductionRun) -> str:
    return "quick profile: one population of 100,000 records, k ∈ {5, 30}" if run.quick else ""


RH_START = (
    "Robin Hood starts from OLA without suppression at k_initial = 3, and our OLA (entropy-minimal node, "
    "ARX's age bands) already generalises race there, to 'Other' or to * (its error equals k-anon. without "
    "suppression at k = 3); the paper's starting node kept the races, so its masking had races to protect"
)
ADULT_RACE_GENERALISED = (
    "on Adult (8 QIs) our OLA generalises race to * in both variants at every k up to 25 (OR = 1 for every "
    "race), so no direction can flip; only the no-suppression release at k = 30 keeps Black and merges the "
    "other three (OR 0.904, below Asian-Pac-Islander's raw 1.245: a flip)"
)


def _reason(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


# ---------------------------------------------------------------------- Adult (exact)
def check_adult_rows(run: ReproductionRun) -> Check:
    """The paper's Adult table has 45,175 records."""
    rows = run.rows(METRIC, HEADLINE, dataset=ADULT)
    claim = "Adult without NA rows and duplicates: 45,175 records"
    paper = '"The final dataset includes 45,175 records"'
    if len(rows):
        sizes = sorted(set(int(n) for n in rows["n_train"]))
        observed, how = (
            sizes[0] if len(sizes) == 1 else -1,
            f"n_train of the {len(rows)} Adult trials: {sizes}",
        )
    else:
        observed, how = (
            sum(_adult_counts().values()),
            "the loaded adult_robin_hood table (no Adult trial in this profile)",
        )
    return exact(
        "adult-rows", claim, paper, observed, ADULT_ROWS, digits=0,
        reason=f"{how}; adult_robin_hood = adult.data + adult.test, drop_na_rows, drop_duplicate_rows, split none",
        evidence=["tables/adult_race_shares.md"],
    )  # fmt: skip


@cache
def _adult_counts() -> dict[str, int]:
    from harness.datasets import load_dataset, load_spec

    frame = load_dataset(load_spec(ADULT)).frame
    return {str(k): int(v) for k, v in frame["race"].value_counts().items()}


def _adult_shares() -> dict[str, float]:
    counts = _adult_counts()
    total = sum(counts.values())
    return {race: 100.0 * n / total for race, n in counts.items()}


def check_adult_shares(run: ReproductionRun) -> list[Check]:
    """Race shares of the paper's Adult table (±0.5 percentage points)."""
    shares = _adult_shares()
    return [
        exact(
            f"adult-share-{race.lower()}",
            f"Adult: {race} share (%)",
            f"{expected:g} %",
            shares.get(race),
            expected,
            tol=0.5,
            digits=2,
            reason="the loaded adult_robin_hood table (45,175 rows)",
            evidence=["tables/adult_race_shares.md"],
        )  # fmt: skip
        for race, expected in ADULT_SHARES.items()
    ]


# ---------------------------------------------------------------------- S1 (Fig. 3)
S1_PAPER_SUPP = (
    '"k-anonymity with suppression supports the most accurate odds ratio estimates up to k = 11. Afterward, '
    'the minority and super-minority race values are generalized to \\"Other\\""'
)
S1_PAPER_NOSUPP = '"k-anonymity without suppression runs into the same problem at k = 5"'


def check_s1_suppression_threshold(run: ReproductionRun) -> Check:
    """With 1 % suppression, race stays exact up to a threshold k and then becomes "Other"."""
    s1 = _s1(run)
    claim = "S1, k-anon. with suppression: race exact for small k, generalised to Other beyond a threshold"
    part = s1[s1["method"] == SUPP] if len(s1) else s1
    if part.empty:
        return unavailable("s1-supp-threshold", claim, S1_PAPER_SUPP, "trend", "no S1 suppression trial")
    threshold = _threshold(part)
    k_max = int(part["k"].max())
    beyond = part[part["k"] == k_max]
    merged_other = bool((beyond["release_level"] == "merged into 'Other'").all())
    passed = threshold is not None and threshold < k_max and merged_other
    return trend(
        "s1-supp-threshold", claim, S1_PAPER_SUPP,
        f"exact up to k = {threshold}; at k = {k_max}: {_release_levels(beyond)}", passed,
        value={"threshold": threshold, "exact_share": _exact_share(part).to_dict()}, expected={"threshold": 11},
        reason=_reason("threshold = largest k with both minority levels exact in most repetitions", _note(run)),
        evidence=["tables/s1_odds_ratios.md", "figures/fig3_s1_odds_ratios.png"],
    )  # fmt: skip


def check_s1_no_suppression_earlier(run: ReproductionRun) -> Check:
    """Without suppression race is generalised at a smaller k than with suppression (paper: k = 5 vs 11)."""
    s1 = _s1(run)
    claim = "S1, k-anon. without suppression: race generalised at a smaller k than with suppression"
    if s1.empty or not {SUPP, NOSUPP} <= set(s1["method"]):
        return unavailable("s1-nosupp-earlier", claim, S1_PAPER_NOSUPP, "trend", "no S1 k-anonymity trials")
    supp, nosupp = _threshold(s1[s1["method"] == SUPP]), _threshold(s1[s1["method"] == NOSUPP])
    k_min = int(s1[s1["method"] == NOSUPP]["k"].min())
    first = s1[(s1["method"] == NOSUPP) & (s1["k"] == k_min)]
    passed = supp is not None and (nosupp is None or nosupp < supp)
    return trend(
        "s1-nosupp-earlier", claim, S1_PAPER_NOSUPP,
        f"no suppression exact up to k = {nosupp} (at k = {k_min}: {_release_levels(first)}); suppression up to k = {supp}",
        passed, value={"nosupp": nosupp, "supp": supp}, expected={"nosupp": 4, "supp": 11},
        reason=_reason(
            "with ARX's age hierarchy (no top-coding) OLA's entropy-minimal node without suppression generalises "
            "race to * rather than to Other when the old-age super-minority cells are too small",
            _note(run),
        ),
        evidence=["tables/s1_odds_ratios.md", "figures/fig3_s1_odds_ratios.png"],
    )  # fmt: skip


def check_s1_suppression_most_accurate(run: ReproductionRun) -> Check:
    """Below its threshold, k-anonymity with suppression has the lowest odds-ratio error."""
    s1 = _s1(run)
    claim = "S1: k-anon. with suppression has the lowest mean |log OR error| at every k up to its threshold"
    if s1.empty or not set(METHODS) <= set(s1["method"]):
        return unavailable("s1-supp-most-accurate", claim, S1_PAPER_SUPP, "trend", "a method has no S1 trial")
    threshold = _threshold(s1[s1["method"] == SUPP])
    errors = _mean_error(s1[s1["method"].isin(METHODS)]).unstack("method")
    if threshold is None:
        return trend(
            "s1-supp-most-accurate", claim, S1_PAPER_SUPP, "suppression never keeps race exact", False
        )
    low = errors[errors.index <= threshold].dropna()
    ok = low[SUPP] <= low[[NOSUPP, RH]].min(axis=1)
    return trend(
        "s1-supp-most-accurate", claim, S1_PAPER_SUPP,
        "; ".join(f"k={k}: " + ", ".join(f"{LABELS[m]} {low.loc[k, m]:.3f}" for m in METHODS) for k in low.index),
        bool(len(low) and ok.all()), value=low.to_dict(),
        reason=_note(run), evidence=["tables/s1_errors.md"],
    )  # fmt: skip


def check_s1_robin_hood_directions(run: ReproductionRun) -> list[Check]:
    """Robin Hood's expected OR: below the truth for the super-minority, above it for the minority."""
    s1 = _s1(run)
    paper = (
        '"The expected odds ratio estimates from the datasets transformed via Robin Hood are less than the true value '
        '… for the super-minority race and greater than the true value for the minority race"'
    )
    part = s1[s1["method"] == RH] if len(s1) else s1
    out = []
    for level, relation in (("super-minority", "below"), ("minority", "above")):
        truth = TRUE_ODDS_RATIOS[level]
        claim = f"S1, Robin Hood: mean odds ratio of the {level} {relation} the true {truth:g} (all k_target)"
        check_id = f"s1-rh-{level}-{relation}-truth"
        rows = part[part["level"] == level] if len(part) else part
        if rows.empty:
            out.append(unavailable(check_id, claim, paper, "trend", "no S1 Robin Hood trial"))
            continue
        mean_or = float(rows["or_release"].mean())
        passed = mean_or < truth if relation == "below" else mean_or > truth
        out.append(
            trend(
                check_id,
                claim,
                paper,
                f"{mean_or:.3f} (raw data {float(rows['or_orig'].mean()):.3f})",
                passed,
                value=mean_or,
                expected={"true": truth},
                reason=_reason(f"released levels: {_release_levels(rows)}", _note(run)),
                if_failed=RH_START,
                evidence=["tables/s1_odds_ratios.md", "figures/fig3_s1_odds_ratios.png"],
            )  # fmt: skip
        )
    return out


def check_s1_robin_hood_flat(run: ReproductionRun) -> Check:
    """Robin Hood's expected odds ratios do not change with k_target."""
    s1 = _s1(run)
    paper = '"increasing the number of records masked (i.e., as k_target increases …) does not change the odds ratios estimates at expectation"'
    claim = f"S1, Robin Hood: mean log OR per level changes by < {FLAT_IN_K} between the smallest and largest k_target"
    part = s1[s1["method"] == RH] if len(s1) else s1
    if part.empty or part["k"].nunique() < 2:
        return unavailable("s1-rh-flat-in-k", claim, paper, "trend", "fewer than two k_target")
    means = part.groupby(["level", "k"])["log_or_release"].mean().unstack("k")
    change = (means[means.columns.max()] - means[means.columns.min()]).abs()
    return trend(
        "s1-rh-flat-in-k", claim, paper,
        ", ".join(f"{lvl}: {v:.3f}" for lvl, v in change.items()), bool((change < FLAT_IN_K).all()),
        value=change.to_dict(), reason=_note(run), evidence=["tables/s1_odds_ratios.md"],
    )  # fmt: skip


def check_s1_robin_hood_best_at_high_k(run: ReproductionRun) -> Check:
    """At the largest k, Robin Hood has the lowest odds-ratio error."""
    s1 = _s1(run)
    paper = '"on average, Robin Hood supports the most accurate odds ratio estimation at higher k values"'
    claim = "S1, largest k: Robin Hood's mean |log OR error| below both k-anonymity variants"
    if s1.empty or not set(METHODS) <= set(s1["method"]):
        return unavailable("s1-rh-best-high-k", claim, paper, "trend", "a method has no S1 trial")
    errors = _mean_error(s1[s1["method"].isin(METHODS)]).unstack("method").dropna()
    k_max = int(errors.index.max())
    row = errors.loc[k_max]
    return trend(
        "s1-rh-best-high-k", claim, paper, f"k = {k_max}: " + ", ".join(f"{LABELS[m]} {row[m]:.3f}" for m in METHODS),
        bool(row[RH] < min(row[SUPP], row[NOSUPP])), value=row.to_dict(), reason=_note(run),
        if_failed="k-anon. with 1 % suppression suppresses the rare old-age cells instead of generalising race, "
        "so it stays more accurate; " + RH_START,
        evidence=["tables/s1_errors.md"],
    )  # fmt: skip


# ---------------------------------------------------------------------- S2 (Fig. 4)
S2_UNAVAILABLE = "S2 is paper-profile only (the quick profile runs S1 at one share)"


def _s2_errors(run: ReproductionRun) -> pd.DataFrame:
    s2 = _s2(run)
    if s2.empty:
        return s2
    return s2[s2["method"].isin(METHODS)].groupby(["x", "method"])["error"].mean().unstack("method")


def check_s2_robin_hood_most_accurate(run: ReproductionRun) -> Check:
    """Robin Hood has the lowest odds-ratio error at every super-minority share."""
    paper = '"Robin Hood supports the most accurate odds ratio estimates at all proportion values"'
    claim = "S2 (k = 30): Robin Hood's mean |log OR error| ≤ both k-anonymity variants at every x"
    errors = _s2_errors(run)
    if errors.empty or not set(METHODS) <= set(errors.columns):
        return unavailable("s2-rh-most-accurate", claim, paper, "trend", S2_UNAVAILABLE)
    ok = errors[RH] <= errors[[SUPP, NOSUPP]].min(axis=1)
    return trend(
        "s2-rh-most-accurate", claim, paper, f"Robin Hood best at {int(ok.sum())}/{len(ok)} shares",
        bool(ok.all()), value=errors.to_dict(),
        reason="not at x = " + ", ".join(f"{x:g}" for x, good in ok.items() if not good) if not ok.all() else "",
        if_failed=RH_START,
        evidence=["tables/s2_errors.md", "figures/fig4_s2_odds_ratios.png"],
    )  # fmt: skip


def check_s2_robin_hood_equals_raw(run: ReproductionRun) -> Check:
    """For x ≥ 0.02 Robin Hood's odds ratios equal the raw data's."""
    paper = '"Robin Hood\'s performance equals that of the raw data when the proportion values are ≥ 0.02"'
    claim = f"S2: for x ≥ 0.02, |mean log OR(Robin Hood) − mean log OR(raw)| < {EQUAL_TO_RAW} for both levels"
    s2 = _s2(run)
    part = s2[(s2["method"] == RH) & (s2["x"] >= 0.02 - 1e-12)] if len(s2) else s2
    if part.empty:
        return unavailable("s2-rh-equals-raw", claim, paper, "trend", S2_UNAVAILABLE)
    gap = (
        part.groupby(["x", "level"])["log_or_release"].mean()
        - part.groupby(["x", "level"])["log_or_orig"].mean()
    ).abs()
    return trend(
        "s2-rh-equals-raw", claim, paper, f"largest gap {float(gap.max()):.3f}", bool((gap < EQUAL_TO_RAW).all()),
        value={f"{x:g}/{lvl}": float(v) for (x, lvl), v in gap.items()},
        if_failed=RH_START,
        evidence=["tables/s2_odds_ratios.md", "figures/fig4_s2_odds_ratios.png"],
    )  # fmt: skip


def check_s2_no_suppression_improves(run: ReproductionRun) -> Check:
    """Without suppression: never equal to the raw data, improving as x grows."""
    paper = (
        "\"k-anonymity without suppression's performance never equals that of the raw data but improves as the "
        "super-minority's proportion increases\""
    )
    claim = f"S2: no-suppression error > {EQUAL_TO_RAW} at every x and decreasing in x (Spearman ρ < 0)"
    errors = _s2_errors(run)
    if errors.empty or NOSUPP not in errors.columns:
        return unavailable("s2-nosupp-improves", claim, paper, "trend", S2_UNAVAILABLE)
    series = errors[NOSUPP].dropna()
    rho = float(pd.Series(series.index).corr(pd.Series(series.to_numpy()), method="spearman"))
    return trend(
        "s2-nosupp-improves", claim, paper, f"errors {', '.join(f'{x:g}: {v:.3f}' for x, v in series.items())}; ρ = {rho:.2f}",
        bool((series > EQUAL_TO_RAW).all() and rho < 0), value={"errors": series.to_dict(), "spearman": rho},
        if_failed="without suppression our OLA generalises race (to * or 'Other') at k = 30 whatever x is, so its "
        "error stays flat instead of shrinking as the super-minority grows",
        evidence=["tables/s2_errors.md"],
    )  # fmt: skip


def check_s2_suppression_least_accurate(run: ReproductionRun) -> Check:
    """With suppression the odds ratios are the least accurate."""
    paper = '"k-anonymization with suppression supports the least accurate disparity estimation performance"'
    claim = "S2: k-anon. with suppression has the largest mean |log OR error| at every x"
    errors = _s2_errors(run)
    if errors.empty or not set(METHODS) <= set(errors.columns):
        return unavailable("s2-supp-least-accurate", claim, paper, "trend", S2_UNAVAILABLE)
    ok = errors[SUPP] >= errors[[NOSUPP, RH]].max(axis=1)
    return trend(
        "s2-supp-least-accurate", claim, paper, f"largest at {int(ok.sum())}/{len(ok)} shares", bool(ok.all()),
        value=errors.to_dict(),
        if_failed="with the 1 % limit our OLA suppresses the rare cells and keeps race exact wherever that fits "
        "(as in S1 up to k = 14), so suppression is not the least accurate variant here",
        evidence=["tables/s2_errors.md"],
    )  # fmt: skip


def check_s2_suppression_removes_super_minority(run: ReproductionRun) -> Check:
    """For x < 0.006 suppression removes every super-minority record (odds ratio 1)."""
    paper = (
        '"When the proportion … of the super-minority group is < 0.006, this k-anonymity implementation wholly '
        "suppresses the super-minority population's representation … (denoted by an estimated odds ratio of 1)\""
    )
    claim = (
        "S2, k-anon. with suppression, x < 0.006: the super-minority is absent from every release (OR = 1)"
    )
    s2 = _s2(run)
    part = (
        s2[(s2["method"] == SUPP) & (s2["x"] < 0.006) & (s2["level"] == "super-minority")] if len(s2) else s2
    )
    if part.empty:
        return unavailable("s2-supp-removes-super-minority", claim, paper, "trend", S2_UNAVAILABLE)
    absent = part["release_level"].isin(["absent", "merged into reference '*'"]) | np.isclose(
        part["or_release"], 1.0
    )
    share = absent.groupby(part["x"]).mean()
    return trend(
        "s2-supp-removes-super-minority", claim, paper,
        ", ".join(f"x={x:g}: OR = 1 in {v:.0%} of repetitions" for x, v in share.items()), bool((share == 1).all()),
        value=share.to_dict(), reason=f"released as: {_release_levels(part)}",
        if_failed="the share below which the super-minority's cells exceed the 1 % suppression budget depends on the "
        "generalisation hierarchies (Figs 7-8 are images; ARX's age bands here): ours lies below the paper's 0.006",
        evidence=["tables/s2_odds_ratios.md", "figures/fig4_s2_odds_ratios.png"],
    )  # fmt: skip


# ---------------------------------------------------------------------- Adult (Fig. 5)
ADULT_UNAVAILABLE = "the Adult releases are paper-profile only (the quick profile runs the raw data)"


def _adult(run: ReproductionRun) -> pd.DataFrame:
    frame = odds(run)
    return frame[frame["dataset"] == ADULT] if len(frame) else frame


def check_adult_sign_flips(run: ReproductionRun) -> list[Check]:
    """Adult: suppression flips some disparity's direction, no suppression flips none."""
    adult = _adult(run)
    paper = (
        '"k-anonymization with suppression … at times, it flips the direction of the disparity (e.g., the odds ratio '
        'for Asian-Pac-Islander changes from <1 to >1). k-anonymization without suppression does not flip"'
    )
    out = []
    for method, check_id, wanted in (
        (SUPP, "adult-supp-flips", True),
        (NOSUPP, "adult-nosupp-no-flip", False),
    ):
        claim = f"Adult, {LABELS[method]}: " + (
            "some k flips a race OR across 1" if wanted else "no k flips a race OR"
        )
        part = adult[adult["method"] == method] if len(adult) else adult
        if part.empty:
            out.append(unavailable(check_id, claim, paper, "trend", ADULT_UNAVAILABLE))
            continue
        flips = part[part["sign_flip"]]
        shown = ", ".join(f"k={k} {lvl}" for k, lvl in zip(flips["k"], flips["level"])) or "none"
        out.append(
            trend(
                check_id,
                claim,
                paper,
                f"flips: {shown}",
                bool(len(flips) > 0) == wanted,
                value=len(flips),
                if_failed=ADULT_RACE_GENERALISED,
                evidence=["tables/adult_odds_ratios.md", "figures/fig5_adult_odds_ratios.png"],
            )  # fmt: skip
        )
    return out


def check_adult_robin_hood_consistent(run: ReproductionRun) -> Check:
    """Adult: Robin Hood's odds ratios vary least across k."""
    adult = _adult(run)
    paper = '"By contrast, Robin Hood provides consistent odds ratio estimates across k values"'
    claim = "Adult: largest range over k of a race's mean log OR is smallest for Robin Hood"
    if adult.empty or not set(METHODS) <= set(adult["method"]):
        return unavailable("adult-rh-consistent", claim, paper, "trend", ADULT_UNAVAILABLE)
    means = adult[adult["method"].isin(METHODS)].groupby(["method", "level", "k"])["log_or_release"].mean()
    spread = means.groupby(["method", "level"]).agg(lambda s: s.max() - s.min()).groupby("method").max()
    return trend(
        "adult-rh-consistent", claim, paper, ", ".join(f"{LABELS[m]} {spread[m]:.3f}" for m in METHODS),
        bool(spread[RH] <= spread[[SUPP, NOSUPP]].min()), value=spread.to_dict(),
        reason=f"Robin Hood's race released as: {_release_levels(adult[adult['method'] == RH])}",
        evidence=["tables/adult_odds_ratios.md", "figures/fig5_adult_odds_ratios.png"],
    )  # fmt: skip


def check_adult_robin_hood_not_black_or_white(run: ReproductionRun) -> Check:
    """Adult: Robin Hood's initial step merges Amer-Indian-Eskimo, Asian-Pac-Islander and Other."""
    adult = _adult(run)
    paper = '"The initial generalization combines Amer-Indian-Eskimo, Asian-Pac-Islander, and Other to \\"Not Black or White\\""'
    claim = "Adult, Robin Hood: the three races released as 'Not Black or White' (one shared OR)"
    part = adult[(adult["method"] == RH) & adult["level"].isin(NBW)] if len(adult) else adult
    if part.empty:
        return unavailable("adult-rh-nbw", claim, paper, "trend", ADULT_UNAVAILABLE)
    merged = part["release_level"] == "merged into 'Not Black or White'"
    return trend(
        "adult-rh-nbw", claim, paper, _release_levels(part), bool(merged.all()), value=float(merged.mean()),
        reason="with our hierarchies OLA (k_initial = 3, no suppression) may generalise race further, to *",
        evidence=["tables/adult_odds_ratios.md"],
    )  # fmt: skip


CHECKS = [
    check_adult_rows,
    check_adult_shares,
    check_s1_suppression_threshold,
    check_s1_no_suppression_earlier,
    check_s1_suppression_most_accurate,
    check_s1_robin_hood_directions,
    check_s1_robin_hood_flat,
    check_s1_robin_hood_best_at_high_k,
    check_s2_robin_hood_most_accurate,
    check_s2_robin_hood_equals_raw,
    check_s2_no_suppression_improves,
    check_s2_suppression_least_accurate,
    check_s2_suppression_removes_super_minority,
    check_adult_sign_flips,
    check_adult_robin_hood_consistent,
    check_adult_robin_hood_not_black_or_white,
]

QUICK_MUST_PASS = {"s1-supp-threshold"}


# ---------------------------------------------------------------------- artifacts
def _summary(part: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    grouped = part.groupby(by)
    table = grouped.agg(
        repetitions=("or_release", "size"),
        mean_or=("or_release", "mean"),
        q025=("or_release", lambda s: float(np.quantile(s, 0.025))),
        q975=("or_release", lambda s: float(np.quantile(s, 0.975))),
        mean_or_raw=("or_orig", "mean"),
        mean_abs_log_error=("error", "mean"),
        released_exact=("release_level", lambda s: float((s == "exact").mean())),
    ).reset_index()
    return table


def artifacts(run: ReproductionRun) -> None:
    """Tables of odds ratios and errors (S1, S2, Adult), Adult race shares, Figs 3-5-like plots."""
    from experiments.reproductions.robin_hood_2024_figures import draw_figures

    shares = _adult_shares()
    run.write_table(
        "adult_race_shares",
        pd.DataFrame(
            {
                "race": list(ADULT_SHARES),
                "paper_percent": list(ADULT_SHARES.values()),
                "ours_percent": [shares.get(r, math.nan) for r in ADULT_SHARES],
            }  # fmt: skip
        ),
        caption=f"Race shares of adult_robin_hood ({ADULT_ROWS:,} rows) vs the paper (§3.1)",
        digits=2,
    )
    s1, s2, adult = _s1(run), _s2(run), _adult(run)
    named = {"method": lambda f: f["method"].map(LABELS)}
    if len(s1):
        run.write_table(
            "s1_odds_ratios", _summary(s1, ["method", "k", "level"]).assign(**named),
            caption="S1 (super-minority share 0.01): race odds ratios over repetitions (true: minority 2.25, "
            "super-minority 9); released_exact = share of repetitions with the level released as itself — Fig. 3",
        )  # fmt: skip
        errors = _mean_error(s1).unstack("method").reset_index()
        errors.columns = [LABELS.get(str(c), str(c)) for c in errors.columns]
        run.write_table(
            "s1_errors", errors, caption="S1: mean |log OR(release) − log OR(raw)| per method and k"
        )
    if len(s2):
        run.write_table(
            "s2_odds_ratios", _summary(s2, ["method", "x", "level"]).assign(**named),
            caption="S2 (k = k_target = 30): race odds ratios per super-minority share x — Fig. 4",
        )  # fmt: skip
        errors = s2.groupby(["x", "method"])["error"].mean().unstack("method").reset_index()
        errors.columns = [LABELS.get(str(c), str(c)) for c in errors.columns]
        run.write_table(
            "s2_errors", errors, caption="S2: mean |log OR(release) − log OR(raw)| per method and x"
        )
    if len(adult):
        run.write_table(
            "adult_odds_ratios", _summary(adult, ["method", "k", "level"]).assign(**named),
            caption="Adult (45,175 rows): race odds ratios of salary > 50K (reference White) — Fig. 5",
        )  # fmt: skip
    draw_figures(run, s1, s2, adult)
