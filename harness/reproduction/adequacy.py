"""Adequacy gates: did a generator learn before its results decide a claim?

A claim resting on a generator that did not train (a GAN stopped after a few iterations, a DP
model whose output does not change with ε) says nothing about the paper's method, in either
direction. Before such results can decide a claim the run must show (issue 27):

* **it learnt** — its utility is above the trivial predictor's (the majority class for accuracy,
  0.5 for ROC AUC, the constant predictor's F1) beyond noise: :func:`utility_gate`;
* **ε matters** — where ε is swept, its output changes with ε beyond noise: :func:`epsilon_gate`;
* **the budget suffices** — the metric no longer moves between two training budgets (an
  equivalence within a tolerance): :func:`budget_gate`.

A check module lists its gates in ``GATES`` (functions ``run -> Gate | list[Gate]``), evaluated
before its checks; a claim names the gate keys it rests on (``depends_on``) and becomes
``not evaluable``, naming the failed gate, when one failed. The remedy is to train the
generator properly, never to drop the gate.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness.reproduction import uncertainty as unc

if TYPE_CHECKING:
    from harness.reproduction.checks import Check
    from harness.reproduction.view import ReproductionRun


@dataclass(frozen=True)
class Gate:
    """One adequacy gate's outcome.

    Attributes
    ----------
    key : str
        What claims name in ``depends_on`` (a generator name, or e.g. ``pategan@texas``).
    gate : str
        Which gate: ``learns``, ``responds to ε`` or ``budget suffices``.
    passed : bool
    detail : str
        The numbers behind the outcome, in words.
    evaluated : bool
        False when the run lacks what the gate needs (e.g. no run at the higher budget yet): the
        gate is not passed, so the claims resting on it stay not evaluable, but it did not fail
        on evidence either, and the report says "not evaluated", not "fails".
    """

    key: str
    gate: str
    passed: bool
    detail: str
    evaluated: bool = True

    @property
    def outcome(self) -> str:
        """``passes``, ``fails`` or ``not evaluated``."""
        if not self.evaluated:
            return "not evaluated"
        return "passes" if self.passed else "fails"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Gate:
        return cls(
            str(data["key"]), str(data["gate"]), bool(data["passed"]), str(data.get("detail", "")),
            bool(data.get("evaluated", True)),
        )  # fmt: skip


def failures(gates: Iterable[Gate]) -> dict[str, str]:
    """Failed gates by key (several failures of one key joined)."""
    out: dict[str, str] = {}
    for gate in gates:
        if not gate.passed:
            text = f"{gate.gate} {'not evaluated' if not gate.evaluated else 'failed'} ({gate.detail})"
            out[gate.key] = f"{out[gate.key]}; {text}" if gate.key in out else text
    return out


def apply_gates(checks: Sequence[Check], gates: Iterable[Gate]) -> list[Check]:
    """The checks with every claim that rests on a failed gate made ``not evaluable``."""
    failed = failures(gates)
    return [check.with_gate_failures(failed) for check in checks]


# ---------------------------------------------------------------------- trivial predictors
def class_shares(dataset: str, target: str | None = None) -> pd.Series:
    """Class shares of a bundled dataset's target (the whole table: splits are stratified)."""
    from harness.datasets import load_dataset, load_spec

    spec = load_spec(dataset)
    column = target or spec.target
    if column is None:
        raise ValueError(f"dataset {dataset!r} has no target; name one")
    values = load_dataset(spec).frame[column].dropna()
    return values.astype(str).value_counts(normalize=True)


def trivial_score(score: str, shares: pd.Series, *, positive: str | None = None) -> float:
    """The best score a predictor that ignores the features reaches (a constant prediction).

    ``accuracy``: the majority share; ``roc_auc``: 0.5; ``f1`` (binary, ``positive`` class,
    default the minority): the F1 of always predicting the positive class, 2p/(1 + p);
    ``f1_macro``: the better of the constant predictions' macro-F1, max over classes of
    (2p/(1 + p))/K.
    """
    shares = shares.astype(float)
    if score == "accuracy":
        return float(shares.max())
    if score == "roc_auc":
        return 0.5
    if score == "f1":
        p = float(shares[positive] if positive is not None else shares.min())
        return 2 * p / (1 + p)
    if score in ("f1_macro", "macro_f1"):
        return float(max(2 * p / (1 + p) for p in shares)) / len(shares)
    raise ValueError(f"no trivial predictor for score {score!r}")


