"""ε-PrivateSMOTE's grid with and without the cross-trial neighbour memo, side by side in one run.

A reproduction runs every variant of the paper's grid (knn {1, 3, 5} × per {1, 2, 3} ×
ε {0.1, 0.5, 1, 5, 10}, with and without ``reference_quirks``) as a separate trial. Without
the memo every variant searches the neighbours of the risky records again; with it
(:mod:`harness.memo`, namespace ``eps_private_smote``, as a trial configures it) the first
variant of each (knn, mode) searches and stores the graph and the other 14 read it. This
benchmark fits and samples the whole grid of one QI set twice in one process, memo off and
memo on (a fresh, empty memo directory), checks that every variant released the same table
(:func:`harness.memo.frame_digest`) and prints the times and their ratio.

Only the generator is timed (fit + sample); a trial also loads the data and computes the
metrics, which the memo does not touch. Run::

    python -m benchmarks.bench_eps_private_smote_grid                  # ds55, ds38, ds43, ds3 (qi0), full training splits
    python -m benchmarks.bench_eps_private_smote_grid --datasets ds38 --qi-set qi2
    python -m benchmarks.bench_eps_private_smote_grid --rows 1000      # a seeded sample of each training split
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from generators.eps_private_smote import EpsPrivateSmote
from harness.datasets import load_dataset, load_spec
from harness.memo import configure, frame_digest
from harness.spec import DatasetSpec

DATASETS = ("ds55", "ds38", "ds43", "ds3")
KNN = (1, 3, 5)
PER = (1, 2, 3)
EPSILON = (0.1, 0.5, 1.0, 5.0, 10.0)
QUIRKS = (False, True)


@dataclass
class GridTiming:
    """One dataset's grid, memo off and memo on."""

    dataset: str
    qi_set: str
    n_train: int
    n_risky: int
    variants: int
    plain_s: float
    memo_s: float
    searches: int
    served: int
    identical: bool

    @property
    def ratio(self) -> float:
        """plain_s / memo_s: how many times faster the grid runs with the memo."""
        return self.plain_s / self.memo_s


def training_split(name: str, qi_set: str, rows: int | None, seed: int) -> tuple[pd.DataFrame, DatasetSpec]:
    """The dataset's predefined training split (a seeded sample of ``rows`` of it when given)."""
    spec = load_spec(name).with_active_qi(qi_set)
    data = load_dataset(spec)
    frame = data.frame if data.test_mask is None else data.frame[~data.test_mask]
    train = frame.reset_index(drop=True)
    if rows is not None and rows < len(train):
        keep = np.sort(np.random.default_rng(seed).choice(len(train), size=rows, replace=False))
        train = train.iloc[keep].reset_index(drop=True)
    return train, spec


def run_grid(
    train: pd.DataFrame, spec: DatasetSpec, grid: Sequence[tuple[int, int, float, bool]], seed: int
) -> tuple[float, list[str], list[str], int]:
    """Fit and sample every variant; return the seconds, the output digests, the neighbour sources, n_risky."""
    digests, sources, n_risky = [], [], 0
    start = time.perf_counter()
    for knn, per, epsilon, quirks in grid:
        gen = EpsPrivateSmote(knn=knn, per=per, epsilon=epsilon, reference_quirks=quirks)
        out = gen.fit(train, spec, seed=seed).sample()
        digests.append(frame_digest(out))
        sources.append(str(gen.details()["neighbours"]))
        n_risky = max(n_risky, len(gen.risky_))
    return time.perf_counter() - start, digests, sources, n_risky


def bench_dataset(
    name: str, qi_set: str, grid: Sequence[tuple[int, int, float, bool]], *, rows: int | None, seed: int
) -> GridTiming:
    """The grid of ``name`` without the memo, then with a fresh one."""
    train, spec = training_split(name, qi_set, rows, seed)
    configure(None)
    plain_s, plain, _, n_risky = run_grid(train, spec, grid, seed)
    with tempfile.TemporaryDirectory(prefix="bench_eps_memo_") as folder:
        configure(Path(folder))
        try:
            memo_s, memoised, sources, _ = run_grid(train, spec, grid, seed)
        finally:
            configure(None)
    return GridTiming(
        name, qi_set, len(train), n_risky, len(grid), plain_s, memo_s, sources.count("computed"),
        sources.count("memo"), memoised == plain,
    )  # fmt: skip


def format_table(results: Sequence[GridTiming]) -> str:
    """Fixed-width table of the grid times and the speed ratios."""
    header = (
        f"{'dataset':<8} {'qi':<4} {'n_train':>8} {'n_risky':>8} {'variants':>8} {'no_memo_s':>10} "
        f"{'memo_s':>8} {'ratio':>7}  searches/served  identical"
    )
    lines = [header, "-" * len(header)]
    for r in results:
        lines.append(
            f"{r.dataset:<8} {r.qi_set:<4} {r.n_train:>8} {r.n_risky:>8} {r.variants:>8} {r.plain_s:>10.2f} "
            f"{r.memo_s:>8.2f} {r.ratio:>6.2f}x  {r.searches:>8}/{r.served:<6}  "
            f"identical: {'yes' if r.identical else 'NO'}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point (``python -m benchmarks.bench_eps_private_smote_grid``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--qi-set", default="qi0")
    parser.add_argument("--rows", type=int, default=None, help="seeded sample of each training split")
    parser.add_argument("--knn", nargs="+", type=int, default=list(KNN))
    parser.add_argument("--per", nargs="+", type=int, default=list(PER))
    parser.add_argument("--epsilon", nargs="+", type=float, default=list(EPSILON))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads (trials run with 1)")
    args = parser.parse_args(argv)
    grid = list(product(args.knn, args.per, args.epsilon, QUIRKS))
    print(
        f"eps_private_smote grid: memo off vs memo on (knn {args.knn} x per {args.per} x epsilon "
        f"{args.epsilon} x reference_quirks {list(QUIRKS)} = {len(grid)} variants; QI set {args.qi_set}; "
        f"threads {args.threads}; fit + sample only)"
    )
    results = []
    with threadpool_limits(limits=args.threads):
        for name in args.datasets:
            results.append(bench_dataset(name, args.qi_set, grid, rows=args.rows, seed=args.seed))
            print(f"  {name}: done ({results[-1].plain_s + results[-1].memo_s:.1f} s)", flush=True)
    print(format_table(results))
    print(
        "speed ratio = no_memo_s / memo_s (generator time of the grid; one search per knn and mode with the memo)"
    )


if __name__ == "__main__":
    main()
