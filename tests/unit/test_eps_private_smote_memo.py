"""ε-PrivateSMOTE's neighbour graph in the cross-trial memo (``generators/eps_private_smote_neighbours.py``).

A variant fitted with the memo releases exactly the table of the unmemoised fit; the second
fit of a grid (another ε or per) is served from the memo without a search; whatever the graph
depends on (training rows, QI set, k, knn, mode) gives another entry.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import generators.eps_private_smote_neighbours as neighbours_module
from generators.eps_private_smote import EpsPrivateSmote
from generators.eps_private_smote_neighbours import MEMO_NAMESPACE
from harness.dtypes import conform
from harness.memo import configure, frame_digest
from harness.spec import DatasetSpec
from harness.storage import atomic_write_parquet

SPEC = DatasetSpec.from_dict(
    {
        "name": "grid",
        "columns": {
            "a": "integer",
            "b": "integer",
            "x": "continuous",
            "c": "categorical",
            "y": "categorical",
        },
        "target": "y",
        "task": "binary",
        "qi_sets": {"ab": ["a", "b"], "ac": ["a", "c"]},
    }
)


def table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Small integer domains: many risky rows and many tied distances (tie-breaking matters)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 40, n),
            "b": rng.integers(0, 6, n),
            "x": np.round(rng.normal(0, 1, n), 1),
            "c": rng.choice(["u", "v", "w"], n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    frame.loc[rng.choice(n, 20, replace=False), "c"] = np.nan  # a missing category (fixed: own level)
    return conform(frame, SPEC)


@pytest.fixture
def memo_root(tmp_path: Path) -> Iterator[Path]:
    configure(tmp_path)
    yield tmp_path / "memo" / MEMO_NAMESPACE
    configure(None)


def fit(train: pd.DataFrame, seed: int = 3, **params: object) -> tuple[EpsPrivateSmote, pd.DataFrame]:
    params.setdefault("qi", "ab")
    gen = EpsPrivateSmote(**params)  # type: ignore[arg-type]
    gen.fit(train, SPEC, seed=seed)
    return gen, gen.sample()


def parquet_bytes(frame: pd.DataFrame, path: Path) -> bytes:
    atomic_write_parquet(path, frame)
    return path.read_bytes()


def entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.npz")) if root.exists() else []


@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize("knn", [1, 3, 5])
def test_memoised_fit_releases_the_unmemoised_table_byte_for_byte(
    memo_root: Path, tmp_path: Path, knn: int, reference: bool
) -> None:
    train = table()
    configure(None)  # the unmemoised fit: the memo is off outside a trial
    plain_gen, plain = fit(train, knn=knn, per=2, epsilon=0.5, reference_quirks=reference)
    assert plain_gen.details()["neighbours"] == "computed" and not entries(memo_root)

    configure(tmp_path)
    first_gen, first = fit(train, knn=knn, per=2, epsilon=0.5, reference_quirks=reference)
    served_gen, served = fit(train, knn=knn, per=2, epsilon=0.5, reference_quirks=reference)
    assert first_gen.details()["neighbours"] == "computed"
    assert served_gen.details()["neighbours"] == "memo"
    assert len(entries(memo_root)) == 1
    assert len(plain_gen.risky_) > 50  # the graph is not trivial
    for gen in (first_gen, served_gen):
        assert gen.neighbours_.dtype == plain_gen.neighbours_.dtype
        assert np.array_equal(gen.neighbours_, plain_gen.neighbours_)
    for out in (first, served):
        pd.testing.assert_frame_equal(out, plain, check_exact=True)
        assert frame_digest(out) == frame_digest(plain)
        assert parquet_bytes(out, tmp_path / "a.parquet") == parquet_bytes(plain, tmp_path / "b.parquet")
    pd.testing.assert_frame_equal(served_gen.artifacts()["row_origin"], plain_gen.artifacts()["row_origin"])


def test_other_epsilon_and_per_are_served_without_a_search(
    memo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = table()
    fit(train, knn=3, per=1, epsilon=0.1)  # the first variant of the knn searches and stores

    def no_search(query: object) -> np.ndarray:
        raise AssertionError("the neighbour search ran although the memo holds the graph")

    monkeypatch.setattr(neighbours_module, "search_neighbours", no_search)
    for epsilon in (0.5, 1.0, 5.0, 10.0):
        for per in (1, 2, 3):
            gen, out = fit(train, knn=3, per=per, epsilon=epsilon)
            assert gen.details()["neighbours"] == "memo"
            assert len(out) == len(gen.low_) + per * len(gen.risky_)
    assert len(entries(memo_root)) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"knn": 5},
        {"reference_quirks": True},
        {"qi": "ac"},
        {"k": 4},
    ],
)
def test_what_the_graph_depends_on_gives_another_entry(memo_root: Path, change: dict[str, object]) -> None:
    train = table()
    fit(train, knn=3)
    params: dict[str, Any] = {"knn": 3, **change}
    gen, _ = fit(train, **params)
    assert gen.details()["neighbours"] == "computed"
    assert len(entries(memo_root)) == 2


def test_other_training_rows_give_another_entry(memo_root: Path) -> None:
    fit(table(seed=0), knn=3)
    gen, _ = fit(table(seed=1), knn=3)
    assert gen.details()["neighbours"] == "computed"
    shuffled = table(seed=0).sample(frac=1.0, random_state=0).reset_index(drop=True)
    gen, _ = fit(shuffled, knn=3)  # the same rows in another order: other indices, another entry
    assert gen.details()["neighbours"] == "computed"
    assert len(entries(memo_root)) == 3


def test_a_corrupt_or_mismatched_entry_is_searched_again(memo_root: Path) -> None:
    train = table()
    plain_gen, plain = fit(train, knn=3)
    (path,) = entries(memo_root)
    path.write_bytes(b"not an npz file")
    gen, out = fit(train, knn=3)
    assert gen.details()["neighbours"] == "computed"
    pd.testing.assert_frame_equal(out, plain, check_exact=True)
    # an entry of the right key but another shape (e.g. written by a bug) fails the guard
    buffer = io.BytesIO()
    np.savez(buffer, risky=plain_gen.risky_[:-1], neighbours=plain_gen.neighbours_[:-1])
    path.write_bytes(buffer.getvalue())
    gen, out = fit(train, knn=3)
    assert gen.details()["neighbours"] == "computed"
    pd.testing.assert_frame_equal(out, plain, check_exact=True)


def test_no_risky_row_needs_no_entry(memo_root: Path) -> None:
    train = pd.concat([table(60)] * 3, ignore_index=True)  # every QI combination at least 3 times
    gen, out = fit(train, knn=3)
    assert gen.details()["neighbours"] == "none" and len(gen.risky_) == 0
    pd.testing.assert_frame_equal(out, train)
    assert not entries(memo_root)


def test_grid_benchmark_runs_at_tiny_size_and_prints_the_ratio() -> None:
    from contextlib import redirect_stdout

    from benchmarks.bench_eps_private_smote_grid import main

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        main("--rows 300 --datasets ds38 --knn 1 --epsilon 0.5 1.0 --per 1 2".split())
    text = buffer.getvalue()
    assert "ratio" in text and "ds38" in text and "identical: yes" in text