# ---------------------------------------------------------------------- gates
def utility_gate(
    run: ReproductionRun,
    generator: str,
    trivial: float | Mapping[str, float],
    *,
    metric: str = "ml_efficacy",
    variant: str,
    key: str | None = None,
    params: Mapping[str, Any] | None = None,
    datasets: Sequence[str] | None = None,
    margin: float = 0.0,
    label: str = "",
) -> Gate:
    """The generator's utility exceeds the trivial predictor's beyond noise on every dataset.

    ``trivial`` is one value or one per dataset (see :func:`trivial_score`). The replicates of a
    dataset (seeds, folds, QI sets) give a bootstrap interval of the mean; a single accuracy
    value uses its Wilson interval over the test rows (``n_test`` of the row's details). The
    gate fails on a dataset whose interval does not clear ``trivial + margin``, or that has no
    row. A single replicate of another score passes only above ``trivial + margin`` and says it
    has no noise estimate.
    """
    rows = run.rows(metric, variant, generator=generator, params=params)
    wanted = list(datasets) if datasets is not None else sorted(set(rows["dataset"].astype(str)))
    parts, passed = [], bool(wanted)
    for dataset in wanted:
        floor = float(trivial[dataset] if isinstance(trivial, Mapping) else trivial) + margin
        values = rows.loc[rows["dataset"] == dataset, "value"].astype(float).dropna()
        if values.empty:
            parts.append(f"{dataset}: no {metric} row")
            passed = False
            continue
        entry = unc.bootstrap_mean(values, dataset)
        how = f"{len(values)} replicates"
        if entry is None and variant.endswith("accuracy"):
            n_test = _n_test(rows[rows["dataset"] == dataset])
            entry = unc.wilson(round(float(values.iloc[0]) * n_test), n_test, dataset) if n_test else None
            how = f"Wilson over {n_test} test rows"
        low = entry["low"] if entry is not None else float(values.iloc[0])
        if entry is None:
            how = "1 replicate, no noise estimate"
        ok = low > floor
        passed &= ok
        parts.append(
            f"{dataset}: {values.mean():.3f} (lower bound {low:.3f}, {how}) {'>' if ok else '≤'} trivial {floor:.3f}"
        )
    what = label or f"{variant} above the trivial predictor"
    return Gate(key or generator, "learns", passed, f"{what}: " + "; ".join(parts) if parts else "no rows")


