"""``mia_privacy_gain``: membership-inference privacy gain of a generator (Stadler et al.).

Specification: ``spec/metrics.md`` P8 (Stadler, Oprisanu and Troncoso, "Synthetic Data —
Anonymisation Groundhog Day", USENIX Security 2022; used by SMOTE-DP, ``001_…`` §4.2.1–4.2.2).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.generator import BaseGenerator
from harness.metric import BaseMetric, Family, GeneratorFactory, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.record_keys import distinct, references
from harness.spec import DatasetSpec
from metrics.privacy.mia_features import FEATURE_SETS, FeatureMap
from metrics.privacy.mia_targets import draw_rows, outside_counts, with_target

POPULATIONS: tuple[str, ...] = ("train_control", "train")
MIN_POPULATION = 10


class MiaPrivacyGain(BaseMetric):
    """Privacy gain PG = 1 − A(S, x_t) against a shadow-model membership attack (P8).

    The metric attacks the *generator*, not the trial's release: for each target record
    x_t the attacker trains a classifier on synthetic tables produced by the generator fitted
    with and without x_t (shadow models on the attacker's reference data A), then plays
    ``n_iter`` games in which the generator is fitted on a fresh raw sample R with and
    without x_t and the attack labels each synthetic table IN or OUT. The advantage is
    A = TP rate − FP rate and PG = 1 − A ∈ [0, 2] (1: the attacker does no better than
    chance; ``001_…`` reads PG ≥ 1 as protected). Higher is better.

    Outputs: ``all`` (mean PG over the targets), ``outliers`` and ``random`` (the two target
    groups, when present). Details hold, per target (named by its keyed reference,
    :mod:`harness.record_keys`; never its values, split or position), the PG mean and standard
    deviation over the games and the mean TP and FP rates, plus the effective sizes and the
    number of fits.

    Parameters
    ----------
    n_outliers : int
        Outlier targets: the records with the most continuous attributes outside their
        [2.5 %, 97.5 %] percentile range (ties broken by the seed; records with none are
        never outliers). **Decision** of the spec.
    n_random : int
        Random targets (uniform among the rest).
    size_raw_A : int
        The attacker's reference data A (capped at the population without the targets).
    size_raw_T : int
        Raw training sets R (shadow and game), capped at |A| − 1.
    size_syn_T : int
        Rows per synthetic table (transform-type generators release their natural size).
    n_shadows : int
        Shadow raw sets per target (each gives an OUT and an IN fit).
    n_syn_A : int
        Synthetic tables drawn per shadow fit.
    n_iter : int
        Evaluation games.
    n_syn_T : int
        Synthetic tables drawn per game fit.
    feature_set : {"correlations", "naive", "histogram"}
        Table → vector map (:mod:`metrics.privacy.mia_features`); ``correlations`` is the
        "feature selection technique using correlation analysis" of ``001_…``.
    nbins : int
        Bins of the ``histogram`` feature set.
    n_estimators : int
        Trees of the attack's random forest (scikit-learn default 100).
    population : {"train_control", "train"}
        The attacker's population P: training and control splits together (default; the
        rows the trial may use without touching the ML test split) or the training split.

    Notes
    -----
    Cost: n_shadows·(1 + n_targets) + n_iter·(1 + n_targets) generator fits (OUT fits are
    shared by the targets), each in the metric's child process under the trial's
    ``runtime`` limits; so the metric is not in the default suite. Every draw (targets,
    A, R, generator seeds, forests) comes from one generator seeded by ``seed``, and P is
    put in canonical row order first.
    """

    name: ClassVar[str] = "mia_privacy_gain"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 2.0
    needs_generator: ClassVar[bool] = True

    def __init__(
        self,
        n_outliers: int = 5,
        n_random: int = 10,
        size_raw_A: int = 10_000,
        size_raw_T: int = 1_000,
        size_syn_T: int = 1_000,
        n_shadows: int = 10,
        n_syn_A: int = 10,
        n_iter: int = 15,
        n_syn_T: int = 5,
        feature_set: str = "correlations",
        nbins: int = 10,
        n_estimators: int = 100,
        population: str = "train_control",
    ) -> None:
        self.n_outliers = n_outliers
        self.n_random = n_random
        self.size_raw_A = size_raw_A
        self.size_raw_T = size_raw_T
        self.size_syn_T = size_syn_T
        self.n_shadows = n_shadows
        self.n_syn_A = n_syn_A
        self.n_iter = n_iter
        self.n_syn_T = n_syn_T
        self.feature_set = feature_set
        self.nbins = nbins
        self.n_estimators = n_estimators
        self.population = population

    def _validate_params(self) -> None:
        check_int("n_outliers", self.n_outliers, 0)
        check_int("n_random", self.n_random, 0)
        if self.n_outliers + self.n_random < 1:
            raise ConfigError("`n_outliers` + `n_random` must be >= 1 (no target to attack)")
        for key in ("size_raw_A", "size_raw_T", "size_syn_T", "n_shadows", "n_syn_A", "n_iter", "n_syn_T"):
            check_int(key, getattr(self, key), 1)
        check_choice("feature_set", self.feature_set, FEATURE_SETS)
        check_int("nbins", self.nbins, 1)
        check_int("n_estimators", self.n_estimators, 1)
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
        frames = [real] + ([control] if self.population == "train_control" and control is not None else [])
        population = canonical_row_order(pd.concat(frames, ignore_index=True))
        rng = np.random.default_rng(seed)
        outliers, randoms = self.select_targets(population, spec, rng)
        targets = [*outliers, *randoms]
        rest = population.drop(index=targets).reset_index(drop=True)
        if len(rest) < MIN_POPULATION:
            raise IncomputableMetricError(
                f"metric {self.name}: {len(rest)} population rows besides the targets; need {MIN_POPULATION}"
            )
        size_a = min(self.size_raw_A, len(rest))
        size_t = min(self.size_raw_T, size_a - 1)
        reference = rest.iloc[np.sort(rng.choice(len(rest), size=size_a, replace=False))]
        features = FeatureMap.fit(population, spec, self.feature_set, self.nbins)
        game = _Game(generator, spec, features, self.size_syn_T, rng)
        target_rows = {t: population.iloc[[t]] for t in targets}

        # shadow training: per shadow set one OUT fit shared by the targets, one IN fit per target
        shadow_out: list[np.ndarray] = []
        shadow_in: dict[int, list[np.ndarray]] = {t: [] for t in targets}
        for _ in range(self.n_shadows):
            raw = draw_rows(reference, size_t, rng)
            shadow_out += game.tables(raw, self.n_syn_A)
            for t in targets:
                shadow_in[t] += game.tables(with_target(raw, target_rows[t]), self.n_syn_A)
        attacks = {}
        for t in targets:
            x = np.vstack([*shadow_out, *shadow_in[t]])
            y = np.r_[np.zeros(len(shadow_out)), np.ones(len(shadow_in[t]))]
            forest = RandomForestClassifier(
                n_estimators=self.n_estimators, random_state=int(rng.integers(2**31 - 1)), n_jobs=1
            )
            attacks[t] = forest.fit(x, y)

        # evaluation games
        gains: dict[int, list[float]] = {t: [] for t in targets}
        rates: dict[int, list[tuple[float, float]]] = {t: [] for t in targets}
        for _ in range(self.n_iter):
            raw = draw_rows(rest, size_t, rng)
            out_sets = np.vstack(game.tables(raw, self.n_syn_T))
            for t in targets:
                in_sets = np.vstack(game.tables(with_target(raw, target_rows[t]), self.n_syn_T))
                tp = float(np.mean(attacks[t].predict(in_sets) == 1))
                fp = float(np.mean(attacks[t].predict(out_sets) == 1))
                gains[t].append(1.0 - (tp - fp))
                rates[t].append((tp, fp))

        names = dict(zip(targets, distinct(references(population.iloc[targets])), strict=True))
        per_target: dict[str, dict[str, Any]] = {
            names[t]: {
                "group": "outlier" if t in outliers else "random",
                "pg_mean": float(np.mean(gains[t])),
                "pg_sd": float(np.std(gains[t], ddof=1)) if len(gains[t]) > 1 else 0.0,
                "tp_mean": float(np.mean([r[0] for r in rates[t]])),
                "fp_mean": float(np.mean([r[1] for r in rates[t]])),
            }
            for t in targets
        }
        common: dict[str, Any] = {
            "targets": per_target,
            "population": self.population,
            "n_population": len(population),
            "size_raw_A": size_a,
            "size_raw_T": size_t,
            "n_fits": game.n_fits,
            "feature_set": self.feature_set,
            "n_features": int(len(shadow_out[0])) if shadow_out else 0,
        }
        groups = {"all": targets, "outliers": outliers, "random": randoms}
        out: dict[str, MetricResult] = {}
        for group, members in groups.items():
            if not members:
                continue
            values = [per_target[names[t]]["pg_mean"] for t in members]
            out[group] = MetricResult(
                value=float(np.mean(values)),
                details={**common, "n_targets": len(members), "pg_min": float(min(values))}
                if group == "all"
                else {"n_targets": len(members), "pg_min": float(min(values))},
            )
        return out

    # ------------------------------------------------------------------ targets
    def select_targets(
        self, population: pd.DataFrame, spec: DatasetSpec, rng: np.random.Generator
    ) -> tuple[list[int], list[int]]:
        """Positions of the outlier and the random targets in ``population``.

        Outliers: most continuous attributes outside the [2.5 %, 97.5 %] percentile range,
        at least one; ties broken by a random permutation. Random: uniform among the rest.
        """
        n = len(population)
        outside = outside_counts(population, spec)
        tiebreak = rng.permutation(n)
        order = np.lexsort((tiebreak, -outside))
        outliers = [int(i) for i in order[: self.n_outliers] if outside[i] > 0]
        remaining = np.setdiff1d(np.arange(n), outliers)
        n_random = min(self.n_random, max(len(remaining) - MIN_POPULATION, 0))
        randoms = sorted(int(i) for i in rng.choice(remaining, size=n_random, replace=False))
        if not outliers and not randoms:
            raise IncomputableMetricError(
                f"metric {self.name}: no target (no outlier and too few rows for random targets)"
            )
        return outliers, randoms


class _Game:
    """Fits fresh generators and maps their synthetic tables to feature vectors."""

    def __init__(
        self,
        factory: GeneratorFactory,
        spec: DatasetSpec,
        features: FeatureMap,
        size: int,
        rng: np.random.Generator,
    ) -> None:
        self.factory = factory
        self.spec = spec
        self.features = features
        self.size = size
        self.rng = rng
        self.n_fits = 0

    def tables(self, raw: pd.DataFrame, n_tables: int) -> list[np.ndarray]:
        """Fit a fresh generator on ``raw`` and draw ``n_tables`` synthetic tables."""
        model: BaseGenerator = self.factory()
        model.fit(raw, self.spec, seed=int(self.rng.integers(2**31 - 1)))
        self.n_fits += 1
        n_rows = None if model.info().fixed_size else self.size
        return [self.features.transform(model.sample(n_rows)) for _ in range(n_tables)]
