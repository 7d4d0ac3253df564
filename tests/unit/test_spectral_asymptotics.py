"""Limits of Theorems 1-2 (``004_…`` *Asymptotic Utility of Spectral Anonymization*, §2)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.fidelity.spectral_asymptotics import (
    commutation_matrix,
    covariance_covariance,
    eigen_factor,
    mean_covariance,
    relative_error,
    vec,
)


def test_paper_equation_2_for_p_equal_2() -> None:
    l1, l2 = 3.0, 2.0  # the marginal variances of Eq. (2)
    sigma = np.diag([l1, l2])
    original = np.array(
        [[2 * l1**2, 0, 0, 0], [0, l1 * l2, l1 * l2, 0], [0, l1 * l2, l1 * l2, 0], [0, 0, 0, 2 * l2**2]]
    )
    spectral = np.array(
        [
            [2 * l1**2, 0, 0, 0],
            [0, 2 * l1 * l2, 2 * l1 * l2, 0],
            [0, 2 * l1 * l2, 2 * l1 * l2, 0],
            [0, 0, 0, 2 * l2**2],
        ]
    )
    np.testing.assert_allclose(covariance_covariance(sigma, spectral=False), original)
    np.testing.assert_allclose(covariance_covariance(sigma, spectral=True), spectral)


def test_limits_are_rotation_equivariant() -> None:
    o = np.array([[np.cos(0.4), -np.sin(0.4)], [np.sin(0.4), np.cos(0.4)]])
    sigma = o @ np.diag([4.0, 1.0]) @ o.T
    factor = eigen_factor(sigma)
    np.testing.assert_allclose(factor @ factor.T, sigma, atol=1e-12)
    # SA(XO') = SA(X)O', so the limit for O Λ O' is (O ⊗ O) limit(Λ) (O ⊗ O)'
    rotate = np.kron(o, o)
    for spectral in (False, True):
        expected = rotate @ covariance_covariance(np.diag([4.0, 1.0]), spectral=spectral) @ rotate.T
        np.testing.assert_allclose(covariance_covariance(sigma, spectral=spectral), expected, atol=1e-12)


def test_vec_and_commutation() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert vec(a).tolist() == [1.0, 3.0, 2.0, 4.0]  # column-major
    np.testing.assert_array_equal(commutation_matrix(2) @ vec(a), vec(a.T))
    stack = np.stack([a, 2 * a])
    assert vec(stack).tolist() == [[1.0, 3.0, 2.0, 4.0], [2.0, 6.0, 4.0, 8.0]]


def test_mean_limit_and_relative_error() -> None:
    sigma = np.diag([2.0, 1.0])
    np.testing.assert_array_equal(mean_covariance(sigma, 2), np.diag([4.0, 2.0]))
    # ‖diag(3, 1) − diag(2, 1)‖_F / ‖diag(2, 1)‖_F = 1 / √5
    assert relative_error(np.diag([3.0, 1.0]), sigma) == pytest.approx(1 / np.sqrt(5))
