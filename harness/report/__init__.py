"""The report step: tables, figures and pages from the long results table.

Everything here is a pure function of the results DataFrame (DESIGN.md: nothing downstream
of the results table touches generator or metric objects). One module per concept:

``prepare``     derived columns (variant label, metric column, trial id and status)
``labels``      readable generator-variant labels
``goals``       metric goals: best values and oriented scores
``tables``      summary, failures, status, cost and throughput tables (numbers)
``settings``    what the comparisons compare (axes, control, baseline, blocks), with defaults
``ranking``     Friedman, Nemenyi CD, Wilcoxon–Holm on block matrices
``bayes``       win/draw/lose with a ROPE, Bayesian sign and signed-rank tests
``optimisation`` optimisation paths and the oracle
``defaults``    the only place naming concrete generators, metrics and scores (references, preferences)
``references``  reference generators marked and left out of comparisons; privacy clipped at the floor
``power``       the headline privacy axis: which output separates the raw data from new individuals
``tradeoff``    the paper trade-off score U6 (min–max over the compared methods; reproductions)
``score``       the report's trade-off score on a fixed scale per table
``comparisons`` the comparison tables of the report (ranks, control, baseline, oracle, paths)
``control``     the Wilcoxon–Holm table against a control (comparisons too few blocks to test left out)
``comparison_base`` what the comparison tables share (result type, skip signal, block matrices)
``comparison_section`` the "Comparisons" section and its figures (methods only, floored privacy)
``support``     paired tests of the verdict and the blocks that would settle a difference
``verdict``     the verdict at the top: Pareto-optimal methods, their support, what would settle it
``sections``    overview, results by family, calibration, headline axis, failures, cost sections
``provenance``  title, QI set and target, the configuration file
``tables_io``   writing a table's Markdown, CSV and LaTeX files
``formatting``  numbers → display text, best cells in bold
``render``      Markdown, LaTeX booktabs, HTML and CSV writers
``style``       the figure style
``figures``     privacy-utility scatter, per-family box plots, cost bars
``boxes``       box-and-strip panels (dots sampled above 200 trials per variant)
``pareto``      Pareto front and the per-variant privacy-utility scatter
``stat_figures`` critical-difference diagram, sign-test bars
``privacy_figures`` k-threshold curves, distances against the holdout
``audit``, ``audit_figures`` membership-inference audit tables, failure banner, ROC and ε figures
``document``    the page model, written as Markdown and HTML
``index``       :func:`build_report`, the entry point of ``privbench report``
"""

from harness.report.figures import (
    FigureOutcome,
    FigureSkipped,
    cost_bars,
    make_figures,
    metric_boxplots,
    privacy_utility_scatter,
)
from harness.report.index import build_report
from harness.report.render import DisplayTable, to_csv, to_html, to_latex, to_markdown
from harness.report.settings import ReportSettings, load_settings
from harness.report.tables import (
    cell_stats,
    cost_table,
    failures_table,
    status_counts,
    status_totals,
    summary_table,
    trial_costs,
)

__all__ = [
    "DisplayTable",
    "FigureOutcome",
    "FigureSkipped",
    "ReportSettings",
    "build_report",
    "cell_stats",
    "cost_bars",
    "cost_table",
    "failures_table",
    "load_settings",
    "make_figures",
    "metric_boxplots",
    "privacy_utility_scatter",
    "status_counts",
    "status_totals",
    "summary_table",
    "to_csv",
    "to_html",
    "to_latex",
    "to_markdown",
    "trial_costs",
]
