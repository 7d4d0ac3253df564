"""``outlier_linkage``: linkage attack on the training split's outliers.

Specification: ``spec/metrics.md`` P9 (after Trindade et al., "Synthetic Data Outliers:
Navigating Identity Disclosure", ``004_…`` §3; reproduction ``spec/reproductions.md`` §8).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec

#: The paper's QIs and Gauss parameters for Credit Risk (``004_…`` *Synthetic Data Outliers*, §3.2).
PAPER_DATASET = "credit_risk"
PAPER_NUMERIC_QIS: dict[str, dict[str, float]] = {
    "person_age": {"offset": 5.0, "scale": 5.0},
    "person_income": {"offset": 1000.0, "scale": 1000.0},
}
PAPER_CATEGORICAL_QIS: tuple[str, ...] = ("person_home_ownership", "loan_intent")
OUTLIER_RULES: tuple[str, ...] = ("any", "all")
NA_KEY = "\x00<NA>"

#: Outputs with a direction (lower is better); the rest are report-only counts.
_RISK_OUTPUTS: tuple[str, ...] = (
    "unique_match_rate",
    "n_unique_matches",
    "n_possible_matches",
    "all_records_unique_match_rate",
    "all_records_n_unique_matches",
    "all_records_n_possible_matches",
)


def wilson_interval(successes: int, trials: int, level: float) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (None without trials)."""
    if trials <= 0:
        return None
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def poisson_interval(count: int, level: float) -> tuple[float, float]:
    """Exact (Garwood) interval of a Poisson count."""
    alpha = 1 - level
    low = 0.0 if count == 0 else float(stats.chi2.ppf(alpha / 2, 2 * count)) / 2
    return low, float(stats.chi2.ppf(1 - alpha / 2, 2 * count + 2)) / 2


def _scaled(interval: tuple[float, float] | None, factor: int) -> tuple[float, float] | None:
    return None if interval is None else (interval[0] * factor, interval[1] * factor)


