"""Hand-checkable properties of DataSynthesizer / PrivBayes (``spec/generators.md`` §7.1, §7.2).

The numpy port is checked against the DataSynthesizer library itself (same network and
conditional tables for ε = 0 from the same root) on small tables.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

from generators.privbayes import (
    DOMAIN_CAVEAT,
    DataSynthesizerGenerator,
    PrivBayes,
    auto_k,
    greedy_bayes,
    mi_sensitivity,
    mutual_information,
    noisy_conditionals,
)
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec

REPO = Path(__file__).resolve().parents[2]

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "colour": "categorical",
            "shade": "categorical",
            "size": "integer",
            "score": "continuous",
            "flag": "categorical",
        },
    }
)
SHADE = {"red": "warm", "orange": "warm", "green": "cool", "blue": "cool"}


def make_table(n: int, seed: int) -> pd.DataFrame:
    """``shade`` is a function of ``colour``; ``size`` and ``score`` depend on ``colour``; NA in ``flag``."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(np.array(list(SHADE), dtype=object), size=n)
    offset = pd.Series(colour).map({"red": 0, "orange": 10, "green": 20, "blue": 30}).to_numpy()
    frame = pd.DataFrame(
        {
            "colour": colour,
            "shade": pd.Series(colour).map(SHADE),
            "size": offset + rng.integers(0, 10, size=n),
            "score": rng.normal(size=n) + offset / 10,
            "flag": rng.choice(np.array(["NA", "None", None], dtype=object), size=n, p=[0.5, 0.3, 0.2]),
        }
    )
    return conform(frame, SPEC)


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table(2000, seed=1)


def consistent_share(frame: pd.DataFrame) -> float:
    return float((frame["colour"].map(SHADE) == frame["shade"]).mean())


# ---------------------------------------------------------------------- dependence
@pytest.mark.parametrize("seed", range(5))
def test_epsilon_zero_reproduces_a_deterministic_dependency(train: pd.DataFrame, seed: int) -> None:
    # Whatever the root, with ε = 0 the greedy choice links colour and shade (MI = H(shade))
    # and the conditional of one given the other puts all mass on consistent pairs.
    out = DataSynthesizerGenerator(k=1, epsilon=0).fit(train, SPEC, seed=seed).sample()
    assert consistent_share(out) == 1.0


def test_independent_mode_destroys_dependence(train: pd.DataFrame) -> None:
    # colour uniform over 4 values, shade uniform over 2: P(shade = f(colour)) = 1/2 when independent.
    out = DataSynthesizerGenerator(mode="independent").fit(train, SPEC, seed=0).sample(4000)
    assert consistent_share(out) == pytest.approx(0.5, abs=0.04)
    assert abs(np.corrcoef(out["size"], out["score"])[0, 1]) < 0.06
    assert np.corrcoef(train["size"], train["score"])[0, 1] > 0.7


def test_correlated_mode_keeps_numeric_dependence(train: pd.DataFrame) -> None:
    out = DataSynthesizerGenerator(k=2).fit(train, SPEC, seed=0).sample(4000)
    assert np.corrcoef(out["size"], out["score"])[0, 1] > 0.6


def test_missing_values_are_modelled(train: pd.DataFrame) -> None:
    for gen in (DataSynthesizerGenerator(k=1), DataSynthesizerGenerator(mode="independent")):
        out = gen.fit(train, SPEC, seed=0).sample(4000)
        assert out["flag"].isna().mean() == pytest.approx(train["flag"].isna().mean(), abs=0.03)
        # "NA" and "None" are categories, not missing values
        assert set(out["flag"].dropna()) == {"NA", "None"}


# ---------------------------------------------------------------------- seeds, domain
def test_same_seed_identical_different_seed_differs(train: pd.DataFrame) -> None:
    a = PrivBayes().fit(train, SPEC, seed=7).sample()
    b = PrivBayes().fit(train, SPEC, seed=7).sample()
    c = PrivBayes().fit(train, SPEC, seed=8).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


@pytest.mark.parametrize("mode", ["random", "independent", "correlated"])
def test_values_stay_in_the_training_domain(train: pd.DataFrame, mode: str) -> None:
    small = train.iloc[:60].reset_index(drop=True)
    out = DataSynthesizerGenerator(mode=mode, epsilon=0.5).fit(small, SPEC, seed=0).sample(3000)
    for col in ("colour", "shade", "flag"):
        assert set(out[col].dropna()) <= set(small[col].dropna())
    for col in ("size", "score"):
        assert small[col].min() <= out[col].min() and out[col].max() <= small[col].max()
    assert out["size"].dtype == np.int64


