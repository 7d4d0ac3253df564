"""R-SYNPIPER selections (``spec/reproductions.md`` §16): constants and the rows a check reads.

The headline release of each generator is PrivBayes at the spec's ε = 1 and CTGAN / TVAE at
their largest training budget in the run (SDV's default 300 epochs once the protocol's
``budget_*_300`` sweeps have run, the protocol's cut budgets until then); the protocol profile
adds PrivBayes at other ε and the SDV models at other budgets (``synpiper_2023_protocol``),
which every other check and table must leave out.

ε labels are *nominal*: the value DataSynthesizer is configured with. Under replace-one
neighbours its noise scales spend more (1.5·ε with k = 1); :func:`epsilon_spent` reads the
spent value from the rows' accounting details, and every label and caption that shows ε says
"nominal".
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from harness.reproduction import ReproductionRun

REFERENCE = "identity"
HOLDOUT = "real_holdout"
GENERATORS = ("privbayes", "sdv_ctgan", "sdv_tvae")
LABELS = {
    REFERENCE: "real training split (identity)",
    HOLDOUT: "real holdout (new real rows)",
    "privbayes": "PrivBayes / DataSynthesizer",
    "sdv_ctgan": "CTGAN",
    "sdv_tvae": "TVAE",
}
FIDELITY = (
    "ks_complement",
    "tv_complement",
    "correlation_similarity",
    "contingency_similarity",
    "quality_score",
)
CLASSIFIERS = ("random_forest", "logistic_regression")
SCORES = ("f1", "roc_auc")
CLF_LABELS = {"random_forest": "RF", "logistic_regression": "LR"}
SCORE_LABELS = {"f1": "F1", "roc_auc": "ROC AUC"}
FIDELITY_TABLE = "tables/fidelity.md"
UTILITY_TABLE = "tables/utility_tstr_trtr.md"
UTILITY_FIGURE = "figures/utility_tstr_trtr.png"
EPSILON_TABLE = "tables/privbayes_epsilon.md"
BUDGET_TABLE = "tables/training_budget.md"
COPIES_TABLE = "tables/row_copies.md"
BLOG_UTILITY = (
    '"The test results from TRTR will be used as a benchmark and compared against the test metrics from '
    'TSTR" (Evaluation Criteria, Utility)'
)
BLOG_EPSILON = (
    '"we can adjust the amount of privacy risk using the privacy parameter ε. This parameter decides how '
    'much noise is added to the model" (Brief Overview of Differential Privacy)'
)
BLOG_COPIES = (
    '"To some extent, it mitigates privacy risks as synthetic samples are not exact copies of the real '
    'data" (Deep Learning Generation)'
)
BLOG_GAN = (
    '"The goal of such methods is to generate high-fidelity synthetic data" (Deep Learning Generation); '
    '"When the GAN is fully trained, we can use the generator to generate high-quality synthetic samples" '
    "(Brief Introduction to GANs)"
)
BLOG_VAE = (
    '"allowing us to generate synthetic data with distribution similar to the original data" (How '
    "synthetic samples are generated from VAEs)"
)
MAIN_EPSILON = 1.0
SDV_DEFAULT_EPOCHS = 300
BUDGETED = ("sdv_ctgan", "sdv_tvae")
BUDGET_SWEEPS = {"sdv_ctgan": "budget_ctgan_300", "sdv_tvae": "budget_tvae_300"}


def epsilon_spent(run: ReproductionRun, epsilon: float = MAIN_EPSILON) -> float | None:
    """The ε PrivBayes spends at nominal ``epsilon`` (its accounting details), None when not recorded."""
    for details in run.details("fit_seconds", generator="privbayes", params={"epsilon": epsilon}):
        accounting = (details.get("generator") or {}).get("accounting") or {}
        if accounting.get("epsilon_spent") is not None:
            return float(accounting["epsilon_spent"])
    return None


def laplace_scale(run: ReproductionRun, epsilon: float) -> float | None:
    """The Laplace scale DataSynthesizer adds to the conditional counts at nominal ``epsilon`` (details)."""
    for details in run.details("fit_seconds", generator="privbayes", params={"epsilon": epsilon}):
        accounting = (details.get("generator") or {}).get("accounting") or {}
        scale = (accounting.get("conditionals") or {}).get("laplace_scale_counts")
        if scale is not None:
            return float(scale)
    return None


def budgets(run: ReproductionRun, generator: str) -> list[int]:
    """The training budgets (epochs) a generator ran with, ascending (empty without an epochs parameter)."""
    rows = run.rows("quality_score", generator=generator)
    if "param.epochs" not in rows:
        return []
    return sorted({int(e) for e in rows["param.epochs"].dropna()})


def epsilons(run: ReproductionRun) -> list[float]:
    """The ε values PrivBayes ran with, ascending."""
    rows = run.rows("quality_score", generator="privbayes")
    if "param.epsilon" not in rows:
        return []
    return sorted({float(e) for e in rows["param.epsilon"].dropna()})


def release_params(run: ReproductionRun, generator: str) -> dict[str, float]:
    """Parameter filter of a generator's headline release.

    PrivBayes at the spec's ε = 1 (the protocol profile's ε sweep adds others), CTGAN and TVAE
    at their largest training budget (the protocol profile's budget sweeps add others).
    """
    if generator == "privbayes":
        return {"epsilon": MAIN_EPSILON}
    if generator in BUDGETED:
        found = budgets(run, generator)
        return {"epochs": found[-1]} if found else {}
    return {}


def has_sweep(run: ReproductionRun, name: str) -> bool:
    """Whether the run's profile has the sweep ``name`` (or ``name_<suffix>``, e.g. ``budget_ctgan``)."""
    return any(s.name == name or s.name.startswith(f"{name}_") for s in run.plan.sweeps)


def seeds_of(run: ReproductionRun, generator: str, params: dict[str, float]) -> list[int]:
    rows = run.rows("quality_score", generator=generator, params=params)
    return sorted(int(s) for s in rows["gen_seed"].unique())


def setting_of(run: ReproductionRun, generator: str, params: dict[str, float] | None = None) -> str:
    """``ε = 1`` or ``300 epochs``: a release's setting (default: the headline), for labels and reasons."""
    params = release_params(run, generator) if params is None else params
    if "epsilon" in params:
        return f"nominal ε = {params['epsilon']:g}"
    if "epochs" in params:
        epochs = int(params["epochs"])
        return f"{epochs} epoch{'s' if epochs != 1 else ''}"
    return ""


def label_of(run: ReproductionRun, generator: str, params: dict[str, float] | None = None) -> str:
    """``CTGAN (20 epochs)``: a release's label with its setting."""
    setting = setting_of(run, generator, params)
    return f"{LABELS[generator]} ({setting})" if setting else LABELS[generator]


def per_seed(
    run: ReproductionRun,
    metric: str,
    variant: str | None,
    generator: str,
    params: dict[str, float] | None = None,
) -> pd.Series:
    """The values of one release by generator seed (the replicate the run has: a Series indexed by seed)."""
    rows = run.rows(metric, variant, generator=generator, params=params)
    values = rows.groupby("gen_seed")["value"].mean().astype(float).dropna()
    values.index = values.index.astype(int)
    return values


def pairs(
    run: ReproductionRun,
    generator: str,
    params: dict[str, float] | None = None,
    seeds: Sequence[int] | None = None,
) -> dict[tuple[str, str], tuple[float, float]]:
    """(classifier, score) -> (mean TSTR, mean TRTR) over the generator's seeds.

    ``params`` selects the release (default: :func:`release_params`); ``seeds`` the generator seeds.
    """
    chosen = release_params(run, generator) if params is None else params
    out = {}
    for clf in CLASSIFIERS:
        for score in SCORES:
            rows = run.rows("ml_efficacy", f"{clf}:{score}", generator=generator, params=chosen)
            if seeds is not None:
                rows = rows[rows["gen_seed"].isin(list(seeds))]
            if len(rows):
                out[(clf, score)] = (float(rows["value"].mean()), float(rows["baseline"].mean()))
    return out


def describe(pairs: dict[tuple[str, str], tuple[float, float]]) -> str:
    return "; ".join(
        f"{CLF_LABELS[c]} {SCORE_LABELS[s]} TSTR {tstr:.3f}, TRTR {trtr:.3f}"
        for (c, s), (tstr, trtr) in pairs.items()
    )