def epsilon_gate(
    run: ReproductionRun,
    generator: str,
    measures: Sequence[tuple[str, str]],
    *,
    param: str = "epsilon",
    key: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> Gate:
    """The output changes with ε beyond noise: smallest against largest ε, on any of ``measures``.

    ``measures`` are ``(metric, variant)`` pairs (utility, fidelity, privacy: anything the
    released table determines). Per dataset the values at the two extreme ε are compared (a
    bootstrap interval of the difference, paired by seed where both have it); the gate passes
    when on every dataset at least one measure differs beyond noise. Identical values at every
    ε (the output did not depend on ε) fail it.
    """
    column = f"param.{param}"
    parts, passed, seen = [], True, False
    frames = [
        run.rows(m, v, generator=generator, params=params).assign(_measure=f"{m}/{v}" if v else m)
        for m, v in measures
    ]
    rows = pd.concat(frames) if frames else pd.DataFrame()
    if rows.empty or column not in rows:
        return Gate(key or generator, "responds to ε", False, f"no rows with a swept {param}")
    for dataset, part in rows.groupby("dataset"):
        eps = sorted(pd.to_numeric(part[column], errors="coerce").dropna().unique())
        if len(eps) < 2:
            continue
        seen = True
        lo, hi = eps[0], eps[-1]
        moved = []
        for measure, group in part.groupby("_measure"):
            a = (
                group[np.isclose(pd.to_numeric(group[column]), hi)]
                .set_index("gen_seed")["value"]
                .astype(float)
            )
            b = (
                group[np.isclose(pd.to_numeric(group[column]), lo)]
                .set_index("gen_seed")["value"]
                .astype(float)
            )
            entry = unc.difference(a, b, str(measure))
            if entry is not None:
                if entry["low"] > 0 or entry["high"] < 0:
                    moved.append(
                        f"{measure} {entry['estimate']:+.3g} [{entry['low']:+.3g}, {entry['high']:+.3g}]"
                    )
            elif len(a) and len(b) and not math.isclose(float(a.mean()), float(b.mean()), abs_tol=1e-12):
                moved.append(f"{measure} {a.mean() - b.mean():+.3g} (1 replicate)")
        ok = bool(moved)
        passed &= ok
        parts.append(
            f"{dataset} ε {lo:g} → {hi:g}: " + (", ".join(moved) if ok else "no measure differs beyond noise")
        )
    if not seen:
        return Gate(
            key or generator, "responds to ε", False, f"fewer than two {param} values on every dataset"
        )
    return Gate(key or generator, "responds to ε", passed, "; ".join(parts))


def budget_gate(
    run: ReproductionRun,
    generator: str,
    *,
    param: str,
    low: float,
    high: float,
    metric: str,
    variant: str,
    tolerance: float,
    key: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> Gate:
    """The metric no longer moves between budgets ``low`` and ``high`` of ``param`` (e.g. epochs).

    The interval of (value at ``high`` − value at ``low``), paired by (dataset, split seed, fold,
    generator seed), must lie inside ±``tolerance``: results at ``low`` then stand for the
    trained model. A difference beyond the tolerance (or an interval too wide to tell) fails
    the gate: claims read at ``low`` are not evaluable until the generator is trained longer.
    """
    rows = run.rows(metric, variant, generator=generator, params=params)
    column = f"param.{param}"
    name = key or f"{generator}@{param}={low:g}"
    if rows.empty or column not in rows:
        return Gate(name, "budget suffices", False, f"no {metric} rows with {param}", evaluated=False)
    blocks = ["dataset", "split_seed", "fold", "gen_seed"]
    budget = pd.to_numeric(rows[column], errors="coerce")
    a = rows[np.isclose(budget, high)].groupby(blocks)["value"].mean()
    b = rows[np.isclose(budget, low)].groupby(blocks)["value"].mean()
    entry = unc.difference(a, b, f"{param} {high:g} − {low:g}")
    if entry is None:
        absent = [f"{param} {v:g}" for v, side in ((high, a), (low, b)) if len(side) == 0]
        why = (
            f"no {variant} rows at {' and '.join(absent)}"
            if absent
            else f"fewer than two paired runs at {param} {low:g} and {high:g}"
        )
        return Gate(name, "budget suffices", False, why, evaluated=False)
    ok = entry["low"] >= -tolerance and entry["high"] <= tolerance
    text = (
        f"{variant} at {param} {high:g} − {low:g}: {entry['estimate']:+.3f} [{entry['low']:+.3f}, "
        f"{entry['high']:+.3f}] over {len(a.index.intersection(b.index))} paired runs; "
        f"{'inside' if ok else 'not inside'} ±{tolerance:g}"
    )
    return Gate(name, "budget suffices", ok, text)


def _n_test(rows: pd.DataFrame) -> int:
    for text in rows.get("details", pd.Series(dtype=object)):
        try:
            n = json.loads(text).get("n_test") if isinstance(text, str) and text else None
        except json.JSONDecodeError:
            n = None
        if n:
            return int(n)
    return 0


__all__ = [
    "Gate",
    "apply_gates",
    "budget_gate",
    "class_shares",
    "epsilon_gate",
    "failures",
    "trivial_score",
    "utility_gate",
]
