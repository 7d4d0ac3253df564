"""Cost of the ML-utility evaluation (``ml_efficacy``) of one Adult variant.

Times, with one BLAS/OpenMP thread as a trial runs:

1. ``simple`` (the default suite's configuration: one random forest, ROC AUC);
2. ``carvalho2024`` at quick-profile size (``grid: small``, 3-fold CV, 1 repeat, the four
   classifiers);

each for the first variant of a dataset (TSTR and TRTR) and for a further variant (TSTR only:
the TRTR result is memoised in-process). It then **estimates** the cost per variant of the
paper-profile grid (``grid: paper``, 2×5-fold ``RepeatedKFold`` for ``carvalho2024``): a few
configurations of each classifier's grid are fitted once on a CV-fold-sized table, and the mean
fit time is multiplied by the number of fits (configurations × folds × repeats + 1 refit). The
estimate is printed at the measured training size and extrapolated linearly to the full Adult
training split; both are estimates, not measurements. Run::

    python -m benchmarks.bench_utility                      # 4,000 Adult rows (the quick profile), 80/20
    python -m benchmarks.bench_utility --rows 2000 --sample 2
    python -m benchmarks.bench_utility --protocols carvalho2024 almeida2024 miletic2024
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import ParameterGrid
from sklearn.preprocessing import LabelEncoder

PAPER_TRAIN_ROWS = 39_074
"""80 % of Adult's 48,842 rows (``000_…``: 20 % test split)."""


def _data(rows: int, seed: int) -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    from harness.datasets import load_dataset, load_spec

    spec = load_spec("adult")
    frame = load_dataset(spec).frame.sample(n=rows, random_state=seed).reset_index(drop=True)
    cut = int(round(0.8 * rows))
    return spec, frame.iloc[:cut].reset_index(drop=True), frame.iloc[cut:].reset_index(drop=True)


def _variant(name: str, train: pd.DataFrame, spec: Any, seed: int) -> pd.DataFrame:
    from harness.instantiate import build_generator

    gen = build_generator(name, use_check_params=True)
    gen.fit(train, spec, seed=seed)
    return gen.sample()


def _time_metric(
    metric: Any, train: pd.DataFrame, releases: Sequence[pd.DataFrame], spec: Any, test: pd.DataFrame
) -> list[float]:
    from metrics.utility import ml_efficacy

    ml_efficacy._TRTR_CACHE.clear()
    out = []
    for release in releases:
        t0 = time.perf_counter()
        metric.compute(train, release, spec, test=test, seed=0)
        out.append(time.perf_counter() - t0)
    return out


def _fit_seconds(
    metric: Any, clf: str, grid: dict[str, list[Any]], train: pd.DataFrame, spec: Any, sample: int
) -> float:
    """Mean seconds of one fit over ``sample`` configurations of ``grid`` (first, evenly spaced, last)."""
    from metrics.utility.preprocessing import feature_columns, feature_frame

    drop = metric.preset.drop if metric.drop_columns is None else metric.drop_columns
    columns = feature_columns(spec, spec.target, drop)
    configs = list(ParameterGrid(grid)) if grid else [{}]
    picks = sorted({int(round(i)) for i in np.linspace(0, len(configs) - 1, min(sample, len(configs)))})
    x = feature_frame(train, columns)
    y = LabelEncoder().fit_transform(train[spec.target].astype(str).to_numpy())
    seconds = []
    for i in picks:
        pipeline = metric.pipeline(clf, columns, seed=0)
        pipeline.set_params(**{f"model__{k}": v for k, v in configs[i].items()})
        t0 = time.perf_counter()
        pipeline.fit(x, y)
        seconds.append(time.perf_counter() - t0)
    return float(np.mean(seconds))


