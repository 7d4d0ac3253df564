"""``ml_efficacy``: train-synthetic-test-real (TSTR) against train-real-test-real (TRTR).

Specification: ``spec/metrics.md`` U1 (protocols and scores) and U2 (``pct_diff``,
``rope_outcome``). Every configured classifier is trained on the release S (TSTR) and on the
training split T (TRTR) under the same protocol (:mod:`metrics.utility.protocols`), and both
models score the real test split H with every configured score
(:mod:`metrics.utility.scores`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning, UndefinedMetricWarning
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    ParameterGrid,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import LabelEncoder

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.utility.pct_diff import ROPE_CODES, pct_diff, rope_outcome
from metrics.utility.preprocessing import (
    ENCODINGS,
    SCALINGS,
    FeatureColumns,
    feature_columns,
    feature_frame,
    make_preprocessor,
    reference_label_encode,
)
from metrics.utility.protocols import (
    CLASSIFIERS,
    GRIDS,
    PRESETS,
    PROTOCOLS,
    REGRESSION_CAPABLE,
    TUNINGS,
    Preset,
    grid_size,
    make_estimator,
    param_grid,
)
from metrics.utility.scores import (
    CLASSIFICATION_SCORES,
    MINIMISED,
    REGRESSION_SCORES,
    SCORES,
    classification_score,
    regression_score,
    score_goal,
)
from metrics.utility.trtr_memo import TRTR_CACHE, jsonable, memoised_trtr, trtr_payload
from metrics.utility.trtr_memo import Fitted as _Fitted

AUC_VARIANTS: tuple[str, ...] = ("proba", "reference")
SUMMARY_PREFIXES: tuple[str, ...] = ("mean", "best")
_TRTR_CACHE = TRTR_CACHE  # the in-process part of the TRTR memo (benchmarks clear it)


@dataclass(frozen=True)
class _Task:
    """Everything about the trial that the fits share."""

    target: str
    regression: bool
    columns: FeatureColumns
    classes: tuple[str, ...]  # test-split classes, positive last (empty for regression)
    scores: tuple[str, ...]
    headline: str
    x_test: pd.DataFrame
    y_test: np.ndarray


class MlEfficacy(BaseMetric):
    """Scores of classifiers trained on S (TSTR) vs on T (TRTR), both tested on H.

    ``spec/metrics.md`` U1/U2. Outputs (``variant``), for every classifier ``c`` and score ``s``:

    ``c:s``
        TSTR score; ``baseline`` = the TRTR score. ``rmse`` has goal ``minimise``.
    ``c:pct_diff``
        100·(TSTR − TRTR)/|TRTR| of the headline score (U2); 0 = as useful as the real data;
        ``baseline`` 0. Left out when the TRTR score is 0.
    ``c:rope_outcome``
        +1 (win), 0 (draw) or −1 (lose): ``pct_diff`` against the ROPE [−rope, rope] (for
        ``rmse`` a negative difference is the win); goal ``none``.

    With more than one classifier, also ``mean:<headline>`` (the mean over the classifiers —
    ``002_…``'s "overall utility"; baseline the TRTR mean) and ``best:<headline>`` (the best test
    score over the classifiers; baseline the best TRTR score, ``000_…``'s "best solution for each
    original data set"), each with its ``pct_diff`` and ``rope_outcome``.

    TRTR is computed inside the metric on T with the same protocol, once per (T, H, parameters,
    seed): memoised in-process and across processes in the trial cache
    (:mod:`metrics.utility.trtr_memo`), so the variants of one dataset share it.
    Training rows are put in :func:`~harness.encoding.canonical_row_order` first, so the value
    does not depend on the order of the rows. A training table with a single class gives a
    constant classifier (AUC 0.5) with a note in ``details``; rows whose target is missing are
    dropped.

    Parameters
    ----------
    protocol : {"simple", "carvalho2024", "almeida2024", "stadler", "miletic2024"}
        Preset of :mod:`metrics.utility.protocols` (classifiers, scores, model selection,
        preprocessing).
    classifiers : list of str, optional
        Subset of ``random_forest``, ``xgboost``, ``logistic_regression``, ``mlp``,
        ``naive_bayes``, ``decision_tree``; None = the preset's. For a regression target the
        classifiers without a regressor (``logistic_regression``, ``naive_bayes``) are skipped.
    scores : list of str, optional
        Scores of the module :mod:`metrics.utility.scores`; None = the preset's (for a
        regression target ``r2``, ``rmse``; ``miletic2024``: ``r2``).
    headline : str, optional
        Score of ``pct_diff``, the summaries and the model selection; None = first of ``scores``.
    n_estimators : int
        Trees of the ``simple`` protocol's random forest / XGBoost.
    cv_folds, cv_repeats : int, optional
        Folds and repeats of the grid search; None = the preset's (``carvalho2024`` 5 × 2,
        ``almeida2024`` 3, ``miletic2024`` 5). Ignored by protocols without tuning.
    grid : {"paper", "reference", "small"}
        Grid version: the paper's table, the authors' code, or a few points (quick profile).
    param_grid : dict, optional
        ``{classifier: {parameter: [values]}}`` replacing single parameters of the grid.
    tuning : {"inner_cv", "reference"}
        ``inner_cv``: grid search with CV on the training table, best refitted on all of it;
        ``reference`` (``002_…`` code): every configuration scored on the test split, the best
        test score reported (optimistic). Applies to the ``cv`` presets.
    auc_variant : {"proba", "reference"}
        ROC AUC from probabilities, or ``000_…``'s partial AUC from hard labels (binary).
    encoding : {"onehot", "reference"}
        One-hot encoding fitted on the training table, or ``000_…``'s per-table label encoding.
    scaling : {"standard", "minmax", "none"}, optional
        Numeric scaling; None = the preset's (``simple`` and ``carvalho2024`` standard,
        ``almeida2024`` min–max, ``stadler`` and ``miletic2024`` none).
    drop_columns : list of str, optional
        Feature columns left out where present; None = the preset's (``almeida2024``:
        ``fnlwgt``).
    rope : float
        Half-width of the ROPE in percent.

    Raises
    ------
    IncomputableMetricError
        When the test split has fewer than two classes, the scores do not fit the target's task,
        or no classifier applies.
    """

    name: ClassVar[str] = "ml_efficacy"
    family: ClassVar[Family] = "utility"
    goal: ClassVar[Goal] = "maximise"
    # r2 is unbounded below, rmse above; the classification scores lie in [0, 1] and pct_diff in [-100, inf).
    min_value: ClassVar[float] = -math.inf
    max_value: ClassVar[float] = math.inf
    needs_target: ClassVar[bool] = True
    needs_test: ClassVar[bool] = True

    def __init__(
        self,
        protocol: str = "simple",
        classifiers: list[str] | None = None,
        scores: list[str] | None = None,
        headline: str | None = None,
        n_estimators: int = 100,
        cv_folds: int | None = None,
        cv_repeats: int | None = None,
        grid: str = "paper",
        param_grid: dict[str, dict[str, list[Any]]] | None = None,
        tuning: str = "inner_cv",
        auc_variant: str = "proba",
        encoding: str = "onehot",
        scaling: str | None = None,
        drop_columns: list[str] | None = None,
        rope: float = 1.0,
    ) -> None:
        self.protocol = protocol
        self.classifiers = classifiers
        self.scores = scores
        self.headline = headline
        self.n_estimators = n_estimators
        self.cv_folds = cv_folds
        self.cv_repeats = cv_repeats
        self.grid = grid
        self.param_grid = param_grid
        self.tuning = tuning
        self.auc_variant = auc_variant
        self.encoding = encoding
        self.scaling = scaling
        self.drop_columns = drop_columns
        self.rope = rope

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        check_choice("protocol", self.protocol, PROTOCOLS)
        _check_names("classifiers", self.classifiers, CLASSIFIERS)
        _check_names("scores", self.scores, SCORES)
        if self.headline is not None:
            check_choice("headline", self.headline, SCORES)
            if self.scores is not None and self.headline not in self.scores:
                raise ConfigError(
                    f"`headline` must be one of `scores` {self.scores!r}; got {self.headline!r}"
                )
        check_int("n_estimators", self.n_estimators, 1)
        if self.cv_folds is not None:
            check_int("cv_folds", self.cv_folds, 2)
        if self.cv_repeats is not None:
            check_int("cv_repeats", self.cv_repeats, 1)
        check_choice("grid", self.grid, GRIDS)
        check_choice("tuning", self.tuning, TUNINGS)
        check_choice("auc_variant", self.auc_variant, AUC_VARIANTS)
        check_choice("encoding", self.encoding, ENCODINGS)
        if self.scaling is not None:
            check_choice("scaling", self.scaling, SCALINGS)
        _check_param_grid(self.param_grid)
        if self.drop_columns is not None and (
            isinstance(self.drop_columns, str)
            or not isinstance(self.drop_columns, (list, tuple))
            or not all(isinstance(c, str) for c in self.drop_columns)
        ):
            raise ConfigError(
                f"`drop_columns` must be null or a list of column names; got {self.drop_columns!r}"
            )
        r = self.rope
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r < 0:
            raise ConfigError(f"`rope` must be a number >= 0 (percent); got {r!r}")

    @property
    def preset(self) -> Preset:
        """The protocol's :class:`~metrics.utility.protocols.Preset`."""
        return PRESETS[self.protocol]

    # ------------------------------------------------------------------ compute
    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        assert test is not None and spec.target is not None  # checked by BaseMetric.compute
        task = self._task(spec, test)
        classifiers, skipped = self._classifiers(task)
        notes: dict[str, str] = {c: "no regression counterpart; skipped" for c in skipped}
        results: dict[str, tuple[_Fitted, _Fitted]] = {}
        with _quiet():
            for clf in classifiers:
                trtr = self._trtr(real, test, task, clf, seed)
                fixed = trtr.best_params if self.preset.selection == "cv_on_real" else None
                tstr = self._fit_score(synthetic, task, clf, seed, fixed_params=fixed)
                results[clf] = (tstr, trtr)
        common = self._common_details(real, synthetic, task, seed)
        if notes:
            common["skipped_classifiers"] = notes
        return self._outputs(results, task, common)

    # ------------------------------------------------------------------ set-up
    def _task(self, spec: DatasetSpec, test: pd.DataFrame) -> _Task:
        target = spec.target
        assert target is not None
        regression = spec.task == "regression"
        preset = self.preset
        if self.scores is not None:
            scores = tuple(self.scores)
        elif self.headline is not None:
            scores = (self.headline,)
        else:
            scores = preset.regression_scores if regression else preset.scores
        valid = REGRESSION_SCORES if regression else CLASSIFICATION_SCORES
        wrong = [s for s in scores if s not in valid]
        if wrong:
            kind = "regression" if regression else spec.task
            raise IncomputableMetricError(
                f"metric ml_efficacy: score(s) {', '.join(wrong)} do not apply to the {kind} target "
                f"{target!r}; expected some of {', '.join(valid)}"
            )
        headline = self.headline or scores[0]
        drop = preset.drop if self.drop_columns is None else tuple(self.drop_columns)
        columns = feature_columns(spec, target, drop)
        if not len(columns):
            raise IncomputableMetricError(f"metric ml_efficacy: dataset {spec.name!r} has no feature columns")
        test_rows = test[test[target].notna()]
        if regression:
            y_test = pd.to_numeric(test_rows[target], errors="coerce").to_numpy(dtype=float)
            keep = np.isfinite(y_test)
            test_rows, y_test = test_rows[keep], y_test[keep]
            if len(y_test) < 2:
                raise IncomputableMetricError(
                    "metric ml_efficacy: the test split has fewer than 2 numeric targets"
                )
            classes: tuple[str, ...] = ()
        else:
            y_test = test_rows[target].astype(str).to_numpy()
            classes = _class_order(spec, target, np.unique(y_test))
            if len(classes) < 2:
                raise IncomputableMetricError(
                    f"metric ml_efficacy: the test split has {len(classes)} class(es) of {target!r}; "
                    "the scores need 2"
                )
            if self.auc_variant == "reference" and "roc_auc" in scores and len(classes) > 2:
                raise IncomputableMetricError(
                    "metric ml_efficacy: `auc_variant: reference` (partial AUC from labels) needs a binary target"
                )
        x_test = feature_frame(test_rows, columns)
        return _Task(target, regression, columns, classes, scores, headline, x_test, y_test)

    def _classifiers(self, task: _Task) -> tuple[list[str], list[str]]:
        wanted = list(self.classifiers) if self.classifiers is not None else list(self.preset.classifiers)
        if not task.regression:
            return wanted, []
        keep = [c for c in wanted if c in REGRESSION_CAPABLE]
        skipped = [c for c in wanted if c not in REGRESSION_CAPABLE]
        if not keep:
            raise IncomputableMetricError(
                f"metric ml_efficacy: none of the classifiers {', '.join(wanted)} has a regression counterpart "
                f"for the numeric target {task.target!r}"
            )
        return keep, skipped

    def _scaling(self) -> str:
        return self.scaling if self.scaling is not None else self.preset.scaling

    def cv_shape(self) -> tuple[int, int]:
        """(folds, repeats) of the grid search: the parameters, else the preset's."""
        preset = self.preset
        folds = self.cv_folds if self.cv_folds is not None else preset.cv_folds
        repeats = self.cv_repeats if self.cv_repeats is not None else preset.cv_repeats
        return int(folds), int(repeats)

    def grid_for(self, classifier: str, *, n_features: int, regression: bool = False) -> dict[str, list[Any]]:
        """The hyper-parameter grid of ``classifier`` (``{}``: fixed settings)."""
        return param_grid(
            self.protocol,
            classifier,
            self.grid,
            n_features=n_features,
            regression=regression,
            overrides=self.param_grid,
        )

    def pipeline(
        self, classifier: str, columns: FeatureColumns, *, regression: bool = False, seed: int = 0
    ) -> Pipeline:
        """Unfitted preprocessing + estimator pipeline of ``classifier`` (step names ``prep``, ``model``)."""
        estimator = make_estimator(
            classifier,
            regression=regression,
            seed=seed,
            protocol=self.protocol,
            n_estimators=int(self.n_estimators),
        )
        if self.encoding == "reference":
            return Pipeline([("model", estimator)])
        return Pipeline([("prep", make_preprocessor(columns, self._scaling())), ("model", estimator)])

    # ------------------------------------------------------------------ fitting
    def _trtr(self, real: pd.DataFrame, test: pd.DataFrame, task: _Task, clf: str, seed: int) -> _Fitted:
        """TRTR of ``clf``, memoised on (T, H, parameters, seed) (:mod:`metrics.utility.trtr_memo`)."""
        grid = self.grid_for(clf, n_features=len(task.columns), regression=task.regression)
        folds, repeats = self.cv_shape()
        preset = self.preset
        payload = trtr_payload(
            real=real,
            test=test,
            task={
                "target": task.target,
                "regression": task.regression,
                "scores": list(task.scores),
                "headline": task.headline,
                "classes": list(task.classes),
                "numeric": list(task.columns.numeric),
                "categorical": list(task.columns.categorical),
            },
            classifier=clf,
            params={k: v for k, v in self.get_params().items() if k not in ("classifiers", "rope")},
            grid=grid,
            cv={
                "folds": folds,
                "repeats": repeats,
                "scheme": preset.cv_scheme,
                "selection": preset.selection,
            },
            seed=seed,
        )
        return memoised_trtr(payload, grid, lambda: self._fit_score(real, task, clf, seed, fixed_params=None))

    def _fit_score(
        self,
        train: pd.DataFrame,
        task: _Task,
        clf: str,
        seed: int,
        *,
        fixed_params: Mapping[str, Any] | None,
    ) -> _Fitted:
        """Select (per protocol), fit ``clf`` on ``train`` and score it on the test split."""
        train = canonical_row_order(train[train[task.target].notna()])
        x_train = feature_frame(train, task.columns)
        x_test = task.x_test
        if self.encoding == "reference":
            x_train, x_test = reference_label_encode(x_train), reference_label_encode(x_test)
        if task.regression:
            y_raw = pd.to_numeric(train[task.target], errors="coerce").to_numpy(dtype=float)
            keep = np.isfinite(y_raw)
            x_train, y_train = x_train[keep].reset_index(drop=True), y_raw[keep]
            encoder = None
            if len(y_train) < 2:
                return self._constant(task, x_test, float(np.mean(y_train)) if len(y_train) else 0.0)
        else:
            labels = train[task.target].astype(str).to_numpy()
            encoder = LabelEncoder().fit(labels)
            if len(encoder.classes_) < 2:
                return self._constant(task, x_test, str(encoder.classes_[0]))
            y_train = encoder.transform(labels)

        pipeline = self.pipeline(clf, task.columns, regression=task.regression, seed=seed)
        grid = (
            {}
            if fixed_params is not None
            else self.grid_for(clf, n_features=len(task.columns), regression=task.regression)
        )
        selection = self.preset.selection
        if fixed_params is not None:
            pipeline.set_params(**{f"model__{k}": v for k, v in fixed_params.items()})
            fitted = _Fitted(
                scores={}, best_params=dict(fixed_params), note="parameters tuned on the real training split"
            )
            model = pipeline.fit(x_train, y_train)
        elif grid_size(grid) == 1 or selection == "none":  # nothing to select: fit directly
            only = ParameterGrid(grid)[0] if grid and selection != "none" else {}
            pipeline.set_params(**{f"model__{k}": v for k, v in only.items()})
            fitted = _Fitted(scores={}, best_params=dict(only))
            model = pipeline.fit(x_train, y_train)
        elif self.tuning == "reference" and selection == "cv":
            return self._select_on_test(pipeline, grid, x_train, y_train, x_test, task, encoder)
        else:
            model, fitted = self._grid_search(pipeline, grid, x_train, y_train, task, encoder, seed)
        fitted.scores = self._score(model, x_test, task, encoder)
        return fitted

    def _splitter(self, y: np.ndarray, task: _Task, seed: int) -> Any:
        folds, repeats = self.cv_shape()
        stratify = not task.regression and self.preset.cv_scheme == "stratified_kfold"
        if stratify and np.bincount(y).max() < folds:
            stratify = False  # every class smaller than the folds: StratifiedKFold cannot split
        if stratify:
            if repeats > 1:
                return RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)
            return StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
        if repeats > 1:
            return RepeatedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)
        return KFold(n_splits=folds, shuffle=True, random_state=seed)

    def _grid_search(
        self,
        pipeline: Pipeline,
        grid: dict[str, list[Any]],
        x_train: pd.DataFrame,
        y_train: np.ndarray,
        task: _Task,
        encoder: LabelEncoder | None,
        seed: int,
    ) -> tuple[Any, _Fitted]:
        folds, _ = self.cv_shape()
        first = ParameterGrid(grid)[0]
        if len(y_train) < 2 * folds:
            pipeline.set_params(**{f"model__{k}": v for k, v in first.items()})
            note = f"{len(y_train)} training rows: too few for {folds}-fold CV; first grid point used"
            return pipeline.fit(x_train, y_train), _Fitted(scores={}, best_params=dict(first), note=note)
        search = GridSearchCV(
            pipeline,
            {f"model__{k}": v for k, v in grid.items()},
            scoring=_cv_scorer(task, encoder),
            cv=self._splitter(y_train, task, seed),
            refit=True,
            error_score=np.nan,
            n_jobs=1,
        )
        search.fit(x_train, y_train)
        means = np.asarray(search.cv_results_["mean_test_score"], dtype=float)
        best = {k.removeprefix("model__"): v for k, v in search.best_params_.items()}
        cv_score = float(search.best_score_) if np.isfinite(search.best_score_) else None
        if cv_score is not None and task.headline in MINIMISED:
            cv_score = -cv_score
        fitted = _Fitted(
            scores={},
            cv_score=cv_score,
            best_params=best,
            n_configs=len(means),
            n_failed=int(np.sum(~np.isfinite(means))),
        )
        return search.best_estimator_, fitted

    def _select_on_test(
        self,
        pipeline: Pipeline,
        grid: dict[str, list[Any]],
        x_train: pd.DataFrame,
        y_train: np.ndarray,
        x_test: pd.DataFrame,
        task: _Task,
        encoder: LabelEncoder | None,
    ) -> _Fitted:
        """``tuning: reference``: every configuration scored on the test split; the best kept."""
        best: _Fitted | None = None
        configs = list(ParameterGrid(grid))
        failed = 0
        sign = -1.0 if task.headline in MINIMISED else 1.0
        for params in configs:
            model = clone(pipeline).set_params(**{f"model__{k}": v for k, v in params.items()})
            try:
                model.fit(x_train, y_train)
            except (ValueError, TypeError):
                failed += 1  # e.g. the reference grid's misspelt MLP learning_rate "adaptative"
                continue
            scores = self._score(model, x_test, task, encoder)
            if best is None or sign * scores[task.headline] > sign * best.scores[task.headline]:
                best = _Fitted(scores=scores, best_params=dict(params))
        if best is None:
            raise IncomputableMetricError("metric ml_efficacy: every grid configuration failed to fit")
        best.n_configs, best.n_failed = len(configs), failed
        best.note = "tuning: reference (configuration selected on the test split)"
        return best

    def _constant(self, task: _Task, x_test: pd.DataFrame, value: Any) -> _Fitted:
        """Scores of a constant predictor (a single-class or near-empty training table)."""
        n = len(x_test)
        if task.regression:
            pred = np.full(n, float(value))
            scores = {s: regression_score(s, task.y_test, pred) for s in task.scores}
            return _Fitted(scores=scores, note="fewer than 2 training targets; constant prediction")
        labels = np.full(n, str(value), dtype=object)
        proba = np.ones((n, 1))
        scores = {
            s: classification_score(
                s, task.y_test, labels, proba, [str(value)], task.classes, auc_variant=self.auc_variant
            )
            for s in task.scores
        }
        return _Fitted(scores=scores, note="training table has 1 class; constant classifier, AUC 0.5")

    def _score(
        self, model: Any, x_test: pd.DataFrame, task: _Task, encoder: LabelEncoder | None
    ) -> dict[str, float]:
        if task.regression:
            pred = np.asarray(model.predict(x_test), dtype=float)
            return {s: regression_score(s, task.y_test, pred) for s in task.scores}
        assert encoder is not None
        model_classes = [str(c) for c in encoder.inverse_transform(model.classes_)]
        proba = model.predict_proba(x_test)
        pred = np.asarray(model_classes, dtype=object)[np.argmax(proba, axis=1)]
        return {
            s: classification_score(
                s, task.y_test, pred, proba, model_classes, task.classes, auc_variant=self.auc_variant
            )
            for s in task.scores
        }

    # ------------------------------------------------------------------ outputs
    def _common_details(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, task: _Task, seed: int
    ) -> dict[str, Any]:
        folds, repeats = self.cv_shape()
        selection = self.preset.selection
        tuned = selection != "none"
        return {
            "protocol": self.protocol,
            "headline": task.headline,
            "grid": self.grid if tuned else None,
            "cv": {"folds": folds, "repeats": repeats, "scheme": self.preset.cv_scheme} if tuned else None,
            "tuning": self.tuning if selection == "cv" else ("real_training_split" if tuned else None),
            "encoding": self.encoding,
            "scaling": self._scaling() if self.encoding == "onehot" else None,
            "auc_variant": self.auc_variant if "roc_auc" in task.scores else None,
            "dropped_columns": list(task.columns.dropped),
            "n_train_synthetic": int(synthetic[task.target].notna().sum()),
            "n_train_real": int(real[task.target].notna().sum()),
            "n_test": len(task.y_test),
            "averaging": "regression"
            if task.regression
            else ("binary" if len(task.classes) == 2 else "macro"),
        }

    def _outputs(
        self, results: Mapping[str, tuple[_Fitted, _Fitted]], task: _Task, common: dict[str, Any]
    ) -> dict[str, MetricResult]:
        out: dict[str, MetricResult] = {}
        headline = task.headline
        for clf, (tstr, trtr) in results.items():
            details = {
                **common,
                "classifier": clf,
                **_fit_details("tstr", tstr),
                **_fit_details("trtr", trtr),
            }
            for score in task.scores:
                out[f"{clf}:{score}"] = MetricResult(
                    value=tstr.scores[score],
                    baseline=trtr.scores[score],
                    details={**details, "score": score},
                    goal=_goal(score),
                )
            self._comparison(out, clf, tstr.scores[headline], trtr.scores[headline], headline, details)
        if len(results) > 1:
            tstr_h = {c: r[0].scores[headline] for c, r in results.items()}
            trtr_h = {c: r[1].scores[headline] for c, r in results.items()}
            pick: Callable[[dict[str, float]], str] = (
                (lambda d: min(d, key=d.__getitem__))
                if headline in MINIMISED
                else (lambda d: max(d, key=d.__getitem__))
            )
            summary = {**common, "tstr": tstr_h, "trtr": trtr_h}
            mean_s, mean_r = float(np.mean(list(tstr_h.values()))), float(np.mean(list(trtr_h.values())))
            out[f"mean:{headline}"] = MetricResult(
                mean_s, baseline=mean_r, details=summary, goal=_goal(headline)
            )
            self._comparison(out, "mean", mean_s, mean_r, headline, summary)
            best_s, best_r = pick(tstr_h), pick(trtr_h)
            best_details = {**summary, "best_tstr": best_s, "best_trtr": best_r}
            out[f"best:{headline}"] = MetricResult(
                tstr_h[best_s], baseline=trtr_h[best_r], details=best_details, goal=_goal(headline)
            )
            self._comparison(out, "best", tstr_h[best_s], trtr_h[best_r], headline, best_details)
        return out

    def _comparison(
        self,
        out: dict[str, MetricResult],
        prefix: str,
        value: float,
        baseline: float,
        score: str,
        details: dict[str, Any],
    ) -> None:
        """Add ``prefix:pct_diff`` and ``prefix:rope_outcome`` (nothing when the baseline is 0)."""
        if baseline == 0 or not math.isfinite(baseline) or not math.isfinite(value):
            return
        diff = pct_diff(value, baseline)
        outcome = rope_outcome(diff, half_width=float(self.rope), higher_is_better=score not in MINIMISED)
        extra = {"score": score, "tstr": value, "trtr": baseline}
        out[f"{prefix}:pct_diff"] = MetricResult(
            diff, baseline=0.0, details={**details, **extra}, goal=_goal(score)
        )
        out[f"{prefix}:rope_outcome"] = MetricResult(
            float(ROPE_CODES[outcome]),
            details={**details, **extra, "outcome": outcome, "rope": [-float(self.rope), float(self.rope)]},
            goal="none",
        )


