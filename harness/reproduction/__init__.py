"""Paper reproductions: run an experiment's protocol, check it against the paper, report.

``plan``         the ``reproduction`` block of an experiment config (profiles, sweeps, checks module)
``checks``       :class:`Check` and its builders (exact, within, ordered, trend, not reproducible, ...)
``verdict``      the one verdict rule: claim / setup / arithmetic / sanity kinds, claim verdicts
``uncertainty``  intervals from the run's replication (bootstrap over blocks, Wilson, tests)
``adequacy``     adequacy gates: a claim resting on a generator that did not learn is not evaluable
``referee``      the plain-word summary of a run's claims that opens each paper's section
``view``         :class:`ReproductionRun`: what a paper's check functions see (results, outputs)
``runner``       ``privbench reproduce``: preflight, sweeps, gates, ``checks.json``
``runs``         the runs the report reads (evaluated, stopped persisted runs, committed copies)
``document``     ``privbench reproduction-report``: ``results/reproductions/REPRODUCTION.md``

A paper's checks live in ``experiments/reproductions/<experiment>.py``: a module-level
``CHECKS`` list of functions ``(run: ReproductionRun) -> Check | list[Check]``, optionally
``GATES`` (functions ``run -> Gate | list[Gate]``, evaluated first), ``referee_notes(run,
checks)`` (plain-word notes for the summary), ``DATASETS_NOTE`` (stand-ins, e.g. Letter for the
paper's "Digits") and ``artifacts(run)`` that writes the paper's regenerated tables and figures.
"""

from harness.reproduction.adequacy import Gate, budget_gate, epsilon_gate, utility_gate
from harness.reproduction.checks import (
    Check,
    exact,
    not_evaluable,
    not_reproducible,
    ordered,
    trend,
    unavailable,
    within,
)
from harness.reproduction.plan import ReproductionPlan, Sweep, load_plan, reproduction_names
from harness.reproduction.view import ReproductionRun

__all__ = [
    "Check",
    "Gate",
    "ReproductionPlan",
    "ReproductionRun",
    "Sweep",
    "budget_gate",
    "epsilon_gate",
    "exact",
    "load_plan",
    "not_evaluable",
    "not_reproducible",
    "ordered",
    "reproduction_names",
    "trend",
    "unavailable",
    "utility_gate",
    "within",
]
