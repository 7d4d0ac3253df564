"""``mia_audit``: membership-inference audit of a generator, with an empirical ε lower bound.

The threat model is Stadler, Oprisanu and Troncoso, "Synthetic Data — Anonymisation Groundhog
Day" (USENIX Security 2022) and TAPAS (Houssiau et al. 2022); the reported operating points
follow Carlini et al., "Membership Inference Attacks From First Principles" (S&P 2022), and
the ε lower bound the auditing method of Jagielski, Ullman and Oprea (NeurIPS 2020) and Nasr
et al. (S&P 2021). The statistics are :mod:`harness.audit`; the attacks
:mod:`metrics.privacy.mia_attacks`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.audit.epsilon import epsilon_at_threshold, select_threshold
from harness.audit.roc import auc_with_ci, roc_points, thin_curve, tpr_at_fpr
from harness.encoding import TableEncoder
from harness.errors import ConfigError, IncomputableMetricError
from harness.generator import BaseGenerator
from harness.metric import BaseMetric, Family, GeneratorFactory, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.record_keys import distinct
from harness.spec import DatasetSpec
from metrics.privacy.mia_attacks import ATTACKS, EncodedTable, TargetAttacks, scott_bandwidth
from metrics.privacy.mia_features import FEATURE_SETS, FeatureMap
from metrics.privacy.mia_targets import Population, draw_rows, select_targets, with_target

POPULATIONS: tuple[str, ...] = ("train_control", "train")
FPR_LEVELS: dict[str, float] = {"tpr_at_fpr_0.1pct": 0.001, "tpr_at_fpr_1pct": 0.01, "tpr_at_fpr_10pct": 0.1}
MIN_POOL = 10


@dataclass
class _Scores:
    """Per attack, per target: the scores of the IN games and of the OUT games (game order)."""

    scores_in: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    scores_out: dict[str, dict[int, list[float]]] = field(default_factory=dict)

    def add(self, side: str, target: int, scores: dict[str, float]) -> None:
        book = self.scores_in if side == "in" else self.scores_out
        for attack, score in scores.items():
            book.setdefault(attack, {}).setdefault(target, []).append(score)

    def orient(self, direction: dict[str, float]) -> None:
        """Multiply every score of an attack by its direction (−1: a lower score means IN)."""
        for book in (self.scores_in, self.scores_out):
            for attack, sign in direction.items():
                book[attack] = {t: [sign * v for v in values] for t, values in book[attack].items()}

    def pooled(self, attack: str) -> tuple[np.ndarray, np.ndarray]:
        """Every IN and every OUT score of one attack over all targets."""
        return (
            np.concatenate([np.asarray(v) for v in self.scores_in[attack].values()]),
            np.concatenate([np.asarray(v) for v in self.scores_out[attack].values()]),
        )


class MiaAudit(BaseMetric):
    """Membership-inference audit: ROC, TPR at low FPR, privacy gain and an empirical ε bound.

    The audit attacks the *generator*, not only the trial's release. The attacker's population
    P (training and control splits, canonical order) loses its targets and is split at random
    into the auxiliary sample A (the attacker's data: shadow fits and the reference density)
    and the evaluation pool E; neither the targets nor A ever reach the generator of an
    evaluation game. Each of ``n_games`` games draws a raw table R from E, fits the generator
    on R (the OUT fit, shared by the targets) and on R ∪ {x_t} for every target (the IN fits),
    samples one synthetic table per fit and scores it with every attack
    (:mod:`metrics.privacy.mia_attacks`). ``shadow_model`` is trained per target on
    ``n_shadows`` shadow fits on draws from A (one OUT fit shared by the targets, one IN fit per
    target, ``n_syn_A`` tables each).

    Targets: ``n_outliers`` records by the rule of :func:`metrics.privacy.mia_targets.select_targets`
    (most continuous attributes outside their [2.5 %, 97.5 %] range, then the rarest
    combination of categorical values) and ``n_random`` uniform records.

    Each attack's direction is learnt on the selection half of the games (see below): when its
    scores there are lower for IN than for OUT tables (AUC < 0.5; e.g. a release that moves a
    risky record away from where it was), its scores are negated for every output, and the
    details say ``lower_is_member``. Outputs (variants), for the *headline attack* (the attack
    with the largest AUC on the selection half of the games):

    * ``auc``: area under the ROC of the pooled games (all targets), DeLong CI; 0.5 = chance.
      Details hold every attack's AUC, thinned ROC curves, the per-target records (a keyed
      reference, :mod:`harness.record_keys`; never a split, a position or a value) and the audit's cost.
    * ``tpr_at_fpr_0.1pct``, ``tpr_at_fpr_1pct``, ``tpr_at_fpr_10pct``: TPR at FPR 0.1 %, 1 %, 10 %
      with Clopper–Pearson CIs; ``resolvable`` is false when the audit has fewer than 1/FPR
      OUT games.
    * ``privacy_gain``: 1 − (TPR − FPR) of the headline attack at the threshold that maximises
      TPR − FPR on the selection half, measured on the evaluation half (Stadler et al.'s PG).
    * ``epsilon_lb``: empirical ε lower bound at ``confidence``: the attack and threshold are
      chosen on the selection half (``selection_fraction`` of the games), the bound is computed
      on the other half (choosing on the same games would make it optimistic). It uses one IN
      and one OUT observation per game (the target ``g mod n_targets`` of game g), so that its
      observations are independent given the raw draws, as Clopper–Pearson requires. Details
      carry the generator's configured ε (``formal_dp``, read from a fitted generator) and
      ``exceeds_configured``: a bound above a formal ε means a bug in the generator or its
      accounting (or a guarantee stated for another unit, see ``configured_unit``).
    * ``auc_<attack>``: each attack's AUC.

    Parameters
    ----------
    n_outliers, n_random : int
        Targets of each kind (at least one target in all).
    n_games : int
        Evaluation games; the full setting is 100 (TPR at 1 % and ε need many more: an audit
        of one canary with 1,000 games resolves ε ≈ 3, see the metric's YAML).
    n_shadows, n_syn_A : int
        Shadow fits per target and synthetic tables per shadow fit (``shadow_model`` only).
    size_raw_T : int
        Rows of every raw training table R (capped so that A and E can supply it).
    size_syn_T : int
        Rows per synthetic table; 0 = the generator's natural output size (the size of R for
        most generators; the noisy total of a count mechanism). Transform-type generators
        always release their natural size.
    aux_fraction : float
        Share of the population (without targets) given to A; the rest is E.
    attacks : list of str
        Subset of ``closest_distance``, ``density_ratio``, ``shadow_model``.
    feature_set, nbins, n_estimators
        ``shadow_model``'s table features (:mod:`metrics.privacy.mia_features`) and forest size.
    confidence : float
        Confidence of the Clopper–Pearson and DeLong intervals and of the ε bound.
    selection_fraction : float
        Share of the games that choose the headline attack and the thresholds.
    population : {"train_control", "train"}
        The attacker's population P.

    Notes
    -----
    Cost: (1 + n_targets)·(n_games + n_shadows) generator fits (``n_shadows`` only with
    ``shadow_model``), run in the metric's child process under the trial's ``runtime``
    limits; reported as ``n_fits`` (details) and the row's ``metric_s`` (the details hold no
    timing, so that a seed gives byte-identical rows). Every draw comes from one
    generator seeded by ``seed``; P is put in canonical row order first, so the audit is a
    function of the rows, the configuration and the seed. Departures from TAPAS: one synthetic
    table per game fit (games stay independent); OUT fits are shared by the targets of a game
    (the threat model allows it: the OUT table does not depend on the target).
    """

    name: ClassVar[str] = "mia_audit"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf
    needs_generator: ClassVar[bool] = True

    def __init__(
        self,
        n_outliers: int = 5,
        n_random: int = 5,
        n_games: int = 100,
        n_shadows: int = 10,
        n_syn_A: int = 5,
        size_raw_T: int = 1_000,
        size_syn_T: int = 0,
        aux_fraction: float = 0.5,
        attacks: list[str] | tuple[str, ...] = ATTACKS,
        feature_set: str = "correlations",
        nbins: int = 10,
        n_estimators: int = 100,
        confidence: float = 0.95,
        selection_fraction: float = 0.5,
        population: str = "train_control",
    ) -> None:
        self.n_outliers = n_outliers
        self.n_random = n_random
        self.n_games = n_games
        self.n_shadows = n_shadows
        self.n_syn_A = n_syn_A
        self.size_raw_T = size_raw_T
        self.size_syn_T = size_syn_T
        self.aux_fraction = aux_fraction
        self.attacks = attacks
        self.feature_set = feature_set
        self.nbins = nbins
        self.n_estimators = n_estimators
        self.confidence = confidence
        self.selection_fraction = selection_fraction
        self.population = population

    def _validate_params(self) -> None:
        check_int("n_outliers", self.n_outliers, 0)
        check_int("n_random", self.n_random, 0)
        if self.n_outliers + self.n_random < 1:
            raise ConfigError("`n_outliers` + `n_random` must be >= 1 (no target to attack)")
        check_int("n_games", self.n_games, 4)
        for key in ("n_shadows", "n_syn_A", "size_raw_T", "nbins", "n_estimators"):
            check_int(key, getattr(self, key), 1)
        check_int("size_syn_T", self.size_syn_T, 0)
        for key in ("aux_fraction", "confidence", "selection_fraction"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
                raise ConfigError(f"`{key}` must be a number strictly between 0 and 1; got {value!r}")
        if isinstance(self.attacks, str) or not self.attacks:
            raise ConfigError(
                f"`attacks` must be a non-empty list of {', '.join(ATTACKS)}; got {self.attacks!r}"
            )
        for attack in self.attacks:
            check_choice("attacks", attack, ATTACKS)
        check_choice("feature_set", self.feature_set, FEATURE_SETS)
        check_choice("population", self.population, POPULATIONS)

    # ------------------------------------------------------------------ main
    def _compute(  # type: ignore[override]  # needs_generator: BaseMetric.compute passes `generator`
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
        generator: GeneratorFactory,
    ) -> dict[str, MetricResult]:
        rng = np.random.default_rng(seed)
        use_control = self.population == "train_control" and control is not None
        pop = Population.build(real, control if use_control else None)
        outliers, randoms = select_targets(pop.frame, spec, self.n_outliers, self.n_random, rng, MIN_POOL)
        targets = [*outliers, *randoms]
        rest = np.setdiff1d(np.arange(len(pop.frame)), targets)
        rest = rest[rng.permutation(len(rest))]
        n_aux = int(round(self.aux_fraction * len(rest)))
        aux_rows, pool_rows = np.sort(rest[:n_aux]), np.sort(rest[n_aux:])
        size_t = min(self.size_raw_T, len(pool_rows) - 1, len(aux_rows) - 1)
        if size_t < MIN_POOL:
            raise IncomputableMetricError(
                f"metric {self.name}: {len(rest)} population rows besides the targets leave "
                f"{size_t} rows per raw table; need {MIN_POOL}"
            )
        aux = pop.frame.iloc[aux_rows].reset_index(drop=True)
        pool = pop.frame.iloc[pool_rows].reset_index(drop=True)
        encoder = TableEncoder(spec, columns="all").fit(pop.frame)
        features = FeatureMap.fit(pop.frame, spec, self.feature_set, self.nbins)
        reference = encoder.transform(aux)
        bandwidth = scott_bandwidth(reference)
        encoded_targets = encoder.transform(pop.frame.iloc[targets])
        attacks = {t: TargetAttacks(encoded_targets[i], reference, bandwidth) for i, t in enumerate(targets)}
        fitter = _Fitter(
            generator,
            spec,
            encoder,
            features if "shadow_model" in self.attacks else None,
            self.size_syn_T,
            rng,
        )
        target_rows = {t: pop.frame.iloc[[t]] for t in targets}

        if "shadow_model" in self.attacks:
            shadow_out: list[EncodedTable] = []
            shadow_in: dict[int, list[EncodedTable]] = {t: [] for t in targets}
            for _ in range(self.n_shadows):
                raw = draw_rows(aux, size_t, rng)
                shadow_out += fitter.tables(raw, self.n_syn_A)
                for t in targets:
                    shadow_in[t] += fitter.tables(with_target(raw, target_rows[t]), self.n_syn_A)
            for t in targets:
                attacks[t].fit_shadow(
                    shadow_in[t], shadow_out, self.n_estimators, int(rng.integers(2**31 - 1))
                )
        shadow_fits = fitter.n_fits

        scores = _Scores()
        for _ in range(self.n_games):
            raw = draw_rows(pool, size_t, rng)
            (out_table,) = fitter.tables(raw, 1)
            for t in targets:
                scores.add("out", t, self._keep(attacks[t].scores(out_table)))
                (in_table,) = fitter.tables(with_target(raw, target_rows[t]), 1)
                scores.add("in", t, self._keep(attacks[t].scores(in_table)))
        n_game_fits = fitter.n_fits - shadow_fits

        summary = _Summary(self, scores, targets, rng)
        cost = {
            "n_targets": len(targets),
            "n_games": self.n_games,
            "n_shadows": self.n_shadows if "shadow_model" in self.attacks else 0,
            "n_fits": fitter.n_fits,
            "size_raw_T": size_t,
            "n_aux": len(aux),
            "n_pool": len(pool),
            "n_game_fits": n_game_fits,
        }
        names = distinct([pop.record(t)["record"] for t in targets])  # identical rows: distinct targets
        records = [
            {"record": name, "group": "outlier" if t in outliers else "random", **summary.record(t)}
            for name, t in zip(names, targets, strict=True)
        ]
        return summary.results(fitter.formal_dp, records, cost)

    def _keep(self, scores: dict[str, float]) -> dict[str, float]:
        return {k: v for k, v in scores.items() if k in self.attacks}


class _Summary:
    """Turns the games' scores into the metric's outputs."""

    def __init__(
        self, metric: MiaAudit, scores: _Scores, targets: list[int], rng: np.random.Generator
    ) -> None:
        self.metric = metric
        self.scores = scores
        self.targets = targets
        n = metric.n_games
        order = rng.permutation(n)
        n_select = min(max(int(round(metric.selection_fraction * n)), 2), n - 2)
        self.select, self.evaluate = np.sort(order[:n_select]), np.sort(order[n_select:])
        self.attacks = [a for a in ATTACKS if a in scores.scores_in]
        self.direction = {a: (-1.0 if self._auc_on(a, self.select) < 0.5 else 1.0) for a in self.attacks}
        scores.orient(self.direction)
        self.headline = max(self.attacks, key=lambda a: (self._auc_on(a, self.select), -ATTACKS.index(a)))

    def _per_game(self, attack: str) -> tuple[np.ndarray, np.ndarray]:
        """One IN and one OUT score per game g: those of target g mod n_targets."""
        book_in, book_out = self.scores.scores_in[attack], self.scores.scores_out[attack]
        k = len(self.targets)
        games = range(self.metric.n_games)
        return (
            np.array([book_in[self.targets[g % k]][g] for g in games]),
            np.array([book_out[self.targets[g % k]][g] for g in games]),
        )

    def _auc_on(self, attack: str, games: np.ndarray) -> float:
        scores_in = np.concatenate([np.asarray(v)[games] for v in self.scores.scores_in[attack].values()])
        scores_out = np.concatenate([np.asarray(v)[games] for v in self.scores.scores_out[attack].values()])
        return auc_with_ci(scores_in, scores_out, self.metric.confidence)[0]

    def record(self, target: int) -> dict[str, Any]:
        """Per-target exposure: the headline attack's AUC on this target's games, and every attack's."""
        aucs = {
            a: auc_with_ci(self.scores.scores_in[a][target], self.scores.scores_out[a][target], 0.95)[0]
            for a in self.attacks
        }
        return {
            "auc": _round(aucs[self.headline]),
            "attack": self.headline,
            "auc_max": _round(max(aucs.values())),
            "aucs": {a: _round(v) for a, v in aucs.items()},
        }

    def results(
        self, formal_dp: dict[str, Any] | None, records: list[dict[str, Any]], cost: dict[str, Any]
    ) -> dict[str, MetricResult]:
        confidence = self.metric.confidence
        per_attack: dict[str, dict[str, Any]] = {}
        curves: dict[str, dict[str, list[float]]] = {}
        for attack in self.attacks:
            scores_in, scores_out = self.scores.pooled(attack)
            auc, low, high = auc_with_ci(scores_in, scores_out, confidence)
            per_attack[attack] = {
                "auc": _round(auc),
                "auc_low": _round(low),
                "auc_high": _round(high),
                "direction": "higher_is_member" if self.direction[attack] > 0 else "lower_is_member",
            }
            fpr, tpr, _ = roc_points(scores_in, scores_out)
            thinned_fpr, thinned_tpr = thin_curve(fpr, tpr)
            curves[attack] = {"fpr": thinned_fpr, "tpr": thinned_tpr}
        head = self.headline
        scores_in, scores_out = self.scores.pooled(head)
        configured = _configured(formal_dp)
        bound = self._epsilon(configured["configured_delta"] or 0.0)
        exceeds = (
            configured["configured_epsilon"] is not None
            and bound.epsilon_lb > configured["configured_epsilon"]
        )
        out: dict[str, MetricResult] = {
            "auc": MetricResult(
                value=per_attack[head]["auc"],
                ci_low=per_attack[head]["auc_low"],
                ci_high=per_attack[head]["auc_high"],
                baseline=0.5,
                details={
                    "attack": head,
                    "attacks": per_attack,
                    "roc": curves,
                    "records": sorted(records, key=lambda r: (-r["auc"], r["record"])),
                    **configured,
                    **cost,
                    "confidence": confidence,
                },
            )
        }
        for variant, point in zip(
            FPR_LEVELS, tpr_at_fpr(scores_in, scores_out, list(FPR_LEVELS.values()), confidence)
        ):
            out[variant] = MetricResult(
                value=point.tpr,
                ci_low=point.tpr_low,
                ci_high=point.tpr_high,
                baseline=point.fpr_level,
                details={"attack": head, "fpr": _round(point.fpr), "resolvable": point.resolvable},
                goal="minimise",
            )
        out["privacy_gain"] = MetricResult(
            value=self._privacy_gain(), baseline=1.0, details={"attack": head}, goal="maximise"
        )
        out["epsilon_lb"] = MetricResult(
            value=bound.epsilon_lb,
            baseline=configured["configured_epsilon"],
            details={
                "attack": self._bound_attack,
                "threshold": _round(bound.threshold),
                "tp": bound.tp,
                "fp": bound.fp,
                "n_in": bound.n_in,
                "n_out": bound.n_out,
                "confidence": confidence,
                "delta": bound.delta,
                "epsilon_point": _round(bound.epsilon_point),
                **configured,
                "exceeds_configured": bool(exceeds),
            },
        )
        for attack in self.attacks:
            out[f"auc_{attack}"] = MetricResult(
                value=per_attack[attack]["auc"],
                ci_low=per_attack[attack]["auc_low"],
                ci_high=per_attack[attack]["auc_high"],
                baseline=0.5,
            )
        return out

    def _epsilon(self, delta: float) -> Any:
        """The bound: attack and threshold chosen on the selection games, evaluated on the others."""
        confidence = self.metric.confidence
        best: tuple[float, str, float] | None = None
        for attack in self.attacks:
            per_in, per_out = self._per_game(attack)
            threshold = select_threshold(per_in[self.select], per_out[self.select], delta, confidence)
            chosen = epsilon_at_threshold(
                per_in[self.select], per_out[self.select], threshold, delta, confidence
            )
            if best is None or chosen.epsilon_lb > best[0]:
                best = (chosen.epsilon_lb, attack, threshold)
        assert best is not None
        _, attack, threshold = best
        self._bound_attack = attack
        per_in, per_out = self._per_game(attack)
        return epsilon_at_threshold(
            per_in[self.evaluate], per_out[self.evaluate], threshold, delta, confidence
        )

    def _privacy_gain(self) -> float:
        """1 − (TPR − FPR) at the threshold maximising TPR − FPR on the selection games."""
        head = self.headline
        sel_in = np.concatenate([np.asarray(v)[self.select] for v in self.scores.scores_in[head].values()])
        sel_out = np.concatenate([np.asarray(v)[self.select] for v in self.scores.scores_out[head].values()])
        fpr, tpr, thresholds = roc_points(sel_in, sel_out)
        threshold = float(thresholds[int(np.argmax(tpr - fpr))])
        ev_in = np.concatenate([np.asarray(v)[self.evaluate] for v in self.scores.scores_in[head].values()])
        ev_out = np.concatenate([np.asarray(v)[self.evaluate] for v in self.scores.scores_out[head].values()])
        advantage = float(np.mean(ev_in >= threshold) - np.mean(ev_out >= threshold))
        return 1.0 - advantage


