"""Reproduction checks: one published claim, our value, the agreement level and the verdict.

``spec/reproductions.md`` §0.1 defines four agreement levels. A check compares what a paper
printed (``paper``, verbatim text) with what our run produced (``observed``, text, plus the
machine-readable ``value``) at one level:

``exact``             equal at the printed precision (deterministic functions of data or formulas)
``tolerance``         within a stated absolute or relative band
``trend``             the same ordering, sign or monotone direction
``not reproducible``  only the protocol is implemented (data or rules not available offline)

The verdict in ``REPRODUCTION.md`` follows from the level and the outcome: ``exact`` (an
``exact`` check passed), ``same ordering or trend`` (a ``tolerance`` or ``trend`` check passed)
or ``differs`` (failed, or not reproducible), always with the reason when it differs.

The builders below (:func:`exact`, :func:`within`, :func:`ordered`, :func:`trend`,
:func:`not_reproducible`, :func:`unavailable`) are what the per-paper check modules in
``experiments/reproductions/`` use; none of them raises on missing data, so a failed
generator makes a check fail with a reason instead of hiding the other checks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

LEVELS: tuple[str, ...] = ("exact", "tolerance", "trend", "not reproducible")
VERDICTS: tuple[str, ...] = ("exact", "same ordering or trend", "differs")


@dataclass(frozen=True)
class Check:
    """One published claim checked against a run.

    Attributes
    ----------
    id : str
        Stable identifier within the experiment (``table2-time-per-variant``).
    claim : str
        What is checked, in words.
    paper : str
        The paper's value or statement as printed.
    observed : str
        Our value as text (empty when there is none).
    level : str
        One of :data:`LEVELS`.
    passed : bool
        Whether the observed value agrees at ``level``.
    reason : str
        Why it differs (or a note on how it was computed).
    expected : object
        Machine-readable target (number, band, ordering); JSON-serialisable.
    value : object
        Machine-readable observed value; JSON-serialisable.
    evidence : tuple of str
        Paths (relative to the run's ``reproduction/`` folder) of the tables and figures behind it.
    error : str
        Set when the check could not be evaluated (a bug or missing input), empty otherwise.
    """

    id: str
    claim: str
    paper: str
    observed: str
    level: str
    passed: bool
    reason: str = ""
    expected: Any = None
    value: Any = None
    evidence: tuple[str, ...] = field(default_factory=tuple)
    error: str = ""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {self.level!r}")
        if not self.id or any(ch.isspace() for ch in self.id):
            raise ValueError(f"id must be a non-empty word without spaces; got {self.id!r}")

    @property
    def verdict(self) -> str:
        """``exact``, ``same ordering or trend`` or ``differs`` (``spec/reproductions.md`` §0.1)."""
        if self.level == "not reproducible" or not self.passed:
            return "differs"
        return "exact" if self.level == "exact" else "same ordering or trend"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the entry of ``checks.json``), verdict included."""
        out = asdict(self)
        out["evidence"] = list(self.evidence)
        out["pass"] = out.pop("passed")
        out["verdict"] = self.verdict
        return _jsonable(out)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Check:
        """Inverse of :meth:`to_dict` (the verdict is recomputed)."""
        return cls(
            id=str(data["id"]),
            claim=str(data.get("claim", "")),
            paper=str(data.get("paper", "")),
            observed=str(data.get("observed", "")),
            level=str(data["level"]),
            passed=bool(data["pass"]),
            reason=str(data.get("reason", "")),
            expected=data.get("expected"),
            value=data.get("value"),
            evidence=tuple(data.get("evidence") or ()),
            error=str(data.get("error", "")),
        )


def fmt(value: Any, digits: int = 3) -> str:
    """Display text of a number (``digits`` decimals, thousands separators) or of anything else."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.{max(digits - 1, 1)}e}"
        return f"{value:,.{digits}f}"
    return str(value)


def exact(
    id: str,
    claim: str,
    paper: str,
    observed: float | int | None,
    expected: float | int,
    *,
    tol: float = 0.0,
    digits: int = 3,
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
) -> Check:
    """An ``exact`` check: ``|observed - expected| <= tol`` (the printed precision).

    ``reason`` is always shown; ``if_failed`` (why it differs) only when the check fails.
    """
    passed = _finite(observed) and abs(float(observed) - float(expected)) <= tol + 1e-12  # type: ignore[arg-type]
    reason = _join(reason, "" if passed else if_failed)
    return Check(
        id, claim, paper, fmt(observed, digits), "exact", passed, _why(passed, reason, observed, expected, tol),
        {"value": expected, "tol": tol}, observed, tuple(evidence),
    )  # fmt: skip


def within(
    id: str,
    claim: str,
    paper: str,
    observed: float | int | None,
    low: float | None,
    high: float | None,
    *,
    level: str = "tolerance",
    digits: int = 3,
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
) -> Check:
    """``low <= observed <= high`` (either bound may be None) at ``level`` (default ``tolerance``)."""
    passed = (
        _finite(observed)
        and (low is None or float(observed) >= low - 1e-12)  # type: ignore[arg-type]
        and (high is None or float(observed) <= high + 1e-12)  # type: ignore[arg-type]
    )
    reason = _join(reason, "" if passed else if_failed)
    band = f"[{fmt(low, digits)}, {fmt(high, digits)}]"
    why = reason if passed or not _finite(observed) else f"{reason + '; ' if reason else ''}outside {band}"
    if not _finite(observed):
        why = f"{reason + '; ' if reason else ''}no value"
    return Check(
        id, claim, paper, fmt(observed, digits), level, passed, why, {"low": low, "high": high}, observed,
        tuple(evidence),
    )  # fmt: skip


def ordered(
    id: str,
    claim: str,
    paper: str,
    values: Mapping[str, float | None],
    order: Sequence[str],
    *,
    strict: bool = True,
    level: str = "trend",
    digits: int = 3,
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
) -> Check:
    """The labelled ``values`` increase along ``order`` (``a < b < c``; ``<=`` when not strict)."""
    shown = [(label, values.get(label)) for label in order]
    missing = [label for label, v in shown if not _finite(v)]
    sign = " < " if strict else " ≤ "
    observed = sign.join(f"{label} {fmt(v, digits)}" for label, v in shown)
    if missing:
        return Check(
            id, claim, paper, observed, level, False, f"{reason + '; ' if reason else ''}no value for "
            + ", ".join(missing), {"order": list(order), "strict": strict}, dict(shown), tuple(evidence),
        )  # fmt: skip
    numbers = [float(v) for _, v in shown]  # type: ignore[arg-type]
    pairs = list(zip(numbers, numbers[1:]))
    passed = all(a < b for a, b in pairs) if strict else all(a <= b for a, b in pairs)
    reason = _join(reason, "" if passed else if_failed)
    why = reason
    if not passed:
        broken = [
            f"{order[i]} vs {order[i + 1]}"
            for i, (a, b) in enumerate(pairs)
            if not (a < b or (not strict and a <= b))
        ]
        why = f"{reason + '; ' if reason else ''}order broken at " + ", ".join(broken)
    return Check(
        id, claim, paper, observed, level, passed, why, {"order": list(order), "strict": strict}, dict(shown),
        tuple(evidence),
    )  # fmt: skip


def trend(
    id: str,
    claim: str,
    paper: str,
    observed: str,
    passed: bool,
    *,
    value: Any = None,
    expected: Any = None,
    level: str = "trend",
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
) -> Check:
    """A check whose outcome the caller decided (a direction, a sign, a set relation)."""
    reason = _join(reason, "" if passed else if_failed)
    return Check(id, claim, paper, observed, level, bool(passed), reason, expected, value, tuple(evidence))


def not_reproducible(id: str, claim: str, paper: str, reason: str, *, observed: str = "") -> Check:
    """A published value we cannot reproduce offline (verdict ``differs`` with the reason)."""
    return Check(id, claim, paper, observed, "not reproducible", False, reason)


def unavailable(id: str, claim: str, paper: str, level: str, reason: str) -> Check:
    """A check that could not be computed from this run (e.g. its generator failed)."""
    return Check(id, claim, paper, "", level, False, reason)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _finite(value: Any) -> bool:
    try:
        return value is not None and math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _why(passed: bool, reason: str, observed: Any, expected: Any, tol: float) -> str:
    if passed:
        return reason
    if not _finite(observed):
        return f"{reason + '; ' if reason else ''}no value"
    gap = float(observed) - float(expected)
    return f"{reason + '; ' if reason else ''}off by {gap:+.4g} (tolerance {tol:g})"


def _jsonable(value: Any) -> Any:
    """Plain JSON types: numpy scalars to Python, NaN/inf to None, tuples to lists."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


__all__ = [
    "LEVELS",
    "VERDICTS",
    "Check",
    "exact",
    "fmt",
    "not_reproducible",
    "ordered",
    "trend",
    "unavailable",
    "within",
]
