"""A referee's summary of one reproduction run, in plain words, from its claim verdicts.

The summary opens each paper's section of ``REPRODUCTION.md`` and must not mislead a reader
who stops there: it lists what holds, what does not, what the run cannot tell and what cannot
be tested here (with the reason), counting claims only; generators that failed an adequacy
gate are named with the gate. It is generated from the checks' verdicts (never written by
hand), followed by the check module's own notes on the run (``referee_notes(run, checks)``:
plain words computed from the results, e.g. which budgets are cut and what they can move).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.reproduction.adequacy import Gate
from harness.reproduction.checks import Check
from harness.reproduction.verdict import INCONCLUSIVE, NOT_EVALUABLE, NOT_REPRODUCED, REPRODUCED

_TRAILING = re.compile(r"\s*(\([^()]*(\([^()]*\)[^()]*)*\)|\[[^\[\]]*\])$")
HEADINGS: dict[str, str] = {
    REPRODUCED: "Holds",
    NOT_REPRODUCED: "Does not hold",
    INCONCLUSIVE: "Cannot tell from this run",
    NOT_EVALUABLE: "Cannot be tested here",
}


class Lead(str):
    """A note that must come before the verdicts (what a reader who stops at the first line needs).

    E.g. "at the paper's own budget the ordering is reversed" or "every claim on PPT rests on a
    stand-in": a check module's ``referee_notes`` returns ``Lead(text)`` for such a note.
    """

    __slots__ = ()


def referee_summary(checks: Sequence[Check], gates: Sequence[Gate], notes: Sequence[str] = ()) -> list[str]:
    """Markdown lines: the :class:`Lead` notes, one paragraph per claim verdict, the failed
    gates, then the other ``notes``."""
    claims = [c for c in checks if c.is_claim]
    others = [c for c in checks if not c.is_claim]
    lines: list[str] = [str(n) for n in notes if isinstance(n, Lead) and str(n).strip()]
    if not claims:
        lines.append(
            "This run states no claim of the paper to test (only setup, arithmetic or sanity checks)."
        )
    for verdict, heading in HEADINGS.items():
        chosen = [c for c in claims if c.verdict == verdict]
        if chosen:
            lines.append(f"**{heading}** ({len(chosen)} of {len(claims)} claims): {_items(chosen, verdict)}.")
    failed: list[Gate] = []  # one line per (generator, gate), e.g. an ε gate failed on two datasets
    for gate in gates:
        if not gate.passed and all((g.key, g.gate) != (gate.key, gate.gate) for g in failed):
            failed.append(gate)
    if failed:
        parts = []
        for gate in failed:
            resting = [c for c in claims if gate.key in c.depends_on]
            rests = f"{len(resting)} claim(s) rest on it" if resting else "no claim rests on it"
            parts.append(f"{gate.key} — {gate.gate}: {gate.outcome} ({rests})")
        lines.append(
            "**Adequacy gates not passed** (the numbers are in the gates table below): "
            + "; ".join(parts)
            + "."
        )
    if others:
        failing = [c for c in others if c.verdict != "passes"]
        text = f"Setup, arithmetic and sanity checks: {len(others) - len(failing)} of {len(others)} pass"
        if failing:
            text += " (failing: " + "; ".join(f"{c.claim}" for c in failing) + ")"
        lines.append(text + ".")
    lines.extend(str(n) for n in notes if not isinstance(n, Lead) and str(n).strip())
    return lines


def _items(chosen: Sequence[Check], verdict: str) -> str:
    """The claims of one verdict: their short titles, grouped by the reason that decided them.

    Claims that hold are listed; the others are grouped by the first clause of what decided them
    (a failed gate, a missing budget, "within noise"), so a reason shared by many claims is said
    once; the claims table keeps every detail.
    """
    if verdict == REPRODUCED:
        return "; ".join(_title(c.claim) for c in chosen)
    groups: dict[str, list[str]] = {}
    for check in chosen:
        if verdict == NOT_EVALUABLE:
            reason = check.not_evaluable or check.why
        elif verdict == NOT_REPRODUCED:
            reason = check.why
        else:
            reason = check.why
        groups.setdefault(_first_clause(reason), []).append(_title(check.claim))
    return "; ".join(f"{'; '.join(titles)} — {reason}" for reason, titles in groups.items())


def _title(text: str) -> str:
    """A claim's text without its trailing parentheticals and brackets (details stay in the table)."""
    flat = _sentence(text)
    while True:
        match = _TRAILING.search(flat)
        # only an explanation is dropped (four words or more), never "(c)" or "[60, 68]"
        if match is None or len(match.group(0).split()) < 4:
            return flat
        shorter = flat[: match.start()].rstrip(" .,;")
        if len(shorter) < 20:
            return flat
        flat = shorter


def _first_clause(text: str) -> str:
    """The first clause of a reason, never cut inside a word (the table holds the rest)."""
    flat = _flat(text).split("; ")[0]
    if len(flat) <= 400:
        return flat
    cut = flat[:400].rsplit(" ", 1)[0].rstrip(",:")
    return f"{cut} … (see the claims table)"


def _sentence(text: str) -> str:
    return " ".join(str(text).split()).rstrip(".")


def _flat(text: str) -> str:
    return " ".join(str(text).split()).rstrip(".")


__all__ = ["HEADINGS", "referee_summary"]
