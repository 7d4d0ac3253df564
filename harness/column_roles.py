"""What a column's name and values say about its role (``privbench init``'s suggestions).

* **Names** are compared as lower-case words: ``MaritalStatus``, ``marital_status``,
  ``marital-status`` and ``Marital Status`` all read ``marital status`` (:func:`words`).
* **Quasi-identifiers** (:data:`QI_WORDS`): demographic and geographic attributes an attacker
  can know from outside (age, sex, marital status, zip code, ...).
* **Sensitive attributes** (:data:`SENSITIVE_WORDS`): what an attacker would like to infer —
  income and pay, health, religion, ethnicity, sexual orientation, criminal record, debt.
* **Outcomes** (:data:`OUTCOME_WORDS`): names of what a table is usually about (attrition,
  churn, default, income class, target, label, ...), and weaker hints
  (:data:`WEAK_OUTCOME_WORDS`: status, flag, risk, is/has ...). A binary outcome-named column is
  the suggested target before any other; then any outcome-named one; then a binary column with
  a weaker hint; then the last binary column; then the last categorical column of a few classes.
* **Ordered scales** (:data:`SCALES`): text levels that belong to a known scale
  (Poor < Fair < Good < Very Good < Excellent, Low < Medium < High, Bad < Good < Better < Best,
  Never < ... < Always, Strongly disagree < ... < Strongly agree) are ``ordinal`` in the scale's
  order; small whole numbers whose name says rating, level or satisfaction are ordinal
  codes; whole-number counts stay numeric.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

QI_WORDS = re.compile(
    r"\b(age|sex|gender|zip|zipcode|zip code|postcode|post code|postal|plz|birth|birthdate|dob|yob|"
    r"date of birth|race|ethnic\w*|marital|marital status|education|edu|occupation|job|job role|"
    r"nationality|country|native\w*|region|county|city|state|religion|puma|residence|"
    r"distance from home|department)\b"
)
SENSITIVE_WORDS = re.compile(
    r"\b(income|salary|salaries|wage|wages|pay|earnings|monthly income|hourly rate|daily rate|"
    r"monthly rate|capital gain|capital loss|health|disease|diagnosis|illness|medical|medication|"
    r"condition|hiv|cancer|disability|pregnan\w*|religion|ethnic\w*|sexual\w*|orientation|"
    r"criminal|conviction|offen[cs]e|debt|loan|credit|bankrupt\w*|political|party|union)\b"
)
OUTCOME_WORDS = re.compile(
    r"\b(attrition|churn|churned|target|label|class|outcome|default|defaulted|fraud|survived|survival|"
    r"leave or not|left|response|approved|approval|diagnosis|income|salary|y|readmitted|death|died)\b"
)
WEAK_OUTCOME_WORDS = re.compile(r"\b(result|risk|status|flag|is \w+|has \w+)\b")
SCALES: tuple[tuple[str, ...], ...] = (
    ("very poor", "poor", "fair", "good", "very good", "excellent"),
    ("very low", "low", "medium", "high", "very high"),
    ("very low", "low", "moderate", "high", "very high"),
    ("none", "low", "medium", "high"),
    ("bad", "good", "better", "best"),
    ("never", "rarely", "sometimes", "often", "always"),
    ("never", "travel rarely", "travel frequently"),
    ("non-travel", "travel rarely", "travel frequently"),
    ("strongly disagree", "disagree", "neutral", "agree", "strongly agree"),
    ("very dissatisfied", "dissatisfied", "neutral", "satisfied", "very satisfied"),
    ("small", "medium", "large"),
    ("junior", "mid", "senior"),
)
SCALE_NAME = re.compile(
    r"\b(satisfaction|rating|level|score|grade|stage|tier|rank|involvement|balance|likert|scale|severity|priority)\b"
)
COUNT_NAME = re.compile(r"\b(num|number|count|n|total|years|year|months|days|hours|times|companies)\b")


def words(name: str) -> str:
    """Lower-case words of a column name: CamelCase, snake_case, kebab-case and dots split."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", str(name))
    return " ".join(re.split(r"[^A-Za-z0-9]+", spaced)).lower().strip()


def is_qi_name(name: str) -> bool:
    """The name reads like a quasi-identifier."""
    return bool(QI_WORDS.search(words(name)))


def is_sensitive_name(name: str) -> bool:
    """The name reads like a sensitive attribute."""
    return bool(SENSITIVE_WORDS.search(words(name)))


def is_outcome_name(name: str, *, weak: bool = False) -> bool:
    """The name reads like a table's outcome (``weak``: like a status or flag, a weaker hint)."""
    return bool((WEAK_OUTCOME_WORDS if weak else OUTCOME_WORDS).search(words(name)))


def scale_order(levels: Iterable[str]) -> list[str] | None:
    """The levels in the order of a known scale they all belong to (at least 3), else None.

    Matching ignores case, spaces, ``_`` and ``-``; the levels keep their own spelling.
    """
    present = list(dict.fromkeys(str(v) for v in levels))
    if len(present) < 3:
        return None
    keyed = {_key(v): v for v in present}
    for scale in SCALES:
        order = [_key(s) for s in scale]
        if set(keyed) <= set(order):
            return [keyed[k] for k in order if k in keyed]
    return None


def is_scale_code_name(name: str) -> bool:
    """Small whole numbers under this name are an ordered scale (rating, level, satisfaction)."""
    text = words(name)
    return bool(SCALE_NAME.search(text)) and not COUNT_NAME.search(text)


def is_count_name(name: str) -> bool:
    """Whole numbers under this name are counts (kept numeric)."""
    return bool(COUNT_NAME.search(words(name)))


def duplicated(names: Sequence[str]) -> list[str]:
    """Header names that appear more than once (in first-seen order)."""
    seen: set[str] = set()
    twice: list[str] = []
    for name in names:
        if name in seen and name not in twice:
            twice.append(name)
        seen.add(name)
    return twice


def _key(level: str) -> str:
    return re.sub(r"[\s_-]+", " ", str(level).strip().lower())


__all__ = [
    "duplicated",
    "is_count_name",
    "is_outcome_name",
    "is_qi_name",
    "is_scale_code_name",
    "is_sensitive_name",
    "scale_order",
    "words",
]
