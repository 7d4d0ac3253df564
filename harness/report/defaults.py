"""The report's defaults that name concrete generators, metrics or scores: the only such place.

The report's framework code never names a generator or a metric; what it needs to know about
them by name is declared here, and each entry can be replaced by a report setting
(:mod:`harness.report.settings`: ``report.yaml`` or the ``privbench report`` flags).

``DEFAULT_REFERENCES``
    Generators whose releases are *references*, not methods under comparison: ``identity``
    releases the training rows as they are (the most a release can leak) and ``real_holdout``
    releases rows of the control split (new individuals: nothing of the training rows). Their
    rows are shown in every table, marked "(reference)", and never bolded, ranked, put on a
    Pareto front, tested or used to scale a score. Setting ``references: [...]`` in
    ``report.yaml`` replaces the list (add your own, e.g. a published release you compare
    against).
``PRIVACY_PREFERENCES``
    Preferred headline privacy outputs, first to last, when several separate the raw data from
    new individuals on a table (:mod:`harness.report.power`).
``TRIVIAL_SCORES``
    The score of a constant predictor, by utility score name (the part after ``:`` of an
    ``ml_efficacy``-style variant): the bottom of the trade-off score's utility scale
    (:mod:`harness.report.score`). A metric can also report it per row as
    ``details.trivial_score`` (e.g. the majority rate for accuracy); a score named in neither
    place starts its scale at 0.
"""

from __future__ import annotations

DEFAULT_REFERENCES: tuple[str, ...] = ("identity", "real_holdout")
PRIVACY_PREFERENCES: tuple[str, ...] = ("anonymeter_linkability", "dcr_nndr/dcr_mean")
TRIVIAL_SCORES: dict[str, float] = {
    "roc_auc": 0.5,  # a constant score ranks no positive above a negative: AUC 0.5
    "auc": 0.5,
    "r2": 0.0,  # predicting the mean
}
TRIVIAL_DETAIL_KEY = "trivial_score"

__all__ = [
    "DEFAULT_REFERENCES",
    "PRIVACY_PREFERENCES",
    "TRIVIAL_DETAIL_KEY",
    "TRIVIAL_SCORES",
]
