"""The published numbers of R-UMAP (``spec/reproductions.md`` §3.3; seed paper ``002_…`` Tables 2-6).

Copied verbatim from the paper (``002_c8ae6a68da26419b.txt``): every value is the mean ± sd
printed there (two decimals), every p-value the Holm-adjusted Wilcoxon p-value with its
significance flag. The paper averages over eight datasets, two of which (Credit Card and
Cover Type) are not available offline (§3.1).
"""

from __future__ import annotations

from typing import Final

#: Our generator names -> the paper's labels, in the paper's row order.
GENERATORS: Final[dict[str, str]] = {
    "sdv_gaussian_copula": "GC",
    "sdv_ctgan": "CTGAN",
    "sdv_tvae": "TVAE",
    "smotenc": "SMOTE-NC",
    "umap_smotenc": "UMAP-SMOTENC",
}
CONTROL: Final = "umap_smotenc"
"""The control of Tables 3 and 5 (Wilcoxon–Holm vs UMAP-SMOTENC)."""
TEST_BASELINE: Final = "Test Set Baseline"
"""Table 6's baseline row: the test fold as the query set of ``dcr_nndr``."""
ORIGINAL: Final = "Original Train Set"
"""Table 4's last row: the classifiers trained on the real training folds (TRTR)."""

#: ``ml_efficacy`` classifier names -> the paper's column labels (Table 4 order).
CLASSIFIERS: Final[dict[str, str]] = {
    "logistic_regression": "LR",
    "naive_bayes": "NB",
    "decision_tree": "DT",
    "random_forest": "RF",
    "xgboost": "XGB",
    "mlp": "MLP",
}
#: ``dcr_nndr`` outputs -> Table 6 column labels.
PRIVACY: Final[dict[str, str]] = {
    "dcr_mean": "Mean 1st NN",
    "nndr_mean": "Mean Ratio 1st and 2nd NN's",
    "ratio_1_10_mean": "Mean Ratio 1st and 10th NN's",
}

#: Table 2: mean rank of the trade-off score (mean, sd).
TABLE2: Final[dict[str, tuple[float, float]]] = {
    "GC": (4.45, 0.46),
    "CTGAN": (2.69, 0.60),
    "TVAE": (2.76, 0.54),
    "SMOTE-NC": (3.86, 0.44),
    "UMAP-SMOTENC": (1.23, 0.24),
}
TABLE2_FRIEDMAN_P: Final = 4.6e-04

#: Table 3: mean trade-off score (mean, sd) and the Holm p-value vs UMAP-SMOTENC (None = control).
TABLE3: Final[dict[str, tuple[float, float, float | None]]] = {
    "GC": (0.24, 0.11, 3.1e-02),
    "CTGAN": (0.63, 0.09, 3.1e-02),
    "TVAE": (0.63, 0.11, 3.1e-02),
    "SMOTE-NC": (0.47, 0.00, 3.1e-02),
    "UMAP-SMOTENC": (0.83, 0.02, None),
}
IMPROVEMENT_TEXT: Final = (
    '"UMAP-SMOTENC outperforms even these methods significantly, with an average improvement of '
    'around 30 % on the trade-off score" (§5.2; 0.83 vs 0.63 for CTGAN and TVAE)'
)

#: Table 4: mean F1 (macro for multiclass), (mean, sd) per classifier label.
TABLE4: Final[dict[str, dict[str, tuple[float, float]]]] = {
    "GC": {"LR": (0.39, 0.04), "NB": (0.29, 0.05), "DT": (0.37, 0.06), "RF": (0.33, 0.02),
           "XGB": (0.37, 0.04), "MLP": (0.35, 0.05)},
    "CTGAN": {"LR": (0.61, 0.04), "NB": (0.51, 0.02), "DT": (0.60, 0.05), "RF": (0.63, 0.04),
              "XGB": (0.63, 0.05), "MLP": (0.64, 0.04)},
    "TVAE": {"LR": (0.63, 0.09), "NB": (0.49, 0.03), "DT": (0.61, 0.08), "RF": (0.64, 0.09),
             "XGB": (0.66, 0.11), "MLP": (0.66, 0.12)},
    "SMOTE-NC": {"LR": (0.76, 0.03), "NB": (0.53, 0.01), "DT": (0.80, 0.02), "RF": (0.85, 0.02),
                 "XGB": (0.87, 0.01), "MLP": (0.83, 0.02)},
    "UMAP-SMOTENC": {"LR": (0.75, 0.02), "NB": (0.57, 0.02), "DT": (0.77, 0.05), "RF": (0.82, 0.02),
                     "XGB": (0.83, 0.02), "MLP": (0.81, 0.02)},
    ORIGINAL: {"LR": (0.75, 0.02), "NB": (0.53, 0.01), "DT": (0.83, 0.02), "RF": (0.87, 0.02),
               "XGB": (0.89, 0.01), "MLP": (0.85, 0.02)},
}  # fmt: skip

