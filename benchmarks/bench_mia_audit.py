"""Cost of the membership-inference audit (``mia_audit``): games per second, side by side.

For a cheap generator (``independent_marginals``) and an expensive one (``sdv_gaussian_copula``)
the audit runs on Adult (a 2,000-row sample: 1,200 training and 400 control rows, the setting of
``experiments/experiment/mia_audit_exposure.yaml`` with fewer games) and reports:

* wall time, generator fits, fits per second and membership observations per second (every
  target sees one IN and one OUT table per game; the OUT fit of a game is shared by the targets);
* the share of the wall time spent in the generator's own fit and sample (the rest is the
  audit's work: encoding the tables and scoring the attacks);
* the saving of sharing OUT fits: fits needed without sharing (2 · targets · games) over the
  fits made ((1 + targets) · games);
* the encoding of one synthetic table into the distance space: the categorical codes of the
  encoder today (each distinct value converted to text once) against the previous path (every
  value converted to text, then ``pd.Categorical``), equal codes checked, and their ratio.

Run::

    python -m benchmarks.bench_mia_audit                 # 2 targets, 10 games
    python -m benchmarks.bench_mia_audit --games 20 --targets 4
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.checks import contract_data
from harness.dtypes import conform
from harness.encoding import TableEncoder, _category_codes
from harness.generator import BaseGenerator
from harness.instantiate import GeneratorBuilder
from metrics.privacy.mia_audit import MiaAudit

GENERATORS = ("independent_marginals", "sdv_gaussian_copula")


@dataclass
class TimedFactory:
    """A generator factory that adds up the time its generators spend in fit and sample."""

    builder: GeneratorBuilder
    seconds: float = 0.0

    def __call__(self) -> BaseGenerator:
        model = self.builder()
        fit, sample = model.fit, model.sample

        def timed_fit(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fit(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        def timed_sample(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return sample(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        model.fit = timed_fit  # type: ignore[method-assign]
        model.sample = timed_sample  # type: ignore[method-assign]
        return model


def audit_row(name: str, games: int, targets: int) -> dict[str, Any]:
    data = contract_data("adult", n_train=1200, n_control=400, n_test=100, seed=0)
    factory = TimedFactory(GeneratorBuilder(name))
    metric = MiaAudit(
        n_outliers=targets // 2, n_random=targets - targets // 2, n_games=games, size_raw_T=300,
        attacks=["closest_distance", "density_ratio"],
    )  # fmt: skip
    start = time.perf_counter()
    out = metric.compute(data.train, data.train, data.spec, control=data.control, seed=0, generator=factory)
    wall = time.perf_counter() - start
    assert isinstance(out, dict)
    fits = int(out["auc"].details["n_fits"])
    return {
        "generator": name,
        "wall_s": round(wall, 2),
        "fits": fits,
        "fits_per_s": round(fits / wall, 2),
        "observations_per_s": round(2 * targets * games / wall, 2),
        "generator_share": round(factory.seconds / wall, 3),
        "sharing_saves": round(2 * targets * games / fits, 2),
        "auc": round(out["auc"].value, 3),
    }


def encoding_row(repeats: int = 20) -> dict[str, Any]:
    data = contract_data("adult", n_train=1200, n_control=400, n_test=100, seed=0)
    encoder = TableEncoder(data.spec, columns="all").fit(data.train)
    table = conform(data.train.iloc[:300].reset_index(drop=True), data.spec)  # as a generator's sample is
    columns = [c for c in encoder.columns_used if not data.spec.column(c).is_numeric]
    vocab = {c: tuple(sorted({str(v) for v in data.train[c].dropna()})) for c in columns}

    def previous(col: pd.Series, categories: tuple[str, ...]) -> np.ndarray:
        labels = col.astype(object).where(col.isna(), col.astype(str))  # every row converted to text
        return pd.Categorical(labels, categories=list(categories)).codes.astype(np.int64)

    def clock(codes: Any) -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for c in columns:
                codes(table[c], vocab[c])
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    for c in columns:
        assert np.array_equal(_category_codes(table[c], vocab[c]), previous(table[c], vocab[c]))
    fast, generic = clock(_category_codes), clock(previous)
    return {
        "fast_ms": round(1e3 * fast, 2),
        "generic_ms": round(1e3 * generic, 2),
        "ratio": round(generic / fast, 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--targets", type=int, default=2)
    parser.add_argument("--generators", nargs="+", default=list(GENERATORS))
    args = parser.parse_args(argv)
    rows = [audit_row(name, args.games, args.targets) for name in args.generators]
    print(
        f"mia_audit on Adult (1,600-row population, raw tables of 300), {args.targets} targets, {args.games} games"
    )
    print(pd.DataFrame(rows).to_string(index=False))
    enc = encoding_row()
    print(
        f"\ncategorical codes of 300 Adult rows (10 columns): today {enc['fast_ms']} ms, previous path "
        f"{enc['generic_ms']} ms: {enc['ratio']}x"
    )


if __name__ == "__main__":
    main()
