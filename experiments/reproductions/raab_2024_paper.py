"""Published numbers of Raab, *Privacy Risk from Synthetic Data: Practical Proposals* (PSD 2024).

Copied from the seed file ``004_11bf2d8ef797d821.txt`` (and ``spec/reproductions.md`` §6):
Table 1 (SD2011, five syntheses, target depress), Table 2 (AdultUCI, DiSCO % under five
column settings) and Table 3 (SD2011, training / control segments), plus the numbers given in
the text of §3.4, §4 and §5. Used by :mod:`experiments.reproductions.raab_2024`.
"""

from __future__ import annotations

# ---------------------------------------------------------------------- Table 2 (AdultUCI)
ADULT_KEYS: tuple[str, ...] = ("age", "occupation", "race", "sex")
ADULT_TARGETS: tuple[str, ...] = (
    "capital.gain", "capital.loss", "education.num", "hours.per.week", "income",
    "marital.status", "native.country", "relationship", "workclass",
)  # fmt: skip
"""The nine targets in the paper's (alphabetical) row order; the paper prints "education." for
education.num."""

SETTINGS: tuple[str, ...] = ("c0", "c1", "c2", "c3", "c4")
"""Table 2's column settings = the metric instances ``raab_<setting>`` of suite raab_2024_adult."""

SETTING_LABELS: dict[str, str] = {
    "c0": "Column 0: no exclusions",
    "c1": "Column 1: one target level excluded",
    "c2": "Column 2: missing values excluded",
    "c3": "Column 3: denominator limit 1 and a) and b)",
    "c4": "Column 4: denominator limit 1 only",
}

# target -> ((orig, syn) for C0..C4), Table 2 verbatim
TABLE2: dict[str, tuple[tuple[float, float], ...]] = {
    "capital.gain": ((22.55, 18.83), (0.21, 0.00), (0.21, 0.00), (0.21, 0.00), (2.68, 1.18)),
    "capital.loss": ((30.61, 26.35), (0.08, 0.00), (0.08, 0.00), (0.08, 0.00), (2.68, 1.23)),
    "education.num": ((3.71, 1.00), (3.71, 1.00), (3.71, 1.00), (2.68, 0.44), (2.68, 0.44)),
    "hours.per.week": ((4.36, 0.19), (4.36, 0.19), (4.36, 0.19), (2.68, 0.14), (2.68, 0.14)),
    "income": ((4.97, 2.10), (4.97, 2.10), (3.51, 1.74), (1.74, 0.58), (2.68, 0.79)),
    "marital.status": ((8.23, 5.18), (8.23, 5.18), (8.23, 5.18), (2.68, 0.77), (2.68, 0.77)),
    "native.country": ((17.09, 13.85), (0.94, 0.09), (0.83, 0.08), (0.73, 0.07), (2.68, 0.86)),
    "relationship": ((5.17, 2.66), (5.17, 2.66), (5.17, 2.66), (2.68, 0.72), (2.68, 0.72)),
    "workclass": ((14.27, 11.71), (14.27, 11.71), (9.14, 6.91), (2.45, 0.81), (2.68, 0.93)),
}
UIO_ADULT = 2.68
"""§4: "the attribute disclosure of the original data with denominators of 1 is the same for all
targets at 2.68%. This is the same as the % unique values of q in the GT"."""

ONE_WAY_TARGETS: dict[str, tuple[str, float]] = {
    "capital.gain": ("0", 95.0),
    "capital.loss": ("0", 92.0),
    "native.country": ("United-States", 89.0),
}
"""§4: the three targets flagged for one-way checks, their level and its share (%) of "all
disclosive records"."""
ONE_WAY_EXCLUDED: dict[str, list[object]] = {
    "capital.gain": [0],
    "capital.loss": [0],
    "native.country": ["United-States"],
}
TWO_WAY_TARGETS: tuple[str, ...] = ("workclass", "marital.status", "relationship")
"""§4: targets flagged for two-way (key-target) checks in the Adult example."""
NA_TARGETS: tuple[str, ...] = ("income", "native.country", "workclass")
"""AdultUCI targets with missing values (Column 2 changes only these)."""

# ---------------------------------------------------------------------- SD2011
SD_KEYS: tuple[str, ...] = ("sex", "age", "region", "placesize")
SD_TARGETS: tuple[str, ...] = ("income", "depress", "ls", "marital", "workab")
"""Table 3's row order (ascending DiSCO, the order of Figs 1-2)."""

