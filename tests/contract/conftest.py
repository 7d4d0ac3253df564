"""Shared data of the contract tests: a small real sample of bundled Adult."""

from __future__ import annotations

import pytest

from harness.checks import ContractData, contract_data


@pytest.fixture(scope="session")
def adult_small() -> ContractData:
    """300 train, 100 control and 100 test rows of Adult (seeded, disjoint)."""
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)