class _Fitter:
    """Fits fresh generators and encodes their synthetic tables for the attacks."""

    def __init__(
        self,
        factory: GeneratorFactory,
        spec: DatasetSpec,
        encoder: TableEncoder,
        features: FeatureMap | None,
        size: int,
        rng: np.random.Generator,
    ) -> None:
        self.factory = factory
        self.spec = spec
        self.encoder = encoder
        self.features = features
        self.size = size
        self.rng = rng
        self.n_fits = 0
        self.formal_dp: dict[str, Any] | None = None

    def tables(self, raw: pd.DataFrame, n_tables: int) -> list[EncodedTable]:
        """Fit a fresh generator on ``raw`` and encode ``n_tables`` synthetic tables of it."""
        model: BaseGenerator = self.factory()
        model.fit(raw, self.spec, seed=int(self.rng.integers(2**31 - 1)))
        self.n_fits += 1
        info = model.info()
        if self.formal_dp is None and info.formal_dp is not None:
            self.formal_dp = dict(info.formal_dp)
        n_rows = None if info.fixed_size or not self.size else self.size
        out = []
        for _ in range(n_tables):
            table = model.sample(n_rows)
            summary = None if self.features is None else self.features.transform(table)
            out.append(EncodedTable(self.encoder.transform(table), summary))
        return out


def _configured(formal_dp: dict[str, Any] | None) -> dict[str, Any]:
    if not formal_dp or formal_dp.get("epsilon") is None:
        return {"configured_epsilon": None, "configured_delta": None, "configured_unit": None,
                "configured_end_to_end": None}  # fmt: skip
    delta = formal_dp.get("delta")
    return {
        "configured_epsilon": float(formal_dp["epsilon"]),
        "configured_delta": None if delta is None else float(delta),
        "configured_unit": formal_dp.get("unit"),
        "configured_end_to_end": formal_dp.get("end_to_end"),
    }


def _round(value: float) -> float:
    return float(round(value, 6)) if math.isfinite(value) else float(value)
