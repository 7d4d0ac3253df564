"""Published numbers of Francis, *A Comparison of SynDiffix Multi-table Versus Single-table Synthetic
Data* (PSD 2024, seed file ``004_11bf2d8ef797d821.txt``), Tables 2-4 (verbatim), used by
:mod:`experiments.reproductions.syndiffix_2024`.
"""

from __future__ import annotations

from dataclasses import dataclass

SDX, CTGAN, TRIVIAL = "syndiffix", "sdv_ctgan", "independent_marginals"
GENERATORS = (SDX, CTGAN)
LABELS = {SDX: "sdx-single", CTGAN: "CTGAN", TRIVIAL: "independent marginals"}


@dataclass(frozen=True)
class PaperRow:
    """One technique's row of Tables 2–4 (verbatim)."""

    fm_count: int
    fm_pct: float
    pi_median: float
    pi_max: float
    coverage: float
    qi_count: float
    uni_n: int
    uni_median: float
    corr_n: int
    corr_median: float
    km_score: float
    pmse: float
    pca_ks: float
    inconsistencies: int


PAPER = {
    SDX: PaperRow(4, 0.01, -0.34, 0.03, 0.042, 1131.0, 510, 8.0, 190, 0.0117, 801, 0.0859, 0.0272, 481),
    CTGAN: PaperRow(0, 0.00, -0.59, 0.47, 0.030, 811.0, 502, 18.1, 190, 0.0383, 699, 0.0649, 0.0394, 5299),
}
PAPER_MULTI = PaperRow(4, 0.01, -0.31, 0.11, 0.031, 840.0, 499, 0.3, 190, 0.0003, 956, 0.0010, 0.0272, 12)
MULTI_REASON = (
    "SynDiffix multi-table (455 tables, ~4 h in the paper) is not run: harness metrics read one released "
    "table, SDNIST-multi measures each statistic on the table with exactly its columns. Testing it needs a "
    "per-measure table selection in the metrics"
)
OTHERS_REASON = (
    "the other 14 techniques' releases (the SDNIST archive: Aindo, Anonos, MostlyAI, YData, mwem-pgm, AIM, "
    "Pategan, Genetic, Sarus, CART, K6-Anon, PRAM, SMOTE, Sample40) are not vendored; testing it needs those "
    "releases (or runs of the open ones) and SynDiffix multi-table"
)
