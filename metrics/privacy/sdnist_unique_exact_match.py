"""``sdnist_unique_exact_match``: NIST SDNist v2.2's "unique exact matches" of a release.

Source: ``usnistgov/SDNist`` tag ``v2.2.0`` (commit ``6f04c34ea728ba291324c0e9ff51b97a6d411fcf``):
``sdnist/metrics/unique_exact_matches.py`` (``unique_exact_matches``), called by
``sdnist/report/score/privacy.py`` on ``Dataset.c_target_data`` / ``c_synthetic_data``: the
validated tables with DENSITY already binned (``bin_density`` rewrites them in place) and no
percentile bins. The report's ``report.json`` key ``unique_exact_matches`` holds the four numbers.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.sdnist_prepare import (
    SDNIST_VERSION,
    Prepared,
    check_dictionary_param,
    dictionary_for,
    prepare,
)

_NA_TOKEN = "\x00N"


class SDNistUniqueExactMatch(BaseMetric):
    """Target records unique in the target that appear exactly in the release (SDNist v2.2).

    A target record is *unique* when no other target record has the same values in every
    column; it is *matched* when the release holds a record with exactly its values. Columns
    and values as SDNist compares them (:mod:`metrics.fidelity.sdnist_prepare`): all the
    columns both tables have (but those the data-dictionary domain rule leaves out), coded
    columns with integer codes written as floats normalised, DENSITY in its log bins (a record
    whose DENSITY is in no bin is never unique), ``integer`` columns truncated to integers
    (SDNist's ``astype(int)``), ``continuous`` ones compared as numbers (SDNist keeps PINCP a
    float), missing = ``N`` equal to itself.

    Outputs (goal ``minimise``):

    ``count``
        Matched unique target records (``records matched in target data``).
    ``percent``
        ``round(100 · count / target records, 2)``: SDNist v2.2's ``percent records matched in
        target data`` as the CRC bundle 1.0 reports publish it.
    ``percent_of_unique``
        ``100 · count / unique target records``: the denominator SDNist v2.3 switched to
        ("Fix unique exact matches metric", commit ``30ef494``), unrounded; 0 without unique
        records.

    ``details``: ``unique_target_records`` and ``percent_unique_target_records`` (rounded to 2
    as SDNist), the columns, the left-out columns and their out-of-domain values.

    Parameters
    ----------
    data_dictionary : str or None
        ``auto`` (the bundled ACS dictionary for the NIST ACS excerpt datasets, none for
        others), null, or a JSON file in SDNist's data-dictionary layout: DENSITY's bins and the
        code domains of the out-of-domain rule.

    Notes
    -----
    Any dataset: every ``continuous``, ``integer``, ``categorical`` and ``ordinal`` column is
    compared; other kinds are not. On releases of the bundled ACS excerpts the three numbers
    equal SDNist v2.2.0's (``tests/unit/test_sdnist_unique_exact_match.py``). **Departures**
    from SDNist: those of :mod:`metrics.fidelity.sdnist_prepare` (without a data dictionary
    missing is ``N`` and no row is dropped; integer columns are rounded when the harness loads
    a release, SDNist truncates).
    """

    name: ClassVar[str] = "sdnist_unique_exact_match"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0

    def __init__(self, data_dictionary: str | None = "auto") -> None:
        self.data_dictionary = data_dictionary

    def _validate_params(self) -> None:
        check_dictionary_param(self.data_dictionary)

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
        if prep.n_target == 0:
            raise IncomputableMetricError(f"metric {self.name}: no target row without empty cells")
        if not prep.columns:
            raise IncomputableMetricError(
                f"metric {self.name}: no column to compare in dataset {spec.name!r}"
            )
        target = _tokens(prep, prep.target, spec)
        release = _tokens(prep, prep.release, spec)
        counts = target.value_counts(dropna=False)
        unique_rows = target[target.map(counts).to_numpy() == 1]
        unique_rows = unique_rows[
            unique_rows.notna()
        ]  # a DENSITY in no bin: never unique (groupby drops NaN)
        matched = int(unique_rows.isin(set(release.dropna())).sum())
        n_unique, n_target = len(unique_rows), prep.n_target
        details: dict[str, Any] = {
            "sdnist_version": SDNIST_VERSION,
            "unique_target_records": n_unique,
            "percent_unique_target_records": round(n_unique / n_target * 100, 2),
            "target_records": n_target,
            "columns": prep.columns,
            "dropped_columns": prep.dropped,
            "blank_rows": prep.blank_rows,
            "data_dictionary": prep.dictionary,
        }
        return {
            "count": MetricResult(value=matched, details=details),
            "percent": MetricResult(value=round(matched / n_target * 100, 2), details=details),
            "percent_of_unique": MetricResult(
                value=100.0 * matched / n_unique if n_unique else 0.0, details=details
            ),
        }


def _tokens(prep: Prepared, columns: dict[str, np.ndarray], spec: DatasetSpec) -> pd.Series:
    """One text key per record (NaN when its DENSITY is in no bin)."""
    parts: list[np.ndarray] = []
    incomplete = np.zeros(len(next(iter(columns.values()))), dtype=bool)
    for col in prep.columns:
        values = columns[col]
        if prep.kinds[col] == "coded":
            parts.append(values.astype(str))
            continue
        v = values.astype(np.float64)
        if prep.kinds[col] == "density":
            incomplete |= np.isnan(v)
        elif spec.kind(col) == "integer":
            v = np.trunc(v)
        text = np.where(np.isnan(v), _NA_TOKEN, (v + 0.0).astype(str))  # + 0.0: -0.0 -> 0.0
        parts.append(text)
    keys = pd.Series(["\x1f".join(row) for row in zip(*parts)], dtype=object)
    return keys.mask(incomplete)
