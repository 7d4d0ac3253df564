"""R-ROBINHOOD: the collected odds ratios as one table, the scenario selections, the
per-repetition statistics the claims bootstrap over, and the adequacy gates.

One row per (trial, race level): method, k (k_target for Robin Hood), super-minority share x,
the population seed (the repetition: the block every simulation claim resamples), the
generator seed, the raw and released odds ratios, how the level was released (``exact``,
``merged into 'Other'``, ``merged into reference '*'``, ``absent``…) and the absolute log
odds-ratio error against the raw data of the same repetition.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from harness.reproduction import Gate, ReproductionRun
from harness.reproduction import uncertainty as unc

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
NBW = ("Amer-Indian-Eskimo", "Asian-Pac-Islander", "Other")
RACE_GONE = ("merged into reference '*'", "absent")
"""Release levels that carry no race information (generalised to * or suppressed)."""


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
    """One row per (trial, race level) (see the module docstring)."""
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
                }
            )
    return pd.DataFrame(out)


def sim(run: ReproductionRun) -> pd.DataFrame:
    frame = odds(run)
    return frame[frame["dataset"] == SIMULATION] if len(frame) else frame


def s1(run: ReproductionRun) -> pd.DataFrame:
    """S1: super-minority share 0.01, k / k_target swept."""
    frame = sim(run)
    return frame[np.isclose(frame["x"], S1_SHARE)] if len(frame) else frame


def s2(run: ReproductionRun) -> pd.DataFrame:
    """S2: k = k_target = 30, share x swept (empty unless several shares ran)."""
    frame = sim(run)
    if frame.empty or frame["x"].nunique() < 2:
        return frame.iloc[:0]
    return frame[frame["method"].isin(METHODS) & (frame["k"] == S2_K)]


def adult(run: ReproductionRun) -> pd.DataFrame:
    frame = odds(run)
    return frame[frame["dataset"] == ADULT] if len(frame) else frame


def releases(part: pd.DataFrame) -> str:
    """How the levels were released, with counts."""
    counts = part["release_level"].value_counts()
    return ", ".join(f"{level} ×{n}" for level, n in counts.items())


def race_exact(part: pd.DataFrame, by: list[str]) -> pd.Series:
    """Per group: whether every race level was released as itself."""
    return part.groupby(by)["release_level"].apply(lambda s: bool((s == "exact").all()))


def thresholds(part: pd.DataFrame) -> pd.Series:
    """Per repetition (seed): the largest k up to which race is released exactly at every k of the
    grid (the smallest k − 1 when it is not exact even there)."""
    exact = race_exact(part, ["seed", "k"])
    out = {}
    for seed, series in exact.groupby(level="seed"):
        ks = sorted(int(k) for k in series.index.get_level_values("k"))
        flags = {int(k): bool(v) for (_, k), v in series.items()}
        threshold = ks[0] - 1
        for k in ks:
            if not flags[k]:
                break
            threshold = k
        out[int(seed)] = threshold
    return pd.Series(out, dtype=float)


def errors_by_seed(part: pd.DataFrame, method: str, **where: Any) -> pd.Series:
    """Mean |log OR error| over the race levels, one value per repetition (seed)."""
    rows = part[part["method"] == method]
    for column, value in where.items():
        rows = (
            rows[np.isclose(rows[column], value)] if isinstance(value, float) else rows[rows[column] == value]
        )
    return rows.groupby("seed")["error"].mean()


def paired(a: pd.Series, b: pd.Series, name: str) -> dict[str, Any] | None:
    """Bootstrap interval of mean(a − b) over the repetitions both have."""
    return unc.difference(a, b, name)


# ---------------------------------------------------------------------- adequacy gates
def gate_robin_hood(run: ReproductionRun) -> list[Gate]:
    """Robin Hood's masking has races to protect: its k_initial step keeps race in some repetitions.

    The paper's Robin Hood starts from OLA without suppression at k_initial = 3 and keeps the
    races in most simulations ("generalizing the minority and super-minority race value to
    'Other' in a fraction of the simulations"; on Adult it keeps Black and merges the other
    three). Where our starting node has already generalised race in every repetition, the
    masking protects nothing and Robin Hood's odds ratios are those of that node: claims about
    Robin Hood's accuracy then test our hierarchies, not the method.
    """
    gates = []
    for scenario, part, kept_rule in (
        ("S1", s1(run), "exact"),
        ("S2", s2(run), "exact"),
        ("Adult", adult(run), "any race information"),
    ):
        rows = part[part["method"] == RH] if len(part) else part
        if rows.empty:
            continue
        by = ["seed", "gen_seed", "k", "x"]
        if kept_rule == "exact":
            kept = race_exact(rows, by)
        else:
            kept = rows.groupby(by)["release_level"].apply(lambda s: bool((~s.isin(RACE_GONE)).any()))
        entry = unc.wilson(int(kept.sum()), int(len(kept)), "share kept")
        passed = entry is not None and entry["low"] > 0
        what = (
            "both minority levels released as themselves"
            if kept_rule == "exact"
            else "race not generalised to *"
        )
        gates.append(
            Gate(
                f"robin_hood@{scenario}",
                "keeps race at k_initial",
                passed,
                f"{what} in {int(kept.sum())} of {len(kept)} Robin Hood releases (Wilson 95 % "
                f"[{entry['low']:.3f}, {entry['high']:.3f}]); released as: {releases(rows)}"
                if entry
                else "no release",
            )  # fmt: skip
        )
    return gates


def gate_kanon_adult(run: ReproductionRun) -> list[Gate]:
    """On Adult, each k-anonymity variant releases some race information at some k (else no
    odds ratio can flip or change: every race gets the convention OR = 1)."""
    frame = adult(run)
    gates = []
    for method in (SUPP, NOSUPP):
        rows = frame[frame["method"] == method] if len(frame) else frame
        if rows.empty:
            continue
        kept = rows.groupby("k")["release_level"].apply(lambda s: bool((~s.isin(RACE_GONE)).any()))
        ks = [int(k) for k, v in kept.items() if v]
        gates.append(
            Gate(
                f"{method}@Adult",
                "releases race",
                bool(ks),
                f"race released (not * or suppressed) at k = {ks}"
                if ks
                else f"race generalised to * or suppressed at every k ({', '.join(str(int(k)) for k in kept.index)})",
            )  # fmt: skip
        )
    return gates


GATES = [gate_robin_hood, gate_kanon_adult]

__all__ = [
    "ADULT",
    "GATES",
    "LABELS",
    "METHODS",
    "NBW",
    "NOSUPP",
    "RAW",
    "RH",
    "S1_SHARE",
    "S2_K",
    "SIMULATION",
    "SUPP",
    "adult",
    "errors_by_seed",
    "gate_kanon_adult",
    "gate_robin_hood",
    "odds",
    "paired",
    "race_exact",
    "releases",
    "s1",
    "s2",
    "thresholds",
]
