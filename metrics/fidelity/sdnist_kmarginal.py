"""``sdnist_kmarginal``: NIST SDNist v2.2's k-marginal score (0–1000) of a release.

Source: ``usnistgov/SDNist`` tag ``v2.2.0`` (commit ``6f04c34ea728ba291324c0e9ff51b97a6d411fcf``):
``sdnist/metrics/kmarginal.py`` (``KMarginal``), the tables it is given
(``sdnist/report/dataset/__init__.py``, ``binning.py``, ``transform.py``, ``validate.py``:
see :mod:`metrics.fidelity.sdnist_prepare`) and how the report calls it
(``sdnist/report/score/utility/__init__.py``: ``group_features = ["PUMA"]`` from
``sdnist/report/config.json``, the published score ``int(s.score)``). It is the score the
SDNist v2.2 reports of the NIST CRC data and metric bundle 1.0 publish as ``k_marginal_score``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_int
from harness.spec import DatasetSpec
from metrics.fidelity.sdnist_prepare import (
    PERCENTILE_BINS,
    SDNIST_VERSION,
    Prepared,
    check_dictionary_param,
    dictionary_for,
    percentile_bins,
    prepare,
)

SCALE = 500.0
MAX_DENSE_CELLS = 1 << 22
N_WORST = 10


def check_column_names(name: str, value: Any, *, allow_none: bool) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a list of column names (or None)."""
    if value is None and allow_none:
        return
    if (
        isinstance(value, str)
        or not isinstance(value, (list, tuple))
        or not all(isinstance(c, str) for c in value)
    ):
        raise ConfigError(f"`{name}` must be a list of column names; got {value!r}")


