"""R-SYNPIPER: what the blog says about its deep-learning generators (``spec/reproductions.md`` §16;
``003_…``, "Deep Learning Generation", "Brief Introduction to GANs", "How synthetic samples are
generated from VAEs").

The blog states three things about SDV's CTGAN and TVAE, none with a number:

* "synthetic samples are not exact copies of the real data" — testable: the share of released
  rows equal to a training row on every column (``exact_match`` ``row_copy_rate``), against the
  share of *new real rows* (the real holdout, never trained on) that coincide with a training row
  by chance. The claim holds when every generator's interval (bootstrap over seeds) lies in
  [0, the holdout's Wilson upper bound]. The protocol computes ``exact_match`` only in the
  appended ``budget_ctgan_300`` / ``budget_tvae_300`` / ``copies_reference`` sweeps (SDV's default
  training); until they have run the claim is *not run yet* (verdict not evaluable, the run
  incomplete). It cannot be computed on the cut-budget releases instead: the job directories keep
  the rows, not the released tables, and no exact_match row exists for them.
* "the goal of such methods is to generate high-fidelity synthetic data" and "when the GAN is
  fully trained ... high-quality synthetic samples" (CTGAN), "distribution similar to the
  original data" (TVAE) — the blog names no level of fidelity or quality, no data and no
  generator to compare with (Fig. 8 is an image of a metric overview without numbers), so no
  run at any budget can test them: both are not evaluable for that one reason, with our
  Quality scores and the budget they were read at shown as numbers without a verdict.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from experiments.reproductions.synpiper_2023_select import (
    BLOG_COPIES,
    BLOG_GAN,
    BLOG_VAE,
    BUDGET_SWEEPS,
    BUDGETED,
    COPIES_TABLE,
    FIDELITY_TABLE,
    HOLDOUT,
    LABELS,
    SDV_DEFAULT_EPOCHS,
    has_sweep,
    label_of,
    per_seed,
    release_params,
)
from harness.reproduction import Check, ReproductionRun, not_evaluable, trend
from harness.reproduction import uncertainty as unc

COPIES_ID = "deep-learning-samples-not-copies"
COPIES_CLAIM = (
    "CTGAN and TVAE samples are not exact copies of the training rows: their share of rows equal to a "
    "training row is no higher than that of new real rows (the real holdout)"
)


def _copies(run: ReproductionRun, generator: str) -> pd.DataFrame:
    """``exact_match`` ``row_copy_rate`` rows of a generator: seed, epochs, rate, copies, release size."""
    rows = run.rows("exact_match", "row_copy_rate", generator=generator)
    if rows.empty:
        return pd.DataFrame(columns=["gen_seed", "epochs", "rate", "n_copies", "n_release"])
    details = [json.loads(d) if isinstance(d, str) and d else {} for d in rows["details"]]
    epochs = rows["param.epochs"] if "param.epochs" in rows else pd.Series(math.nan, index=rows.index)
    return pd.DataFrame(
        {
            "gen_seed": rows["gen_seed"].astype(int).to_numpy(),
            "epochs": pd.to_numeric(epochs, errors="coerce").to_numpy(),
            "rate": rows["value"].astype(float).to_numpy(),
            "n_copies": [int(d.get("n_copies", 0)) for d in details],
            "n_release": [int(d.get("n_release", 0)) for d in details],
        }
    )


def check_copies(run: ReproductionRun) -> Check:
    """Row-copy rate of CTGAN and TVAE inside [0, the real holdout's Wilson upper bound]."""
    holdout = _copies(run, HOLDOUT)
    found = {g: _copies(run, g) for g in BUDGETED}
    missing = [LABELS[g] for g, frame in found.items() if frame.empty]
    if missing or holdout.empty:
        what = ", ".join(missing + ([LABELS[HOLDOUT]] if holdout.empty else []))
        sweeps = f"{', '.join(BUDGET_SWEEPS.values())} and copies_reference"
        reason = (
            f"not run yet: exact_match is computed only by the protocol profile's appended sweeps {sweeps}, which "
            f"have not run (the run is incomplete: no exact_match rows for {what})"
            if has_sweep(run, "copies_reference")
            else f"not run in this {run.profile} profile: exact_match is computed only by the protocol profile's "
            f"appended sweeps {sweeps}"
        )
        return not_evaluable(
            COPIES_ID, COPIES_CLAIM, BLOG_COPIES,
            reason + "; the cut-budget releases were not kept (the job directories hold their rows, not the "
            "released tables), so the rate cannot be computed on them without refitting",
            level="tolerance", depends_on=BUDGETED,
        )  # fmt: skip
    n_copies, n_release = int(holdout["n_copies"].sum()), int(holdout["n_release"].sum())
    bound = unc.wilson(n_copies, n_release, "real holdout")
    high = bound["high"] if bound else float(holdout["rate"].max())
    entries, parts, points = [], [], []
    for g, frame in found.items():
        epochs = sorted({int(e) for e in frame["epochs"].dropna()})
        label = f"{LABELS[g]} ({', '.join(map(str, epochs))} epochs)" if epochs else LABELS[g]
        rates = frame.groupby("gen_seed")["rate"].mean()
        entry = unc.bootstrap_mean(rates, label)
        if entry is None:  # one seed: Wilson over the released rows
            entry = unc.wilson(int(frame["n_copies"].sum()), int(frame["n_release"].sum()), label)
        if entry is not None:
            entries.append(entry)
        points.append(float(rates.mean()) <= high)
        parts.append(
            f"{label} {rates.mean():.4%} ({int(frame['n_copies'].sum()):,} of "
            f"{int(frame['n_release'].sum()):,} rows, {_seeds(len(rates))})"
        )
    observed = (
        "; ".join(parts)
        + f" | real holdout {n_copies / max(n_release, 1):.4%} ({n_copies} of {n_release:,} rows)"
    )
    return trend(
        COPIES_ID, COPIES_CLAIM, BLOG_COPIES, observed, all(points), kind="claim", level="tolerance",
        expected={"low": 0.0, "high": high},
        value={"holdout": n_copies / max(n_release, 1), **{g: float(f["rate"].mean()) for g, f in found.items()}},
        reason="a copy = equal to some training row on every column (NA = NA); the band's upper edge is the "
        "Wilson 95 % upper bound of the real holdout's rate (real people not trained on who coincide with a "
        "training row)",
        uncertainty=unc.record(
            "bootstrap interval (95 %) of each generator's mean rate over generator seeds (Wilson over rows for "
            "one seed), compared with the band",
            entries, n=min((len(f.groupby('gen_seed')) for f in found.values()), default=0),
        ),
        evidence=[COPIES_TABLE], depends_on=BUDGETED,
    )  # fmt: skip


def _seeds(n: int) -> str:
    return f"{n} seed{'s' if n != 1 else ''}"


def _quality_text(run: ReproductionRun, generator: str) -> str:
    params = release_params(run, generator)
    values = per_seed(run, "quality_score", "", generator, params)
    if values.empty:
        return f"{label_of(run, generator, params)}: no Quality score"
    entry = unc.bootstrap_mean(values)
    spread = f" [{entry['low']:.3f}, {entry['high']:.3f}]" if entry else ""
    return f"{label_of(run, generator, params)} Quality {values.mean():.3f}{spread} ({_seeds(len(values))})"


def _budget_text(run: ReproductionRun, generator: str) -> str:
    """``trained 20 of SDV's 300 epochs (budget gate … not evaluated: …)``, empty at 300 epochs."""
    params = release_params(run, generator)
    epochs = int(params["epochs"]) if "epochs" in params else None
    if epochs is None or epochs >= SDV_DEFAULT_EPOCHS:
        return ""
    key = f"{generator}@epochs={epochs}"
    gate = next((g for g in run.gates if g.key == key and g.gate == "budget suffices"), None)
    text = f", trained {epochs} of SDV's {SDV_DEFAULT_EPOCHS} epochs"
    return text + (f" (budget gate {key} {gate.outcome}: {gate.detail})" if gate is not None else "")


def check_fidelity_statements(run: ReproductionRun) -> list[Check]:
    """CTGAN's "high-fidelity / high-quality when fully trained" and TVAE's "similar distribution": not evaluable."""
    reason = (
        "the blog names no level of fidelity or quality and no generator or data to compare with (Fig. 8 is an "
        "image without numbers): no result, at any training budget, can confirm or refute it"
    )
    holdout = per_seed(run, "quality_score", "", HOLDOUT)
    reference = (
        f"; {LABELS[HOLDOUT]} Quality {holdout.mean():.3f} (the level sampling alone allows)"
        if len(holdout)
        else ""
    )
    out = []
    for generator, check_id, claim, paper in (
        (
            "sdv_ctgan",
            "ctgan-high-fidelity",
            "CTGAN (the blog's GAN) generates high-fidelity synthetic data once fully trained",
            BLOG_GAN,
        ),
        (
            "sdv_tvae",
            "tvae-similar-distribution",
            "TVAE (the blog's VAE) generates synthetic data with a distribution similar to the original",
            BLOG_VAE,
        ),
    ):
        out.append(
            not_evaluable(
                check_id,
                claim,
                paper,
                reason,
                level="tolerance",
                observed=f"{_quality_text(run, generator)}{_budget_text(run, generator)}{reference}",
                evidence=[FIDELITY_TABLE],
                depends_on=(generator,),
            )  # fmt: skip
        )
    return out


def copies_artifacts(run: ReproductionRun) -> None:
    """The row-copy table (where exact_match ran)."""
    records = []
    for g in (HOLDOUT, *BUDGETED):
        frame = _copies(run, g)
        for _, row in frame.iterrows():
            records.append(
                {
                    "release": LABELS[g],
                    "epochs": "" if pd.isna(row["epochs"]) else int(row["epochs"]),
                    "seed": int(row["gen_seed"]),
                    "row_copy_rate": float(row["rate"]),
                    "copies": int(row["n_copies"]),
                    "rows": int(row["n_release"]),
                }
            )
    if records:
        run.write_table(
            "row_copies",
            pd.DataFrame(records),
            caption=f"Released rows equal to a training row on every column ({run.profile} profile)",
            digits=5,
        )


__all__ = ["check_copies", "check_fidelity_statements", "copies_artifacts"]
