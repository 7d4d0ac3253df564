"""`run_trial`: one (dataset, QI set, split seed, fold, generator, generator seed) trial.

The function behind the Hydra entry point. It loads and splits the data, gets the
synthetic variant from the content-addressed cache or produces it in a killable child
process, runs every metric of the suite, and returns the trial's result rows. Failures of
the generator or of a metric are rows with a status, never exceptions; only bad input
(unknown names, impossible parameters, unusable data) raises :class:`PrivbenchError`.

The stages live by concept: :mod:`harness.trial_config` (what defines a trial),
:mod:`harness.trial_variant` (the release), :mod:`harness.trial_metrics` (the rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import harness
from harness import interrupts
from harness.cache import TrialCache, content_key
from harness.calibration import CALIBRATION_VERSION
from harness.datasets import load_dataset
from harness.derived import declared_rules, generator_view
from harness.errors import ConfigError, PrivbenchError
from harness.gc_policy import paused as gc_paused
from harness.instantiate import build_generator, build_metric, split_config
from harness.memo import configure as configure_memo
from harness.schema import to_results_frame
from harness.seeding import derive_seed
from harness.spec import DatasetSpec
from harness.splits import make_split
from harness.trial_config import PreparedTrial, TrialConfig
from harness.trial_metrics import COST_METRICS, metric_rows
from harness.trial_variant import obtain_variant


def prepare_trial(cfg: TrialConfig) -> PreparedTrial:
    """Load, split and build everything a trial needs; raise on bad input.

    Raises
    ------
    PrivbenchError
        Unknown names, impossible parameters or unusable data (one-line message).
    """
    cfg.validate()
    declared = cfg.dataset_cfg.get("name")
    if declared is not None and str(declared) != cfg.dataset:
        raise ConfigError(
            f"dataset {cfg.dataset!r}: key 'name' must equal the file name {cfg.dataset!r} "
            f"(dataset/{cfg.dataset}.yaml); got {declared!r}"
        )
    spec = _with_active_qi(DatasetSpec.from_dict(cfg.dataset_cfg, name=cfg.dataset), cfg)
    loaded = load_dataset(spec, base_dir=cfg.base_dir)
    declared_rules(spec)  # preprocess.derived_columns: malformed rules fail before any trial runs
    frame, test_mask = _subsample(loaded.frame, loaded.test_mask, cfg.max_rows, cfg.split_seed)
    y = frame[spec.target] if spec.target is not None and spec.task in ("binary", "multiclass") else None
    split = make_split(
        len(frame), cfg.split, split_seed=cfg.split_seed, fold=cfg.fold, y=y, test_mask=test_mask
    )
    train, control, test = split.take(frame)
    with gc_paused():  # a plugin's first build imports its libraries (harness.gc_policy)
        generator = build_generator(cfg.generator, cfg.generator_cfg)
    generator.validate_spec(generator_view(train, control, spec)[2])  # e.g. strict DP needs a public domain
    with gc_paused():
        metric_objects = {name: build_metric(name, mcfg) for name, mcfg in cfg.metrics.items()}
    generator_seed = derive_seed(cfg.gen_seed, "generator", cfg.generator)
    target, _, _ = split_config(cfg.generator_cfg)
    info = generator.info()
    variant_payload = {
        "privbench": harness.__version__,
        "dataset_digest": loaded.digest,
        "max_rows": cfg.max_rows,
        "split": cfg.split.to_dict(),
        "split_seed": cfg.split_seed,
        "fold": cfg.fold,
        "qi_set": spec.qi_set_name if info.needs_qi else None,
        "generator_target": target,
        "generator_params": generator.get_params(),
        "generator_seed": generator_seed,
        "n_rows": cfg.n_rows,
    }
    variant_key = content_key(variant_payload)
    trial_key = content_key(
        {
            "variant": variant_key,
            "qi_set": spec.qi_set_name,
            "metrics": {
                n: [split_config(m)[0], m_obj.get_params()]
                for (n, m), m_obj in zip(cfg.metrics.items(), metric_objects.values())
            },
            "experiment": cfg.experiment,
            "calibration": CALIBRATION_VERSION if cfg.calibrate else None,
        }
    )
    return PreparedTrial(
        cfg,
        spec,
        loaded,
        train,
        control,
        test,
        split,
        generator,
        generator_seed,
        metric_objects,
        variant_key,
        trial_key,
    )


def run_trial(cfg: TrialConfig) -> pd.DataFrame:
    """Run one trial and return its result rows (schema: :mod:`harness.schema`).

    Parameters
    ----------
    cfg : TrialConfig

    Returns
    -------
    DataFrame
        One row per (metric, variant) plus the cost rows.

    Raises
    ------
    PrivbenchError
        For bad input only; generator and metric failures are rows.
    """
    return run_prepared(prepare_trial(cfg))


def run_prepared(prepared: PreparedTrial) -> pd.DataFrame:
    """Run a trial built by :func:`prepare_trial` (see :func:`run_trial`)."""
    cfg = prepared.cfg
    configure_memo(cfg.cache_dir, enabled=cfg.use_cache)  # plugins' cross-trial memo (harness.memo)
    trial_cache = TrialCache(cfg.cache_dir)
    if cfg.use_cache:
        cached = trial_cache.get(prepared.trial_key)
        if cached is not None:
            cached = cached.copy()
            cached["run_id"] = cfg.run_id
            cached["resumed"] = True
            return to_results_frame(
                [{str(k): v for k, v in row.items()} for row in cached.to_dict("records")]
            )
    variant = obtain_variant(prepared)
    rows = metric_rows(prepared, variant)
    frame = to_results_frame(rows)
    interrupts.check()  # rows of a trial that a swallowed Ctrl-C cut short are neither cached nor written
    if variant.status in ("ok", "error", "skipped"):
        trial_cache.put(prepared.trial_key, frame)
    return frame


def _with_active_qi(spec: DatasetSpec, cfg: TrialConfig) -> DatasetSpec:
    """The trial's QI set: ``qi_set``, or the generator's own ``qi`` / ``qi_index`` (they must agree)."""
    params = dict(cfg.generator_cfg)
    own = params.get("qi") if params.get("qi") is not None else params.get("qi_index")
    chosen = spec.with_active_qi(cfg.qi_set)
    if own is None:
        return chosen
    mine = spec.with_active_qi(own)
    if cfg.qi_set is not None and mine.qi_set_name != chosen.qi_set_name:
        raise ConfigError(
            f"qi_set={cfg.qi_set!r} differs from the generator's QI set {own!r}; set one of them"
        )
    return mine


def _subsample(
    frame: pd.DataFrame, test_mask: np.ndarray | None, max_rows: int | None, split_seed: int
) -> tuple[pd.DataFrame, np.ndarray | None]:
    if max_rows is None or len(frame) <= max_rows:
        return frame, test_mask
    rng = np.random.default_rng(derive_seed(split_seed, "max_rows"))
    keep = np.sort(rng.choice(len(frame), size=int(max_rows), replace=False))
    return frame.iloc[keep].reset_index(drop=True), None if test_mask is None else np.asarray(test_mask)[keep]


__all__ = [
    "COST_METRICS",
    "PreparedTrial",
    "PrivbenchError",
    "TrialConfig",
    "prepare_trial",
    "run_prepared",
    "run_trial",
]