class SDNistKMarginal(BaseMetric):
    """SDNist v2.2's k-marginal score: 1000 minus 500 × the mean L1 distance of 3-marginals.

    Every column is coded as in :mod:`metrics.fidelity.sdnist_prepare`: numeric columns in
    ``percentile_bins`` percentile bins of the target (the release mapped by each bin's
    maximum, ``N`` = missing in its own bin), DENSITY in the data dictionary's log bins, every
    other column whole (integer codes written as floats normalised). The marginals are every
    pair ``(f1, f2)`` of the columns other than ``group_column`` and ``exclude_columns``,
    crossed with ``group_column``: SDNist's 3-marginals ``PUMA × f1 × f2``. For each, the
    densities are the cell counts over the table's rows (the whole target, the whole release)
    and the distance is ``Σ |d_T − d_S|`` over the union of cells (in [0, 2]). The score is
    ``(2 − mean distance) × 500``, truncated to an integer as SDNist publishes it
    (``int(score)``); ``details["score_unrounded"]`` holds the exact value.

    Outputs ``score`` (goal ``maximise``, range [0, 1000]). ``details``: the columns used and
    left out (out-of-domain release values), the coding of each column, the number of
    marginals, the mean distance, the ``N_WORST`` pairs with the largest distance and, with a
    group column, SDNist's per-group score (``KMarginal.scores``: per group, the distance within
    the group capped at the group's target density and rescaled by ``N / n_group``, averaged over
    the pairs, ``(1 − mean) × 1000``; the report's "score in each PUMA").

    Parameters
    ----------
    group_column : str or None
        The column every pair is crossed with (SDNist: ``PUMA``). When the tables lack it —
        SDNist on a release without PUMA — or it is null, the marginals are the plain pairs
        (2-marginals), as SDNist then scores them.
    exclude_columns : list of str
        Columns in no marginal (SDNist: ``INDP``, whose 269 codes ``INDP_CAT`` summarises).
    data_dictionary : str or None
        ``auto`` (the bundled ``nist_acs_excerpts/data_dictionary.json.gz`` for the NIST ACS
        excerpt datasets, none for others), null, or a JSON file in SDNist's data-dictionary
        layout. It gives DENSITY's bins and the code domains of the out-of-domain rule.
    percentile_bins : int
        Bins of a numeric column (SDNist: 20).

    Notes
    -----
    **Any dataset.** Numeric columns (``continuous``, ``integer``) get percentile bins, coded
    columns (``categorical``, ``ordinal``) stay whole, missing values are the ``N`` level;
    ``group_column`` defaults to PUMA and falls back to plain pairs where there is none.
    Other kinds (datetime) are not used. Fewer than two pair columns:
    :class:`IncomputableMetricError`.

    **Agreement.** On releases of the bundled MA / TX / national excerpts the score equals
    SDNist v2.2.0's own code to the last bits (``tests/unit/test_sdnist_kmarginal.py``).

    **Departures** from SDNist: those listed in :mod:`metrics.fidelity.sdnist_prepare`
    (missing numbers of N-less columns, integer columns rounded on load, fractional columns of
    non-ACS data not cast to int, only ``2.0``-style labels normalised); SDNist's sub-sample
    comparison table and worst-PUMA breakdown are not computed.
    """

    name: ClassVar[str] = "sdnist_kmarginal"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1000.0

    def __init__(
        self,
        group_column: str | None = "PUMA",
        exclude_columns: Sequence[str] = ("INDP",),
        data_dictionary: str | None = "auto",
        percentile_bins: int = PERCENTILE_BINS,
    ) -> None:
        self.group_column = group_column
        self.exclude_columns = exclude_columns
        self.data_dictionary = data_dictionary
        self.percentile_bins = percentile_bins

    def _validate_params(self) -> None:
        if self.group_column is not None and (
            not isinstance(self.group_column, str) or not self.group_column
        ):
            raise ConfigError(f"`group_column` must be null or a column name; got {self.group_column!r}")
        check_column_names("exclude_columns", self.exclude_columns, allow_none=False)
        check_dictionary_param(self.data_dictionary)
        check_int("percentile_bins", self.percentile_bins, 1)

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
        if len(real) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the training split is empty")
        dictionary, path = dictionary_for(self.data_dictionary, spec)
        prep = prepare(real, synthetic, spec, dictionary, path)
        if prep.n_target == 0 or prep.n_release == 0:
            raise IncomputableMetricError(
                f"metric {self.name}: no row without empty cells ({prep.blank_rows})"
            )
        group = self.group_column if self.group_column in prep.columns else None
        excluded = set(self.exclude_columns)
        pair_columns = sorted(c for c in prep.columns if c != group and c not in excluded)
        if len(pair_columns) < 2:
            raise IncomputableMetricError(
                f"metric {self.name}: marginals need two columns besides the group column and "
                f"{sorted(excluded)}; dataset {spec.name!r} has {pair_columns}"
            )
        codes_t, codes_s, levels, labels = self._codes(prep, [*([group] if group else []), *pair_columns])
        n_t, n_s = prep.n_target, prep.n_release
        pairs = list(combinations(pair_columns, 2))
        distances: list[float] = []
        group_sum = np.zeros(levels[group] if group else 0)
        for f1, f2 in pairs:
            cols = [group, f1, f2] if group else [f1, f2]
            shape = tuple(levels[c] for c in cols)
            distance, per_group = _distance(
                codes_t, codes_s, cols, shape, n_t, n_s, grouped=group is not None
            )
            distances.append(distance)
            group_sum += per_group
        mean = float(np.mean(distances))
        raw = (2.0 - mean) * SCALE
        details: dict[str, Any] = {
            "sdnist_version": SDNIST_VERSION,
            "score_unrounded": raw,
            "mean_distance": mean,
            "group_column": group,
            "n_marginals": len(pairs),
            "columns": pair_columns,
            "coding": {c: self._coding(prep, c) for c in prep.columns},
            "dropped_columns": prep.dropped,
            "blank_rows": prep.blank_rows,
            "data_dictionary": prep.dictionary,
            "worst_marginals": {
                "|".join(pairs[i]): distances[i]
                for i in np.argsort(-np.asarray(distances), kind="stable")[:N_WORST]
            },
        }
        if group:
            sizes = pd.Series(codes_t[group]).value_counts()
            details["group_scores"] = {
                labels[group][j]: float((1.0 - group_sum[j] * n_t / sizes[j] / len(pairs)) * 1000.0)
                for j in sorted(sizes.index, key=lambda j: labels[group][j])
                if j >= 0
            }
        return {"score": MetricResult(value=math.trunc(raw), details=details)}

    # ------------------------------------------------------------------ helpers
    def _codes(
        self, prep: Prepared, columns: list[str]
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, int], dict[str, list[str]]]:
        """Level codes of both tables per column (−1 = in no cell), level counts, level labels."""
        codes_t: dict[str, np.ndarray] = {}
        codes_s: dict[str, np.ndarray] = {}
        levels: dict[str, int] = {}
        labels: dict[str, list[str]] = {}
        for col in columns:
            t, s = prep.target[col], prep.release[col]
            if prep.kinds[col] == "numeric":
                t, s = percentile_bins(
                    t, s, integer_valued=prep.integer_valued[col], n_bins=int(self.percentile_bins)
                )
            both, uniques = pd.factorize(np.concatenate([t, s]), use_na_sentinel=True)
            codes_t[col], codes_s[col] = both[: len(t)], both[len(t) :]
            levels[col] = max(len(uniques), 1)
            labels[col] = [str(u) for u in uniques]
        return codes_t, codes_s, levels, labels

    @staticmethod
    def _coding(prep: Prepared, col: str) -> str:
        kind = prep.kinds[col]
        if kind == "numeric":
            return "percentile bins" + (" (int)" if prep.integer_valued[col] else "")
        return {"density": "DENSITY log bins", "coded": "codes"}[kind]


