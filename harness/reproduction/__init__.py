"""Paper reproductions: run an experiment's protocol, check it against the paper, report.

``plan``      the ``reproduction`` block of an experiment config (profiles, sweeps, checks module)
``checks``    :class:`Check` and its builders (exact, within, ordered, trend, not reproducible)
``view``      :class:`ReproductionRun`: what a paper's check functions see (results, outputs)
``runner``    ``privbench reproduce``: preflight, sweeps, ``checks.json``
``runs``      the runs the report reads (evaluated, stopped persisted runs, committed copies)
``document``  ``privbench reproduction-report``: ``results/reproductions/REPRODUCTION.md``

A paper's checks live in ``experiments/reproductions/<experiment>.py``: a module-level
``CHECKS`` list of functions ``(run: ReproductionRun) -> Check | list[Check]`` and, optionally,
``artifacts(run)`` that writes the paper's regenerated tables and figures.
"""

from harness.reproduction.checks import Check, exact, not_reproducible, ordered, trend, unavailable, within
from harness.reproduction.plan import ReproductionPlan, Sweep, load_plan, reproduction_names
from harness.reproduction.view import ReproductionRun

__all__ = [
    "Check",
    "ReproductionPlan",
    "ReproductionRun",
    "Sweep",
    "exact",
    "load_plan",
    "not_reproducible",
    "ordered",
    "reproduction_names",
    "trend",
    "unavailable",
    "within",
]
