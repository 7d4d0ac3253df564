"""Reproduction checks: one published statement, our value, its uncertainty, kind and verdict.

``spec/reproductions.md`` §0.1 defines four agreement levels. A check compares what a paper
printed (``paper``, verbatim text) with what our run produced (``observed``, text, plus the
machine-readable ``value``) at one level:

``exact``             equal at the printed precision (deterministic functions of data or formulas)
``tolerance``         within a stated absolute or relative band
``trend``             the same ordering, sign or monotone direction
``not reproducible``  only the protocol is implemented (data or rules not available offline)

and has a ``kind`` (§0.1b): ``claim`` (a finding the paper states: the only kind counted as
agreement), ``setup`` (our run matches the protocol, read from the run evaluated),
``arithmetic`` (the paper's printed numbers agree with each other) or ``sanity`` (the
pipeline behaves). A claim records its ``uncertainty`` (:mod:`harness.reproduction.uncertainty`)
and the generators it rests on (``depends_on``, checked against their adequacy gates,
:mod:`harness.reproduction.adequacy`); its verdict comes from :func:`check_verdict`, the one
rule (:mod:`harness.reproduction.verdict`), never from the check function.

The builders below (:func:`exact`, :func:`within`, :func:`ordered`, :func:`trend`,
:func:`not_reproducible`, :func:`not_evaluable`, :func:`unavailable`) are what the per-paper
check modules in ``experiments/reproductions/`` use; none of them raises on missing data, so a
failed generator makes a check fail with a reason instead of hiding the other checks.
``within`` and ``ordered`` compute the uncertainty themselves when given the replicated values
(``samples``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from harness.reproduction import uncertainty as unc
from harness.reproduction.verdict import CHECK_VERDICTS, CLAIM_VERDICTS, KINDS, check_verdict

LEVELS: tuple[str, ...] = ("exact", "tolerance", "trend", "not reproducible")
VERDICTS: tuple[str, ...] = (*CLAIM_VERDICTS, *CHECK_VERDICTS)


@dataclass(frozen=True)
class Check:
    """One published statement checked against a run.

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
        Whether the point estimate agrees at ``level`` (a claim's verdict also needs its
        uncertainty: see :attr:`verdict`).
    kind : str
        One of :data:`~harness.reproduction.verdict.KINDS` (required).
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
    uncertainty : dict, optional
        How sure the observed value is (:mod:`harness.reproduction.uncertainty`): intervals of
        effects (orderings, trends) or estimates (tolerance), or a test's decision, or
        ``deterministic``.
    depends_on : tuple of str
        Keys of the adequacy gates (usually generator names) the claim rests on.
    not_evaluable : str
        Why this setup cannot test the claim (data not available, too few blocks, a failed
        adequacy gate); empty when it can.
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
    kind: str = ""
    uncertainty: dict[str, Any] | None = None
    depends_on: tuple[str, ...] = field(default_factory=tuple)
    not_evaluable: str = ""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {self.level!r}")
        if not self.id or any(ch.isspace() for ch in self.id):
            raise ValueError(f"id must be a non-empty word without spaces; got {self.id!r}")
        if self.kind not in KINDS:
            raise ValueError(f"check {self.id}: kind must be one of {', '.join(KINDS)}; got {self.kind!r}")
        if self.level == "not reproducible" and self.kind != "claim":
            raise ValueError(f"check {self.id}: only a claim can be 'not reproducible'")

    @property
    def is_claim(self) -> bool:
        """Whether the check is a finding of the paper (counted as agreement)."""
        return self.kind == "claim"

    @property
    def verdict(self) -> str:
        """The verdict by the one rule: a claim verdict, or ``passes``/``fails`` for the other kinds."""
        return self.judged()[0]

    @property
    def why(self) -> str:
        """What decided a claim's verdict, in words (empty for the other kinds)."""
        return self.judged()[1]

    def judged(self) -> tuple[str, str]:
        """``(verdict, why)`` from :func:`~harness.reproduction.verdict.check_verdict`."""
        return check_verdict(
            kind=self.kind, level=self.level, passed=self.passed, uncertainty=self.uncertainty,
            expected=self.expected, not_evaluable=self.not_evaluable, error=self.error,
        )  # fmt: skip

    def with_gate_failures(self, failures: Mapping[str, str]) -> Check:
        """This check, made ``not evaluable`` when a gate it depends on failed (claims only)."""
        failed = [f"{key}: {failures[key]}" for key in self.depends_on if key in failures]
        if not self.is_claim or not failed or self.not_evaluable:
            return self
        return replace(self, not_evaluable="adequacy gate not passed — " + "; ".join(failed))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the entry of ``checks.json``), verdict included."""
        out = asdict(self)
        out["evidence"] = list(self.evidence)
        out["depends_on"] = list(self.depends_on)
        out["pass"] = out.pop("passed")
        out["verdict"], out["verdict_why"] = self.judged()
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
            kind=str(data.get("kind", "")),
            uncertainty=data.get("uncertainty"),
            depends_on=tuple(data.get("depends_on") or ()),
            not_evaluable=str(data.get("not_evaluable", "")),
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
    kind: str,
    tol: float = 0.0,
    digits: int = 3,
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
    uncertainty: dict[str, Any] | None = None,
    depends_on: Sequence[str] = (),
) -> Check:
    """An ``exact`` check: ``|observed - expected| <= tol`` (the printed precision).

    ``reason`` is always shown; ``if_failed`` (why it differs) only when the check fails. An
    exact claim is a deterministic value unless ``uncertainty`` says otherwise.
    """
    passed = _finite(observed) and abs(float(observed) - float(expected)) <= tol + 1e-12  # type: ignore[arg-type]
    reason = _join(reason, "" if passed else if_failed)
    if uncertainty is None and kind == "claim":
        uncertainty = dict(unc.DETERMINISTIC)
    return Check(
        id, claim, paper, fmt(observed, digits), "exact", passed, _why(passed, reason, observed, expected, tol),
        {"value": expected, "tol": tol}, observed, tuple(evidence), kind=kind, uncertainty=uncertainty,
        depends_on=tuple(depends_on),
    )  # fmt: skip


def within(
    id: str,
    claim: str,
    paper: str,
    observed: float | int | None,
    low: float | None,
    high: float | None,
    *,
    kind: str,
    level: str = "tolerance",
    digits: int = 3,
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
    samples: Any = None,
    uncertainty: dict[str, Any] | None = None,
    depends_on: Sequence[str] = (),
    method: str = "",
) -> Check:
    """``low <= observed <= high`` (either bound may be None) at ``level`` (default ``tolerance``).

    With ``samples`` (the replicated values whose mean is the claim's value; ``observed`` may
    then be None) the uncertainty is the bootstrap interval of their mean, compared with the
    band by the verdict rule; ``method`` names what was resampled (default "blocks").
    """
    if samples is not None:
        values = unc._clean(samples)
        if observed is None and len(values):
            observed = float(values.mean())
        if uncertainty is None:
            entry = unc.bootstrap_mean(values, "mean")
            what = method or f"{len(values)} replicates"
            uncertainty = unc.record(
                f"bootstrap interval (95 %) of the mean over {what}", [entry] if entry else [], n=len(values)
            )
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
        tuple(evidence), kind=kind, uncertainty=uncertainty, depends_on=tuple(depends_on),
    )  # fmt: skip


def ordered(
    id: str,
    claim: str,
    paper: str,
    values: Mapping[str, float | None] | None,
    order: Sequence[str],
    *,
    kind: str,
    strict: bool = True,
    level: str = "trend",
    digits: int = 3,
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
    samples: Mapping[str, Any] | None = None,
    paired: bool = True,
    method: str = "",
    uncertainty: dict[str, Any] | None = None,
    depends_on: Sequence[str] = (),
) -> Check:
    """The labelled ``values`` increase along ``order`` (``a < b < c``; ``<=`` when not strict).

    With ``samples`` (label → replicated values; a Series indexed by block pairs the
    comparison) ``values`` default to their means and the uncertainty holds the interval of
    each adjacent difference (later − earlier): the verdict rule then asks each to be above 0.
    ``method`` names the blocks ("6 datasets").
    """
    if samples is not None:
        means = {
            label: (float(unc._clean(v).mean()) if len(unc._clean(v)) else None)
            for label, v in samples.items()
        }
        values = {**means, **(values or {})}
        if uncertainty is None:
            entries = unc.ordering(samples, order, paired=paired)
            sizes = sorted(
                {len(unc._clean(samples[label])) for label in order if samples.get(label) is not None}
            )
            what = method or ("blocks" if paired else "replicates") + f" (n = {', '.join(map(str, sizes))})"
            uncertainty = unc.record(
                f"{'paired ' if paired else ''}bootstrap interval (95 %) of each difference over {what}",
                [e for e in entries if e is not None],
                n=min(sizes) if sizes else 0,
            )
            if any(e is None for e in entries):
                uncertainty["intervals"] = []
                uncertainty["note"] = "a side has fewer than two replicates"
    values = dict(values or {})
    shown = [(label, values.get(label)) for label in order]
    missing = [label for label, v in shown if not _finite(v)]
    observed = _relations(shown, digits)
    if missing:
        return Check(
            id, claim, paper, observed, level, False, f"{reason + '; ' if reason else ''}no value for "
            + ", ".join(missing), {"order": list(order), "strict": strict}, dict(shown), tuple(evidence),
            kind=kind, uncertainty=uncertainty, depends_on=tuple(depends_on),
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
        tuple(evidence), kind=kind, uncertainty=uncertainty, depends_on=tuple(depends_on),
    )  # fmt: skip


def trend(
    id: str,
    claim: str,
    paper: str,
    observed: str,
    passed: bool,
    *,
    kind: str,
    value: Any = None,
    expected: Any = None,
    level: str = "trend",
    reason: str = "",
    if_failed: str = "",
    evidence: Sequence[str] = (),
    uncertainty: dict[str, Any] | None = None,
    depends_on: Sequence[str] = (),
) -> Check:
    """A check whose outcome the caller decided (a direction, a sign, a set relation).

    A claim needs its ``uncertainty`` (intervals of effects in the stated direction, a test's
    decision, or :data:`~harness.reproduction.uncertainty.DETERMINISTIC`); without one the
    verdict rule calls it inconclusive.
    """
    reason = _join(reason, "" if passed else if_failed)
    return Check(
        id, claim, paper, observed, level, bool(passed), reason, expected, value, tuple(evidence), kind=kind,
        uncertainty=uncertainty, depends_on=tuple(depends_on),
    )  # fmt: skip


def not_reproducible(id: str, claim: str, paper: str, reason: str, *, observed: str = "") -> Check:
    """A published claim we cannot test offline (verdict ``not evaluable`` with the reason)."""
    return Check(
        id, claim, paper, observed, "not reproducible", False, reason, kind="claim", not_evaluable=reason
    )


def not_evaluable(
    id: str,
    claim: str,
    paper: str,
    reason: str,
    *,
    level: str = "trend",
    observed: str = "",
    value: Any = None,
    evidence: Sequence[str] = (),
    depends_on: Sequence[str] = (),
) -> Check:
    """A claim this setup cannot test (too few blocks for the paper's test, ...): say what would."""
    return Check(
        id, claim, paper, observed, level, False, reason, None, value, tuple(evidence), kind="claim",
        depends_on=tuple(depends_on), not_evaluable=reason,
    )  # fmt: skip


def unavailable(id: str, claim: str, paper: str, level: str, reason: str, *, kind: str) -> Check:
    """A check that could not be computed from this run (e.g. its generator failed).

    A claim is then ``not evaluable`` with the reason; another kind fails.
    """
    return Check(
        id, claim, paper, "", level, False, reason, kind=kind, not_evaluable=reason if kind == "claim" else ""
    )


def _relations(shown: Sequence[tuple[str, Any]], digits: int) -> str:
    """``a 0.100 < b 0.500 > c 0.300``: each sign is the true relation of the shown values (never
    the claimed one), so a broken order never reads as a false inequality."""
    text = ""
    for i, (label, value) in enumerate(shown):
        if i:
            before = shown[i - 1][1]
            if _finite(before) and _finite(value):
                a, b = float(before), float(value)
                sign = "<" if a < b else ">" if a > b else "="
            else:
                sign = "·"
            text += f" {sign} "
        text += f"{label} {fmt(value, digits)}"
    return text


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
    "not_evaluable",
    "not_reproducible",
    "ordered",
    "trend",
    "unavailable",
    "within",
]