# ====================================================================== helpers
def _goal(score: str) -> Goal | None:
    return "minimise" if score_goal(score) == "minimise" else None


def _fit_details(prefix: str, fitted: _Fitted) -> dict[str, Any]:
    out: dict[str, Any] = {
        f"{prefix}_scores": dict(fitted.scores),
        f"{prefix}_params": jsonable(fitted.best_params),
    }
    if fitted.cv_score is not None:
        out[f"{prefix}_cv_score"] = fitted.cv_score
    if fitted.n_configs > 1:
        out[f"{prefix}_configs"] = fitted.n_configs
        out[f"{prefix}_failed_configs"] = fitted.n_failed
    if fitted.note:
        out[f"{prefix}_note"] = fitted.note
    return out


def _class_order(spec: DatasetSpec, target: str, present: Sequence[str]) -> tuple[str, ...]:
    """Test classes in the spec's declared order (else sorted); the last is the positive class."""
    declared = next((c.categories for c in spec.columns if c.name == target), None) or ()
    seen = set(present)
    ordered = [c for c in declared if c in seen]
    ordered += sorted(seen - set(ordered))
    return tuple(ordered)


def _cv_scorer(task: _Task, encoder: LabelEncoder | None) -> Callable[[Any, Any, np.ndarray], float]:
    """Scorer of the grid search: the headline score (proba ROC AUC; −RMSE), NaN if undefined."""
    headline = task.headline

    def scorer(estimator: Any, x: Any, y: np.ndarray) -> float:
        if task.regression:
            value = regression_score(headline, y, np.asarray(estimator.predict(x), dtype=float))
            return -value if headline in MINIMISED else value
        assert encoder is not None
        labels = encoder.inverse_transform(y).astype(str)
        present = set(labels)
        classes = [c for c in task.classes if c in present] + sorted(present - set(task.classes))
        if len(classes) < 2:
            return float("nan")
        model_classes = [str(c) for c in encoder.inverse_transform(estimator.classes_)]
        proba = estimator.predict_proba(x)
        pred = np.asarray(model_classes, dtype=object)[np.argmax(proba, axis=1)]
        return classification_score(headline, labels, pred, proba, model_classes, classes)

    return scorer