def test_uniform_within_bin(train: pd.DataFrame) -> None:
    # 'score' has > 20 distinct values: histogram bins, values uniform inside the sampled bin.
    gen = DataSynthesizerGenerator(mode="independent", histogram_size=2).fit(train, SPEC, seed=0)
    bins = gen.details()["bins"]["score"]
    assert bins["type"] == "histogram" and len(bins["left_edges"]) == 2
    low, mid, high = bins["left_edges"][0], bins["left_edges"][1], bins["max"]
    out = gen.sample(20000)["score"]
    share_low = float((train["score"] < mid).mean())
    lower = out[out < mid]
    assert len(lower) / len(out) == pytest.approx(share_low, abs=0.02)
    # uniform on [low, mid): quartiles at 1/4, 1/2, 3/4 of the bin
    assert np.quantile(lower, [0.25, 0.5, 0.75]) == pytest.approx(
        [low + f * (mid - low) for f in (0.25, 0.5, 0.75)], abs=0.05 * (high - low)
    )


def test_fresh_processes_give_identical_output() -> None:
    code = (
        "import hashlib, pandas as pd\n"
        "from tests.unit.test_privbayes import SPEC, make_table\n"
        "from generators.privbayes import PrivBayes\n"
        "out = PrivBayes(k=2).fit(make_table(500, 1), SPEC, seed=11).sample()\n"
        "print(hashlib.sha256(pd.util.hash_pandas_object(out).to_numpy().tobytes()).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    }
    out = PrivBayes(k=2).fit(make_table(500, 1), SPEC, seed=11).sample()
    here = hashlib.sha256(pd.util.hash_pandas_object(out).to_numpy().tobytes()).hexdigest()
    assert digests == {here}


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "params",
    [
        {"epsilon": -0.1},
        {"epsilon": float("inf")},
        {"epsilon": "one"},
        {"k": -1},
        {"k": 1.5},
        {"histogram_size": 1},
        {"category_threshold": -1},
        {"mode": "greedy"},
        {"backend": "dpart"},
        {"neighbours": "swap_one"},
        {"accounting": "library"},
        {"strict": "yes"},
    ],
)
def test_bad_parameters_raise_one_line_config_error(params: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as err:
        DataSynthesizerGenerator(**params).validate_params()  # type: ignore[arg-type]
    assert "\n" not in str(err.value)
    assert next(iter(params)) in str(err.value)


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"accounting": "datasynthesizer", "neighbours": "add_remove"}, "replace-one"),
        ({"strict": True, "backend": "datasynthesizer", "accounting": "datasynthesizer"}, "backend: numpy"),
        ({"strict": True, "accounting": "datasynthesizer"}, "accounting: calibrated"),
        ({"backend": "datasynthesizer"}, "accounting: datasynthesizer"),
        ({"neighbours": "add_remove", "k": 0}, "k: 0"),
    ],
)
def test_inconsistent_accounting_parameters_raise_one_line_config_error(
    params: dict[str, object], needle: str
) -> None:
    with pytest.raises(ConfigError) as err:
        PrivBayes(**params).validate_params()  # type: ignore[arg-type]
    assert "\n" not in str(err.value) and needle in str(err.value)


def test_formal_dp_flag() -> None:
    assert PrivBayes(epsilon=2.0).info().formal_dp == {
        "epsilon": 2.0,
        "delta": 0.0,
        "unit": "original_records",
        "neighbours": "replace_one",
        "end_to_end": False,
        "reason": DOMAIN_CAVEAT,
    }
    # DataSynthesizer's own scales: the recorded epsilon is the spent 1.5 x configured
    library = DataSynthesizerGenerator(epsilon=2.0).info().formal_dp
    assert library is not None and library["epsilon"] == pytest.approx(3.0)
    assert library["epsilon_configured"] == 2.0 and library["accounting"] == "datasynthesizer"
    strict = PrivBayes(epsilon=2.0, strict=True, neighbours="add_remove").info().formal_dp
    assert strict == {
        "epsilon": 2.0, "delta": 0.0, "unit": "original_records", "neighbours": "add_remove", "end_to_end": True,
    }  # fmt: skip
    assert PrivBayes(epsilon=0).info().formal_dp is None
    assert PrivBayes(epsilon=None).info().formal_dp is None
    assert DataSynthesizerGenerator(mode="random", epsilon=1.0).info().formal_dp is None
    assert DataSynthesizerGenerator(mode="independent", epsilon=1.0).info().formal_dp is not None


