"""Table 1 of ``004_…`` Sugiyama et al., *Utility Analysis of Differentially Private Anonymized
Data Based on Random Sampling*, verbatim (``spec/reproductions.md`` §5.2), and the protocol
constants of its §3.1–3.3.

Cells are keyed by (ε, β key): ε is the total budget (1, 2, 3), the β key is ``"max"`` for the
first column (printed 0.59 / 0.83 / 0.93 = β_max rounded; the generator's ``beta: max``) and
the sampling rate otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

BetaKey = str | float
"""``"max"`` (β = β_max) or a sampling rate."""

EPSILON_SEARCH_SHARE = 0.1
"""§3.1: 90 % of ε to ε_anon, 10 % to ε_search."""
DELTA = 1e-4
"""§3.3: δ = 0.0001."""
SUPPRESSION_LIMIT = 0.05
"""§3.3: at most 5 % suppressed records."""
RUNS = 10
"""§3.3: "We conduct experiments 10 times … and average the results"."""
N_COMPLETE = 30_162
"""§3.2: records of adult.data without missing values."""
N_RAW_PRINTED = 32_560
"""§3.2: "The dataset comprises 32,560 records" (adult.data holds 32,561)."""


@dataclass(frozen=True)
class Panel:
    """One panel of Table 1 (one ε), columns in the paper's order (β_max first)."""

    label: str
    epsilon: float
    betas: tuple[BetaKey, ...]
    printed_beta: tuple[float, ...]
    sampled: tuple[int, ...]
    classes: tuple[int, ...]
    suppressed: tuple[float, ...]
    k: tuple[int, ...]
    suppressed_pct: tuple[float, ...]
    ra_marital: tuple[float, ...]
    ra_income: tuple[float, ...]

    def column(self, beta: BetaKey) -> int:
        """Position of the β key in the panel."""
        return self.betas.index(beta)


TABLE_1: tuple[Panel, ...] = (
    Panel(
        "1a", 1.0, ("max", 0.5, 0.4, 0.3, 0.2), (0.59, 0.5, 0.4, 0.3, 0.2),
        sampled=(17875, 15059, 12021, 9050, 6040),
        classes=(32, 28, 44, 32, 34),
        suppressed=(286.3, 167.9, 196.1, 137.2, 86.1),
        k=(45, 31, 22, 16, 11),
        suppressed_pct=(1.6, 1.1, 1.6, 1.5, 1.4),
        ra_marital=(65.9, 66.4, 71.5, 74.5, 66.1),
        ra_income=(44.5, 34.7, 54.7, 32.7, 46.7),
    ),
    Panel(
        "1b", 2.0, ("max", 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2), (0.83, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2),
        sampled=(25184, 24135, 21104, 18153, 15121, 12104, 9029, 6021),
        classes=(27, 24, 32, 43, 40, 46, 50, 43),
        suppressed=(428.7, 532.9, 274.4, 257.4, 118.9, 166.2, 91.0, 98.2),
        k=(78, 63, 34, 24, 18, 14, 11, 7),
        suppressed_pct=(1.7, 2.2, 1.3, 1.4, 0.8, 1.4, 1.0, 1.6),
        ra_marital=(73.0, 72.2, 64.4, 72.0, 66.9, 69.7, 77.0, 70.2),
        ra_income=(33.2, 48.7, 46.2, 47.0, 46.3, 46.9, 36.5, 37.7),
    ),
    Panel(
        "1c", 3.0, ("max", 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2), (0.93, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2),
        sampled=(28149, 27131, 24134, 21081, 18044, 15055, 12062, 9059, 6042),
        classes=(65, 23, 37, 46, 44, 55, 59, 61, 47),
        suppressed=(486.5, 414.7, 289.1, 251.3, 227.9, 245.6, 164.0, 107.7, 102.1),
        k=(134, 59, 43, 27, 20, 15, 12, 9, 7),
        suppressed_pct=(1.9, 1.5, 1.2, 1.2, 1.3, 1.6, 1.4, 1.2, 1.7),
        ra_marital=(57.6, 71.7, 73.5, 74.3, 75.9, 66.7, 70.9, 76.6, 79.3),
        ra_income=(33.8, 22.8, 38.2, 47.8, 41.7, 52.9, 58.5, 37.9, 44.2),
    ),
)  # fmt: skip

MISPRINT: tuple[float, BetaKey, int, int] = (3.0, 0.9, 59, 89)
"""ε, β, printed k, formula k + 1 (``reproductions.md`` §5.3: 59 is a misprint)."""

BETA_MAX_SPEC: dict[float, float] = {1.0: 0.593, 2.0: 0.835, 3.0: 0.933}
"""β_max = 1 − e^(−0.9ε) at three decimals (``reproductions.md`` §5.3)."""

TEXT_MARITAL_EPS3: tuple[float, float] = (63.1, 76.7)
"""§3.3 text: relative accuracy for marital status at ε = 3, β = 0.93 and β = 0.2."""
TEXT_IMPROVEMENT_PCT = 22.0
"""§3.3 text: "marking a 22% improvement" (from 63.1 % to 76.7 %)."""
TEXT_SAMPLED_EPS3: tuple[int, int] = (28_149, 6_042)
"""§3.3 text: "the number of sampled records decreases from 28,149 to 6,042" (ε = 3)."""
TEXT_K_EPS3: tuple[int, int] = (134, 7)
"""§3.3 text: "with the anonymization parameter k decreasing from 134 to 7 under ε = 3"."""


def panel(epsilon: float) -> Panel:
    """The Table 1 panel of total budget ``epsilon``."""
    for item in TABLE_1:
        if abs(item.epsilon - epsilon) < 1e-9:
            return item
    raise KeyError(f"Table 1 has no panel for epsilon={epsilon!r}")


def expected_k(epsilon: float, beta: BetaKey) -> int:
    """k of the cell per ``reproductions.md`` §5.3: the printed k, except the misprint's formula + 1."""
    if (epsilon, beta) == MISPRINT[:2]:
        return MISPRINT[3]
    item = panel(epsilon)
    return item.k[item.column(beta)]


def beta_label(beta: BetaKey, epsilon: float) -> str:
    """The column header of Table 1 (β_max printed as 0.59 / 0.83 / 0.93)."""
    item = panel(epsilon)
    return f"{item.printed_beta[item.column(beta)]:g}"


__all__ = [
    "BETA_MAX_SPEC",
    "DELTA",
    "EPSILON_SEARCH_SHARE",
    "MISPRINT",
    "N_COMPLETE",
    "N_RAW_PRINTED",
    "RUNS",
    "SUPPRESSION_LIMIT",
    "TABLE_1",
    "TEXT_IMPROVEMENT_PCT",
    "TEXT_K_EPS3",
    "TEXT_MARITAL_EPS3",
    "TEXT_SAMPLED_EPS3",
    "BetaKey",
    "Panel",
    "beta_label",
    "expected_k",
    "panel",
]