def _check_names(key: str, value: Any, valid: Sequence[str]) -> None:
    if value is None:
        return
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value:
        raise ConfigError(
            f"`{key}` must be null or a non-empty list of names from {', '.join(valid)}; got {value!r}"
        )
    unknown = [v for v in value if v not in valid]
    if unknown:
        raise ConfigError(f"`{key}` has unknown name(s) {unknown!r}; expected some of {', '.join(valid)}")
    if len(set(value)) != len(value):
        raise ConfigError(f"`{key}` lists a name twice; got {value!r}")


def _check_param_grid(value: Any) -> None:
    if value is None:
        return
    expected = "null or {classifier: {parameter: [values]}}"
    if not isinstance(value, Mapping):
        raise ConfigError(f"`param_grid` must be {expected}; got {value!r}")
    for clf, params in value.items():
        if clf not in CLASSIFIERS:
            raise ConfigError(
                f"`param_grid` names unknown classifier {clf!r}; expected some of {', '.join(CLASSIFIERS)}"
            )
        if not isinstance(params, Mapping) or not all(
            isinstance(k, str) and isinstance(v, (list, tuple)) and len(v) > 0 for k, v in params.items()
        ):
            raise ConfigError(
                f"`param_grid.{clf}` must map parameter names to non-empty lists; got {params!r}"
            )


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence the expected warnings of many small fits (convergence, undefined scores, failed configs)."""
    with warnings.catch_warnings():
        for category in (ConvergenceWarning, UndefinedMetricWarning, FitFailedWarning):
            warnings.simplefilter("ignore", category=category)
        warnings.filterwarnings("ignore", category=UserWarning, module=r"sklearn\.")
        warnings.filterwarnings("ignore", category=UserWarning, module=r"xgboost\.")
        yield