def test_yaml_defaults() -> None:
    pb = build_generator("privbayes")
    assert pb.get_params() == {
        "epsilon": 1.0,
        "k": 1,
        "histogram_size": 20,
        "category_threshold": 20,
        "backend": "numpy",
        "neighbours": "replace_one",
        "accounting": "calibrated",
        "strict": False,
    }
    assert pb.get_params() == PrivBayes().get_params()
    ds = build_generator("datasynthesizer")
    assert ds.get_params()["mode"] == "correlated" and ds.get_params()["k"] == 2
    assert ds.get_params()["epsilon"] == 0
    assert ds.get_params()["accounting"] == "datasynthesizer" and ds.get_params()["strict"] is False
    assert ds.get_params() == DataSynthesizerGenerator().get_params()


# ---------------------------------------------------------------------- ε accounting
def test_details_record_network_and_epsilon_split(train: pd.DataFrame) -> None:
    gen = PrivBayes(epsilon=1.0, k=2).fit(train, SPEC, seed=0)
    details = gen.details()
    json.dumps(details)
    network = details["bayesian_network"]
    assert {child for child, _ in network} | {details["root"]} == set(SPEC.table_columns)
    assert all(1 <= len(parents) <= 2 for _, parents in network)
    assert details["epsilon_split"] == {"structure": 0.5, "conditionals": 0.5}
    # d - k = 5 - 2 noisy joint tables, each Laplace(2 (d - k) / ε₂) on counts (replace-one: sensitivity 2)
    assert details["laplace_scale"] == pytest.approx(2 * (5 - 2) / 0.5)
    assert details["accounting"]["epsilon_spent"] == 1.0 and details["neighbours"] == "replace_one"
    assert details["dp_caveats"] == [DOMAIN_CAVEAT]
    assert details["bins"]["colour"] == {"type": "categorical", "n_bins": 4, "missing_bin": False}
    assert details["bins"]["flag"]["missing_bin"] is True
    # 'size' has 40 distinct values > category_threshold: 20 equal-width bins over [min, max]
    assert len(details["bins"]["size"]["left_edges"]) == 20


def test_independent_mode_laplace_scale(train: pd.DataFrame) -> None:
    gen = DataSynthesizerGenerator(mode="independent", epsilon=0.5).fit(train, SPEC, seed=0)
    details = gen.details()
    assert details["epsilon_split"] == {"marginals": 0.5}
    assert details["laplace_scale"] == pytest.approx((2 / 2000) / (0.5 / 5))
    # DataSynthesizer's independent mode is calibrated for replace-one: it spends the configured ε
    assert (gen.info().formal_dp or {})["epsilon"] == 0.5 and details["accounting"]["epsilon_spent"] == 0.5


def test_mi_sensitivity_matches_privbayes_lemma_1() -> None:
    n = 100
    assert mi_sensitivity(n, True) == pytest.approx(math.log(n) / n + (n - 1) / n * math.log(n / (n - 1)))
    assert mi_sensitivity(n, False) == pytest.approx(
        2 / n * math.log((n + 1) / 2) + (1 - 1 / n) * math.log(1 + 2 / (n - 1))
    )


def test_mutual_information_matches_sklearn() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=1000)
    y = (x + rng.integers(0, 3, size=1000)) % 7
    assert mutual_information(x, 5, y, 7) == pytest.approx(mutual_info_score(x, y), rel=1e-12)
    assert mutual_information(x, 5, np.zeros(1000, dtype=np.int64), 1) == 0.0


def test_auto_k_is_datasynthesizer_calculate_k() -> None:
    # usefulness(k=3) = n·0.1 / ((d-3)·2^6) = 4884.2 / 768 > 4 → k = 3 (Adult size)
    assert auto_k(15, 48842) == 3
    assert 1 <= auto_k(15, 1000) <= 15


def test_huge_epsilon_concentrates_on_the_greedy_choice(train: pd.DataFrame) -> None:
    # The exponential mechanism with a huge budget picks the maximum-MI candidate (the
    # library's exp() overflows and then draws uniformly among the overflowed candidates).
    gen = DataSynthesizerGenerator(k=2)
    gen.fit(train, SPEC, seed=0)
    codes = np.column_stack([a.encode(train[a.name]) for a in gen.attributes_])
    cards = [a.card for a in gen.attributes_]
    exact = greedy_bayes(codes, cards, 2, 0.0, np.random.default_rng(0), root=0)
    noisy = greedy_bayes(codes, cards, 2, 1e9, np.random.default_rng(1), root=0)
    assert noisy == exact


# ---------------------------------------------------------------------- vs the library
ADULT_LIKE = DatasetSpec.from_dict(
    {
        "name": "adult_like",
        "columns": {
            "age": "integer",
            "workclass": "categorical",
            "education-num": {"kind": "ordinal", "categories": [str(i) for i in range(1, 17)]},
            "marital-status": "categorical",
            "relationship": "categorical",
            "sex": "categorical",
            "hours-per-week": "integer",
            "income": "categorical",
        },
    }
)


