"""The released table of a generalising anonymiser and what it reports.

The anonymisers compute generalised *labels* (``"[20, 25)"``, ``"15-19"``, hierarchy labels,
``Other``, ``*``) for the QI columns. The released table must keep the spec's dtypes
(``spec/generators.md`` §1.2, ``harness.dtypes``), so:

* numeric columns release :func:`~generators.kanon.hierarchies.decode_numeric` of their
  labels: an ungeneralised value itself, an interval its lower bound (``decode: lower``,
  default) or midpoint (``decode: midpoint``; integer columns are then rounded half to even
  by ``conform``), ``*`` and other non-numeric labels NaN;
* datetime columns release the first day of the truncated period (``*`` → NaT);
* categorical and ordinal columns release the labels themselves;
* columns the anonymiser did not touch are released unchanged, dropped columns all-missing.

The raw labels go to the ``generalised`` artifact (row-aligned with the release) and each
released row's training row, class size and re-identification probability ``1/|EC|`` to the
``reid`` artifact. Decoding is a function of the label, so the decoded release's equivalence
classes are unions of the labelled ones: it is at least as anonymous.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.kanon.equivalence import class_sizes, summarise
from generators.kanon.hierarchies import DECODE_MODES, decode_datetime, decode_numeric
from harness.errors import ConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.spec import DatasetSpec


def build_release(
    train: pd.DataFrame,
    spec: DatasetSpec,
    labels: Mapping[str, np.ndarray],
    rows: np.ndarray,
    *,
    decode: str = "lower",
    dropped: Sequence[str] = (),
) -> pd.DataFrame:
    """The released table: training rows ``rows`` with the labelled columns decoded.

    Parameters
    ----------
    train : DataFrame
        The training table.
    spec : DatasetSpec
    labels : mapping of str to ndarray
        Row-aligned (with ``train``) labels of the generalised columns.
    rows : ndarray of int
        Training rows to release (suppressed rows left out), in order.
    decode : {"lower", "midpoint"}
        How numeric interval labels are released.
    dropped : sequence of str
        Columns released all-missing.
    """
    out: dict[str, Any] = {}
    for col in spec.table_columns:
        kind = spec.kind(col)
        if col in dropped:
            out[col] = (
                pd.Series(pd.NaT, index=range(len(rows)), dtype="datetime64[ns]")
                if kind == "datetime"
                else np.full(len(rows), np.nan, dtype=float if kind in ("continuous", "integer") else object)
            )
        elif col in labels:
            lab = np.asarray(labels[col], dtype=object)[rows]
            if kind in ("continuous", "integer"):
                out[col] = decode_numeric(lab, decode)
            elif kind == "datetime":
                out[col] = decode_datetime(lab).to_numpy()
            else:
                out[col] = lab
        else:
            out[col] = train[col].to_numpy()[rows]
    return pd.DataFrame(out, index=pd.RangeIndex(len(rows)))


class GeneralisingGenerator(BaseGenerator):
    """Shared behaviour of the k-anonymity generators (``kanon_fulldomain``, ``mondrian``,
    ``data_anonymizer``): the release is computed in ``fit``; ``sample()`` returns it.

    Subclasses call :meth:`_publish` at the end of ``_fit``.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        releases_original_records=True,
        needs_qi=True,
        generalised_output=True,
        fixed_size=True,
        randomised=False,
    )
    decode: str

    # ------------------------------------------------------------------ hooks
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.release_.copy(deep=True)

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return len(self.release_) if n_rows is None else n_rows

    def details(self) -> dict[str, Any]:
        """k-anonymity profile, suppression, information loss and method-specific fields."""
        return dict(getattr(self, "details_", {}))

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``generalised`` (raw released labels) and ``reid`` (per-record 1/|EC|)."""
        if not hasattr(self, "generalised_"):
            return {}
        return {"generalised": self.generalised_.copy(), "reid": self.reid_.copy()}

    def decode_numeric(self, labels: Any) -> np.ndarray:
        """Numbers for released labels with this generator's ``decode`` rule (§1.2 rule 6)."""
        return decode_numeric(labels, self.decode)

    # ------------------------------------------------------------------ helpers
    def _validate_decode(self) -> None:
        if self.decode not in DECODE_MODES:
            raise ConfigError(
                f"`decode` must be one of {', '.join(map(repr, DECODE_MODES))}; got {self.decode!r}"
            )

    def _publish(
        self,
        train: pd.DataFrame,
        qi: Sequence[str],
        labels: Mapping[str, np.ndarray],
        keep: np.ndarray,
        *,
        dropped: Sequence[str] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Build ``release_``, ``generalised_``, ``reid_`` and ``details_``.

        Parameters
        ----------
        train : DataFrame
        qi : sequence of str
            The QI set; ``labels`` must hold all of them.
        labels : mapping of str to ndarray
            Row-aligned labels of the generalised columns.
        keep : ndarray of bool
            Training rows that are released (False = suppressed row).
        dropped : sequence of str
            Columns released all-missing.
        extra : mapping, optional
            Method-specific details.
        """
        rows = np.flatnonzero(keep)
        self.release_ = build_release(train, self.spec_, labels, rows, decode=self.decode, dropped=dropped)
        ordered = [*qi, *(c for c in labels if c not in qi)]
        self.generalised_ = pd.DataFrame(
            {c: pd.Series(np.asarray(labels[c], dtype=object)[rows], dtype=object) for c in ordered},
            index=pd.RangeIndex(len(rows)),
        )
        sizes = class_sizes([self.generalised_[c].to_numpy() for c in qi]) if len(rows) else np.zeros(0, int)
        self.reid_ = pd.DataFrame(
            {"source_row": rows.astype(np.int64), "ec_size": sizes.astype(np.int64), "reid": 1.0 / sizes},
            index=pd.RangeIndex(len(rows)),
        )
        self.details_ = {
            "qi": list(qi),
            **summarise(sizes, len(train)),
            "decode": self.decode,
            **dict(extra or {}),
        }
