"""R-UMAP claims of §5 about privacy (``002_…`` Table 6, §5, §5.2) and the title's robustness.

The central one first: §5 "offering adequate privacy assurances, contrary to the plain
SMOTE-NC" — UMAP-SMOTENC more private than SMOTE-NC on the three distances of Table 6 — then
each generator against the test-set baseline (Table 6: the floor any anonymiser should clear),
"at par or better than the TVAE", TVAE more useful / CTGAN more private, and the title's
"consistent … robust across domains".

Privacy-only claims read, per distance, the rows whose budget gate for that distance passed
(:func:`~.umap_smotenc_2024_budget.privacy_frame`): where a distance does not move between 30
and 300 epochs on the datasets measured, the 30-epoch rows stand in for it on the others (the
generator's ``learns`` gate at 30 epochs still applies). Each effect's name says which side is
subtracted: + is always the paper's direction (``d₁: test set − SMOTE-NC`` for "SMOTE-NC less
private than the test set").
"""

from __future__ import annotations

import pandas as pd

from experiments.reproductions.umap_smotenc_2024_budget import (
    BUDGET_GENERATORS,
    PAPER_EPOCHS,
    PRIVACY_MEASURES,
)
from experiments.reproductions.umap_smotenc_2024_claims import (
    claim_tag,
    depends_keys,
    gc_where,
    gc_who,
    scope_why,
    tradeoff_part,
)
from experiments.reproductions.umap_smotenc_2024_compare import Part, average_check, every_check, split_checks
from experiments.reproductions.umap_smotenc_2024_evidence import (
    CTGAN,
    GC,
    LABELS,
    SMOTE,
    TVAE,
    UMAP,
    Evidence,
    among,
    evidence_of,
    learns_scope,
    privacy,
    values,
)
from experiments.reproductions.umap_smotenc_2024_paper import GC_NOTE, TABLE6
from harness.reproduction import Check, ReproductionRun

SHORT = {"dcr_mean": "d₁", "nndr_mean": "NNDR", "ratio_1_10_mean": "d₁/d₁₀"}
EVIDENCE = ("tables/paper_budget_tradeoff.md", "tables/table6_privacy.md")
PAR_MARGIN = 0.05
""""at par or better": UMAP-SMOTENC's mean privacy at least 95 % of TVAE's (relative, d₁ varies by dataset)."""
TEST = "test set"


def baseline(ev: Evidence, variant: str) -> pd.Series:
    """The test fold's distance per (dataset, run): the same for every generator of a run."""
    parts = [privacy(ev, g, variant, column="baseline", gated=False) for g in LABELS]
    joined = pd.concat(parts, axis=1)
    return joined.mean(axis=1).dropna() if len(joined.columns) else pd.Series(dtype=float)


def privacy_scope(ev: Evidence, generator: str) -> str:
    """Which budget each distance of ``generator`` is read at ('' for the generators without a cut budget)."""
    b = ev.budgets
    if generator not in b.cut:
        return ""
    label, cut = LABELS[generator], b.cut[generator]
    paper = ", ".join(sorted(ev.paper_runs(generator))) or "no dataset"
    standing = [SHORT[m] for m in PRIVACY_MEASURES if b.stands_in(generator, m)]
    failing = []
    for m in PRIVACY_MEASURES:
        bad = [g for g in b.measure_gates.get((generator, m), []) if not g.passed]
        if bad:
            detail = bad[0].detail.split(" over ")[0].split(": ", 1)[-1]
            failing.append(f"{SHORT[m]} {detail} on {bad[0].key.rsplit('@', 1)[-1].split(':')[0]}")
    text = f"{label} at {PAPER_EPOCHS} epochs on {paper}"
    if standing:
        text += (f"; its {cut}-epoch {' and '.join(standing)} stand in elsewhere (their {cut} → {PAPER_EPOCHS}-epoch "
                 "budget gates pass)")  # fmt: skip
    if failing:
        text += (
            f"; {', '.join(failing)} between {cut} and {PAPER_EPOCHS} epochs: only {PAPER_EPOCHS}-epoch rows"
        )
    return text


def _scope(ev: Evidence, generators: tuple[str, ...]) -> str:
    parts = [privacy_scope(ev, g) for g in generators]
    for g in generators:
        left = sorted({d for m in PRIVACY_MEASURES for d, _, _ in ev.bad_units(g, f"privacy:{m}")})
        if left:
            parts.append(
                f"{LABELS[g]} left out on {', '.join(left)} (F1 below the constant predictor's at the budget read)"
            )
    if GC in generators:
        parts.append(GC_NOTE)
    return "; ".join(p for p in parts if p)


