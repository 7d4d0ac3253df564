"""Skip Hydra's second composition of every job when privbench's preflight already composed it.

Hydra's sweeper composes each job of a batch before launching it (``validate_batch_is_legal``,
"to detect failures early"), and the launcher composes it again to run it. ``privbench run``
has already composed and validated every job in its preflight (:mod:`harness.preflight`), with
one-line errors, before Hydra starts; the sweeper's pass repeats that work (about a quarter of a
second per job on this machine; tracker issues 15 and 18). :func:`install` makes the sweeper
skip it when the preflight ran (``$PRIVBENCH_N_JOBS`` set by ``privbench run``), unless
``PRIVBENCH_HYDRA_VALIDATE=1`` (the benchmark's "before").
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hydra.plugins.sweeper import Sweeper

from harness import composition_memo

PREFLIGHT_ENV = "PRIVBENCH_N_JOBS"
KEEP_ENV = "PRIVBENCH_HYDRA_VALIDATE"
_hydra_validate = Sweeper.validate_batch_is_legal


def validate_batch_is_legal(self: Sweeper, batch: Sequence[Sequence[str]]) -> None:
    """Hydra's check, unless privbench's preflight composed these jobs already."""
    if os.environ.get(PREFLIGHT_ENV) and os.environ.get(KEEP_ENV) != "1":
        return
    _hydra_validate(self, batch)


def install() -> None:
    """Make every Hydra sweeper use :func:`validate_batch_is_legal` (idempotent).

    Also installs :mod:`harness.composition_memo`: Hydra's mode probe, its run / multirun
    composition and the launcher's composition of every job reuse the defaults trees and
    merged YAML files of the preflight (or of the first job with the same config groups).
    """
    Sweeper.validate_batch_is_legal = validate_batch_is_legal  # type: ignore[method-assign]
    composition_memo.install()
