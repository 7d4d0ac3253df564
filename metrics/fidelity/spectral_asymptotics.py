"""Limiting covariances of the sample mean and covariance under spectral anonymisation.

``004_…`` *Asymptotic Utility of Spectral Anonymization* (Perkonoja, Virta), §2, for rows
i.i.d. N_p(μ, Σ) and n → ∞:

* Theorem 1: √n(x̄ − μ) → N_p(0, Σ) for the original data and P-SA (whose mean equals the
  original mean), N_p(0, 2Σ) for J-SA and O-SA;
* Tyler (1982), Theorem 1 (the paper's baseline): √n·vec(S − Σ) → N_{p²}(0,
  (Σ^½ ⊗ Σ^½)(I_{p²} + K_{p,p})(Σ^½ ⊗ Σ^½)') for the original data;
* Theorem 2: for every SA variant, √n·vec(S_A − Σ) → N_{p²}(0,
  (Σ^½ ⊗ Σ^½)(2I_{p²} + 2K_{p,p} − 2V_p)(Σ^½ ⊗ Σ^½)'), V_p = diag(vec(I_p)).

``vec`` stacks columns (column-major); K_{p,p} is the commutation matrix (K vec(A) = vec(Aᵀ)).
:func:`relative_error` is the paper's RE: ‖Ĉ − C‖_F / ‖C‖_F.

**Paper discrepancy.** The paper defines Σ^½ := OΛ^½O' (symmetric). Spectral anonymisation is
rotation equivariant (SA(XO') = SA(X)O': the left singular vectors do not change), so the limit
for Σ = OΛO' must be (O ⊗ O) C(Λ) (O ⊗ O)', i.e. V_p acts in Σ's eigenbasis, and the factor is
B = OΛ^½ (B B' = Σ) — as the paper's remark after Theorem 2 says ("in the coordinate system
specified by O"). With the symmetric root the 2I + 2K − 2V form is not equivariant. Both agree
when Σ is diagonal (O = I), which is every design of the paper's §3; :func:`covariance_covariance`
uses B. For I + K the two coincide for every Σ.
"""

from __future__ import annotations

import numpy as np


def vec(matrix: np.ndarray) -> np.ndarray:
    """Column-major vectorisation (the last axes ``(p, p)`` of a stack of matrices)."""
    a = np.asarray(matrix)
    return np.swapaxes(a, -1, -2).reshape(*a.shape[:-2], -1)


def commutation_matrix(p: int) -> np.ndarray:
    """K_{p,p}: the p² × p² permutation with K vec(A) = vec(Aᵀ)."""
    k = np.zeros((p * p, p * p))
    for i in range(p):
        for j in range(p):
            k[i * p + j, j * p + i] = 1.0
    return k


def eigen_factor(sigma: np.ndarray) -> np.ndarray:
    """B = O Λ^½ from the eigendecomposition Σ = O Λ O' (so B B' = Σ)."""
    values, vectors = np.linalg.eigh(np.asarray(sigma, dtype=float))
    return np.asarray(vectors * np.sqrt(np.clip(values, 0.0, None)))


def mean_covariance(sigma: np.ndarray, factor: float) -> np.ndarray:
    """Theorem 1: the limiting covariance ``factor``·Σ of √n(x̄ − μ) (1 or 2)."""
    return float(factor) * np.asarray(sigma, dtype=float)


def covariance_covariance(sigma: np.ndarray, *, spectral: bool) -> np.ndarray:
    """The limiting covariance of √n·vec(S − Σ): Tyler's (original data) or Theorem 2's (SA),
    (B ⊗ B)(I + K)(B ⊗ B)' or (B ⊗ B)(2I + 2K − 2V)(B ⊗ B)' with B = OΛ^½ (module docstring)."""
    sigma = np.asarray(sigma, dtype=float)
    p = sigma.shape[0]
    factor = eigen_factor(sigma)
    outer = np.kron(factor, factor)
    identity, commute = np.eye(p * p), commutation_matrix(p)
    if spectral:
        middle = 2 * identity + 2 * commute - 2 * np.diag(vec(np.eye(p)))
    else:
        middle = identity + commute
    return np.asarray(outer @ middle @ outer.T)


def relative_error(estimate: np.ndarray, reference: np.ndarray) -> float:
    """‖estimate − reference‖_F / ‖reference‖_F (the paper's RE, §3.1)."""
    return float(np.linalg.norm(estimate - reference) / np.linalg.norm(reference))
