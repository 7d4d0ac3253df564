"""ε-PrivateSMOTE: the vectorised generator vs a per-record loop, side by side in one run.

The loop implementation follows the structure of the authors' code
(``tmcarvalho/privateSMOTE``, ``code/privatesmote.py``): it walks over all records, calls
``kneighbors`` once per risky record, and draws every value with a scalar call inside
Python loops over the ``per`` (N) copies and the attributes. It implements the same
algorithm as :class:`generators.eps_private_smote.EpsPrivateSmote` in its default
("fixed") mode, so both produce the same risky set, the same neighbours and outputs of the
same size and distribution (the draws come in a different order, so the values differ).

Run::

    python -m benchmarks.bench_eps_private_smote              # ds38 and Adult, full training splits
    python -m benchmarks.bench_eps_private_smote --rows 1000  # a seeded sample of each training split

Settings (fixed): ``k=3, knn=3, per=2, epsilon=0.5``; QI sets ``qi0`` (ds38) and
``default`` (Adult); training split = the dataset's predefined one (ds38 5,626 rows,
Adult 32,561 rows).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors
from threadpoolctl import threadpool_limits

from generators.eps_private_smote import EpsPrivateSmote, neighbour_space
from harness.datasets import load_dataset, load_spec
from harness.dtypes import conform
from harness.spec import CATEGORICAL_KINDS, DatasetSpec

SETTINGS = {"k": 3, "knn": 3, "per": 2, "epsilon": 0.5}
QI_SETS = {"ds38": "qi0", "adult": "default"}


def loop_eps_private_smote(
    train: pd.DataFrame, spec: DatasetSpec, *, k: int, knn: int, per: int, epsilon: float, seed: int
) -> tuple[pd.DataFrame, dict[int, list[int]]]:
    """ε-PrivateSMOTE ("fixed" semantics) with the per-record loops of the authors' code.

    Parameters
    ----------
    train : DataFrame
        Training rows (spec dtypes).
    spec : DatasetSpec
        Schema; ``spec.qi`` is the QI set.
    k, knn, per, epsilon : see :class:`EpsPrivateSmote`.
    seed : int
        Seed of the ``numpy.random.Generator`` (scalar draws).

    Returns
    -------
    (DataFrame, dict)
        The released table and, per risky row, its ``knn`` neighbours (itself excluded).
    """
    rng = np.random.default_rng(seed)
    train = train.reset_index(drop=True)
    target = spec.target
    assert target is not None
    predictors = [c for c in spec.table_columns if c != target]
    categorical = [c for c in predictors if spec.kind(c) in CATEGORICAL_KINDS]
    numeric = [c for c in predictors if c not in categorical]
    is_categorical = [c in categorical for c in predictors]

    # risk flag: equivalence-class size on the QI set
    size = train.groupby(list(spec.qi), dropna=False)[spec.qi[0]].transform("size")
    single_out = set(np.flatnonzero((size < k).to_numpy()).tolist())

    # label-encoded table, column statistics, neighbour space
    x = np.empty((len(train), len(predictors)), dtype=np.float64)
    labels: dict[int, np.ndarray] = {}
    for j, col in enumerate(predictors):
        if is_categorical[j]:
            codes, uniques = pd.factorize(train[col], use_na_sentinel=False)
            x[:, j], labels[j] = codes, np.asarray(uniques, dtype=object)
        else:
            x[:, j] = train[col].to_numpy(dtype=np.float64)
    numeric_x = train[numeric].to_numpy(dtype=np.float64)
    space = neighbour_space(train, numeric, categorical, numeric_x)
    nn = NearestNeighbors(n_neighbors=knn + 1).fit(space)
    std = [np.nanstd(x[:, j]) if not is_categorical[j] else np.nan for j in range(len(predictors))]
    all_codes = {j: np.arange(len(labels[j])) for j in labels}

    rows: list[list[float]] = []
    targets: list[object] = []
    neighbours: dict[int, list[int]] = {}
    y = train[target].to_numpy()
    for i in range(len(train)):
        if i not in single_out:
            continue
        found = nn.kneighbors(space[i].reshape(1, -1), return_distance=False)[0].tolist()
        nnarray = [j for j in found if j != i][:knn] if i in found else found[:knn]
        neighbours[i] = nnarray
        for _ in range(per):
            new = []
            for j in range(len(predictors)):
                a = x[i, j]
                if is_categorical[j]:
                    unique = np.unique(x[nnarray, j])
                    pool = unique if len(unique) >= 2 else all_codes[j]
                    new.append(float(pool[rng.integers(0, len(pool))]))
                    continue
                b = x[nnarray[rng.integers(0, knn)], j]
                lam = rng.laplace(0.0, 1.0 / epsilon)
                if b != a and not np.isnan(b):
                    new.append(a + lam * (b - a))
                else:
                    new.append(a + (1.0 if rng.random() < 0.5 else -1.0) * std[j] * lam)
            rows.append(new)
            targets.append(y[i])

    synthetic = pd.DataFrame(rows, columns=predictors) if rows else pd.DataFrame(columns=predictors)
    for j, col in enumerate(predictors):
        if is_categorical[j]:
            synthetic[col] = labels[j][synthetic[col].to_numpy(dtype=np.int64)]
    synthetic[target] = targets
    low = train.iloc[sorted(set(range(len(train))) - single_out)]
    out = pd.concat([synthetic[list(spec.table_columns)], low], ignore_index=True)
    return conform(out, spec, where="loop ε-PrivateSMOTE"), neighbours


@dataclass
class Timing:
    """One dataset's side-by-side result."""

    dataset: str
    n_train: int
    n_risky: int
    loop_s: float
    vectorised_s: float
    same_neighbours: bool
    same_size: bool

    @property
    def ratio(self) -> float:
        return self.loop_s / self.vectorised_s


