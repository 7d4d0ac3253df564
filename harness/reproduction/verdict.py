"""The one verdict rule of reproduction checks (``spec/reproductions.md`` §0.1b).

Every check has a ``kind``:

``claim``       a finding the paper states (an ordering, a trend, a value on its data): the only
                kind counted as agreement with the paper;
``setup``       our run matches the protocol (grids, sizes, datasets), read from the run evaluated;
``arithmetic``  the paper's own printed numbers are consistent with each other;
``sanity``      the pipeline behaves (identity scores perfect, scores in range).

A claim's verdict follows from its recorded evidence alone:

``reproduced``      equal at the printed precision (a deterministic value), every interval inside
                    the tolerance band, or every effect in the stated direction beyond its noise
                    (interval above 0), or a test that decides for the claim;
``not reproduced``  a deterministic value that differs, an interval entirely outside the band,
                    an effect in the opposite direction beyond noise, or a test that decides against;
``inconclusive``    the data cannot tell: an interval across the band's edge or across 0, or no
                    noise estimate (a single replicate of a stochastic quantity);
``not evaluable``   this setup cannot test it: data not available, too few blocks for the paper's
                    test, or a generator that failed its adequacy gate (it did not learn).

Setup, arithmetic and sanity checks *pass* or *fail*. A claim whose evidence lies within noise
can never be ``reproduced``: the verdict is computed here, not by the check functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

KINDS: tuple[str, ...] = ("claim", "setup", "arithmetic", "sanity")
REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_EVALUABLE = "not evaluable"
CLAIM_VERDICTS: tuple[str, ...] = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_EVALUABLE)
PASSES = "passes"
FAILS = "fails"
CHECK_VERDICTS: tuple[str, ...] = (PASSES, FAILS)


def check_verdict(
    *,
    kind: str,
    level: str,
    passed: bool,
    uncertainty: Mapping[str, Any] | None,
    expected: Any,
    not_evaluable: str = "",
    error: str = "",
) -> tuple[str, str]:
    """``(verdict, why)`` of one check from its recorded fields.

    ``why`` says in words what decided a claim (empty for the other kinds).
    """
    if kind != "claim":
        return (PASSES if passed and not error else FAILS), ""
    if error:
        return NOT_EVALUABLE, "the check could not be evaluated (an error)"
    if not_evaluable:
        return NOT_EVALUABLE, not_evaluable
    if level == "not reproducible":
        return NOT_EVALUABLE, "only the protocol can be run here"
    unc = dict(uncertainty or {})
    if unc.get("deterministic"):
        return (REPRODUCED if passed else NOT_REPRODUCED), "a deterministic value: no noise"
    decision = unc.get("decision")
    if decision:
        return _from_decision(str(decision), str(unc.get("method", "a test")))
    intervals = [_bounded(i) for i in unc.get("intervals") or [] if i is not None]
    if not intervals:
        return INCONCLUSIVE, "no noise estimate (a single replicate): the data cannot tell"
    if level in ("tolerance", "exact"):
        band = _band(unc, expected)
        if band is None:
            return INCONCLUSIVE, "no tolerance band recorded"
        return _from_band(intervals, *band)
    return _from_effects(intervals)


def _bounded(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An interval with missing bounds read as unbounded (JSON stores ±inf as null)."""
    low, high = entry.get("low"), entry.get("high")
    return {
        **entry,
        "low": -math.inf if low is None else float(low),
        "high": math.inf if high is None else float(high),
    }


def _from_decision(decision: str, method: str) -> tuple[str, str]:
    verdict = {"holds": REPRODUCED, "opposite": NOT_REPRODUCED}.get(decision, INCONCLUSIVE)
    return verdict, f"{method} decides: {decision}"


def _band(unc: Mapping[str, Any], expected: Any) -> tuple[float, float] | None:
    band = unc.get("band")
    if band is not None:
        low, high = band
    elif isinstance(expected, Mapping) and ("low" in expected or "high" in expected):
        low, high = expected.get("low"), expected.get("high")
    elif isinstance(expected, Mapping) and "value" in expected:
        tol = float(expected.get("tol") or 0.0)
        low, high = float(expected["value"]) - tol, float(expected["value"]) + tol
    else:
        return None
    return (-math.inf if low is None else float(low)), (math.inf if high is None else float(high))


def _from_band(intervals: Sequence[Mapping[str, Any]], low: float, high: float) -> tuple[str, str]:
    eps = 1e-12
    outside = [i for i in intervals if i["high"] < low - eps or i["low"] > high + eps]
    if outside:
        names = ", ".join(str(i["name"]) for i in outside)
        return NOT_REPRODUCED, f"interval entirely outside the band [{_num(low)}, {_num(high)}]: {names}"
    across = [i for i in intervals if i["low"] < low - eps or i["high"] > high + eps]
    if across:
        names = ", ".join(str(i["name"]) for i in across)
        return INCONCLUSIVE, f"interval across the band's edge [{_num(low)}, {_num(high)}]: {names}"
    return REPRODUCED, f"every interval inside the band [{_num(low)}, {_num(high)}]"


def _from_effects(intervals: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    opposite = [i for i in intervals if i["high"] < 0]
    if opposite:
        names = ", ".join(str(i["name"]) for i in opposite)
        return NOT_REPRODUCED, f"the opposite direction beyond noise: {names}"
    within = [i for i in intervals if i["low"] <= 0]
    if within:
        names = ", ".join(str(i["name"]) for i in within)
        return INCONCLUSIVE, f"within noise (interval includes 0): {names}"
    return REPRODUCED, "every effect in the stated direction beyond noise"


def _num(value: float) -> str:
    return "−∞" if value == -math.inf else "∞" if value == math.inf else f"{value:.4g}"


__all__ = [
    "CHECK_VERDICTS",
    "CLAIM_VERDICTS",
    "FAILS",
    "INCONCLUSIVE",
    "KINDS",
    "NOT_EVALUABLE",
    "NOT_REPRODUCED",
    "PASSES",
    "REPRODUCED",
    "check_verdict",
]
