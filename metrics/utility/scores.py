"""Test-set scores of the ML-utility metrics (``spec/metrics.md`` U1).

Classification scores take the true labels of the test rows, the predicted labels, the
predicted probabilities (columns in the order of the model's classes) and the classes of the
test split; regression scores take true and predicted values. Labels are strings.

========================  ==========================================================  =========
score                     definition                                                  goal
========================  ==========================================================  =========
``roc_auc``               binary: AUC of the positive class's probability;            maximise
                          multiclass: macro one-vs-rest AUC
``roc_auc_reference``     ``roc_auc_score(y, predicted_labels, max_fpr=0.001)`` (the  maximise
                          ``000_…`` reference code's McClish partial AUC; binary)
``f1``                    binary: F1 of the positive class; multiclass: macro F1      maximise
``f1_macro``              macro F1 over the test split's classes                      maximise
``accuracy``              share of correct predictions                                maximise
``balanced_accuracy``     mean recall over the test split's classes                   maximise
``g_mean``                geometric mean of the per-class recalls                     maximise
``r2``                    coefficient of determination                                maximise
``rmse``                  root mean squared error                                     minimise
========================  ==========================================================  =========
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.metrics import f1_score, r2_score, roc_auc_score

CLASSIFICATION_SCORES: tuple[str, ...] = (
    "roc_auc",
    "f1_macro",
    "f1",
    "accuracy",
    "balanced_accuracy",
    "g_mean",
)
REGRESSION_SCORES: tuple[str, ...] = ("r2", "rmse")
SCORES: tuple[str, ...] = CLASSIFICATION_SCORES + REGRESSION_SCORES
MINIMISED: frozenset[str] = frozenset({"rmse"})
"""Scores for which lower is better."""
REFERENCE_MAX_FPR = 0.001
"""``max_fpr`` of the ``000_…`` reference code's partial AUC."""


def score_goal(score: str) -> str:
    """``"minimise"`` for error scores (``rmse``), else ``"maximise"``."""
    return "minimise" if score in MINIMISED else "maximise"


def roc_auc(
    y_true: np.ndarray, proba: np.ndarray, model_classes: Sequence[str], classes: Sequence[str]
) -> float:
    """ROC AUC from predicted probabilities.

    Parameters
    ----------
    y_true : ndarray of str
        True labels of the test rows.
    proba : ndarray of shape (n, len(model_classes))
        Predicted probabilities, one column per class the model knows.
    model_classes : sequence of str
        The model's classes (columns of ``proba``).
    classes : sequence of str
        The test split's classes; with two, ``classes[1]`` is the positive class. A class the
        model never saw gets a constant score 0.

    Returns
    -------
    float
        Binary AUC of the positive class, or the macro one-vs-rest AUC.
    """
    column = {c: i for i, c in enumerate(model_classes)}

    def score(label: str) -> np.ndarray:
        return proba[:, column[label]] if label in column else np.zeros(len(y_true))

    if len(classes) == 2:
        return float(roc_auc_score(y_true == classes[1], score(classes[1])))
    return float(np.mean([roc_auc_score(y_true == c, score(c)) for c in classes]))


def roc_auc_reference(y_true: np.ndarray, y_pred: np.ndarray, classes: Sequence[str]) -> float:
    """The ``000_…`` reference code's AUC: ``roc_auc_score(y, labels, max_fpr=0.001)``.

    A McClish-standardised partial AUC computed from hard labels (``spec/metrics.md`` U1,
    ``carvalho2024`` step 4, reference quirk). Binary only.
    """
    positive = classes[1]
    return float(
        roc_auc_score(y_true == positive, (y_pred == positive).astype(float), max_fpr=REFERENCE_MAX_FPR)
    )


def per_class_recall(y_true: np.ndarray, y_pred: np.ndarray, classes: Sequence[str]) -> np.ndarray:
    """Recall of every class of ``classes`` (0 for a class absent from ``y_true``)."""
    out = np.zeros(len(classes))
    for i, c in enumerate(classes):
        mask = y_true == c
        out[i] = float(np.mean(y_pred[mask] == c)) if mask.any() else 0.0
    return out


def g_mean(y_true: np.ndarray, y_pred: np.ndarray, classes: Sequence[str]) -> float:
    """Geometric mean of the per-class recalls (binary: √(sensitivity · specificity)).

    As ``imblearn.metrics.geometric_mean_score`` (default ``average="multiclass"``): 0 when
    some class of the test split is never predicted correctly.
    """
    recalls = per_class_recall(y_true, y_pred, classes)
    if np.any(recalls == 0):
        return 0.0
    return float(np.exp(np.mean(np.log(recalls))))


def classification_score(
    score: str,
    y_true: np.ndarray,
    y_pred: np.ndarray,
    proba: np.ndarray,
    model_classes: Sequence[str],
    classes: Sequence[str],
    *,
    auc_variant: str = "proba",
) -> float:
    """One classification score of the module table.

    Parameters
    ----------
    score : str
        One of :data:`CLASSIFICATION_SCORES`.
    y_true, y_pred : ndarray of str
        True and predicted labels.
    proba : ndarray
        Predicted probabilities (columns: ``model_classes``).
    model_classes, classes : sequence of str
        The model's classes and the test split's classes (``classes[1]`` is the positive
        class of a binary task).
    auc_variant : {"proba", "reference"}
        ``roc_auc`` from probabilities, or the reference code's partial AUC from labels.

    Returns
    -------
    float
    """
    labels = list(classes)
    binary = len(labels) == 2
    if score == "roc_auc":
        if auc_variant == "reference":
            return roc_auc_reference(y_true, y_pred, labels)
        return roc_auc(y_true, proba, model_classes, labels)
    if score == "accuracy":
        return float(np.mean(y_true == y_pred))
    if score == "balanced_accuracy":
        return float(np.mean(per_class_recall(y_true, y_pred, labels)))
    if score == "g_mean":
        return g_mean(y_true, y_pred, labels)
    if score == "f1" and binary:
        return float(f1_score(y_true, y_pred, pos_label=labels[1], average="binary", zero_division=0))
    if score in ("f1", "f1_macro"):
        return float(f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0))
    raise ValueError(f"unknown classification score {score!r}")


def regression_score(score: str, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """``r2`` or ``rmse`` of numeric predictions."""
    if score == "r2":
        return float(r2_score(y_true, y_pred))
    if score == "rmse":
        return float(np.sqrt(np.mean((np.asarray(y_true, float) - np.asarray(y_pred, float)) ** 2)))
    raise ValueError(f"unknown regression score {score!r}")