def bench_dataset(name: str, *, rows: int | None, seed: int) -> Timing:
    """Time both implementations on the predefined training split of ``name``."""
    spec = load_spec(name).with_active_qi(QI_SETS[name])
    data = load_dataset(spec)
    frame = data.frame if data.test_mask is None else data.frame[~data.test_mask]
    train = frame.reset_index(drop=True)
    if rows is not None and rows < len(train):
        keep = np.sort(np.random.default_rng(seed).choice(len(train), size=rows, replace=False))
        train = train.iloc[keep].reset_index(drop=True)

    start = time.perf_counter()
    gen = EpsPrivateSmote(qi=QI_SETS[name], **SETTINGS)  # type: ignore[arg-type]
    fast = gen.fit(train, spec, seed=seed).sample()
    vectorised_s = time.perf_counter() - start

    start = time.perf_counter()
    slow, neighbours = loop_eps_private_smote(train, spec, seed=seed, **SETTINGS)  # type: ignore[arg-type]
    loop_s = time.perf_counter() - start

    same = list(neighbours) == gen.risky_.tolist() and _same_up_to_ties(gen, train, neighbours)
    return Timing(name, len(train), len(gen.risky_), loop_s, vectorised_s, same, len(slow) == len(fast))


def _same_up_to_ties(gen: EpsPrivateSmote, train: pd.DataFrame, neighbours: dict[int, list[int]]) -> bool:
    """Both found the same neighbours, or others at the same distances (ties broken differently)."""
    space = neighbour_space(train, gen.numeric_, gen.categorical_, gen.x_)
    for i, row in zip(gen.risky_.tolist(), gen.neighbours_.tolist()):
        theirs = neighbours[i]
        if sorted(theirs) == sorted(row):
            continue
        ours_d = np.sort(np.linalg.norm(space[row] - space[i], axis=1))
        theirs_d = np.sort(np.linalg.norm(space[theirs] - space[i], axis=1))
        if not np.allclose(ours_d, theirs_d, rtol=1e-9, atol=1e-9):
            return False
    return True


def format_table(results: Sequence[Timing]) -> str:
    """Fixed-width table of the timings and speed ratios."""
    header = (
        f"{'dataset':<8} {'n_train':>8} {'n_risky':>8} {'loop_s':>9} {'vectorised_s':>13} "
        f"{'ratio':>8}  same neighbours (up to ties)/size"
    )
    lines = [header, "-" * len(header)]
    for r in results:
        lines.append(
            f"{r.dataset:<8} {r.n_train:>8} {r.n_risky:>8} {r.loop_s:>9.2f} {r.vectorised_s:>13.3f} "
            f"{r.ratio:>7.1f}x  {'yes' if r.same_neighbours else 'NO'}/{'yes' if r.same_size else 'NO'}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point (``python -m benchmarks.bench_eps_private_smote``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", nargs="+", default=list(QI_SETS), choices=list(QI_SETS))
    parser.add_argument("--rows", type=int, default=None, help="seeded sample of each training split")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads", type=int, default=None, help="BLAS/OpenMP threads (default: the libraries' default)"
    )
    args = parser.parse_args(argv)
    settings = ", ".join(f"{k}={v}" for k, v in SETTINGS.items())
    threads = "library default" if args.threads is None else args.threads
    print(
        f"eps_private_smote: per-record loop vs vectorised ({settings}; QI sets {QI_SETS}; threads {threads})"
    )
    results = []
    with threadpool_limits(limits=args.threads):
        for name in args.datasets:
            results.append(bench_dataset(name, rows=args.rows, seed=args.seed))
            print(f"  {name}: done ({results[-1].loop_s + results[-1].vectorised_s:.1f} s)", flush=True)
    print(format_table(results))
    print("speed ratio = loop_s / vectorised_s (target >= 50x)")


if __name__ == "__main__":
    main()
