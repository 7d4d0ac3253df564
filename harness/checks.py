"""Public contract checks that every generator and metric config must pass.

Each config is built from its YAML (``experiments/<group>/<name>.yaml``) with its small
``check_params`` and exercised on a small real sample (:func:`contract_data`). A check
function returns the names of the checks that passed and raises
:class:`ContractViolation` on the first failure, with a message naming the config, the
check and what was expected (DESIGN.md "Style"). There is no skip-list: what a check
expects of a plugin follows from the plugin's own declarations (``GeneratorInfo`` flags,
a metric's ``family``, ``goal`` and ``needs_*`` attributes).

Rules worth knowing (details in the check functions):

* **Seeds.** A generator whose ``info().randomised`` is True must give different output
  for different seeds; one declaring ``randomised=False`` must give identical output for
  every seed and must not draw from ``rng_`` (so a library that silently ignores the seed
  cannot hide behind the flag). Same seed, same output, unless ``deterministic=False``.
* **Direction.** Each metric output is compared on two releases: the training table
  itself ("identical") and a uniform release (every column uniform over its distinct
  observed values, the ``uniform`` baseline of ``spec/generators.md`` §3.3), which is
  less useful and more private. Identical data must score at least as well for
  ``utility`` / ``fidelity`` outputs and at least as badly for ``privacy`` outputs
  ("better" per the output's goal: higher, lower, or closer to ``target_value``), and at
  least one output of the metric must separate the two strictly.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from harness.dtypes import conform
from harness.errors import ConfigError, IncomputableMetricError, NotFittedError, PrivbenchError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.instantiate import GeneratorBuilder, build_generator, build_metric, split_config
from harness.metric import FAMILIES, GOALS, BaseMetric, MetricResult, as_outputs
from harness.registry import read_config
from harness.spec import DatasetSpec, _plain

OUTPUT_KINDS: tuple[str, ...] = ("synthetic", "transformed", "mixed", "subset")
TINY_ROWS = 3
"""Rows of the "tiny input" generator check."""
ORDER_TOLERANCE = 1e-9
"""Absolute and relative tolerance of the row-order invariance check."""
DIRECTION_TOLERANCE = 1e-9
"""Differences below this count as ties in the direction check."""
CHECK_GENERATOR = "independent_marginals"
"""Generator that metrics attacking the generator (``needs_generator``) refit in the contract checks."""


class ContractViolation(AssertionError):
    """A generator or metric config breaks the plugin contract."""


class ContractData(NamedTuple):
    """A small real sample for the contract checks (see :func:`contract_data`)."""

    spec: DatasetSpec
    train: pd.DataFrame
    control: pd.DataFrame
    test: pd.DataFrame


def contract_data(
    dataset: str = "adult", *, n_train: int = 300, n_control: int = 100, n_test: int = 100, seed: int = 0
) -> ContractData:
    """Draw disjoint train / control / test rows of a bundled dataset.

    Parameters
    ----------
    dataset : str
        Dataset registry name (``experiments/dataset/<name>.yaml``).
    n_train, n_control, n_test : int
        Rows of each split, drawn without replacement (seeded, not stratified).
    seed : int
        Seed of the draw.

    Returns
    -------
    ContractData
        ``(spec, train, control, test)`` with spec dtypes and fresh ``RangeIndex`` es.
    """
    from harness.datasets import load_dataset, load_spec

    spec = load_spec(dataset)
    frame = load_dataset(spec).frame
    sizes = (n_train, n_control, n_test)
    if sum(sizes) > len(frame):
        raise ConfigError(f"contract_data: {sum(sizes)} rows requested; dataset {dataset!r} has {len(frame)}")
    rows = np.random.default_rng(seed).choice(len(frame), size=sum(sizes), replace=False)
    bounds = np.cumsum((0, *sizes))
    parts = [frame.iloc[rows[a:b]].reset_index(drop=True) for a, b in zip(bounds[:-1], bounds[1:])]
    return ContractData(spec, parts[0], parts[1], parts[2])


# ====================================================================== generators
def check_generator(
    name: str,
    train: pd.DataFrame,
    spec: DatasetSpec,
    *,
    control: pd.DataFrame | None = None,
    seed: int = 0,
    cfg: Mapping[str, Any] | None = None,
    extra_dirs: tuple[Path, ...] = (),
) -> list[str]:
    """Run the generator contract on ``train``.

    The generator is built from its YAML with ``use_check_params=True`` (a fresh object
    per fit). Checks, in order:

    ``params``
        The YAML names every constructor parameter; ``get_params()`` returns the YAML
        values (``check_params`` overlaid), is JSON-serialisable, and rebuilds an equal
        object.
    ``info``
        ``info()`` is a :class:`GeneratorInfo` with valid values; ``randomised=False``
        implies ``deterministic=True``.
    ``sample_before_fit``
        ``sample()`` on an unfitted object raises :class:`NotFittedError`.
    ``schema``
        ``fit(train, spec, seed=seed)`` then ``sample()``: same columns and order as
        ``train``, a ``RangeIndex``, dtypes per the spec, categories seen in training
        (and control, for ``needs_control``) unless ``generalised_output``, the declared
        row count; ``subset`` outputs hold only rows of their source (control for
        ``needs_control``, else train).
    ``n_rows``
        ``fixed_size`` generators reject an integer with :class:`ConfigError`; others
        return the declared number of rows for ``n_rows`` below and above ``len(train)``.
    ``no_input_mutation``
        ``train`` and ``control`` are unchanged after fit and sample.
    ``deterministic_per_seed``
        Two fits with the same seed give identical output (not run when
        ``info().deterministic`` is False: the generator declares it cannot be).
    ``seed_dependence``
        ``randomised``: seeds ``seed`` and ``seed + 1`` give different output. Not
        ``randomised``: identical output, and ``rng_`` was never drawn from.
    ``tiny_input``, ``single_category``
        The first 3 rows, and ``train`` with every categorical column constant (so a
        single-class target), either work (and pass ``schema``) or raise a one-line
        :class:`PrivbenchError`.

    Parameters
    ----------
    name : str
        Generator registry name.
    train : DataFrame
        Training rows with the spec's columns and dtypes (e.g. :func:`contract_data`).
    spec : DatasetSpec
    control : DataFrame, optional
        The control split; given to the generator only if ``info().needs_control``.
    seed : int
        Base seed (``seed + 1`` is the "other" seed).
    cfg : mapping, optional
        The config; default the YAML of ``name``.
    extra_dirs : tuple of Path
        User config roots searched before ``experiments/``.

    Returns
    -------
    list of str
        Names of the checks that passed.

    Raises
    ------
    ContractViolation
        On the first failed check.
    """
    cfg = dict(cfg) if cfg is not None else read_config("generator", name, extra_dirs=extra_dirs)
    passed: list[str] = []

    def fail(check: str, detail: str) -> ContractViolation:
        return ContractViolation(f"generator {name!r} failed check {check!r}: {detail}")

    def build() -> BaseGenerator:
        return build_generator(name, cfg, use_check_params=True)

    gen = build()
    _check_params("generator", gen, cfg, lambda detail: fail("params", detail))
    passed.append("params")

    info = gen.info()
    _check_info(info, lambda detail: fail("info", detail))
    passed.append("info")
    if info.needs_control and control is None:
        raise ValueError(f"check_generator: generator {name!r} needs the control split; pass `control`")
    ctl = control if info.needs_control else None

    try:
        build().sample()
    except NotFittedError:
        passed.append("sample_before_fit")
    except Exception as exc:
        raise fail("sample_before_fit", f"expected NotFittedError; got {_describe(exc)}") from exc
    else:
        raise fail("sample_before_fit", "sample() before fit() returned instead of raising NotFittedError")

    train_copy = train.copy(deep=True)
    control_copy = control.copy(deep=True) if control is not None else None

    def fit_sample(g: BaseGenerator, data: pd.DataFrame, s: int, check: str) -> pd.DataFrame:
        try:
            return g.fit(data, spec, seed=s, control=ctl).sample()
        except Exception as exc:
            raise fail(check, f"fit/sample on {len(data)} training rows raised {_describe(exc)}") from exc

    def release_check(g: BaseGenerator, out: Any, data: pd.DataFrame, n_rows: int | None, check: str) -> None:
        sources = [data] if ctl is None else [data, ctl]
        _check_release(
            out,
            spec,
            columns=list(data.columns),
            expected_rows=g._expected_rows(n_rows),
            allowed=None if info.generalised_output else _categories(sources, spec),
            subset_of=(ctl if ctl is not None else data) if info.output_kind == "subset" else None,
            fail=lambda detail: fail(check, detail),
        )

    out = fit_sample(gen, train, seed, "schema")
    release_check(gen, out, train, None, "schema")
    passed.append("schema")

    _check_n_rows(gen, info, len(train), release_check, train, lambda detail: fail("n_rows", detail))
    passed.append("n_rows")

    _check_unchanged(train, train_copy, "train", lambda detail: fail("no_input_mutation", detail))
    if control is not None and control_copy is not None:
        _check_unchanged(control, control_copy, "control", lambda detail: fail("no_input_mutation", detail))
    passed.append("no_input_mutation")

    if info.deterministic:
        again = fit_sample(build(), train, seed, "deterministic_per_seed")
        try:
            pd.testing.assert_frame_equal(out, again, check_exact=True)
        except AssertionError as exc:
            raise fail(
                "deterministic_per_seed",
                f"two fits with seed {seed} gave different output: {_first_line(exc)}",
            ) from None
        passed.append("deterministic_per_seed")

    other = build()
    out_other = fit_sample(other, train, seed + 1, "seed_dependence")
    if info.randomised and out.equals(out_other):
        raise fail(
            "seed_dependence",
            f"seeds {seed} and {seed + 1} gave identical output; draw all randomness from self.rng_ "
            "(and pass the seed to wrapped libraries), or declare randomised=False if the method "
            "uses no randomness",
        )
    if not info.randomised:
        if not out.equals(out_other):
            raise fail("seed_dependence", f"declares randomised=False but seeds {seed} and {seed + 1} differ")
        if other.rng_.bit_generator.state != np.random.default_rng(seed + 1).bit_generator.state:
            raise fail("seed_dependence", "declares randomised=False but drew from self.rng_")
    passed.append("seed_dependence")

    tiny = train.iloc[:TINY_ROWS].reset_index(drop=True)
    single = _single_category(train, spec)
    for check, data in (("tiny_input", tiny), ("single_category", single)):
        g = build()
        try:
            out_case = g.fit(data, spec, seed=seed, control=ctl).sample()
        except PrivbenchError as exc:
            message = str(exc)
            if not message.strip() or "\n" in message:
                raise fail(check, f"error message must be one non-empty line; got {message!r}") from exc
        except Exception as exc:
            raise fail(check, f"expected success or a one-line PrivbenchError; got {_describe(exc)}") from exc
        else:
            release_check(g, out_case, data, None, check)
        passed.append(check)
    return passed


def _check_info(info: Any, fail: Callable[[str], ContractViolation]) -> None:
    if not isinstance(info, GeneratorInfo):
        raise fail(f"info() must return GeneratorInfo; got {type(info).__name__}")
    if info.output_kind not in OUTPUT_KINDS:
        raise fail(f"output_kind must be one of {', '.join(OUTPUT_KINDS)}; got {info.output_kind!r}")
    for field in dataclasses.fields(info):
        value = getattr(info, field.name)
        if field.name not in ("output_kind", "formal_dp") and not isinstance(value, bool):
            raise fail(f"flag {field.name} must be a bool; got {value!r}")
    if info.formal_dp is not None and not (
        isinstance(info.formal_dp, Mapping) and "epsilon" in info.formal_dp
    ):
        raise fail(f"formal_dp must be None or a mapping with 'epsilon'; got {info.formal_dp!r}")
    if not info.randomised and not info.deterministic:
        raise fail("randomised=False (seed-independent output) implies deterministic=True")


def _check_n_rows(
    gen: BaseGenerator,
    info: GeneratorInfo,
    n_train: int,
    release_check: Callable[[BaseGenerator, Any, pd.DataFrame, int | None, str], None],
    train: pd.DataFrame,
    fail: Callable[[str], ContractViolation],
) -> None:
    sizes = (7, 2 * n_train + 1)
    if info.fixed_size:
        try:
            gen.sample(sizes[0])
        except ConfigError:
            return
        except Exception as exc:
            raise fail(
                f"fixed_size: sample({sizes[0]}) must raise ConfigError; got {_describe(exc)}"
            ) from exc
        raise fail(f"fixed_size: sample({sizes[0]}) must raise ConfigError; it returned a table")
    for n in sizes:
        try:
            out = gen.sample(n)
        except Exception as exc:
            raise fail(f"sample({n}) raised {_describe(exc)}") from exc
        release_check(gen, out, train, n, "n_rows")


def _check_release(
    out: Any,
    spec: DatasetSpec,
    *,
    columns: list[str],
    expected_rows: int | None,
    allowed: dict[str, set[Any]] | None,
    subset_of: pd.DataFrame | None,
    fail: Callable[[str], ContractViolation],
) -> None:
    """Schema of a released table (``spec/generators.md`` §1.2)."""
    if not isinstance(out, pd.DataFrame):
        raise fail(f"sample() must return a DataFrame; got {type(out).__name__}")
    if list(out.columns) != columns:
        raise fail(f"columns {list(out.columns)} differ from the training columns {columns}")
    if not out.index.equals(pd.RangeIndex(len(out))):
        raise fail("the released table must have a RangeIndex 0..n-1")
    try:
        pd.testing.assert_frame_equal(out, conform(out, spec), check_exact=True)
    except (AssertionError, PrivbenchError) as exc:
        raise fail(f"dtypes/values differ from the spec representation: {_first_line(exc)}") from None
    if expected_rows is not None and len(out) != expected_rows:
        raise fail(f"returned {len(out)} rows; declared {expected_rows}")
    if allowed is not None:
        for col, seen in allowed.items():
            unseen = set(out[col].dropna().unique()) - seen
            if unseen:
                raise fail(
                    f"column {col!r} holds categories not seen in training: {sorted(map(str, unseen))[:5]}"
                )
    if subset_of is not None and len(out):
        source = set(_row_hashes(conform(subset_of, spec)))
        foreign = int(sum(h not in source for h in _row_hashes(out)))
        if foreign:
            raise fail(f"output_kind='subset' but {foreign} released row(s) are not rows of the source table")


def _categories(frames: list[pd.DataFrame], spec: DatasetSpec) -> dict[str, set[Any]]:
    return {c: set().union(*(set(f[c].dropna().unique()) for f in frames)) for c in spec.categorical_columns}


def _row_hashes(frame: pd.DataFrame) -> np.ndarray:
    return pd.util.hash_pandas_object(frame, index=False).to_numpy()


def _single_category(train: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    """``train`` with every categorical column set to its most frequent value."""
    out = train.copy(deep=True)
    for col in spec.categorical_columns:
        mode = out[col].mode(dropna=True)
        if len(mode):
            out[col] = mode.iloc[0]
    return out


# ====================================================================== metrics
def check_metric(
    name: str,
    real: pd.DataFrame,
    spec: DatasetSpec,
    *,
    control: pd.DataFrame | None,
    test: pd.DataFrame | None,
    seed: int = 0,
    cfg: Mapping[str, Any] | None = None,
    extra_dirs: tuple[Path, ...] = (),
) -> list[str]:
    """Run the metric contract.

    The metric is built from its YAML with ``use_check_params=True``. It is computed on
    ``synthetic = real`` ("identical") and on a uniform release ("degraded": every column
    uniform over its distinct observed values, seeded by ``seed``). Checks:

    ``params``
        As for generators: the YAML names every constructor parameter and
        ``get_params()`` round-trips it.
    ``declaration``
        ``family`` in :data:`~harness.metric.FAMILIES`, ``goal`` in
        :data:`~harness.metric.GOALS`, ``min_value <= max_value``, and a ``target`` goal
        has a ``target_value`` in range.
    ``returns``
        ``compute`` returns a :class:`MetricResult` or a dict of them keyed by non-empty
        strings.
    ``goal``
        Each output's goal (its own or the class goal) is allowed; a ``target`` goal
        needs the class ``target_value``.
    ``bounds``, ``ci_contains_value``
        Every computed value is a number within ``[min_value, max_value]``; where a CI
        is given, both ends are numbers and ``ci_low <= value <= ci_high``.
    ``direction``
        Per output, by goal: identical data scores at least as well as the degraded
        release for ``utility`` / ``fidelity`` and at least as badly for ``privacy``;
        at least one output separates them strictly. Outputs with goal ``none``
        (diagnostics: no better value exists) and the ``cost`` family (it measures
        resources, not the release) have no direction.
    ``deterministic_per_seed``
        Two computations with the same seed give identical values, CIs and baselines.
    ``row_order_invariance``
        Shuffling the synthetic rows changes no value, CI or baseline by more than
        :data:`ORDER_TOLERANCE`.
    ``incomputable``
        Without target, QI sets, control and test the metric returns valid output or
        raises :class:`IncomputableMetricError`; it must raise when it declares one of
        those inputs as needed (each removed alone as well); an empty release raises it.
    ``no_input_mutation``
        ``real``, the synthetic tables, ``control`` and ``test`` are unchanged.

    Parameters
    ----------
    name : str
        Metric registry name.
    real : DataFrame
        Training rows (spec columns and dtypes).
    spec : DatasetSpec
        Must define a target and a QI set (the checks remove them to test the
        incomputable path).
    control, test : DataFrame or None
        Holdout splits, passed as the runner does.
    seed : int
        Seed of every computation and of the degraded release.
    cfg : mapping, optional
        The config; default the YAML of ``name``.
    extra_dirs : tuple of Path
        User config roots searched before ``experiments/``.

    Returns
    -------
    list of str
        Names of the checks that passed.

    Raises
    ------
    ContractViolation
        On the first failed check.
    """
    cfg = dict(cfg) if cfg is not None else read_config("metric", name, extra_dirs=extra_dirs)
    passed: list[str] = []

    def fail(check: str, detail: str) -> ContractViolation:
        return ContractViolation(f"metric {name!r} failed check {check!r}: {detail}")

    metric = build_metric(name, cfg, use_check_params=True)
    _check_params("metric", metric, cfg, lambda detail: fail("params", detail))
    passed.append("params")
    _check_declaration(metric, lambda detail: fail("declaration", detail))
    passed.append("declaration")

    identical = real.copy(deep=True)
    degraded = uniform_release(real, spec, seed=seed)
    shuffled = degraded.sample(frac=1.0, random_state=np.random.default_rng(seed + 1)).reset_index(drop=True)
    inputs = {"real": real, "identical": identical, "degraded": degraded, "control": control, "test": test}
    copies = {k: v.copy(deep=True) for k, v in inputs.items() if v is not None}

    factory = (
        GeneratorBuilder(CHECK_GENERATOR, read_config("generator", CHECK_GENERATOR), use_check_params=True)
        if metric.needs_generator
        else None
    )

    def compute(synthetic: pd.DataFrame, what: str, check: str) -> dict[str, MetricResult]:
        try:
            output = metric.compute(
                real, synthetic, spec, control=control, test=test, seed=seed, generator=factory
            )
        except Exception as exc:
            raise fail(check, f"compute on the {what} release raised {_describe(exc)}") from exc
        return _outputs(output, lambda detail: fail("returns", detail))

    results = {"identical": compute(identical, "identical", "returns")}
    passed.append("returns")
    results["degraded"] = compute(degraded, "degraded (uniform)", "returns")
    results["repeat"] = compute(degraded, "degraded (uniform)", "deterministic_per_seed")
    results["shuffled"] = compute(shuffled, "row-shuffled degraded", "row_order_invariance")

    for check, problem_of in (
        ("goal", lambda r: _goal_problem(metric, r)),
        ("bounds", lambda r: _bounds_problem(metric, r)),
        ("ci_contains_value", _ci_problem),
    ):
        for what, outputs in results.items():
            for variant, result in outputs.items():
                problem = problem_of(result)
                if problem:
                    raise fail(check, f"{what} release, output {variant!r}: {problem}")
        passed.append(check)

    separated = _check_direction(
        metric, results["identical"], results["degraded"], lambda detail: fail("direction", detail)
    )
    if separated is not None and not separated:
        # Support metrics (range, boundary, category coverage) cannot tell the uniform release
        # from T: it keeps T's values. An off-support release must then separate them.
        results["off_support"] = compute(
            off_support_release(real, spec, seed=seed), "off-support", "direction"
        )
        separated = _check_direction(
            metric, results["identical"], results["off_support"], lambda detail: fail("direction", detail)
        )
        if separated is not None and not separated:
            raise fail(
                "direction",
                "no output separates identical data from the uniform or the off-support release; "
                "the metric does not respond to the release",
            )
    passed.append("direction")

    _compare_results(
        results["degraded"],
        results["repeat"],
        0.0,
        lambda detail: fail("deterministic_per_seed", f"two computations with seed {seed} differ: {detail}"),
    )
    passed.append("deterministic_per_seed")
    _compare_results(
        results["degraded"],
        results["shuffled"],
        ORDER_TOLERANCE,
        lambda detail: fail("row_order_invariance", f"shuffling the synthetic rows changed {detail}"),
    )
    passed.append("row_order_invariance")

    _check_incomputable(
        metric, real, degraded, spec, control, test, seed, factory, lambda d: fail("incomputable", d)
    )
    passed.append("incomputable")

    for key, original in copies.items():
        current = inputs[key]
        assert current is not None
        _check_unchanged(current, original, key, lambda detail: fail("no_input_mutation", detail))
    passed.append("no_input_mutation")
    return passed


def uniform_release(real: pd.DataFrame, spec: DatasetSpec, *, seed: int) -> pd.DataFrame:
    """A release with every column uniform over its distinct observed values.

    The ``uniform`` baseline of ``spec/generators.md`` §3.3 (``numeric_mode: observed``),
    same size as ``real``: less useful and more private than ``real`` itself.
    """
    rng = np.random.default_rng(seed)
    out = {}
    for col in real.columns:
        distinct = pd.unique(real[col].to_numpy())
        out[col] = distinct[rng.integers(0, len(distinct), size=len(real))]
    return conform(pd.DataFrame(out), spec, where="uniform_release")


def _check_declaration(metric: BaseMetric, fail: Callable[[str], ContractViolation]) -> None:
    if metric.family not in FAMILIES:
        raise fail(f"family must be one of {', '.join(FAMILIES)}; got {metric.family!r}")
    if metric.goal not in GOALS:
        raise fail(f"goal must be one of {', '.join(GOALS)}; got {metric.goal!r}")
    if not metric.min_value <= metric.max_value:
        raise fail(f"min_value {metric.min_value!r} must not exceed max_value {metric.max_value!r}")
    if metric.goal == "target" and not _target_in_range(metric):
        raise fail(
            f"goal 'target' needs a target_value within [min_value, max_value]; got {metric.target_value!r}"
        )


def _target_in_range(metric: BaseMetric) -> bool:
    t = metric.target_value
    return t is not None and metric.min_value <= t <= metric.max_value


def _outputs(output: Any, fail: Callable[[str], ContractViolation]) -> dict[str, MetricResult]:
    try:
        outputs = as_outputs(output)
    except TypeError as exc:
        raise fail(str(exc)) from None
    if isinstance(output, dict):
        bad = [k for k in outputs if not isinstance(k, str) or not k]
        if bad or not outputs:
            raise fail(f"output names must be non-empty strings and at least one; got {list(outputs)!r}")
    return outputs


def off_support_release(real: pd.DataFrame, spec: DatasetSpec, *, seed: int) -> pd.DataFrame:
    """A release outside T's support, same size as ``real``.

    Numeric columns are shifted above T's maximum by one to two ranges (seeded), datetime
    columns by one to two spans; every categorical column holds only its most frequent value.
    Used by the direction check when a metric cannot tell the uniform release from T (range,
    boundary and category coverage only look at T's support).
    """
    rng = np.random.default_rng(seed)
    n = len(real)
    out: dict[str, Any] = {}
    for col in real.columns:
        values = real[col]
        kind = spec.kind(col)
        if kind in ("continuous", "integer"):
            x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            low, high = (float(np.nanmin(x)), float(np.nanmax(x))) if np.isfinite(x).any() else (0.0, 0.0)
            span = max(high - low, 1.0)
            out[col] = high + span * (1.0 + rng.random(n))
        elif kind == "datetime":
            stamps = pd.to_datetime(values)
            low, high = stamps.min(), stamps.max()
            span = max(high - low, pd.Timedelta(days=1))
            out[col] = high + pd.to_timedelta(span.value * (1.0 + rng.random(n)), unit="ns")
        else:
            counts = values.value_counts(dropna=True)
            out[col] = np.full(n, counts.index[0] if len(counts) else None, dtype=object)
    return conform(pd.DataFrame(out), spec, where="off_support_release")


def _goal_problem(metric: BaseMetric, result: MetricResult) -> str | None:
    goal = result.goal or metric.goal
    if goal not in GOALS:
        return f"goal must be one of {', '.join(GOALS)}; got {goal!r}"
    if goal == "target" and not _target_in_range(metric):
        return "goal 'target' needs the metric's target_value within [min_value, max_value]"
    return None


def _bounds_problem(metric: BaseMetric, result: MetricResult) -> str | None:
    v = result.value
    if math.isnan(v):
        return "value is NaN; raise IncomputableMetricError when the metric does not apply"
    if not metric.min_value <= v <= metric.max_value:
        return f"value {v!r} is outside [{metric.min_value}, {metric.max_value}]"
    return None


def _ci_problem(result: MetricResult) -> str | None:
    low, high, v = result.ci_low, result.ci_high, result.value
    if low is None and high is None:
        return None
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return f"a CI needs both ends; got ci_low={low!r}, ci_high={high!r}"
    slack = 1e-12 * max(1.0, abs(v))
    if not low - slack <= v <= high + slack:
        return f"CI [{low!r}, {high!r}] does not contain the value {v!r}"
    return None


def _direction_score(metric: BaseMetric, goal: str, value: float) -> float:
    """Higher = better for ``goal``."""
    if goal == "maximise":
        return value
    if goal == "minimise":
        return -value
    assert metric.target_value is not None
    return -abs(value - metric.target_value)


def _check_direction(
    metric: BaseMetric,
    identical: dict[str, MetricResult],
    degraded: dict[str, MetricResult],
    fail: Callable[[str], ContractViolation],
) -> list[str] | None:
    """Identical data is best for utility / fidelity and worst for privacy (per output goal).

    Raises on an output that ranks the wrong way; returns the outputs that separate the two
    releases strictly (None when no output has a direction).
    """
    if metric.family == "cost":
        return None  # cost measures the resources spent, not the content of the release
    if metric.needs_generator:
        return None  # an attack on the generator (refitted on chosen data) does not read the release
    identical_should_win = metric.family != "privacy"
    separated: list[str] = []
    compared: list[str] = []
    for variant in identical.keys() & degraded.keys():
        goal = identical[variant].goal or metric.goal
        if goal == "none":
            continue  # a diagnostic: no value is better than another
        compared.append(variant)
        gap = _direction_score(metric, goal, identical[variant].value) - _direction_score(
            metric, goal, degraded[variant].value
        )
        if not identical_should_win:
            gap = -gap
        if gap < -DIRECTION_TOLERANCE:
            expectation = "best (utility/fidelity)" if identical_should_win else "worst (privacy)"
            raise fail(
                f"output {variant!r} (goal {goal}): identical data should score {expectation}, but got "
                f"{identical[variant].value!r} vs {degraded[variant].value!r} for the uniform release"
            )
        if gap > DIRECTION_TOLERANCE:
            separated.append(variant)
    return separated if compared else None


def _compare_results(
    a: dict[str, MetricResult],
    b: dict[str, MetricResult],
    tol: float,
    fail: Callable[[str], ContractViolation],
) -> None:
    if a.keys() != b.keys():
        raise fail(f"the output names ({sorted(a)} vs {sorted(b)})")
    for variant in a:
        for attr in ("value", "ci_low", "ci_high", "baseline"):
            x, y = getattr(a[variant], attr), getattr(b[variant], attr)
            if not _same(x, y, tol):
                raise fail(f"output {variant!r} {attr}: {x!r} vs {y!r}")


def _same(x: float | None, y: float | None, tol: float) -> bool:
    if x is None or y is None:
        return x is None and y is None
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or math.isclose(x, y, rel_tol=tol, abs_tol=tol)


def _check_incomputable(
    metric: BaseMetric,
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    spec: DatasetSpec,
    control: pd.DataFrame | None,
    test: pd.DataFrame | None,
    seed: int,
    generator: GeneratorBuilder | None,
    fail: Callable[[str], ContractViolation],
) -> None:
    no_target = dataclasses.replace(spec, target=None, task="none", sensitive=())
    no_qi = dataclasses.replace(spec, qi_sets={}, active_qi=None)
    bare = dataclasses.replace(no_target, qi_sets={}, active_qi=None)
    cases: list[tuple[str, bool, pd.DataFrame, DatasetSpec, pd.DataFrame | None, pd.DataFrame | None]] = [
        ("target, QI sets, control and test", _needs_any(metric), synthetic, bare, None, None),
        ("an empty release", True, synthetic.iloc[:0], spec, control, test),
    ]
    if metric.needs_target:
        cases.append(("the target", True, synthetic, no_target, control, test))
    if metric.needs_qi:
        cases.append(("the QI sets", True, synthetic, no_qi, control, test))
    if metric.needs_control:
        cases.append(("control", True, synthetic, spec, None, test))
    if metric.needs_test:
        cases.append(("test", True, synthetic, spec, control, None))
    if metric.needs_generator:
        try:
            metric.compute(real, synthetic, spec, control=control, test=test, seed=seed)
        except IncomputableMetricError:
            pass
        except Exception as exc:
            raise fail(
                f"without the generator: expected IncomputableMetricError; got {_describe(exc)}"
            ) from exc
        else:
            raise fail("without the generator: expected IncomputableMetricError; compute returned a result")
    for missing, must_raise, syn, case_spec, case_control, case_test in cases:
        what = f"without {missing}" if missing != "an empty release" else "on an empty release"
        try:
            output = metric.compute(
                real, syn, case_spec, control=case_control, test=case_test, seed=seed, generator=generator
            )
        except IncomputableMetricError:
            continue
        except Exception as exc:
            raise fail(f"{what}: expected IncomputableMetricError; got {_describe(exc)}") from exc
        if must_raise:
            raise fail(f"{what}: expected IncomputableMetricError; compute returned a result")
        for variant, result in _outputs(output, fail).items():
            problem = _bounds_problem(metric, result) or _ci_problem(result)
            if problem:
                raise fail(f"{what}: output {variant!r}: {problem}")


def _needs_any(metric: BaseMetric) -> bool:
    return metric.needs_target or metric.needs_qi or metric.needs_control or metric.needs_test


# ====================================================================== shared
def _check_params(
    kind: str,
    obj: BaseGenerator | BaseMetric,
    cfg: Mapping[str, Any],
    fail: Callable[[str], ContractViolation],
) -> None:
    """The YAML lists every constructor parameter and ``get_params`` round-trips it."""
    _, params, check = split_config(cfg)
    names = obj._param_names()
    missing = [p for p in names if p not in params]
    if missing:
        raise fail(
            f"the {kind} YAML lacks parameter(s) {', '.join(missing)}; write every constructor "
            "parameter with its default so results record it"
        )
    expected = _plain({**params, **check})
    actual = _plain(obj.get_params())
    if actual != expected:
        raise fail(f"get_params() returned {actual!r}; the YAML (with check_params) gives {expected!r}")
    try:
        json.dumps(actual)
    except (TypeError, ValueError) as exc:
        raise fail(f"get_params() must be JSON-serialisable: {exc}") from None
    rebuilt = _plain(type(obj)(**obj.get_params()).get_params())
    if rebuilt != actual:
        raise fail(f"rebuilding from get_params() gave {rebuilt!r}; expected {actual!r}")


def _check_unchanged(
    current: pd.DataFrame, original: pd.DataFrame, what: str, fail: Callable[[str], ContractViolation]
) -> None:
    try:
        pd.testing.assert_frame_equal(current, original, check_exact=True)
    except AssertionError as exc:
        raise fail(f"the {what} table was modified: {_first_line(exc)}") from None


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines[:3]) if lines else "(no message)"
