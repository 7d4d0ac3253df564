"""R-BLOG checks (``spec/reproductions.md`` §4): the Data Anonymizer blog's stated properties.

The blog (seed file ``003_…``, "Evaluation Criteria", Figs 3–5) publishes no numbers: it
shows a re-identification summary and a "proportion of rows above k-threshold" plot with a
"User" and a "Default" line. Every check is therefore a property of ``reid_score`` on the
four releases (identity, Default, User, OLA k = 5), at level ``exact``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from harness.reproduction import Check, ReproductionRun, exact, trend, unavailable

RELEASES = ("identity", "data_anonymizer_default", "data_anonymizer_user", "kanon_fulldomain")
LABELS = {
    "identity": "identity (T)",
    "data_anonymizer_default": "Default",
    "data_anonymizer_user": "User (k = 5)",
    "kanon_fulldomain": "OLA k = 5",
}


def _curves(run: ReproductionRun) -> dict[str, np.ndarray]:
    rows = run.rows("reid_score", "reid_mean", generator=RELEASES)
    out = {}
    for generator, details in zip(rows["generator"], rows["details"]):
        out[str(generator)] = np.asarray(json.loads(details)["k_threshold_curve"]["release"], dtype=float)
    return out


def _value(run: ReproductionRun, generator: str, variant: str) -> float:
    return run.mean("reid_score", variant, generator=generator)


def check_curves(run: ReproductionRun) -> list[Check]:
    """Every k-threshold curve is non-increasing in k and equals 1 at k = 1."""
    curves = _curves(run)
    checks = []
    for generator in RELEASES:
        claim = f"{LABELS[generator]}: k-threshold curve non-increasing, 1 at k = 1"
        if generator not in curves:
            checks.append(
                unavailable(f"curve-{generator}", claim, "Fig. 5 (curves)", "exact", "no ok reid_score row")
            )
            continue
        curve = curves[generator]
        steps = np.diff(curve)
        checks.append(
            trend(
                f"curve-{generator}",
                claim,
                "Fig. 5: proportion of rows above k-threshold",
                f"starts at {curve[0]:.3f}; largest step {steps.max(initial=0.0):+.2e}",
                bool(curve[0] == 1.0 and np.all(steps <= 1e-12)),
                level="exact",
                value=curve.tolist(),
                evidence=["figures/k_threshold.png"],
            )  # fmt: skip
        )
    return checks


def check_k_is_inverse_reid_max(run: ReproductionRun) -> list[Check]:
    """k-anonymity = 1 / max re-identification score for every release."""
    out = []
    for generator in RELEASES:
        k, reid_max = _value(run, generator, "k_anonymity"), _value(run, generator, "reid_max")
        out.append(
            exact(
                f"k-inverse-{generator}",
                f"{LABELS[generator]}: k_anonymity = 1/reid_max",
                "k-anonymity is the smallest equivalence class",
                k,
                1.0 / reid_max if reid_max else float("nan"),
                tol=1e-9,
                evidence=["tables/reid_summary.md"],
            )  # fmt: skip
        )
    return out


def check_user_k(run: ReproductionRun) -> Check:
    """The User transformation with k_target = 5 is 5-anonymous."""
    k = _value(run, "data_anonymizer_user", "k_anonymity")
    passed = bool(np.isfinite(k) and k >= 5)
    return trend(
        "user-k-anonymity", "User transformations (k_target = 5): k_anonymity >= 5",
        "user-chosen transformations give the target k", f"k = {k:g}", passed, level="exact", value=k,
        expected={"min": 5}, evidence=["tables/reid_summary.md"],
    )  # fmt: skip


def check_user_above_default(run: ReproductionRun) -> Check:
    """The User line lies on or above the Default line for every k <= 5."""
    curves = _curves(run)
    claim = "User curve >= Default curve for k <= 5"
    paper = '"significantly higher anonymity guarantees compared to the baseline transformations" (Fig. 5)'
    if "data_anonymizer_user" not in curves or "data_anonymizer_default" not in curves:
        return unavailable("user-above-default", claim, paper, "exact", "a release has no curve")
    user, default = curves["data_anonymizer_user"][:5], curves["data_anonymizer_default"][:5]
    return trend(
        "user-above-default", claim, paper,
        "User " + ", ".join(f"{v:.3f}" for v in user) + " vs Default " + ", ".join(f"{v:.3f}" for v in default),
        bool(np.all(user >= default)), level="exact", value={"user": user.tolist(), "default": default.tolist()},
        evidence=["figures/k_threshold.png"],
    )  # fmt: skip


def check_identity_unique(run: ReproductionRun) -> Check:
    """The identity release has re-identification score 1 somewhere (Adult has unique QI combinations)."""
    return exact(
        "identity-reid-max", "identity release: reid_max = 1 (unique QI combinations exist)",
        "raw data is re-identifiable", _value(run, "identity", "reid_max"), 1.0, evidence=["tables/reid_summary.md"],
    )  # fmt: skip


CHECKS = [
    check_curves,
    check_k_is_inverse_reid_max,
    check_user_k,
    check_user_above_default,
    check_identity_unique,
]


def artifacts(run: ReproductionRun) -> None:
    """The blog's re-identification summary (Fig. 4) and k-threshold plot (Fig. 5)."""
    from harness.report.prepare import prepare
    from harness.report.privacy_figures import k_threshold_curve

    rows = run.rows("reid_score", generator=RELEASES)
    summary = rows.pivot_table(index="generator", columns="variant", values="value", aggfunc="mean")
    summary = summary.reindex([g for g in RELEASES if g in summary.index])
    summary.insert(0, "release", [LABELS[g] for g in summary.index])
    columns = ["release", "reid_mean", "reid_max", "k_anonymity", "suppression_rate",
               *[c for c in summary.columns if str(c).startswith("prop_k_anonymous")]]  # fmt: skip
    table = summary.reindex(columns=[c for c in columns if c in summary.columns]).reset_index(drop=True)
    run.write_table(
        "reid_summary", pd.DataFrame(table), caption="Re-identification score summary (blog Fig. 4)"
    )
    k_threshold_curve(prepare(run.rows(generator=RELEASES, status=None)), run.out_dir / "figures")