def _depends_privacy(ev: Evidence, generators: tuple[str, ...]) -> list[str]:
    keys = [k for g in generators for m in PRIVACY_MEASURES for k in ev.learns_keys(g, f"privacy:{m}")]
    for g in generators:
        for m in PRIVACY_MEASURES:
            if ev.budgets.stands_in(g, m):
                keys += [gate.key for gate in ev.budgets.measure_gates.get((g, m), [])]
    return list(dict.fromkeys(keys))


def _not_run(ev: Evidence, generators: tuple[str, ...]) -> str:
    return scope_why(ev, tuple(g for g in generators if g in BUDGET_GENERATORS)) if any(
        g in BUDGET_GENERATORS for g in generators
    ) else ""  # fmt: skip


def vs_baseline(ev: Evidence, generator: str) -> list[Part]:
    """Per distance, generator − test set (SMOTE-NC: test set − generator, the paper's direction)."""
    label = LABELS[generator]
    out = []
    for variant in PRIVACY_MEASURES:
        diff = privacy(ev, generator, variant) - baseline(ev, variant)
        if generator == SMOTE:
            out.append(Part(f"{SHORT[variant]}: {TEST} − {label}", (-diff).dropna()))
        else:
            out.append(Part(f"{SHORT[variant]}: {label} − {TEST}", diff.dropna()))
    return out


def check_umap_vs_smote(run: ReproductionRun) -> list[Check]:
    """§5, Table 6: UMAP-SMOTENC more private than plain SMOTE-NC on every distance (the central privacy claim)."""
    ev = evidence_of(run)
    parts = [
        Part(f"{SHORT[v]}: UMAP-SMOTENC − SMOTE-NC", (privacy(ev, UMAP, v) - privacy(ev, SMOTE, v)).dropna())
        for v in PRIVACY_MEASURES
    ]
    paper = ", ".join(
        f"{SHORT[v]} {TABLE6['UMAP-SMOTENC'][v][0]:.2f} vs {TABLE6['SMOTE-NC'][v][0]:.2f}"
        for v in PRIVACY_MEASURES
    )
    return split_checks(
        "table6-umap-vs-smote-nc",
        "§5, Table 6: UMAP-SMOTENC more private than plain SMOTE-NC on d₁, NNDR and d₁/d₁₀ ('offering adequate privacy "
        "assurances, contrary to the plain SMOTE-NC')",
        f"Table 6 means (8 datasets): {paper}", parts,
        every_paper="§5.2: 'UMAP-SMOTENC can provide a safe generation of points, while SMOTE-NC fails to do so' (no "
        "test between them is printed; read on every dataset, as Table 6's tests against the test set are)",
        tag=_scope(ev, (UMAP, SMOTE)), depends_on=_depends_privacy(ev, (UMAP, SMOTE)), evidence_paths=EVIDENCE,
    )  # fmt: skip


def check_table6(run: ReproductionRun) -> list[Check]:
    """Table 6: GC, CTGAN, TVAE and UMAP-SMOTENC more private than the test set baseline; SMOTE-NC less."""
    ev = evidence_of(run)
    out = []
    for generator in (UMAP, SMOTE, GC, CTGAN, TVAE):
        label = LABELS[generator]
        above = generator != SMOTE
        paper = ", ".join(
            f"{SHORT[v]} {TABLE6[label][v][0]:.2f} vs {TABLE6['Test Set Baseline'][v][0]:.2f}"
            for v in PRIVACY_MEASURES
        )
        slug = {UMAP: "umap", SMOTE: "smote-nc", GC: "gc", CTGAN: "ctgan", TVAE: "tvae"}[generator]
        who = gc_who(ev) if generator == GC else label
        out += split_checks(
            f"table6-{slug}-vs-baseline",
            f"Table 6: {who} {'more' if above else 'less'} private than the test set baseline on d₁, NNDR and d₁/d₁₀",
            f"Table 6 means (8 datasets): {paper}", vs_baseline(ev, generator), where=gc_where(ev) if generator == GC else "",
            every_paper="Holm p = 3.9e-02 / True per distance: all 8 of the paper's datasets agree",
            scope=_not_run(ev, (generator,)), tag=_scope(ev, (generator,)),
            depends_on=_depends_privacy(ev, (generator,)), evidence_paths=EVIDENCE,
        )  # fmt: skip
    return out