DORIG_DEPRESS = 53.3
"""§3.4: "From the GT data 53.3% (Dorig) of records could identify the level of depress"."""
CAPD_DEPRESS = 74.0
"""§3.4: "The corresponding rate from the GT (CAPd) was 74%"."""
Q_LEVELS_GT = 3459
"""§3.4: q "has 3,459 levels in the GT"."""
Q_LEVELS_ALL = 4475
"""§3.4: "... but this increases to 4,475 when GT and SD are combined"."""
DEPRESS_LEVELS = 23
"""§3.4: "The depression score has 23 levels"."""
UIS_TEXT = 50.0
"""§3.4: "Almost 50% of the SD records have unique levels of q"."""
REPU_TEXT = 15.0
"""§3.4: "... and this reduces to 15% for repU"."""
WORKAB_NO_SHARE = 89.0
"""§3.4: "most survey respondents (89%) had never worked abroad"."""
WORKAB_ONE_WAY = ("NO", 93.0)
"""§3.4: the one-way check flags "NO" for workab: "93% of all disclosive records had this level"."""
INCOME_DISCO = (4.90, 6.14)
"""§3.4: DiSCO of income with its 406 distinct values, and grouped into 20 categories."""
WORKAB_EXCLUDED = (1.1, 1.6)
"""§5: workab DiSCO and DCAP "after excluding records answering NO as disclosive"."""

TABLE1_COLUMNS: tuple[str, ...] = ("iS", "DiS", "DiSCO", "DiSDiO", "max_denom", "mean_denom", "DCAP")
TABLE1: tuple[tuple[float, ...], ...] = (
    (64.90, 34.18, 9.54, 6.14, 3.00, 1.16, 16.20),
    (64.00, 32.50, 10.26, 6.78, 4.00, 1.19, 17.45),
    (64.02, 32.14, 9.10, 5.92, 4.00, 1.19, 15.92),
    (63.88, 33.38, 9.20, 5.52, 4.00, 1.21, 16.12),
    (63.44, 31.46, 9.34, 5.80, 4.00, 1.23, 16.38),
)
TABLE1_BANDS: dict[str, tuple[float, float, str]] = {
    "iS": (60.0, 68.0, "spec/reproductions.md §6.2"),
    "DiSCO": (7.0, 12.0, "spec/reproductions.md §6.2"),
    "DCAP": (13.0, 20.0, "spec/reproductions.md §6.2"),
    "DiS": (27.5, 38.0, "our band: paper mean 32.7 ± ~15 %, as wide as the spec's bands"),
    "DiSDiO": (3.5, 8.5, "our band: paper mean 6.0 ± ~40 %, as wide in points as the DiSCO band"),
    "max_denom": (2.0, 6.0, "our band: paper 3-4"),
    "mean_denom": (1.05, 1.40, "our band: paper 1.16-1.23"),
}
"""Tolerance bands of the means over the five syntheses (the spec gives iS, DiSCO and DCAP)."""

# target -> (DiSCO All, Train, Ctrl, R, DCAP All, Train, Ctrl, R), Table 3 verbatim
TABLE3: dict[str, tuple[float, ...]] = {
    "income": (4.90, 5.53, 1.90, 0.04, 8.91, 9.06, 2.92, 0.06),
    "depress": (9.54, 9.45, 4.20, 0.05, 16.39, 15.98, 5.80, 0.11),
    "ls": (13.78, 11.88, 8.60, 0.04, 23.03, 19.79, 12.53, 0.08),
    "marital": (35.18, 34.50, 21.30, 0.17, 43.66, 41.50, 24.94, 0.22),
    "workab": (52.10, 49.28, 31.30, 0.26, 56.56, 52.92, 33.31, 0.29),
}
TABLE3_PARTS: tuple[str, ...] = ("All", "Train", "Ctrl", "R")
R_LIMIT = 0.3
"""spec §6.2: R < 0.3 for every target and measure."""
CONTROL_RECORDS = 1000


def specific_risk(train: float, control: float) -> float:
    """Giomi et al.'s R = (r_train − r_control)/(1 − r_control) from two percentages (Raab Eq. 1)."""
    r_train, r_control = train / 100.0, control / 100.0
    return (r_train - r_control) / (1.0 - r_control)
