"""Exact neighbour distances (:mod:`metrics.privacy.exact_distances`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.neighbors import NearestNeighbors

from harness.checks import contract_data
from harness.encoding import TableEncoder
from metrics.privacy.exact_distances import exact_distances


def _broadcast_form(query: np.ndarray, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The (n, k, p) form the metrics used before: the reference for bitwise equality."""
    return np.sqrt(((query[:, None, :] - rows[idx]) ** 2).sum(axis=2))


@pytest.mark.parametrize("dataset", ["adult", "texas"])
def test_bitwise_equal_to_the_broadcast_form_on_encoded_data(dataset: str) -> None:
    data = contract_data(dataset, n_train=600, n_control=200, n_test=100, seed=0)
    enc = TableEncoder(data.spec).fit(data.train, data.control)
    train, query = enc.transform(data.train), enc.transform(pd.concat([data.control, data.train.iloc[:50]]))
    _, idx = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(train).kneighbors(query)
    got = exact_distances(query, train, idx)
    np.testing.assert_array_equal(got, _broadcast_form(query, train, idx))
    assert (got[-50:, 0] == 0.0).all()  # the copied training rows: true zeros, not ~1e-8


def test_hand_computed() -> None:
    rows = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]])
    query = np.array([[0.0, 0.0], [3.0, 0.0]])
    idx = np.array([[0, 1], [1, 2]])
    np.testing.assert_array_equal(exact_distances(query, rows, idx), [[0.0, 5.0], [4.0, np.sqrt(5.0)]])
