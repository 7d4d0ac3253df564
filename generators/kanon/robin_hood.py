"""``robin_hood``: OLA k-anonymisation then Robin Hood masking (``spec/generators.md`` §6.5).

Source: ``004_…`` *Robin Hood: A De-identification Method to Preserve Minority Representation
for Disparities Research*, §2 and Algorithm 1 (Fig. 6, Table 2); Python reference
``j-t-brown/RobinHood``.

Step 1 releases the training table k-anonymised to ``k_initial`` by :class:`KAnonFullDomain`
(OLA, no suppression). Step 2 masks the fairness attribute (``?``) of randomly chosen records.
Within a *masking class* j (the records sharing every generalised QI value except the
fairness attribute) an equivalence class i of size A_i < ``k_target`` (a *minority* class)
masks C_i of its own records and makes the class hold D_ij masked records outside i, so that
the expected number of attempts to re-identify any of its records equals that of a
``k_target``-anonymous table (Eq. 5: k_target = A_i + C_i·D_ij/A_i, hence
D_ij = ⌈A_i(k_target − A_i)/C_i⌉). The extra masked records are drawn from the *majority*
classes of j (A ≥ ``k_target``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.kanon.equivalence import LOSSES, class_ids
from generators.kanon.fulldomain import KAnonFullDomain
from generators.kanon.hierarchies import HIERARCHY_SOURCES, is_missing
from generators.kanon.params import choice, validate_k, validate_share, validate_widths
from generators.kanon.release import GeneralisingGenerator
from generators.kanon.search import SEARCHES
from harness.errors import ConfigError
from harness.generator import GeneratorInfo

MASK = "?"
"""Released fairness-attribute value of a masked record (Table 2, ``mask``)."""
ON_INFEASIBLE: tuple[str, ...] = ("stop", "continue")
MASKING_CLASSES_REPORTED = 20
"""How many masking classes (those holding a minority class, most masked first) ``details()`` lists."""
INFEASIBLE_REPORTED = 50
"""How many infeasible classes ``details()`` lists."""
OLA_DETAILS: tuple[str, ...] = (
    "node", "node_height", "loss", "loss_value", "information_loss", "hierarchy", "hierarchies",
    "search", "lattice_size", "nodes_evaluated", "n_k_minimal", "achieved_k", "n_classes",
)  # fmt: skip
"""Details of the OLA step (:class:`KAnonFullDomain`) reported under ``ola``."""
MISSING_KEY = "<NA>"
"""Key of a missing fairness value in ``details()["masked_by_value"]``."""
_TOL = 1e-9

# statuses of an equivalence class in the ``masking`` artifact
MAJORITY = "majority"
MASKED = "masked"
INFEASIBLE = "infeasible"
NOT_PROCESSED = "not_processed"


@dataclass
class MaskingResult:
    """Outcome of Algorithm 1 on a labelled table.

    Attributes
    ----------
    masked : ndarray of bool
        Row-aligned: the row's fairness attribute is masked.
    ec : ndarray of int
        Row-aligned equivalence-class id (before masking).
    masking_class : ndarray of int
        Masking-class id of every equivalence class, in processing order (0 = first).
    sizes, masked_in_ec : ndarray of int
        A_i and C_i (masked records, for majority classes too) per equivalence class.
    status : ndarray of object
        Per equivalence class: ``majority``, ``masked``, ``infeasible`` or ``not_processed``.
    feasible : bool
        Algorithm 1's ``feasible`` output: no minority class was found infeasible.
    stopped_early : bool
        ``on_infeasible="stop"`` ended the masking at an infeasible class.
    first_row : ndarray of int
        A representative training row of every equivalence class.
    """

    masked: np.ndarray
    ec: np.ndarray
    masking_class: np.ndarray
    sizes: np.ndarray
    masked_in_ec: np.ndarray
    status: np.ndarray
    feasible: bool
    stopped_early: bool
    first_row: np.ndarray

    def masked_in_class(self) -> np.ndarray:
        """E_j for every equivalence class (total masked in its masking class)."""
        n_classes = int(self.masking_class.max()) + 1 if len(self.masking_class) else 0
        totals = np.bincount(self.masking_class, weights=self.masked_in_ec, minlength=n_classes)
        return totals[self.masking_class].astype(np.int64)

    def effective_k(self) -> np.ndarray:
        """A_i + C_i·D_ij/A_i per equivalence class (Eq. 5), D_ij = E_j − C_i."""
        outside = self.masked_in_class() - self.masked_in_ec
        return self.sizes + self.masked_in_ec * outside / self.sizes


def num_to_mask(size: int, masked_here: int, k_target: int) -> int:
    """Records to mask outside an equivalence class: ⌈A_i(k_target − A_i)/C_i⌉ (Eq. 5)."""
    return -(-size * (k_target - size) // masked_here)


def robin_hood_mask(
    labels: Mapping[str, np.ndarray],
    qi: Sequence[str],
    fairness_attr: str,
    *,
    k_target: int,
    threshold_majority: float,
    threshold_minority: float,
    rng: np.random.Generator,
    on_infeasible: str = "stop",
) -> MaskingResult:
    """Algorithm 1 (``004_…`` *Robin Hood*, Fig. 6) on a k_initial-anonymous labelled table.

    Parameters
    ----------
    labels : mapping of str to ndarray
        Row-aligned labels of the QI columns (the OLA release).
    qi : sequence of str
        The QI set; must hold ``fairness_attr``.
    fairness_attr : str
        The attribute that gets masked.
    k_target : int
    threshold_majority, threshold_minority : float
        Largest share of a masking class's majority records, and of a minority class's
        records, that may be masked.
    rng : numpy.random.Generator
        Draws which records are masked.
    on_infeasible : {"stop", "continue"}
        ``stop``: return at the first infeasible minority class (Algorithm 1, lines 22–24);
        ``continue``: record it and go on (the reference code).

    Returns
    -------
    MaskingResult
    """
    n = len(labels[fairness_attr])
    others = [c for c in qi if c != fairness_attr]
    ec = class_ids([labels[c] for c in qi])
    sizes = np.bincount(ec).astype(np.int64)
    n_ec = len(sizes)
    _, first_row = np.unique(ec, return_index=True)
    mc_rows = class_ids([labels[c] for c in others]) if others else np.zeros(n, dtype=np.int64)
    mc_of_ec = mc_rows[first_row]

    # processing order: masking classes by their labels, minority classes by (A_i, fairness label)
    def text(col: str, row: int) -> str:
        value = labels[col][row]
        return "" if is_missing(value) else str(value)

    mc_first = {int(j): int(first_row[i]) for i, j in enumerate(mc_of_ec)}  # any row of j
    mc_order = sorted(mc_first, key=lambda j: tuple(text(c, mc_first[j]) for c in others))
    rank = {j: r for r, j in enumerate(mc_order)}
    masking_class = np.array([rank[int(j)] for j in mc_of_ec], dtype=np.int64)

    order = np.argsort(ec, kind="stable")
    rows_of_ec = np.split(order, np.cumsum(sizes)[:-1])
    members: list[list[int]] = [[] for _ in mc_order]
    for i in range(n_ec):
        members[masking_class[i]].append(i)

    masked = np.zeros(n, dtype=bool)
    status = np.where(sizes >= k_target, MAJORITY, NOT_PROCESSED).astype(object)
    feasible, stopped = True, False
    for ecs in members:
        majority = [i for i in ecs if sizes[i] >= k_target]
        minority = sorted(
            (i for i in ecs if sizes[i] < k_target),
            key=lambda i: (int(sizes[i]), text(fairness_attr, int(first_row[i]))),
        )
        majority_rows = np.concatenate([rows_of_ec[i] for i in majority]) if majority else np.zeros(0, int)
        majority_rows.sort()
        n_majority = len(majority_rows)
        budget = n_majority * threshold_majority + _TOL
        masked_majority = 0
        masked_total = 0  # E_j so far; minority classes are masked only when processed
        for i in minority:
            size = int(sizes[i])
            c_i = 1
            while c_i <= size * threshold_minority + _TOL:
                d_ij = max(num_to_mask(size, c_i, k_target) - masked_total, 0)
                if masked_majority + d_ij <= budget:
                    own = rng.choice(rows_of_ec[i], size=c_i, replace=False)
                    masked[own] = True
                    if d_ij:
                        pool = majority_rows[~masked[majority_rows]]
                        masked[rng.choice(pool, size=d_ij, replace=False)] = True
                    masked_majority += d_ij
                    masked_total += c_i + d_ij
                    status[i] = MASKED
                    break
                c_i += 1
            else:
                status[i] = INFEASIBLE
                feasible = False
                if on_infeasible == "stop":
                    stopped = True
                    break
        if stopped:
            break
    return MaskingResult(
        masked=masked,
        ec=ec,
        masking_class=masking_class,
        sizes=sizes,
        masked_in_ec=np.bincount(ec[masked], minlength=n_ec).astype(np.int64),
        status=status,
        feasible=feasible,
        stopped_early=stopped,
        first_row=first_row.astype(np.int64),
    )


class RobinHood(GeneralisingGenerator):
    """Robin Hood de-identification (``spec/generators.md`` §6.5; ``004_…`` *Robin Hood*).

    Step 1: :class:`~generators.kanon.fulldomain.KAnonFullDomain` with ``k=k_initial`` and no
    suppression. Step 2: Algorithm 1. For every masking class (records sharing all generalised
    QI values but the fairness attribute), its minority equivalence classes (size
    A_i < ``k_target``) are processed in ascending order of size; for C_i = 1, 2, … while
    C_i ≤ A_i·``threshold_minority``, the records still to mask outside i are
    D_ij = ⌈A_i(k_target − A_i)/C_i⌉ − (records already masked in j outside i); the first C_i
    whose D_ij fits the majority budget masks C_i random records of i and D_ij random
    unmasked records of the masking class's majority classes (A ≥ ``k_target``). If no C_i
    fits, the class is infeasible ("needs generalisation"). Masked records release ``?`` as
    their fairness attribute; the output has n rows.

    Parameters
    ----------
    k_initial : int
        k of the initial OLA k-anonymisation (no suppression), >= 2.
    k_target : int
        k whose expected re-identification effort the masking provides, >= ``k_initial``.
    fairness_attr : str
        The attribute that is masked: a categorical or ordinal column of the active QI set
        (Adult: ``race``; the schema has no fairness-attribute field, so this names it).
    threshold_majority : float
        Largest share of a masking class's majority-class records that may be masked, in
        [0, 1].
    threshold_minority : float
        Largest share of a minority class's records that may be masked, in [0, 1].
    on_infeasible : {"stop", "continue"}
        ``stop``: masking ends at the first infeasible minority class (Algorithm 1 returns
        ``feasible = False``; the classes not yet processed stay unmasked). ``continue``:
        the class is recorded and the others are still masked (the reference code,
        ``Needs_generalization``).
    loss, search, decode, hierarchy, widths
        Passed to the OLA step (see :class:`KAnonFullDomain`).

    Notes
    -----
    **Decisions.** The majority budget is cumulative per masking class: D_ij is accepted
    when the majority records masked in j so far plus D_ij are at most
    ``threshold_majority``·N_majority (Algorithm 1 line 14 compares D_ij alone with
    N_majority·threshold, which lets later classes overrun the threshold or ask for more
    unmasked majority records than remain; with threshold 1 the two agree whenever the
    paper's ``mask`` call can be carried out). D_ij ≤ 0 (enough records already masked)
    masks C_i records of i only. Masking classes are processed in the order of their labels,
    minority classes by size then fairness label. A fairness value ``?`` already present in
    the data is indistinguishable from a masked one. Downstream disparity models should use
    the unmasked records only (§6.5 analysis rule).

    Details: the OLA node and its information loss, the masking counts (records masked
    overall, in majority / minority classes, by fairness value), the per-masking-class
    counts (first :data:`MASKING_CLASSES_REPORTED`), the infeasible classes and the
    effective k (Eq. 5) reached. The ``masking`` artifact has one row per equivalence class.
    """

    capabilities: ClassVar[GeneratorInfo] = replace(GeneralisingGenerator.capabilities, randomised=True)

    def __init__(
        self,
        k_initial: int = 3,
        k_target: int = 30,
        fairness_attr: str = "race",
        threshold_majority: float = 1.0,
        threshold_minority: float = 0.5,
        on_infeasible: str = "stop",
        loss: str = "entropy",
        search: str = "ola",
        decode: str = "lower",
        hierarchy: str = "arx",
        widths: Mapping[str, Any] | None = None,
    ) -> None:
        self.k_initial = k_initial
        self.k_target = k_target
        self.fairness_attr = fairness_attr
        self.threshold_majority = threshold_majority
        self.threshold_minority = threshold_minority
        self.on_infeasible = on_infeasible
        self.loss = loss
        self.search = search
        self.decode = decode
        self.hierarchy = hierarchy
        self.widths = widths

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        validate_k("k_initial", self.k_initial)
        validate_k("k_target", self.k_target)
        if self.k_target < self.k_initial:
            raise ConfigError(f"`k_target` must be >= k_initial ({self.k_initial}); got {self.k_target!r}")
        if not isinstance(self.fairness_attr, str) or not self.fairness_attr:
            raise ConfigError(f"`fairness_attr` must be a column name; got {self.fairness_attr!r}")
        validate_share("threshold_majority", self.threshold_majority)
        validate_share("threshold_minority", self.threshold_minority)
        choice("on_infeasible", self.on_infeasible, ON_INFEASIBLE)
        choice("loss", self.loss, LOSSES)
        choice("search", self.search, SEARCHES)
        choice("hierarchy", self.hierarchy, HIERARCHY_SOURCES)
        self._validate_decode()
        validate_widths(self.widths)

    def _check_fairness_attr(self) -> None:
        spec, col = self.spec_, self.fairness_attr
        if col not in spec.table_columns:
            raise ConfigError(
                f"`fairness_attr` names column {col!r}, which dataset {spec.name!r} lacks; "
                f"expected a categorical column of the QI set ({', '.join(spec.qi)})"
            )
        if col not in spec.qi:
            raise ConfigError(
                f"`fairness_attr` {col!r} is not in the active QI set of dataset {spec.name!r}; "
                f"expected one of {', '.join(spec.qi)}"
            )
        if not spec.column(col).is_categorical:
            raise ConfigError(
                f"`fairness_attr` {col!r} is {spec.kind(col)}; expected a categorical or ordinal column"
            )

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self._check_fairness_attr()
        qi = list(self.spec_.qi)
        ola = KAnonFullDomain(
            k=self.k_initial,
            suppression_limit=0.0,
            loss=self.loss,
            search=self.search,
            decode=self.decode,
            hierarchy=self.hierarchy,
            widths=self.widths,
        ).fit(train, self.spec_, seed=self.seed_)
        ola_details = ola.details()
        generalised = ola.artifacts()["generalised"]
        labels = {c: generalised[c].to_numpy(dtype=object) for c in qi}
        result = robin_hood_mask(
            labels,
            qi,
            self.fairness_attr,
            k_target=int(self.k_target),
            threshold_majority=float(self.threshold_majority),
            threshold_minority=float(self.threshold_minority),
            rng=self.rng_,
            on_infeasible=self.on_infeasible,
        )
        released = labels[self.fairness_attr].copy()
        released[result.masked] = MASK
        self.masking_ = self._masking_table(labels, qi, result)
        self._publish(
            train,
            qi,
            {**labels, self.fairness_attr: released},
            np.ones(len(train), dtype=bool),
            extra={
                "fairness_attr": self.fairness_attr,
                "k_initial": int(self.k_initial),
                "k_target": int(self.k_target),
                "threshold_majority": float(self.threshold_majority),
                "threshold_minority": float(self.threshold_minority),
                "on_infeasible": self.on_infeasible,
                "node": ola_details["node"],
                "ola": {key: ola_details[key] for key in OLA_DETAILS if key in ola_details},
                **self._masking_summary(labels, qi, result),
            },
        )

    # ------------------------------------------------------------------ reports
    def _masking_table(
        self, labels: Mapping[str, np.ndarray], qi: Sequence[str], result: MaskingResult
    ) -> pd.DataFrame:
        rows = result.first_row
        frame: dict[str, Any] = {"masking_class": result.masking_class}
        for col in qi:
            frame[col] = pd.Series(
                [None if is_missing(v) else str(v) for v in labels[col][rows]], dtype=object
            )
        frame.update(
            size=result.sizes,
            masked=result.masked_in_ec,
            masked_in_class=result.masked_in_class(),
            effective_k=result.effective_k(),
            status=pd.Series(result.status, dtype=object),
        )
        table = pd.DataFrame(frame)
        return table.sort_values(["masking_class", "size"], kind="stable").reset_index(drop=True)

    def _masking_summary(
        self, labels: Mapping[str, np.ndarray], qi: Sequence[str], result: MaskingResult
    ) -> dict[str, Any]:
        fair = self.fairness_attr
        others = [c for c in qi if c != fair]
        table = self.masking_
        minority = table[table["status"] != MAJORITY]
        masked_ecs = table[table["status"] == MASKED]
        infeasible = table[table["status"] == INFEASIBLE]
        masked_values = pd.Series(labels[fair][result.masked], dtype=object)
        by_value = {
            (MISSING_KEY if is_missing(v) else str(v)): int(n)
            for v, n in masked_values.value_counts(dropna=False).sort_index().items()
        }

        def key(row: pd.Series, cols: Sequence[str]) -> dict[str, Any]:
            return {c: row[c] for c in cols}

        classes: list[dict[str, Any]] = []
        with_minority = sorted(set(minority["masking_class"]))
        for j in with_minority:
            part = table[table["masking_class"] == j]
            classes.append(
                {
                    "key": key(part.iloc[0], others),
                    "n_records": int(part["size"].sum()),
                    "n_majority_records": int(part.loc[part["status"] == MAJORITY, "size"].sum()),
                    "n_masked": int(part["masked"].sum()),
                    "classes": [
                        {
                            "value": r[fair],
                            "size": int(r["size"]),
                            "masked": int(r["masked"]),
                            "effective_k": _finite(r["effective_k"]),
                            "status": r["status"],
                        }
                        for _, r in part.iterrows()
                    ],
                }
            )
        classes.sort(key=lambda c: -c["n_masked"])
        n_masked = int(result.masked.sum())
        n = len(result.masked)
        reached = masked_ecs["effective_k"]
        return {
            "feasible": bool(result.feasible),
            "stopped_early": bool(result.stopped_early),
            "n_masking_classes": int(table["masking_class"].nunique()),
            "n_equivalence_classes": int(len(table)),
            "n_majority_classes": int((table["status"] == MAJORITY).sum()),
            "n_minority_classes": int(len(minority)),
            "n_minority_masked": int(len(masked_ecs)),
            "n_infeasible": int(len(infeasible)),
            "n_not_processed": int((table["status"] == NOT_PROCESSED).sum()),
            "n_masked": n_masked,
            "masked_share": float(n_masked / n) if n else 0.0,
            "n_masked_majority": int(table.loc[table["status"] == MAJORITY, "masked"].sum()),
            "n_masked_minority": int(minority["masked"].sum()),
            "masked_by_value": by_value,
            "effective_k_min": _finite(reached.min()) if len(reached) else None,
            "infeasible_classes": [
                {**key(r, qi), "size": int(r["size"])}
                for _, r in infeasible.head(INFEASIBLE_REPORTED).iterrows()
            ],
            "masking_classes": classes[:MASKING_CLASSES_REPORTED],
        }

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``generalised``, ``reid`` (of the masked release) and ``masking`` (one row per
        equivalence class: masking class, labels, A_i, C_i, E_j, effective k, status)."""
        out = super().artifacts()
        if hasattr(self, "masking_"):
            out["masking"] = self.masking_.copy()
        return out


def _finite(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