def estimate_paper_cost(protocol: str, train: pd.DataFrame, spec: Any, sample: int) -> list[dict[str, Any]]:
    """Estimated seconds per variant (TSTR) of ``protocol`` with ``grid: paper``, per classifier."""
    from metrics.utility.ml_efficacy import MlEfficacy
    from metrics.utility.preprocessing import feature_columns
    from metrics.utility.protocols import grid_size

    metric = MlEfficacy(protocol=protocol, grid="paper")
    folds, repeats = metric.cv_shape()
    tuned = metric.preset.selection != "none"
    n_features = len(feature_columns(spec, spec.target, metric.preset.drop))
    fold_rows = train.iloc[: int(len(train) * (folds - 1) / folds)] if tuned else train
    rows = []
    for clf in metric.preset.classifiers:
        grid = metric.grid_for(clf, n_features=n_features)
        configs = grid_size(grid)
        search = configs * folds * repeats + 1 if configs > 1 and tuned else 1
        # cv_on_real (miletic2024) tunes once per dataset on T; each variant is then a single fit
        on_real = metric.preset.selection == "cv_on_real"
        fits = 1 if on_real else search
        once = search + 1 if on_real else search  # TRTR, once per dataset
        per_fit = _fit_seconds(metric, clf, grid, fold_rows, spec, sample)
        rows.append(
            {
                "classifier": clf,
                "configs": configs,
                "fits": fits,
                "per_fit_s": per_fit,
                "total_s": per_fit * fits,
                "dataset_s": per_fit * once,
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", type=int, default=4000, help="Adult rows sampled (80/20 train/test); quick profile: 4000"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generator", default="smote", help="generator of the variant (check_params)")
    parser.add_argument(
        "--sample", type=int, default=3, help="grid configurations timed per classifier for the estimate"
    )
    parser.add_argument("--protocols", nargs="+", default=["carvalho2024"], help="paper grids to estimate")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)

    from harness.threads import limit_threads
    from metrics.utility.ml_efficacy import MlEfficacy

    warnings.filterwarnings("ignore")
    spec, train, test = _data(args.rows, args.seed)
    with limit_threads(args.threads):
        first = _variant(args.generator, train, spec, args.seed)
        second = _variant(args.generator, train, spec, args.seed + 1)
        print(
            f"Adult: {len(train)} training rows, {len(test)} test rows; variants: {args.generator}; threads: {args.threads}"
        )
        print()
        print("| configuration | first variant (TSTR + TRTR) | further variant (TSTR; TRTR memoised) |")
        print("| --- | ---: | ---: |")
        configs = {
            "simple (default suite: RF, 100 trees)": MlEfficacy(),
            "carvalho2024, grid small, 3-fold x 1": MlEfficacy(
                protocol="carvalho2024", grid="small", cv_folds=3, cv_repeats=1
            ),
        }
        for label, metric in configs.items():
            a, b = _time_metric(metric, train, [first, second], spec, test)
            print(f"| {label} | {a:.1f} s | {b:.1f} s |")
        for protocol in args.protocols:
            rows = estimate_paper_cost(protocol, train, spec, args.sample)
            total = sum(r["total_s"] for r in rows)
            once = sum(r["dataset_s"] for r in rows)
            scale = PAPER_TRAIN_ROWS / len(train)
            print()
            print(
                f"ESTIMATE (not measured): {protocol}, grid paper; seconds per variant (TSTR) and once per "
                "dataset (TRTR, memoised)"
            )
            print(
                f"mean fit time over <= {args.sample} configurations x number of fits; {len(train)} training rows"
            )
            print()
            print(
                "| classifier | configs | fits per variant | s per fit | est. s per variant | "
                "est. s per variant at 39,074 rows (linear) | est. s once per dataset |"
            )
            print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for r in rows:
                print(
                    f"| {r['classifier']} | {r['configs']} | {r['fits']} | {r['per_fit_s']:.2f} | "
                    f"{r['total_s']:.0f} | {r['total_s'] * scale:.0f} | {r['dataset_s']:.0f} |"
                )
            print(
                f"| total | | | | {total:.0f} ({total / 60:.1f} min) | {total * scale:.0f} "
                f"({total * scale / 3600:.1f} h) | {once:.0f} |"
            )


if __name__ == "__main__":
    main()
