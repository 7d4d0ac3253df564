"""UMAP-SMOTENC fit + sample on Adult in fresh processes: cold vs warm numba cache, side by side.

umap-learn and pynndescent compile their numba kernels on first use in every process;
:func:`generators.umap_smotenc.enable_numba_cache` stores them on disk so that a later
trial process loads them instead. This benchmark runs the same trial in three fresh
subprocesses sharing one empty ``NUMBA_CACHE_DIR``:

1. ``cold``: nothing cached yet (every kernel compiles, and is stored);
2. ``warm``: the same again, kernels loaded from the cache;
3. ``warm, umap-learn as shipped``: the warm cache, but without
   :func:`~generators.umap_smotenc.enable_numba_cache` (only pynndescent's own
   ``cache=True`` kernels are cached), i.e. what a trial would pay without it.

Each child times ``fit`` and ``sample`` of :class:`~generators.umap_smotenc.UmapSmoteNC`
(YAML defaults unless overridden) with one BLAS thread, as a trial does; the wall time of
the whole child (interpreter start, imports, data loading) is reported too. Run::

    python -m benchmarks.bench_umap_smotenc                    # 10,000 Adult rows
    python -m benchmarks.bench_umap_smotenc --rows 3000 --knn exact
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RUNS: tuple[tuple[str, bool], ...] = (
    ("cold", True),
    ("warm", True),
    ("warm, umap-learn as shipped", False),
)


def child(rows: int, seed: int, knn: str, epochs: int | None, enable_cache: bool) -> dict[str, Any]:
    """One trial-like fit + sample in this process; returns its timings."""
    start = time.perf_counter()
    import generators.umap_smotenc as module
    from harness.datasets import load_dataset, load_spec
    from harness.threads import limit_threads

    if not enable_cache:
        module.enable_numba_cache = lambda *args, **kwargs: 0
    spec = load_spec("adult")
    frame = load_dataset(spec).frame
    train = frame.sample(n=min(rows, len(frame)), random_state=seed).reset_index(drop=True)
    ready = time.perf_counter()
    with limit_threads(1):
        gen = module.UmapSmoteNC(umap_knn=knn, umap_n_epochs=epochs)
        t0 = time.perf_counter()
        gen.fit(train, spec, seed=seed)
        t1 = time.perf_counter()
        out = gen.sample()
        t2 = time.perf_counter()
    assert len(out) == len(train)
    return {
        "setup_s": ready - start,
        "fit_s": t1 - t0,
        "sample_s": t2 - t1,
        "fit_sample_s": t2 - t0,
        "split": gen.details()["seconds"],
    }


def run_child(args: argparse.Namespace, cache_dir: Path, enable_cache: bool) -> dict[str, Any]:
    """Run :func:`child` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache_dir``."""
    command = [
        sys.executable, "-m", "benchmarks.bench_umap_smotenc", "--child", "--rows", str(args.rows),
        "--seed", str(args.seed), "--knn", args.knn,
    ]  # fmt: skip
    if args.epochs is not None:
        command += ["--epochs", str(args.epochs)]
    if not enable_cache:
        command.append("--no-cache")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONWARNINGS": "ignore"}
    start = time.perf_counter()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_s"] = wall
    result["cache_mb"] = sum(f.stat().st_size for f in cache_dir.rglob("*") if f.is_file()) / 1e6
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="Adult rows (seeded sample)")
    parser.add_argument("--seed", type=int, default=0, help="sample and generator seed")
    parser.add_argument("--knn", choices=("auto", "exact"), default="auto", help="umap_knn")
    parser.add_argument("--epochs", type=int, default=None, help="umap_n_epochs (default: umap-learn's)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-cache", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.rows, args.seed, args.knn, args.epochs, not args.no_cache)))
        return

    print(
        f"UMAP-SMOTENC on {args.rows} Adult rows (umap_knn={args.knn}, umap_n_epochs={args.epochs}), "
        "each run a fresh process sharing one NUMBA_CACHE_DIR"
    )
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="privbench-numba-") as tmp:
        for label, enable_cache in RUNS:
            results[label] = run_child(args, Path(tmp), enable_cache)
            r = results[label]
            split = ", ".join(f"{k} {v:.1f}" for k, v in r["split"].items())
            print(
                f"  {label:<28} fit+sample {r['fit_sample_s']:7.1f} s  (fit {r['fit_s']:.1f}, "
                f"sample {r['sample_s']:.1f}; {split})  process {r['process_s']:6.1f} s  "
                f"cache {r['cache_mb']:.1f} MB",
                flush=True,
            )
    cold, warm, shipped = (results[label]["fit_sample_s"] for label, _ in RUNS)
    print(f"  cold / warm fit+sample: {cold / warm:.2f}x  ({cold - warm:.1f} s of compilation saved)")
    print(f"  umap-learn as shipped / warm: {shipped / warm:.2f}x")


if __name__ == "__main__":
    main()