#: Table 5: Holm p-value and significance vs UMAP-SMOTENC per classifier label.
TABLE5: Final[dict[str, dict[str, tuple[float, bool]]]] = {
    "GC": {"LR": (3.1e-02, True), "NB": (1.6e-01, False), "DT": (3.1e-02, True), "RF": (3.1e-02, True),
           "XGB": (3.1e-02, True), "MLP": (3.1e-02, True)},
    "CTGAN": {"LR": (3.1e-02, True), "NB": (4.5e-01, False), "DT": (3.1e-02, True), "RF": (3.1e-02, True),
              "XGB": (3.1e-02, True), "MLP": (3.1e-02, True)},
    "TVAE": {"LR": (3.1e-02, True), "NB": (4.5e-01, False), "DT": (3.1e-02, True), "RF": (3.1e-02, True),
             "XGB": (3.1e-02, True), "MLP": (3.1e-02, True)},
    "SMOTE-NC": {"LR": (4.6e-01, False), "NB": (9.5e-01, False), "DT": (3.1e-02, True), "RF": (3.1e-02, True),
                 "XGB": (3.1e-02, True), "MLP": (3.1e-02, True)},
}  # fmt: skip

#: Table 6: mean privacy scores (mean, sd) per ``dcr_nndr`` output; all p = 3.9e-02 vs the baseline.
TABLE6: Final[dict[str, dict[str, tuple[float, float]]]] = {
    "GC": {"dcr_mean": (0.18, 0.00), "nndr_mean": (0.94, 0.00), "ratio_1_10_mean": (0.83, 0.00)},
    "CTGAN": {"dcr_mean": (0.18, 0.00), "nndr_mean": (0.92, 0.01), "ratio_1_10_mean": (0.79, 0.01)},
    "TVAE": {"dcr_mean": (0.11, 0.00), "nndr_mean": (0.89, 0.00), "ratio_1_10_mean": (0.72, 0.01)},
    "SMOTE-NC": {"dcr_mean": (0.03, 0.00), "nndr_mean": (0.52, 0.00), "ratio_1_10_mean": (0.24, 0.00)},
    "UMAP-SMOTENC": {"dcr_mean": (0.11, 0.00), "nndr_mean": (0.92, 0.00), "ratio_1_10_mean": (0.75, 0.00)},
    TEST_BASELINE: {"dcr_mean": (0.06, 0.00), "nndr_mean": (0.75, 0.00), "ratio_1_10_mean": (0.47, 0.00)},
}
TABLE6_P: Final = 3.9e-02

#: The two datasets of the paper that are not available offline (§4.1, Table 1).
UNAVAILABLE: Final[dict[str, str]] = {
    "credit-card": "Credit Card (Kaggle mlg-ulb/creditcardfraud, 284,807 rows, 30 numeric features)",
    "cover-type": "Cover Type (UCI Covertype, a 25,000-row stratified sample of 581,012 rows)",
}

#: Table 5's significant comparisons (Holm p = 3.1e-02) per baseline: the classifiers.
SIGNIFICANT: Final[dict[str, tuple[str, ...]]] = {
    label: tuple(clf for clf, (_, significant) in row.items() if significant) for label, row in TABLE5.items()
}
PAPER_DATASETS: Final = 8
"""Datasets behind every published mean and test (§4.1)."""
HOLM_COMPARISONS: Final[dict[str, int]] = {"table3": 4, "table5": 4, "table6": 5}
"""Wilcoxon comparisons Holm adjusts over: vs UMAP-SMOTENC (4 baselines), vs the test set (5 generators)."""

GC_NOTE: Final = (
    "GC here is SDV's current GaussianCopulaSynthesizer at its defaults, not the legacy sdv.tabular GaussianCopula "
    "the paper used"
)
"""Said in every claim about GC (spec §3.4: 'current Gaussian copula defaults differ, so GC values may shift most')."""
CATEGORICAL_DATASETS: Final = ("adult", "loan")
"""The datasets with categorical columns (spec §3.1); the other four are numeric-only."""
SPEC_TOLERANCE: Final = 0.05
"""spec §3.4: UMAP-SMOTENC's Table 6 means within ±0.05 (d₁ and the ratios) over 6 of the 8 datasets."""
TABLE3_SPEC: Final[dict[str, tuple[float | None, float | None]]] = {
    "UMAP-SMOTENC": (0.75, None),
    "GC": (None, 0.35),
}
"""spec §3.4: Table 3's UMAP-SMOTENC ≥ 0.75 and GC ≤ 0.35."""
