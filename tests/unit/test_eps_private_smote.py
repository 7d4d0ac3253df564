"""ε-PrivateSMOTE (``spec/generators.md`` §5.1): hand-computed toy cases, the Laplace weights,
the flip, categorical draws, assembly, seeds, reference quirks and parameter errors."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from generators.eps_private_smote import EpsPrivateSmote, drop_self
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "x": "continuous",
            "u": "integer",
            "v": "continuous",
            "c": "categorical",
            "y": "categorical",
        },
        "target": "y",
        "task": "binary",
        "qi_sets": {"by_x": ["x"], "by_c": ["c"]},
    }
)


def toy() -> pd.DataFrame:
    """Rows 0-2 are risky on ``by_x`` (classes of size 1); rows 3-5 share x = 100 (size 3).

    Every category has 2 rows, so two rows with different categories differ by 4.5 (one
    dummy) or 9 (two dummies) in squared standardised distance, while the numeric gap
    between the clusters (x, u, v: 0-2 vs 100) costs about 12: the risky rows are each
    other's neighbours.
    """
    frame = pd.DataFrame(
        {
            "x": [0.0, 1.0, 2.0, 100.0, 100.0, 100.0],
            "u": [0, 0, 0, 100, 100, 100],
            "v": [0.0, 0.0, 0.0, 100.0, 100.0, 100.0],
            "c": ["a", "b", "c", "a", "b", "c"],
            "y": ["p", "q", "p", "q", "p", "q"],
        }
    )
    return conform(frame, SPEC)


def run(train: pd.DataFrame, seed: int = 0, spec: DatasetSpec = SPEC, **params: object) -> EpsPrivateSmote:
    params.setdefault("qi", "by_x")
    gen = EpsPrivateSmote(**params)  # type: ignore[arg-type]
    gen.fit(train, spec, seed=seed)
    gen.out_ = gen.sample()  # type: ignore[attr-defined]
    return gen


def synthetic_with_sources(gen: EpsPrivateSmote) -> tuple[pd.DataFrame, np.ndarray]:
    origin = gen.artifacts()["row_origin"]
    mask = (origin["row_origin"] == "synthetic").to_numpy()
    out: pd.DataFrame = gen.out_  # type: ignore[attr-defined]
    return out[mask].reset_index(drop=True), origin.loc[mask, "source_row"].to_numpy()


# ---------------------------------------------------------------------- hand-computed toy
def test_risky_set_and_neighbours_hand_computed() -> None:
    gen = run(toy(), knn=1)
    assert gen.risky_.tolist() == [0, 1, 2]
    assert gen.low_.tolist() == [3, 4, 5]
    # row 0 (a): row 1 costs x 1 + one dummy, row 2 x 2 + one dummy -> 1
    # row 1 (b): row 0 one dummy, row 2 two dummies (b -> c) -> 0; row 2 (c): row 0 one dummy -> 0
    assert gen.neighbours_.tolist() == [[1], [0], [0]]
    gen2 = run(toy(), knn=2)
    assert [sorted(r) for r in gen2.neighbours_.tolist()] == [[1, 2], [0, 2], [0, 1]]
    details = gen.details()
    assert details["n_risky"] == 3 and details["n_low"] == 3 and details["n_out"] == 6
    assert details["qi_set"] == "by_x" and details["qi_columns"] == ["x"]


def test_exact_values_replay_the_documented_draws_fixed() -> None:
    """Algorithm 1: a fresh neighbour per attribute, interpolation if b != a, flip if b == a."""
    train, seed, eps = toy(), 7, 0.5
    gen = run(train, seed=seed, knn=2, per=3, epsilon=eps)
    synthetic, sources = synthetic_with_sources(gen)
    rng = np.random.default_rng(seed)
    draw_row = np.repeat(np.arange(3), 3)
    num = ["x", "u", "v"]
    x = train[num].to_numpy(dtype=float)
    choice = rng.integers(0, 2, size=(9, 3))
    lam = rng.laplace(0.0, 1 / eps, size=(9, 3))
    sign = rng.choice(np.array([-1.0, 1.0]), size=(9, 3))
    std = x.std(axis=0)
    for r in range(9):
        i = sources[r]
        assert i == draw_row[r]
        for j, col in enumerate(num):
            a = x[i, j]
            b = x[gen.neighbours_[draw_row[r], choice[r, j]], j]
            expected = a + lam[r, j] * (b - a) if b != a else a + sign[r, j] * std[j] * lam[r, j]
            if col == "u":
                expected = np.rint(expected)
            assert synthetic.loc[r, col] == pytest.approx(expected, rel=1e-12, abs=1e-9)
    assert (synthetic["y"].to_numpy() == train["y"].to_numpy()[sources]).all()


def test_exact_values_replay_the_documented_draws_reference() -> None:
    """Reference: one neighbour per record, revert out-of-range interpolations, mirror flips."""
    train, seed, eps = toy(), 3, 0.05
    gen = run(train, seed=seed, knn=2, per=4, epsilon=eps, reference_quirks=True)
    synthetic, sources = synthetic_with_sources(gen)
    rng = np.random.default_rng(seed)
    num = ["x", "u", "v"]
    x = train[num].to_numpy(dtype=float)
    lo, hi, std = x.min(axis=0), x.max(axis=0), x.std(axis=0)
    choice = rng.integers(0, 2, size=12)
    lam = rng.laplace(0.0, 1 / eps, size=(12, 3))
    sign = rng.choice(np.array([-1.0, 1.0]), size=(12, 3))
    reverted = 0
    for r in range(12):
        i = sources[r]
        b_row = gen.neighbours_[i, choice[r]]  # the same neighbour for every attribute
        for j, col in enumerate(num):
            a, b = x[i, j], x[b_row, j]
            if b != a:
                c = a + lam[r, j] * (b - a)
                if not lo[j] <= c <= hi[j]:
                    c, reverted = a, reverted + 1
            else:
                shift = sign[r, j] * std[j] * lam[r, j]
                c = a + shift if lo[j] <= a + shift <= hi[j] else a - shift
            c = float(np.float32(c))
            # every numeric toy column is integer-typed for the reference (first value 0.0)
            assert synthetic.loc[r, col] == np.trunc(c), (r, col)
    assert reverted > 0 and gen.details()["n_reverted"] == reverted


def test_no_risky_record_survives_unchanged_and_low_risk_rows_are_released_verbatim() -> None:
    train = toy()
    gen = run(train, knn=2, per=3)
    out: pd.DataFrame = gen.out_  # type: ignore[attr-defined]
    assert len(out) == 3 + 3 * 3
    synthetic, sources = synthetic_with_sources(gen)
    assert len(synthetic) == 9
    for r, i in enumerate(sources):
        assert not synthetic.loc[r, ["x", "v"]].equals(train.loc[i, ["x", "v"]])
        assert synthetic.loc[r, "x"] != train.loc[i, "x"] and synthetic.loc[r, "v"] != train.loc[i, "v"]
    pd.testing.assert_frame_equal(out.iloc[9:].reset_index(drop=True), train.iloc[3:].reset_index(drop=True))
    origin = gen.artifacts()["row_origin"]
    assert origin["row_origin"].tolist() == ["synthetic"] * 9 + ["original"] * 3
    assert origin["source_row"].tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 4, 5]


@pytest.mark.parametrize("per", [1, 2, 3])
def test_output_size_is_n_low_plus_per_times_n_risky(per: int) -> None:
    frame = pd.concat([toy()] * 3, ignore_index=True)  # every x class now has >= 3 rows
    frame.loc[[3, 4, 5], "x"] = [-5.0, 3.5, 4.5]  # three singletons; x = 100 keeps 6 rows
    gen = run(conform(frame, SPEC), knn=3, per=per)
    assert gen.details()["n_risky"] == 3
    assert len(gen.out_) == 15 + per * 3  # type: ignore[attr-defined]


def test_zero_risky_rows_return_the_input() -> None:
    train = pd.concat([toy()] * 3, ignore_index=True)
    gen = run(train, qi="by_c", knn=1)
    pd.testing.assert_frame_equal(gen.out_, train)  # type: ignore[attr-defined]
    assert gen.details()["n_risky"] == 0
    assert (gen.artifacts()["row_origin"]["row_origin"] == "original").all()


def test_exact_duplicates_never_use_the_row_itself() -> None:
    frame = toy()
    frame.loc[5] = frame.loc[0]  # rows 0 and 5 identical: class x = 0 has 2 rows, both risky
    gen = run(conform(frame, SPEC), knn=1)
    risky = gen.risky_.tolist()
    assert 0 in risky and 5 in risky
    neighbour = dict(zip(risky, gen.neighbours_[:, 0].tolist()))
    assert neighbour[0] == 5 and neighbour[5] == 0


def test_drop_self_removes_own_index_else_the_farthest() -> None:
    found = np.array([[5, 3, 4], [2, 9, 8], [7, 6, 1]])
    assert drop_self(found, np.array([3, 2, 0])).tolist() == [[5, 4], [9, 8], [7, 6]]


# ---------------------------------------------------------------------- distributions
def two_point_table(n_far: int = 3) -> pd.DataFrame:
    """Risky rows 0 (x=0) and 1 (x=1) with equal v; a far class gives v a spread."""
    frame = pd.DataFrame(
        {
            "x": [0.0, 1.0] + [10.0] * n_far,
            "u": [1, 1] + [1] * n_far,
            "v": [5.0, 5.0] + [7.0] * n_far,
            "c": ["a", "a"] + ["b"] * n_far,
            "y": ["p", "q"] + ["p"] * n_far,
        }
    )
    return conform(frame, SPEC)


@pytest.mark.parametrize("eps", [0.5, 5.0])
def test_interpolation_weights_are_laplace(eps: float) -> None:
    train = two_point_table()
    gen = run(train, knn=1, per=3000, epsilon=eps)
    synthetic, sources = synthetic_with_sources(gen)
    a = train["x"].to_numpy()[sources]
    b = train["x"].to_numpy()[1 - sources]  # each risky row's neighbour is the other one
    lam = (synthetic["x"].to_numpy() - a) / (b - a)
    assert stats.kstest(lam, stats.laplace(0, 1 / eps).cdf).pvalue > 1e-3
    # the flip (b_v == a_v): c = a + sigma * std * lambda', symmetric Laplace scaled by std
    std = train["v"].std(ddof=0)
    flip = (synthetic["v"].to_numpy() - 5.0) / std
    assert stats.kstest(flip, stats.laplace(0, 1 / eps).cdf).pvalue > 1e-3
    assert (flip > 0).mean() == pytest.approx(0.5, abs=0.03)
    assert gen.details()["share_flip"] == pytest.approx(2 / 3)  # u and v flip, x interpolates


def test_flip_uses_plus_minus_std_of_the_column() -> None:
    train = two_point_table()
    large = run(train, knn=1, per=2000, epsilon=0.5)
    synthetic, _ = synthetic_with_sources(large)
    # median |c - a| of Laplace(0, 1/eps) * std is std * ln(2) / eps
    std = train["v"].std(ddof=0)
    assert np.median(np.abs(synthetic["v"] - 5.0)) == pytest.approx(std * np.log(2) / 0.5, rel=0.08)


def test_categorical_draws_only_from_neighbours_values_when_they_differ() -> None:
    gen = run(toy(), knn=2, per=600)
    synthetic, sources = synthetic_with_sources(gen)
    from_row0 = synthetic.loc[sources == 0, "c"]
    assert set(from_row0) == {"b", "c"}  # neighbours rows 1 (b) and 2 (c); never a
    assert (from_row0 == "b").mean() == pytest.approx(0.5, abs=0.07)


def test_categorical_draws_from_the_whole_domain_when_neighbours_agree() -> None:
    gen = run(toy(), knn=1, per=600)  # knn = 1: one neighbour value, so the whole domain
    synthetic, sources = synthetic_with_sources(gen)
    counts = synthetic.loc[sources == 0, "c"].value_counts(normalize=True)
    assert set(counts.index) == {"a", "b", "c"}
    assert counts.min() > 0.25


# ---------------------------------------------------------------------- seeds, types, modes
def test_same_seed_identical_different_seeds_differ() -> None:
    a, b, c = (run(toy(), seed=s, knn=2, per=2).out_ for s in (1, 1, 2))  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_integer_columns_are_integral() -> None:
    gen = run(toy(), knn=2, per=5, epsilon=0.1)
    out: pd.DataFrame = gen.out_  # type: ignore[attr-defined]
    assert out["u"].dtype == np.int64
    synthetic, _ = synthetic_with_sources(gen)
    assert (synthetic["u"] != 0).any()


def test_fixed_mode_leaves_the_range_reference_mode_reverts() -> None:
    train = toy()
    fixed = run(train, knn=2, per=200, epsilon=0.1)
    ref = run(train, knn=2, per=200, epsilon=0.1, reference_quirks=True)
    fixed_x = synthetic_with_sources(fixed)[0]["x"]
    ref_x, sources = synthetic_with_sources(ref)
    assert ((fixed_x < 0) | (fixed_x > 100)).mean() > 0.3
    assert fixed.details()["share_out_of_range"] > 0.3
    assert ref_x["x"].between(0, 100).all()  # interpolations never leave the range ...
    assert (ref_x["x"].to_numpy() == train["x"].to_numpy()[sources]).mean() > 0.3  # ... they revert
    assert ref.details()["n_reverted"] > 0 and fixed.details()["n_reverted"] == 0


def test_mode_alias_equals_reference_quirks() -> None:
    a = run(toy(), seed=4, knn=2, per=3, reference_quirks=True).out_  # type: ignore[attr-defined]
    b = run(toy(), seed=4, knn=2, per=3, mode="reference").out_  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(a, b)
    assert run(toy(), mode="fixed").details()["mode"] == "fixed"


def test_reference_rounds_floats_to_the_first_values_decimals() -> None:
    frame = toy()
    frame["v"] = [0.25, 0.0, 0.0, 100.0, 100.0, 100.0]  # first value: 2 decimals
    gen = run(conform(frame, SPEC), knn=2, per=50, reference_quirks=True)
    synthetic, _ = synthetic_with_sources(gen)
    v = synthetic["v"]
    assert np.allclose(v, v.round(2)) and not np.allclose(v, v.round(1))
    assert (synthetic["x"] == np.trunc(synthetic["x"])).all()  # first value 0.0: keep_numbers made it int


def test_missing_qi_values_fixed_group_them_reference_never_risky() -> None:
    frame = toy()
    frame["c"] = ["a", np.nan, np.nan, "a", "b", "b"]
    train = conform(frame, SPEC)
    fixed = run(train, qi="by_c", knn=1)
    ref = run(train, qi="by_c", knn=1, reference_quirks=True)
    assert fixed.risky_.tolist() == [0, 1, 2, 3, 4, 5]  # a, NaN and b: 2 rows each
    assert ref.risky_.tolist() == [0, 3, 4, 5]  # NaN groups are dropped by pandas: never risky
    assert len(fixed.out_) == 6 and len(ref.out_) == 6  # type: ignore[attr-defined]


def test_qi_index_alias_and_conflicts() -> None:
    gen = run(toy(), qi=None, qi_index=1, knn=1)
    assert gen.details()["qi_set"] == "by_c"
    with pytest.raises(ConfigError, match="different QI sets"):
        run(toy(), qi="by_x", qi_index=1)
    with pytest.raises(ConfigError, match="unknown QI set 'nope'"):
        run(toy(), qi="nope")


# ---------------------------------------------------------------------- parameter errors
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k": 1}, "`k` must be >= 2; got 1"),
        ({"epsilon": 0}, "`epsilon` must be a finite number > 0; got 0"),
        ({"epsilon": -0.5}, "`epsilon` must be a finite number > 0; got -0.5"),
        ({"knn": 0}, "`knn` must be >= 1; got 0"),
        ({"per": 0}, "`per` must be >= 1; got 0"),
        ({"k": 2.5}, "`k` must be an integer >= 2; got 2.5"),
        ({"mode": "exact"}, "`mode` must be one of fixed, reference or null; got 'exact'"),
        ({"mode": "fixed", "reference_quirks": True}, "`mode` is 'fixed' but `reference_quirks` is true"),
    ],
)
def test_bad_parameters_raise_one_line_config_error(params: dict[str, object], message: str) -> None:
    gen = EpsPrivateSmote(**params)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as info:
        gen.validate_params()
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_knn_not_below_the_number_of_rows_raises_at_fit() -> None:
    with pytest.raises(InfeasibleConfigError) as info:  # skipped, as SMOTE's knn on too few rows
        EpsPrivateSmote(qi="by_x", knn=6).fit(toy(), SPEC, seed=0)
    assert str(info.value) == "`knn` must be < the number of training rows (6); got 6"


def test_info_flags() -> None:
    info = EpsPrivateSmote().info()
    assert info.output_kind == "mixed" and info.releases_original_records and info.formal_dp is None
    assert info.needs_qi and info.needs_target and info.fixed_size and info.randomised


# ---------------------------------------------------------------------- benchmark smoke test
def test_benchmark_runs_at_tiny_size_and_prints_a_ratio() -> None:
    from benchmarks.bench_eps_private_smote import main

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        main(["--rows", "80", "--datasets", "ds38"])
    text = buffer.getvalue()
    assert "ratio" in text and "ds38" in text and "yes/yes" in text