def _distance(
    codes_t: dict[str, np.ndarray],
    codes_s: dict[str, np.ndarray],
    cols: list[str],
    shape: tuple[int, ...],
    n_t: int,
    n_s: int,
    *,
    grouped: bool,
) -> tuple[float, np.ndarray]:
    """``Σ |d_T − d_S|`` of one marginal (densities = cell count / all rows; a row with a −1
    code is in no cell) and, when ``grouped`` (first column = group), per group
    ``min(Σ d_T, Σ |d_T − d_S|)`` over the group's cells (SDNist's capped group distance)."""
    key_t, key_s = _cell_keys(codes_t, cols, shape), _cell_keys(codes_s, cols, shape)
    cells = math.prod(shape)
    if cells <= MAX_DENSE_CELLS:
        p_t = np.bincount(key_t, minlength=cells) / n_t
        p_s = np.bincount(key_s, minlength=cells) / n_s
        cell_ids = np.arange(cells)
    else:  # sparse: only the cells either table fills
        cell_ids, inverse = np.unique(np.concatenate([key_t, key_s]), return_inverse=True)
        inverse = inverse.reshape(-1)
        p_t = np.bincount(inverse[: len(key_t)], minlength=len(cell_ids)) / n_t
        p_s = np.bincount(inverse[len(key_t) :], minlength=len(cell_ids)) / n_s
    diff = np.abs(p_t - p_s)
    if not grouped:
        return float(diff.sum()), np.zeros(0)
    group_of_cell = cell_ids // (cells // shape[0])
    d_g = np.bincount(group_of_cell, weights=diff, minlength=shape[0])
    t_g = np.bincount(group_of_cell, weights=p_t, minlength=shape[0])
    return float(diff.sum()), np.minimum(t_g, d_g)


def _cell_keys(codes: dict[str, np.ndarray], cols: list[str], shape: tuple[int, ...]) -> np.ndarray:
    """Mixed-radix cell number of every row that is in a cell (no −1 code)."""
    stacked = np.stack([codes[c] for c in cols], axis=1)
    stacked = stacked[(stacked >= 0).all(axis=1)].astype(np.int64)
    key = stacked[:, 0].copy()
    for j in range(1, len(cols)):
        key = key * shape[j] + stacked[:, j]
    return key
