"""``noisy_copy``: the training table with a known share of its cells replaced (leakage ladder).

The rungs between ``identity`` (everything leaks) and ``independent_marginals`` (only the
marginals leak) of the known-leakage ladder (tracker issue 14): with perturbation rate p each
cell of the training table is, independently, replaced with probability p by a draw from its
column's training marginal. p = 0 is ``identity``; p = 1 draws every cell from its marginal,
which is ``independent_marginals`` in distribution. A privacy metric that sees leakage rates
the rungs p = 0.1, 0.3, 0.5, 0.9 in that order, from riskiest to safest.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.generator import BaseGenerator, GeneratorInfo


class NoisyCopy(BaseGenerator):
    """Copy the training table, replacing each cell with probability ``p`` by a marginal draw.

    This is a calibration reference, not a privacy method: its leakage is known by
    construction. Cell (i, j) is kept with probability 1 − p; otherwise it is replaced by the
    value of column j in a training row drawn uniformly at random (with replacement, NA
    included), independently of every other cell. The output keeps the training rows' order
    and size, so row i of the release is the (perturbed) training record i.

    Parameters
    ----------
    p : float
        Perturbation rate in [0, 1]: the probability that a cell is replaced. The expected
        number of unchanged cells of a record is (1 − p)·d plus chance agreement with the
        draw.

    Notes
    -----
    The replacement can equal the original value by chance (likely for low-cardinality
    columns), so the realised change rate is below p; ``details()`` reports both the drawn
    replacement rate and the share of cells whose value actually changed.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        releases_original_records=True,
        fixed_size=True,
    )

    def __init__(self, p: float = 0.3) -> None:
        self.p = p

    def info(self) -> GeneratorInfo:
        """Capability flags; p = 0 is the identity (no randomness, every record released)."""
        if self._p_is_zero():
            return GeneratorInfo(
                output_kind="transformed", releases_original_records=True, fixed_size=True, randomised=False
            )
        return self.capabilities

    def _p_is_zero(self) -> bool:
        return isinstance(self.p, (int, float)) and not isinstance(self.p, bool) and float(self.p) == 0.0

    def _validate_params(self) -> None:
        p = self.p
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 0 <= p <= 1:
            raise ConfigError(f"`p` must be a number in [0, 1] (the share of cells replaced); got {p!r}")

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.train_ = train.reset_index(drop=True)

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        out = self.train_.copy(deep=True)
        n = len(out)
        self.replaced_: dict[str, int] = {}
        self.changed_: dict[str, int] = {}
        if self._p_is_zero() or n == 0:
            return out
        for col in out.columns:
            # Draws in a fixed order (mask, then donors) per column: the release is a function of the seed.
            mask = self.rng_.random(n) < float(self.p)
            donors = self.rng_.integers(0, n, size=int(mask.sum()))
            original = self.train_[col]
            replacement = original.iloc[donors].to_numpy()
            column = out[col].copy()
            column.iloc[np.flatnonzero(mask)] = replacement
            out[col] = column
            self.replaced_[col] = int(mask.sum())
            changed = ~(original.isna() & column.isna()) & (original.ne(column))
            self.changed_[col] = int(changed.sum())
        return out

    def details(self) -> dict[str, Any]:
        """Replacement and change rates of the last sample (overall and per column)."""
        replaced = getattr(self, "replaced_", {})
        changed = getattr(self, "changed_", {})
        cells = self.n_train_ * len(self.train_.columns) if hasattr(self, "train_") else 0
        return {
            "p": float(self.p),
            "replaced_share": sum(replaced.values()) / cells if cells else 0.0,
            "changed_share": sum(changed.values()) / cells if cells else 0.0,
            "changed_by_column": {c: v / self.n_train_ for c, v in changed.items()} if cells else {},
        }
