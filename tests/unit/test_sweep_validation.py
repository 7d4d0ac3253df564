"""Hydra's sweeper does not compose every job again after privbench's preflight did."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hydra.plugins.sweeper import Sweeper

from harness import sweep_validation


def test_the_sweeper_skips_its_pass_only_after_the_preflight(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Sequence[Sequence[str]]] = []
    monkeypatch.setattr(sweep_validation, "_hydra_validate", lambda self, batch: calls.append(batch))
    monkeypatch.setattr(Sweeper, "validate_batch_is_legal", Sweeper.validate_batch_is_legal)  # restored after
    sweep_validation.install()
    batch = [["generator=identity"]]
    monkeypatch.delenv(sweep_validation.PREFLIGHT_ENV, raising=False)
    Sweeper.validate_batch_is_legal(None, batch)  # type: ignore[arg-type]  # no preflight: Hydra checks
    monkeypatch.setenv(sweep_validation.PREFLIGHT_ENV, "1")
    Sweeper.validate_batch_is_legal(None, batch)  # type: ignore[arg-type]  # preflight ran: skipped
    monkeypatch.setenv(sweep_validation.KEEP_ENV, "1")
    Sweeper.validate_batch_is_legal(None, batch)  # type: ignore[arg-type]  # asked to keep Hydra's pass
    assert calls == [batch, batch]
