"""``statsmodels`` regression fits shared by ``ci_overlap`` and ``odds_ratio_preservation``.

Formulas use patsy syntax; a column whose name is not a Python identifier is written
``Q("marital-status")``. :func:`default_terms` builds the right-hand side from a covariate list
(numeric columns as they are, categorical ones as treatment contrasts against a fixed reference
level). ``logit`` models are fitted as a binomial GLM with a logit link (IRLS): the same
maximum-likelihood estimates and Wald intervals as ``statsmodels.Logit``, but a rank-deficient
design (a level absent from one table, collinear dummies) does not stop the fit. A logit fit
first collapses the rows into their distinct covariate-and-outcome patterns with frequency
weights (:func:`patterns`): the same likelihood, so the same estimates and intervals, without
patsy's per-row work on tables of 100,000 rows with few distinct patterns.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.spec import DatasetSpec

MODELS: tuple[str, ...] = ("auto", "logit", "ols")
_TERM_RE = re.compile(r'C\(Q\("((?:[^"\\]|\\.)*)"\), Treatment\(reference=.*?\)\)\[T\.(.*)\]')
_QUOTED_RE = re.compile(r'Q\("((?:[^"\\]|\\.)*)"\)')
_TREATMENT_RE = re.compile(r"Treatment\(reference=(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)")
_ONLY_OPERATORS_RE = re.compile(r"^[\s~+(),1]*$")


@dataclass(frozen=True)
class Fit:
    """Coefficients and confidence intervals of one fitted model.

    Attributes
    ----------
    params : Series
        Estimates by patsy term name.
    ci_low, ci_high : Series
        Interval ends, same index.
    n_used : int
        Rows used (after patsy dropped rows with missing values).
    """

    params: pd.Series
    ci_low: pd.Series
    ci_high: pd.Series
    n_used: int


def quote(column: str) -> str:
    """The patsy reference to ``column`` (``Q("name")``)."""
    return 'Q("' + column.replace("\\", "\\\\").replace('"', '\\"') + '")'


def categorical_term(column: str, reference: str) -> str:
    """Treatment-coded categorical term of ``column`` against ``reference``."""
    return f"C({quote(column)}, Treatment(reference={reference!r}))"


def level_term(column: str, reference: str, level: str) -> str:
    """The patsy coefficient name of ``level`` in :func:`categorical_term` ``(column, reference)``."""
    return f"{categorical_term(column, reference)}[T.{level}]"


def pretty(term: str) -> str:
    """A readable coefficient name: ``col=level`` for a treatment dummy, ``col`` for a quoted column."""
    term = _TERM_RE.sub(lambda m: f"{m.group(1)}={m.group(2)}", term)
    return _QUOTED_RE.sub(lambda m: m.group(1), term)


def is_numeric(spec: DatasetSpec, column: str, as_numeric: Sequence[str] = ()) -> bool:
    """True for ``continuous`` / ``integer`` columns and those listed in ``as_numeric``."""
    kinds = {c.name: c for c in spec.columns}
    return column in as_numeric or (column in kinds and kinds[column].is_numeric)


def modal_level(values: pd.Series) -> str | None:
    """Most frequent non-missing value as a string (ties: the smallest string); None if all missing."""
    counts = values.dropna().astype(str).value_counts()
    if counts.empty:
        return None
    top = counts.max()
    return min(str(v) for v, n in counts.items() if n == top)


def prepare(
    frame: pd.DataFrame, spec: DatasetSpec, columns: Sequence[str], as_numeric: Sequence[str] = ()
) -> pd.DataFrame:
    """``frame`` with numeric ``columns`` as float64 and the others as strings (NA kept)."""
    out = frame.copy()
    for column in columns:
        col = out[column]
        if is_numeric(spec, column, as_numeric):
            out[column] = pd.to_numeric(col, errors="coerce").astype("float64")
        else:
            obj = col.astype(object)
            out[column] = obj.where(obj.isna(), obj.astype(str)).astype(object)
    return out


def default_terms(
    data: pd.DataFrame,
    spec: DatasetSpec,
    covariates: Sequence[str],
    references: Mapping[str, str],
    as_numeric: Sequence[str] = (),
) -> list[str]:
    """Right-hand-side terms: ``Q(col)`` for numeric covariates, treatment contrasts otherwise.

    A categorical covariate with a single level in ``data`` is left out (it has no contrast).
    """
    terms = []
    for column in covariates:
        if is_numeric(spec, column, as_numeric):
            terms.append(quote(column))
        elif data[column].dropna().nunique() > 1:
            terms.append(categorical_term(column, references[column]))
    return terms


def fit(formula: str, data: pd.DataFrame, model: str, *, level: float = 0.95) -> Fit:
    """Fit ``formula`` on ``data`` with ``model`` (``logit`` or ``ols``) and return its CIs.

    Parameters
    ----------
    formula : str
        Patsy formula; for ``logit`` the left-hand side must be 0/1.
    data : DataFrame
    model : {"logit", "ols"}
    level : float
        Confidence level of the Wald intervals.

    Returns
    -------
    Fit

    Raises
    ------
    ValueError
        If patsy or statsmodels cannot build or fit the model (no rows, unknown level...).
    """
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    weights = None
    if model == "logit":
        data, weights = patterns(formula, data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if model == "logit":
                result = smf.glm(formula, data, family=sm.families.Binomial(), freq_weights=weights).fit()
            else:
                result = smf.ols(formula, data).fit()
            ci = result.conf_int(alpha=1.0 - level)
        except Exception as exc:  # patsy / statsmodels / numpy errors of one model fit
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ValueError(f"{model} fit of {formula!r} failed: {first}") from None
    params = pd.Series(np.asarray(result.params, dtype=float), index=list(result.params.index))
    return Fit(
        params=params,
        ci_low=pd.Series(np.asarray(ci.iloc[:, 0], dtype=float), index=params.index),
        ci_high=pd.Series(np.asarray(ci.iloc[:, 1], dtype=float), index=params.index),
        n_used=int(round(float(np.sum(weights)))) if weights is not None else int(result.nobs),
    )


def patterns(formula: str, data: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The distinct rows of the formula's columns and their counts (frequency weights).

    Rows with a missing value in a formula column are dropped (as patsy would drop them). The
    binomial likelihood of the collapsed table with frequency weights equals the full table's.
    Returns ``(data, None)`` unchanged unless every variable of the formula is a ``Q("…")``
    reference (as :func:`quote` writes them) and collapsing shrinks the table.
    """
    rest = _TREATMENT_RE.sub("", _QUOTED_RE.sub("", formula)).replace("C(", "")
    if not _ONLY_OPERATORS_RE.match(rest):
        return data, None
    names = list(dict.fromkeys(_unquote(m) for m in _QUOTED_RE.findall(formula)))
    if not names or any(name not in data.columns for name in names):
        return data, None
    counts = data[names].groupby(names, dropna=True, observed=True, sort=True).size()
    if len(counts) >= len(data):
        return data, None
    collapsed = counts.index.to_frame(index=False)
    for name in names:
        collapsed[name] = collapsed[name].astype(data[name].dtype)
    return collapsed, counts.to_numpy(dtype=np.float64)


def _unquote(text: str) -> str:
    """Inverse of the escaping in :func:`quote`."""
    return re.sub(r"\\(.)", r"\1", text)


def finite(*values: float) -> bool:
    """True when every value is a finite number."""
    return all(v is not None and math.isfinite(v) for v in values)