@pytest.fixture(scope="module")
def adult_like() -> pd.DataFrame:
    from harness.datasets import load_dataset, load_spec

    frame = load_dataset(load_spec("adult")).frame
    return conform(frame.iloc[:600][list(ADULT_LIKE.table_columns)], ADULT_LIKE)


@pytest.mark.parametrize("k", [1, 2])
def test_port_learns_the_library_network_for_epsilon_zero(adult_like: pd.DataFrame, k: int) -> None:
    lib = PrivBayes(epsilon=0, k=k, backend="datasynthesizer")
    lib.fit(adult_like, ADULT_LIKE, seed=3)
    port = PrivBayes(epsilon=0, k=k)
    port.fit(adult_like, ADULT_LIKE, seed=3)
    names = [a.name for a in port.attributes_]
    codes = np.column_stack([a.encode(adult_like[a.name]) for a in port.attributes_])
    cards = [a.card for a in port.attributes_]
    root = names.index(lib.root_)
    network = greedy_bayes(codes, cards, k, 0.0, np.random.default_rng(0), root=root)
    assert [(names[c], [names[p] for p in ps]) for c, ps in network] == lib.network_

    # the same conditional tables (ε = 0: normalised counts), keyed as the library keys them;
    # the library orders the categories by their tokens "c0", "c1", "c10", ... (string order)
    def library_order(j: int) -> np.ndarray:
        attribute = port.attributes_[j]
        order = np.arange(attribute.card)
        if attribute.kind in ("categorical", "ordinal"):
            tokens = sorted(f"c{i}" for i in range(attribute.n_bins))
            order[: attribute.n_bins] = [int(t[1:]) for t in tokens]
        return order

    model = noisy_conditionals(network, root, codes, cards, 0.0, np.random.default_rng(0))
    expected = lib.model_["conditional_probabilities"]
    np.testing.assert_allclose(model.root_dist[library_order(root)], expected[lib.root_], atol=1e-12)
    for child, parents, table in model.tables:
        radix = [cards[p] for p in parents]
        for key, dist in expected[names[child]].items():
            values = [library_order(p)[v] for p, v in zip(parents, json.loads(key))]
            row = int(np.ravel_multi_index(values, radix))
            np.testing.assert_allclose(table[row][library_order(child)], dist, atol=1e-12)


@pytest.mark.parametrize("params", [{"epsilon": 0.0, "k": 1}, {"epsilon": 1.0, "k": 2}])
def test_library_backend_runs_and_agrees_in_distribution(
    adult_like: pd.DataFrame, params: dict[str, float]
) -> None:
    ds: dict[str, Any] = {**params, "accounting": "datasynthesizer"}
    lib = PrivBayes(backend="datasynthesizer", **ds).fit(adult_like, ADULT_LIKE, seed=0)
    a = lib.sample(3000)
    b = lib.sample(3000)
    assert not a.equals(b)  # successive samples continue the stream
    again = PrivBayes(backend="datasynthesizer", **ds).fit(adult_like, ADULT_LIKE, seed=0).sample(3000)
    pd.testing.assert_frame_equal(a, again)
    if params["epsilon"]:
        assert lib.details()["laplace_scale"] == pytest.approx((8 - 2) / 0.5)  # the library's (d - k)/ε₂
        assert (lib.info().formal_dp or {})["epsilon"] == pytest.approx(1.5)
    port = PrivBayes(**ds).fit(adult_like, ADULT_LIKE, seed=0).sample(3000)
    for out in (a, port):
        assert set(out["workclass"].dropna()) <= set(adult_like["workclass"].dropna())
        assert out["age"].between(adult_like["age"].min(), adult_like["age"].max()).all()
    if params["epsilon"] == 0:  # with ε > 0 each release is one draw of a very noisy mechanism
        for col in ("sex", "income", "relationship", "education-num"):
            tv = (
                0.5
                * (a[col].value_counts(normalize=True) - port[col].value_counts(normalize=True)).abs().sum()
            )
            assert tv < 0.06, col


def test_epsilon_zero_is_said_before_the_run() -> None:
    """privacy off is legal (DataSynthesizer's BayesianNet) but never silent (issue 28)."""
    (note,) = PrivBayes(epsilon=0).config_notes()
    assert "epsilon 0 means privacy off" in note and "not differentially private" in note
    assert PrivBayes(epsilon=None).config_notes() and not PrivBayes(epsilon=1.0).config_notes()