def check_par_tvae(run: ReproductionRun) -> list[Check]:
    """§5.2: UMAP-SMOTENC's privacy at par with or better than TVAE's, on average and on every dataset."""
    ev = evidence_of(run)
    parts = [
        Part(f"{SHORT[v]}: UMAP-SMOTENC / ({1 - PAR_MARGIN:.2f}·TVAE) − 1",
             ratio=(privacy(ev, UMAP, v), privacy(ev, TVAE, v) * (1 - PAR_MARGIN)))
        for v in PRIVACY_MEASURES
    ]  # fmt: skip
    return split_checks(
        "text-umap-privacy-par-tvae",
        f"§5.2: UMAP-SMOTENC 'performed at par or better than the TVAE' in privacy (read as: d₁, NNDR and d₁/d₁₀ "
        f"at least {100 * (1 - PAR_MARGIN):.0f} % of TVAE's; + is UMAP-SMOTENC at par or more private)",
        ", ".join(f"{SHORT[v]} {TABLE6['UMAP-SMOTENC'][v][0]:.2f} vs {TABLE6['TVAE'][v][0]:.2f}" for v in PRIVACY_MEASURES),
        parts, every_paper="§5.2 after Table 6 (no test between them is printed; read on every dataset, as Table 6's "
        "tests against the test set are)", scope=_not_run(ev, (TVAE,)), tag=_scope(ev, (TVAE, UMAP)),
        depends_on=_depends_privacy(ev, (TVAE, UMAP)), evidence_paths=EVIDENCE,
    )  # fmt: skip


def check_tvae_utility_ctgan_privacy(run: ReproductionRun) -> Check:
    """§5.2: TVAE more useful, CTGAN more private."""
    ev = evidence_of(run)
    utility = values(ev, TVAE, "ml_efficacy", "mean:f1") - values(ev, CTGAN, "ml_efficacy", "mean:f1")
    parts = [Part("mean F1 TVAE − CTGAN", utility.dropna())]
    parts += [Part(f"{SHORT[v]}: CTGAN − TVAE", (privacy(ev, CTGAN, v) - privacy(ev, TVAE, v)).dropna())
              for v in PRIVACY_MEASURES]  # fmt: skip
    return average_check(
        "text-tvae-utility-ctgan-privacy",
        "§5.2: 'TVAE tends to offer higher levels of utility, while CTGAN offers better privacy preservation', "
        "on average over the datasets",
        "Table 4 mean F1: TVAE above CTGAN for LR, DT, RF, XGB, MLP; Table 6: CTGAN d₁ 0.18 vs TVAE 0.11",
        parts, scope=_not_run(ev, (CTGAN, TVAE)),
        tag="; ".join(t for t in (_scope(ev, (CTGAN, TVAE)), learns_scope(ev, [CTGAN, TVAE])) if t),
        depends_on=[*depends_keys(ev, (CTGAN, TVAE)), *_depends_privacy(ev, (CTGAN, TVAE))],
        evidence_paths=("tables/table4_ml_utility.md", *EVIDENCE),
    )  # fmt: skip


def check_robust(run: ReproductionRun) -> Check:
    """Title, abstract, §6: 'consistent' and 'robust across domains', read on every dataset."""
    ev = evidence_of(run)
    parts = vs_baseline(ev, UMAP)
    parts += [tradeoff_part(ev, UMAP, other, among(other)) for other in (SMOTE, TVAE, CTGAN)]
    return every_check(
        "text-umap-robust-across-domains",
        "Title, abstract, §6: UMAP-SMOTENC is 'consistent' and 'robust across domains', read as: on every dataset it is "
        "more private than the test set on d₁, NNDR and d₁/d₁₀ and has a higher trade-off score than SMOTE-NC, TVAE and "
        "CTGAN — the every-dataset claims of Tables 3 and 6 for UMAP-SMOTENC together, not independent evidence",
        "'an efficient and consistent solution'; 'simple to apply and robust across domains' (eight datasets 'with "
        "diverse characteristics')",
        parts, scope=_not_run(ev, (CTGAN, TVAE)), tag=claim_tag(ev, (CTGAN, TVAE, UMAP)),
        depends_on=[*depends_keys(ev, (UMAP, SMOTE, TVAE, CTGAN)), *_depends_privacy(ev, (UMAP,))],
        evidence_paths=EVIDENCE,
    )  # fmt: skip


__all__ = [
    "PAR_MARGIN",
    "SHORT",
    "baseline",
    "check_par_tvae",
    "check_robust",
    "check_table6",
    "check_tvae_utility_ctgan_privacy",
    "check_umap_vs_smote",
    "privacy_scope",
    "vs_baseline",
]
