"""Every metric config passes the contract checks (``harness.checks.check_metric``)."""

from __future__ import annotations

import pytest

from harness.checks import ContractData, check_metric
from harness.registry import names


@pytest.mark.parametrize("name", names("metric"))
def test_metric_contract(name: str, adult_small: ContractData) -> None:
    passed = check_metric(
        name,
        adult_small.train,
        adult_small.spec,
        control=adult_small.control,
        test=adult_small.test,
        seed=0,
    )
    assert {"bounds", "direction", "row_order_invariance", "deterministic_per_seed"} <= set(passed)