def gauss_similarity(delta: np.ndarray | float, offset: float, scale: float) -> np.ndarray:
    """The Gauss similarity of ``recordlinkage``'s numeric comparison.

    ``sim = 1`` if ``|Δ| <= offset``, else ``2^(−((|Δ| − offset)/scale)²)``: 0.5 at
    ``|Δ| = offset + scale``.

    Parameters
    ----------
    delta : array_like
        Differences between the compared values.
    offset : float
        Distance within which the similarity is 1 (>= 0).
    scale : float
        Distance beyond ``offset`` at which the similarity has dropped to 0.5 (> 0).

    Returns
    -------
    numpy.ndarray
        Similarities in [0, 1] (NaN differences give 0).
    """
    d = np.abs(np.asarray(delta, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        sim = np.where(d <= offset, 1.0, np.exp2(-(((d - offset) / scale) ** 2)))
    return np.where(np.isnan(d), 0.0, sim)


def match_tolerance(offset: float, scale: float, threshold: float) -> float:
    """Largest ``|Δ|`` whose Gauss similarity is at least ``threshold``.

    ``gauss_similarity(Δ) >= threshold`` ⇔ ``|Δ| <= offset + scale·sqrt(−log2(threshold))``
    (the interval test used instead of evaluating the similarity of every pair); for the
    paper's threshold 0.5 this is ``offset + scale``.

    Parameters
    ----------
    offset, scale : float
        Gauss parameters (see :func:`gauss_similarity`).
    threshold : float
        Similarity threshold in (0, 1].

    Returns
    -------
    float
    """
    return float(offset + scale * math.sqrt(-math.log2(threshold)))


@dataclass(frozen=True)
class _NumericQI:
    name: str
    offset: float
    scale: float
    tolerance: float


class OutlierLinkage(BaseMetric):
    """Possible and unique matches of T's outliers in the release (``spec/metrics.md`` P9).

    1. Outliers O: rows of the training split T with |z| > ``z`` on the numeric QIs, with T's
       mean and standard deviation (ddof = 1); ``outlier_rule`` ``any`` flags a row when one
       numeric QI is extreme (**Decision** of the spec: the paper's "multivariate outliers
       selection" is otherwise unspecified), ``all`` when every numeric QI is.
    2. A pair (o ∈ O, s ∈ S) is a *possible match* when every numeric QI has Gauss similarity
       (``recordlinkage``'s ``gauss`` method, see :func:`gauss_similarity`) of at least
       ``threshold`` and every categorical QI is equal (the paper's worst case: all QIs pass).
       For the paper's parameters this means |Δ person_age| <= 10 and
       |Δ person_income| <= 2,000.
    3. An outlier with exactly one possible match is a *unique match* (the paper's risk count).

    Outputs (result ``variant``; goal ``minimise`` unless noted):

    ``unique_match_rate``
        n_unique_matches / |O| (0 when T has no outliers: nothing can be linked; flagged by
        ``details["no_outliers"]``).
    ``n_unique_matches``, ``n_possible_matches``
        The paper's counts over O on all QIs (Figs. 5–6).
    ``numeric_qi_n_possible_matches``
        Possible matches of O on the numeric QIs only (the paper's Fig. 4, left: "4279
        possible matches" against 490 on all QIs).
    ``n_outliers``, ``n_outliers_synthetic`` (goal ``none``)
        |O|, and the S rows flagged with **T's** mean and standard deviation (Table 4;
        **Decision** of the spec).
    ``all_records_unique_match_rate``, ``all_records_n_unique_matches``, ``all_records_n_possible_matches``
        The same match counts with every row of T as a query (the spec's ``all_records``
        variant).

    Which QIs are used: ``numeric_qis`` / ``categorical_qis`` when given; otherwise, on the
    paper's dataset ``credit_risk``, the paper's QIs (``person_age`` offset = scale = 5,
    ``person_income`` offset = scale = 1,000; ``person_home_ownership``, ``loan_intent``); on
    any other dataset the active QI set: its ``continuous`` / ``integer`` columns as numeric QIs
    with offset = ``auto_offset_sd``·σ_T and scale = ``auto_scale_sd``·σ_T (**Decision**: the
    paper's two settings follow no rule that transfers to other columns; a quarter standard
    deviation each makes a match mean |Δ| <= σ_T/2 at threshold 0.5), and its ``categorical`` /
    ``ordinal`` columns as exact categorical QIs. Without a numeric QI no outlier can be defined
    and the metric raises :class:`IncomputableMetricError`.

    Missing values: a numeric NA is never an outlier and never matches (``recordlinkage``
    scores a missing comparison 0); a categorical NA is a category and matches NA.

    Computation: the pairs are blocked on the categorical QIs; within a block, S is sorted on
    the numeric QI with the narrowest candidate windows, each query takes its window
    [x − tol, x + tol] by binary search, and the candidate pairs (generated with ``numpy``
    in chunks of at most ``chunk_pairs``) are tested on the other numeric QIs. The cost is
    O((|O| + |S|) log |S| + candidate pairs); the |O| × |S| similarity matrix of the paper's
    ``recordlinkage`` run is never formed.

    Parameters
    ----------
    numeric_qis : mapping of str to {"offset": float, "scale": float}, or None
        Numeric QIs with their Gauss parameters (offset >= 0, scale > 0); None = automatic
        (see above).
    categorical_qis : list of str or None
        Categorical QIs compared exactly; ``[]`` = none; None = automatic.
    z : float
        z-score threshold of the outlier rule (> 0; paper 3).
    outlier_rule : {"any", "all"}
        ``any``: |z| > ``z`` on at least one numeric QI (spec default); ``all``: on every one.
    threshold : float
        Minimum Gauss similarity of a numeric QI, in (0, 1] (paper 0.5).
    auto_offset_sd, auto_scale_sd : float
        Offset and scale of automatically chosen numeric QIs, in units of T's standard
        deviation (offset >= 0, scale > 0).
    chunk_pairs : int
        Maximum candidate pairs tested at once (memory O(chunk_pairs)).
    confidence_level : float
        Level of the intervals: Wilson score intervals for the two rates (and the unique-match
        counts, scaled by their denominators |O| and |T|), exact Poisson (Garwood) intervals for
        the possible-match pair counts. With the handful of outliers a table of a few thousand
        rows has, they are wide: a difference of one outlier is not evidence.

    Notes
    -----
    Known-leakage ladder (:mod:`harness.ladder`): the outlier outputs order it within their
    intervals; the ``all_records`` unique-match outputs do not on tables with coarse QIs (see
    ``ladder_exempt``).
    """

    ladder_exempt: ClassVar[Mapping[str, str]] = {
        "all_records_*unique_match*": (
            "counts records of T with exactly one QI match in the release, which depends on the "
            "release's size and QI sparsity as much as on leakage: with German credit's coarse QIs a "
            "record of the raw data matches many of its near-twins (unique-match rate 0.08) while a "
            "smaller release of new individuals leaves more records with a single chance match (0.12)"
        ),
    }

    name: ClassVar[str] = "outlier_linkage"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf

    def __init__(
        self,
        numeric_qis: Mapping[str, Mapping[str, float]] | None = None,
        categorical_qis: Sequence[str] | None = None,
        z: float = 3.0,
        outlier_rule: str = "any",
        threshold: float = 0.5,
        auto_offset_sd: float = 0.25,
        auto_scale_sd: float = 0.25,
        chunk_pairs: int = 2_000_000,
        confidence_level: float = 0.95,
    ) -> None:
        self.numeric_qis = numeric_qis
        self.categorical_qis = categorical_qis
        self.z = z
        self.outlier_rule = outlier_rule
        self.threshold = threshold
        self.auto_offset_sd = auto_offset_sd
        self.auto_scale_sd = auto_scale_sd
        self.chunk_pairs = chunk_pairs
        self.confidence_level = confidence_level

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        if self.numeric_qis is not None:
            if not isinstance(self.numeric_qis, Mapping) or not self.numeric_qis:
                raise ConfigError(
                    "`numeric_qis` must be null or a non-empty mapping {column: {offset: ..., scale: ...}}; "
                    f"got {self.numeric_qis!r}"
                )
            for column, gauss in self.numeric_qis.items():
                _check_gauss(column, gauss)
        if self.categorical_qis is not None and (
            isinstance(self.categorical_qis, str)
            or not isinstance(self.categorical_qis, (list, tuple))
            or not all(isinstance(c, str) for c in self.categorical_qis)
        ):
            raise ConfigError(
                f"`categorical_qis` must be null or a list of column names; got {self.categorical_qis!r}"
            )
        _check_positive("z", self.z)
        check_choice("outlier_rule", self.outlier_rule, OUTLIER_RULES)
        if not _is_number(self.threshold) or not 0.0 < float(self.threshold) <= 1.0:
            raise ConfigError(f"`threshold` must be a number in (0, 1]; got {self.threshold!r}")
        _check_non_negative("auto_offset_sd", self.auto_offset_sd)
        _check_positive("auto_scale_sd", self.auto_scale_sd)
        check_int("chunk_pairs", self.chunk_pairs, 1)
        if not _is_number(self.confidence_level) or not 0.0 < float(self.confidence_level) < 1.0:
            raise ConfigError(f"`confidence_level` must be a number in (0, 1); got {self.confidence_level!r}")

    # ------------------------------------------------------------------ computation
    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        numeric, categorical, source = self._resolve_qis(real, spec)
        t_num = np.column_stack([_as_float(real[q.name]) for q in numeric])
        s_num = np.column_stack([_as_float(synthetic[q.name]) for q in numeric])
        t_key, s_key = _block_keys(real, synthetic, categorical)

        mean, std = _mean_std(t_num)
        t_flags = self._extreme(t_num, mean, std)
        s_flags = self._extreme(s_num, mean, std)
        t_outlier = t_flags.any(axis=1) if self.outlier_rule == "any" else t_flags.all(axis=1)
        s_outlier = s_flags.any(axis=1) if self.outlier_rule == "any" else s_flags.all(axis=1)
        outliers = np.flatnonzero(t_outlier)

        tolerances = np.array([q.tolerance for q in numeric])
        index = _SortedRelease(s_num, s_key, tolerances)
        on_outliers = index.count_matches(t_num[outliers], t_key[outliers], self.chunk_pairs)
        no_keys = np.zeros(len(outliers), dtype=np.int64)
        numeric_only = _SortedRelease(s_num, np.zeros(len(s_num), dtype=np.int64), tolerances)
        numeric_counts = numeric_only.count_matches(t_num[outliers], no_keys, self.chunk_pairs)
        on_all = index.count_matches(t_num, t_key, self.chunk_pairs)

        n_outliers = len(outliers)
        n_unique = int(np.count_nonzero(on_outliers == 1))
        n_unique_all = int(np.count_nonzero(on_all == 1))
        details: dict[str, Any] = {
            "qi_source": source,
            "numeric_qis": {q.name: {"offset": q.offset, "scale": q.scale} for q in numeric},
            "categorical_qis": list(categorical),
            "match_tolerance": {q.name: q.tolerance for q in numeric},
            "z": float(self.z),
            "outlier_rule": self.outlier_rule,
            "threshold": float(self.threshold),
            "mean": {q.name: _json_float(m) for q, m in zip(numeric, mean)},
            "std": {q.name: _json_float(s) for q, s in zip(numeric, std)},
            "n_outliers_per_qi": {q.name: int(t_flags[:, j].sum()) for j, q in enumerate(numeric)},
            "n_train": len(real),
            "n_synthetic": len(synthetic),
            "no_outliers": n_outliers == 0,
        }
        values: dict[str, float] = {
            "unique_match_rate": n_unique / n_outliers if n_outliers else 0.0,
            "n_unique_matches": n_unique,
            "n_possible_matches": int(on_outliers.sum()),
            "numeric_qi_n_possible_matches": int(numeric_counts.sum()),
            "n_outliers": n_outliers,
            "n_outliers_synthetic": int(np.count_nonzero(s_outlier)),
            "all_records_unique_match_rate": n_unique_all / len(real) if len(real) else 0.0,
            "all_records_n_unique_matches": n_unique_all,
            "all_records_n_possible_matches": int(on_all.sum()),
        }
        level = float(self.confidence_level)
        intervals: dict[str, tuple[float, float] | None] = {
            "unique_match_rate": wilson_interval(n_unique, n_outliers, level),
            "n_unique_matches": _scaled(wilson_interval(n_unique, n_outliers, level), n_outliers),
            "n_possible_matches": poisson_interval(int(on_outliers.sum()), level),
            "all_records_unique_match_rate": wilson_interval(n_unique_all, len(real), level),
            "all_records_n_unique_matches": _scaled(
                wilson_interval(n_unique_all, len(real), level), len(real)
            ),
            "all_records_n_possible_matches": poisson_interval(int(on_all.sum()), level),
        }
        out = {}
        for key, value in values.items():
            interval = intervals.get(key)
            out[key] = MetricResult(
                value=value,
                ci_low=None if interval is None else interval[0],
                ci_high=None if interval is None else interval[1],
                details=details,
                goal="minimise" if key in _RISK_OUTPUTS else "none",
            )
        return out

    # ------------------------------------------------------------------ helpers
    def _extreme(self, values: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
        """|z| > ``z`` per numeric QI (False for NA values and for constant or undefined σ)."""
        valid = np.isfinite(std) & (std > 0)
        safe_std = np.where(valid, std, 1.0)
        with np.errstate(invalid="ignore"):
            z = np.abs(values - mean) / safe_std
        return np.where(valid & ~np.isnan(z), z > float(self.z), False)

    def _resolve_qis(
        self, real: pd.DataFrame, spec: DatasetSpec
    ) -> tuple[list[_NumericQI], tuple[str, ...], str]:
        """The numeric QIs (with tolerances), the categorical QIs and where they came from."""
        paper = spec.name == PAPER_DATASET and all(
            c in real.columns for c in (*PAPER_NUMERIC_QIS, *PAPER_CATEGORICAL_QIS)
        )
        active = [c for c in spec.qi if c in real.columns]
        sources = []
        if self.numeric_qis is not None:
            gauss: dict[str, tuple[float, float]] = {
                c: (float(p["offset"]), float(p["scale"])) for c, p in self.numeric_qis.items()
            }
            sources.append("numeric: config")
        elif paper:
            gauss = {c: (p["offset"], p["scale"]) for c, p in PAPER_NUMERIC_QIS.items()}
            sources.append("numeric: paper (credit_risk)")
        else:
            gauss = {}
            for c in active:
                if spec.column(c).is_numeric:
                    sd = float(np.nanstd(_as_float(real[c]), ddof=1)) if real[c].notna().sum() > 1 else 0.0
                    sd = sd if math.isfinite(sd) else 0.0
                    gauss[c] = (float(self.auto_offset_sd) * sd, float(self.auto_scale_sd) * sd)
            sources.append("numeric: active QI set (offset, scale from T's standard deviation)")
        if self.categorical_qis is not None:
            categorical = tuple(self.categorical_qis)
            sources.append("categorical: config")
        elif paper:
            categorical = PAPER_CATEGORICAL_QIS
            sources.append("categorical: paper (credit_risk)")
        else:
            categorical = tuple(c for c in active if spec.column(c).is_categorical)
            sources.append("categorical: active QI set")

        if not gauss:
            raise IncomputableMetricError(
                f"metric outlier_linkage needs a numeric QI to define outliers; dataset {spec.name!r} "
                f"has none in its active QI set {list(spec.qi)} (set `numeric_qis`)"
            )
        for column in gauss:
            if column not in real.columns:
                raise ConfigError(f"`numeric_qis`: column {column!r} is not in dataset {spec.name!r}")
            if spec.kind(column) not in ("continuous", "integer"):
                raise ConfigError(
                    f"`numeric_qis`: column {column!r} must be continuous or integer; got {spec.kind(column)!r}"
                )
        for column in categorical:
            if column not in real.columns:
                raise ConfigError(f"`categorical_qis`: column {column!r} is not in dataset {spec.name!r}")
        numeric = [
            _NumericQI(c, off, sc, match_tolerance(off, sc, float(self.threshold)) if sc > 0 else off)
            for c, (off, sc) in gauss.items()
        ]
        return numeric, categorical, "; ".join(sources)


class _SortedRelease:
    """S sorted by (block key, one numeric QI) for window queries on that QI.

    The sort QI is the one whose windows hold the fewest candidate rows (estimated on S itself);
    rows of S with a missing sort value can never match and are left out.
    """

    def __init__(self, values: np.ndarray, keys: np.ndarray, tolerances: np.ndarray) -> None:
        self.values = values
        self.keys = keys
        self.tolerances = tolerances
        self.axis = self._choose_axis()
        col = values[:, self.axis]
        keep = np.flatnonzero(~np.isnan(col))
        order = keep[np.lexsort((col[keep], keys[keep]))]
        self.order = order
        # complex numbers sort lexicographically (real, then imaginary part): (key, value) pairs
        self.sorted = keys[order].astype(np.float64) + 1j * col[order]

    def _choose_axis(self) -> int:
        if self.values.shape[1] == 1 or len(self.values) == 0:
            return 0
        sizes = []
        for j in range(self.values.shape[1]):
            col = self.values[:, j]
            finite = np.sort(col[~np.isnan(col)])
            lo = np.searchsorted(finite, finite - self.tolerances[j], side="left")
            hi = np.searchsorted(finite, finite + self.tolerances[j], side="right")
            sizes.append(float(np.sum(hi - lo)))
        return int(np.argmin(sizes))

    def count_matches(self, query: np.ndarray, keys: np.ndarray, chunk_pairs: int) -> np.ndarray:
        """Number of S rows matching each query row (same key, every numeric QI within tolerance)."""
        counts = np.zeros(len(query), dtype=np.int64)
        x = query[:, self.axis]
        valid = np.flatnonzero(~np.isnan(x))
        if len(valid) == 0 or len(self.order) == 0:
            return counts
        key = keys[valid].astype(np.float64)
        tol = self.tolerances[self.axis]
        lo = np.searchsorted(self.sorted, key + 1j * (x[valid] - tol), side="left")
        hi = np.searchsorted(self.sorted, key + 1j * (x[valid] + tol), side="right")
        for rows, starts, lengths in _chunks(valid, lo, hi - lo, chunk_pairs):
            q = np.repeat(rows, lengths)
            offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            s = self.order[np.repeat(starts, lengths) + offsets]
            ok = keys[q] == self.keys[s]
            with np.errstate(invalid="ignore"):
                ok &= np.all(np.abs(query[q] - self.values[s]) <= self.tolerances, axis=1)
            counts += np.bincount(q[ok], minlength=len(query))
        return counts


def _chunks(
    rows: np.ndarray, starts: np.ndarray, lengths: np.ndarray, limit: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Split the queries into consecutive runs of at most ``limit`` candidate pairs (at least one query)."""
    total = np.cumsum(lengths)
    begin = 0
    while begin < len(rows):
        already = total[begin - 1] if begin else 0
        end = int(np.searchsorted(total, already + limit, side="right"))
        end = max(end, begin + 1)
        yield rows[begin:end], starts[begin:end], lengths[begin:end]
        begin = end


def _block_keys(
    real: pd.DataFrame, synthetic: pd.DataFrame, categorical: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Integer block key per row of T and S: equal keys ⇔ equal categorical QIs (NA = NA)."""
    if not categorical:
        return np.zeros(len(real), dtype=np.int64), np.zeros(len(synthetic), dtype=np.int64)
    both = pd.concat([_labels(real, categorical), _labels(synthetic, categorical)], ignore_index=True)
    codes = both.groupby(list(categorical), sort=False).ngroup().to_numpy(dtype=np.int64)
    return codes[: len(real)], codes[len(real) :]


def _labels(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {c: frame[c].astype(object).where(frame[c].notna(), NA_KEY).astype(str).to_numpy() for c in columns}
    )


def _mean_std(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column: mean and standard deviation (ddof = 1) of the non-missing values (NaN if too few)."""
    mean = np.full(values.shape[1], np.nan)
    std = np.full(values.shape[1], np.nan)
    for j in range(values.shape[1]):
        present = values[~np.isnan(values[:, j]), j]
        if present.size:
            mean[j] = present.mean()
        if present.size > 1:
            std[j] = present.std(ddof=1)
    return mean, std


def _as_float(col: pd.Series) -> np.ndarray:
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _check_gauss(column: Any, gauss: Any) -> None:
    if not isinstance(column, str) or not isinstance(gauss, Mapping) or set(gauss) != {"offset", "scale"}:
        raise ConfigError(
            f"`numeric_qis`: entry {column!r} must map to {{offset: number >= 0, scale: number > 0}}; got {gauss!r}"
        )
    off, sc = gauss["offset"], gauss["scale"]
    if not _is_number(off) or float(off) < 0:
        raise ConfigError(f"`numeric_qis.{column}.offset` must be a number >= 0; got {off!r}")
    if not _is_number(sc) or float(sc) <= 0:
        raise ConfigError(f"`numeric_qis.{column}.scale` must be a number > 0; got {sc!r}")


def _check_positive(name: str, value: Any) -> None:
    if not _is_number(value) or float(value) <= 0:
        raise ConfigError(f"`{name}` must be a number > 0; got {value!r}")


def _check_non_negative(name: str, value: Any) -> None:
    if not _is_number(value) or float(value) < 0:
        raise ConfigError(f"`{name}` must be a number >= 0; got {value!r}")


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(float(value))
    )


def _json_float(value: float) -> float | None:
    return float(value) if math.isfinite(float(value)) else None
