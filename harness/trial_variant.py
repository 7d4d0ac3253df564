"""A trial's released table: from the variant cache, or fitted and sampled in a killable child.

The generator runs in a child process under the trial's limits (:mod:`harness.isolation`); the
child writes the release (and the generator's artifacts) as Parquet, the parent reads it back,
conforms it to the dataset's dtypes and stores it in the content-addressed variant cache.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.cache import VariantCache
from harness.derived import complete, generator_view
from harness.dtypes import conform
from harness.errors import InfeasibleConfigError
from harness.generator import BaseGenerator
from harness.isolation import run_isolated
from harness.progress import stage
from harness.spec import DatasetSpec, canonical_json
from harness.storage import parquet_bytes, private_dir, read_parquet, warm_parquet_writer
from harness.threads import limit_threads, warm_thread_budget
from harness.trial_config import PreparedTrial
from harness.versions import versions


@dataclass(frozen=True)
class VariantOutcome:
    """The released table (or why there is none) and how it was obtained."""

    status: str
    table: pd.DataFrame | None
    error: str
    fit_s: float
    sample_s: float
    peak_rss_mb: float
    cache_hit: bool
    details: dict[str, Any]


def trial_label(p: PreparedTrial) -> str:
    """The trial in a progress line: dataset, generator, seeds."""
    return (
        f"{p.cfg.dataset} {p.cfg.generator} split_seed={p.cfg.split_seed} fold={p.cfg.fold} "
        f"gen_seed={p.cfg.gen_seed}"
    )


def obtain_variant(p: PreparedTrial) -> VariantOutcome:
    """The trial's release: from the variant cache, else fitted and sampled in a child under the limits.

    A failed, timed-out or out-of-memory fit is an outcome with that status and no table; an
    infeasible configuration (:class:`InfeasibleConfigError`) is ``skipped`` with its reason.
    """
    cache = VariantCache(p.cfg.cache_dir)
    if p.cfg.use_cache:
        hit = cache.get(p.variant_key)
        if hit is not None:
            table, meta = hit
            return VariantOutcome(
                "ok", conform(table, p.spec, where="cached variant"), "", meta.get("fit_s", math.nan),
                meta.get("sample_s", math.nan), meta.get("peak_rss_mb", math.nan), True, meta.get("details", {}),
            )  # fmt: skip
    tmp_dir = private_dir(Path(p.cfg.cache_dir) / "tmp", Path(p.cfg.cache_dir))  # the variant is real data
    with tempfile.TemporaryDirectory(dir=tmp_dir) as work:
        out_path = Path(work) / "variant.parquet"
        control = p.control if p.generator.info().needs_control else None
        if p.cfg.start_method == "fork":  # first-use set-up paid here once, not in every fit child
            warm_parquet_writer()
            warm_thread_budget()
        with stage(f"fitting and sampling {p.cfg.generator}", trial_label(p)):
            outcome = run_isolated(
                _fit_and_sample,
                (
                    p.generator,
                    p.train,
                    control,
                    p.spec,
                    p.generator_seed,
                    p.cfg.n_rows,
                    out_path,
                    p.cfg.threads,
                ),
                timeout_s=p.cfg.timeout_s,
                max_memory_mb=p.cfg.max_memory_mb,
                start_method=p.cfg.start_method,
            )
        if outcome.error_type == KeyboardInterrupt.__name__:  # Ctrl-C reached the fit child: not a result
            raise KeyboardInterrupt
        if outcome.status != "ok":
            status: str = outcome.status
            error = outcome.error
            if outcome.error_type == InfeasibleConfigError.__name__:
                reason = error.splitlines()[0].split(": ", 1)[-1]  # one line: the reason, not the traceback
                status, error = "skipped", "infeasible: " + reason
            return VariantOutcome(status, None, error, math.nan, math.nan, outcome.peak_rss_mb, False, {})
        result = dict(outcome.value)
        table = conform(read_parquet(out_path), p.spec, where="variant")
        artifacts = sorted(f.name for f in Path(work).glob("artifact-*.parquet"))
        details = {
            "generator_info": result.get("info", p.generator.info().to_dict()),
            "rows": len(table),
            "generator": result.get("details", {}),
            "artifacts": [a[len("artifact-") : -len(".parquet")] for a in artifacts],
        }
        sidecar = {
            "generator": p.cfg.generator,
            "generator_params": p.generator.get_params(),
            "generator_seed": p.generator_seed,
            "dataset": p.spec.name,
            "fit_s": result["fit_s"],
            "sample_s": result["sample_s"],
            "peak_rss_mb": outcome.peak_rss_mb,
            "details": details,
            "versions": versions(),
        }
        if p.cfg.use_cache:
            for artifact in artifacts:
                cache.put_artifact(
                    p.variant_key, artifact[len("artifact-") : -len(".parquet")], Path(work) / artifact
                )
            cache.put_file(p.variant_key, out_path, sidecar)  # the sidecar last: it marks a complete entry
    return VariantOutcome(
        "ok", table, "", result["fit_s"], result["sample_s"], outcome.peak_rss_mb, False, details
    )


def _fit_and_sample(
    generator: BaseGenerator,
    train: pd.DataFrame,
    control: pd.DataFrame | None,
    spec: DatasetSpec,
    seed: int,
    n_rows: int | None,
    out_path: Path,
    threads: int,
) -> dict[str, Any]:
    """Child-process body: fit, sample, write the variant (and artifacts) as Parquet next to ``out_path``.

    Derived columns the dataset declares (``preprocess.derived_columns``, :mod:`harness.derived`)
    are hidden from the generator and recomputed on its release (part of ``sample_s``).
    """
    with limit_threads(threads):
        start = time.perf_counter()
        fit_train, fit_control, fit_spec, rules = generator_view(train, control, spec)
        generator.fit(fit_train, fit_spec, seed=seed, control=fit_control)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        table = generator.sample(n_rows)
        if rules:
            table = complete(table, spec, rules, reference=train)
        sample_s = time.perf_counter() - start
    Path(out_path).write_bytes(parquet_bytes(table))
    for name, artifact in generator.artifacts().items():
        Path(out_path).with_name(f"artifact-{name}.parquet").write_bytes(parquet_bytes(artifact))
    return {
        "fit_s": fit_s,
        "sample_s": sample_s,
        "details": json.loads(canonical_json(generator.details())),
        "info": json.loads(canonical_json(generator.info().to_dict())),  # flags may depend on the fit
    }
