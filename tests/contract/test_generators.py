"""Every generator config passes the contract checks (``harness.checks.check_generator``)."""

from __future__ import annotations

import pytest

from harness.checks import ContractData, check_generator
from harness.registry import names


@pytest.mark.parametrize("name", names("generator"))
def test_generator_contract(name: str, adult_small: ContractData) -> None:
    passed = check_generator(name, adult_small.train, adult_small.spec, control=adult_small.control, seed=0)
    assert {"params", "schema", "n_rows", "seed_dependence", "tiny_input", "single_category"} <= set(passed)
