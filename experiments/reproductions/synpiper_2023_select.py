"""R-SYNPIPER selections (``spec/reproductions.md`` §16): constants and the rows a check reads.

The headline release of each generator is PrivBayes at the spec's ε = 1 and CTGAN / TVAE at
their largest training budget; the protocol profile adds PrivBayes at other ε and the SDV
models at a second, smaller budget (``synpiper_2023_protocol``), which every other check and
table must leave out.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.reproduction import ReproductionRun

REFERENCE = "identity"
GENERATORS = ("privbayes", "sdv_ctgan", "sdv_tvae")
LABELS = {
    REFERENCE: "real training split (identity)",
    "privbayes": "PrivBayes / DataSynthesizer (ε = 1)",
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
FIDELITY_TABLE = "tables/fidelity.md"
UTILITY_TABLE = "tables/utility_tstr_trtr.md"
UTILITY_FIGURE = "figures/utility_tstr_trtr.png"
BLOG_UTILITY = (
    '"The test results from TRTR will be used as a benchmark and compared against the test metrics from '
    'TSTR" (Evaluation Criteria, Utility)'
)
BLOG_EPSILON = (
    '"we can adjust the amount of privacy risk using the privacy parameter ε. This parameter decides how '
    'much noise is added to the model" (Brief Overview of Differential Privacy)'
)
MAIN_EPSILON = 1.0
BUDGETED = ("sdv_ctgan", "sdv_tvae")
EPSILON_TABLE = "tables/privbayes_epsilon.md"
BUDGET_TABLE = "tables/training_budget.md"


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
    at their largest training budget (the protocol profile's budget sweep adds a smaller one).
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


def setting_of(run: ReproductionRun, generator: str) -> str:
    """``ε = 1`` or ``300 epochs``: the headline release's setting, for tables and reasons."""
    params = release_params(run, generator)
    if "epsilon" in params:
        return f"ε = {params['epsilon']:g}"
    if "epochs" in params:
        return f"{int(params['epochs'])} epochs"
    return ""


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
        f"{CLF_LABELS[c]} {s} TSTR {tstr:.3f} vs TRTR {trtr:.3f}" for (c, s), (tstr, trtr) in pairs.items()
    )
