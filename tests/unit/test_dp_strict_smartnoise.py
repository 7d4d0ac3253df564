"""Accounting and strict mode of the smartnoise generators (``mst``, ``aim``, ``dpgan``, ``pategan``).

One module-scoped set of fits (two per generator: neighbouring tables A and B, tiny settings):

(a) accounting: the configured ε is the spent one under add/remove neighbours — for MST and AIM
    the zCDP cost of every Gaussian measurement and exponential-mechanism draw the library makes
    (recorded) adds up to the ρ of the configured (ε, δ); DPGAN's and PATE-GAN's accountants stay
    within the budget;
(b) strict mode's fitted domain (transformer bounds, bins, levels, null flags) is identical for
    two neighbouring tables that differ in one record holding extreme values and a category absent
    from the other, and the release stays within the public domain;
(c) a spec without bounds in strict mode is a one-line ConfigError (no fit).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from harness.dtypes import conform
from harness.errors import ConfigError
from harness.spec import DatasetSpec

pytest.importorskip("snsynth")

from generators.smartnoise import Aim, Dpgan, Mst, Pategan, dpgan_epsilon

COLOURS = ["red", "green", "blue", "violet"]  # "violet" is public but absent from TABLE_A
SPEC = DatasetSpec.from_dict(
    {
        "name": "toy_public",
        "columns": {
            "age": {"kind": "integer", "bounds": [0, 100]},
            "score": {"kind": "continuous", "bounds": [0, 100]},
            "colour": {"kind": "categorical", "domain": COLOURS, "nullable": True},
            "label": {"kind": "categorical", "domain": ["no", "yes"]},
        },
        "target": "label",
        "task": "binary",
    }
)
PLAIN_SPEC = DatasetSpec.from_dict(
    {
        "name": "toy_plain",
        "columns": {c.name: c.kind for c in SPEC.columns},
        "target": "label",
        "task": "binary",
    }
)
EPS = 1.0


def make_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "score": rng.normal(50.0, 10.0, n),
            "colour": rng.choice(
                np.array(["red", "green", "blue", None], dtype=object), n, p=[0.4, 0.3, 0.2, 0.1]
            ),
            "label": rng.choice(np.array(["no", "yes"], dtype=object), n),
        }
    )
    return conform(frame, SPEC)


TABLE_A = make_table(160, seed=0)
TABLE_B = TABLE_A.copy()
TABLE_B.loc[len(TABLE_B) - 1, ["age", "score", "colour", "label"]] = [10**6, -1e4, "violet", "yes"]
TABLE_B = conform(TABLE_B, SPEC)


# ---------------------------------------------------------------------- recording subclasses
class _RecordingMarginal:
    """Records every Gaussian σ and every exponential-mechanism ε the library uses."""

    sigmas_: list[float]
    selections_: list[float]
    noise_module: str = ""

    def _selection_patch(self, record: Any) -> Any:
        raise NotImplementedError

    @contextlib.contextmanager
    def _patched(self) -> Iterator[None]:
        self.sigmas_, self.selections_ = [], []
        with super()._patched():  # type: ignore[misc]
            mod = importlib.import_module(self.noise_module)
            inner = mod.gaussian_noise

            def noise(sigma: float, size: Any = None) -> Any:
                self.sigmas_.append(float(sigma))
                return inner(sigma, size)

            with (
                mock.patch.object(mod, "gaussian_noise", noise),
                self._selection_patch(self.selections_.append),
            ):
                yield


class RecordingMst(_RecordingMarginal, Mst):
    noise_module = "snsynth.mst.mst"

    def _selection_patch(self, record: Any) -> Any:
        cls = importlib.import_module("snsynth.mst.mst").MSTSynthesizer
        inner = cls.exponential_mechanism

        def select(synth: Any, q: Any, eps: float, sensitivity: float, *args: Any, **kwargs: Any) -> Any:
            assert sensitivity == 1.0  # add/remove: one record moves an L1 error by at most 1
            record(float(eps))
            return inner(synth, q, eps, sensitivity, *args, **kwargs)

        return mock.patch.object(cls, "exponential_mechanism", select)


class RecordingAim(_RecordingMarginal, Aim):
    noise_module = "snsynth.aim.aim"

    def _selection_patch(self, record: Any) -> Any:
        mod = importlib.import_module("snsynth.aim.aim")
        inner = mod.exponential_mechanism

        def select(q: Any, eps: float, *args: Any, **kwargs: Any) -> Any:
            record(float(eps))
            return inner(q, eps, *args, **kwargs)

        return mock.patch.object(mod, "exponential_mechanism", select)


GENERATORS: dict[str, tuple[type, dict[str, Any]]] = {
    "mst": (RecordingMst, {"n_bins": 4}),
    "aim": (RecordingAim, {"n_bins": 4, "rounds": 8, "max_model_size": 1}),
    "dpgan": (Dpgan, {"n_iter": 2, "batch_size": 40}),
    "pategan": (Pategan, {"n_iter": 2, "batch_size": 40, "teacher_iters": 1, "student_iters": 1}),
}


@pytest.fixture(scope="module")
def fits() -> dict[tuple[str, str], Any]:
    out = {}
    for name, (cls, params) in GENERATORS.items():
        for label, table in (("A", TABLE_A), ("B", TABLE_B)):
            out[name, label] = cls(epsilon=EPS, strict=True, **params).fit(table, SPEC, seed=0)
    return out


def domain_signature(transformer: Any) -> Any:
    """The fitted domain of a smartnoise transformer (bounds, bins, levels, null flags)."""
    kind = type(transformer).__name__
    if kind == "TableTransformer":
        return [domain_signature(t) for t in transformer.transformers]
    if kind == "ChainTransformer":
        return tuple(domain_signature(t) for t in transformer.transformers)
    if kind == "BinTransformer":
        return (kind, transformer.bins, transformer.fit_lower, transformer.fit_upper, transformer.nullable)
    if kind == "MinMaxTransformer":
        return (kind, transformer.fit_lower, transformer.fit_upper, transformer.nullable)
    if kind == "LabelTransformer":
        return (kind, tuple(transformer.categories), transformer.nullable)
    return (kind, transformer.output_width)


# ---------------------------------------------------------------------- (a) accounting
@pytest.mark.slow
def test_marginal_models_spend_exactly_the_configured_budget(fits: dict[tuple[str, str], Any]) -> None:
    cdp_rho = importlib.import_module("snsynth.utils").cdp_rho
    for name in ("mst", "aim"):
        gen = fits[name, "A"]
        rho = cdp_rho(EPS, gen.delta_)
        # zCDP: a Gaussian measurement of L2 sensitivity 1 with σ costs 1/(2σ²); a draw with ε costs ε²/8
        spent = sum(0.5 / s**2 for s in gen.sigmas_) + sum(e**2 / 8 for e in gen.selections_)
        assert gen.sigmas_ and gen.selections_
        assert spent == pytest.approx(rho, rel=1e-9), name
        if name == "mst":  # ρ/3 each: one-way marginals (σ/w with w = 1/sqrt(#cliques)), selection, two-way
            assert sum(e**2 / 8 for e in gen.selections_) == pytest.approx(rho / 3, rel=1e-9)
        budget = gen.details()["budget"]
        assert (
            budget["epsilon_total"] == EPS == budget["synthesizer_epsilon"]
            and budget["preprocessor_epsilon"] == 0
        )


@pytest.mark.slow
def test_gan_accountants_stay_within_the_budget(fits: dict[tuple[str, str], Any]) -> None:
    dpgan = fits["dpgan", "A"].details()
    n, batch = len(TABLE_A), dpgan["batch_size_used"]
    recomputed = dpgan_epsilon(2 * (n // batch) * dpgan["epochs_run"], batch / n, fits["dpgan", "A"].delta_)
    assert dpgan["epsilon_spent"] == pytest.approx(recomputed) and 0 < recomputed <= EPS
    pate = fits["pategan", "A"].details()
    assert 0 < pate["epsilon_spent"] <= pate["budget"]["synthesizer_epsilon"] == EPS


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GENERATORS))
def test_formal_dp_names_the_relation_and_end_to_end(fits: dict[tuple[str, str], Any], name: str) -> None:
    formal = fits[name, "A"].info().formal_dp
    assert formal["epsilon"] == EPS and formal["neighbours"] == "add_remove"
    assert formal["end_to_end"] is (name != "pategan")
    if name == "pategan":
        assert "data-dependent" in formal["reason"]
    plain = GENERATORS[name][0](epsilon=EPS).info().formal_dp
    assert plain["end_to_end"] is False and "domain read from the training data" in plain["reason"]


# ---------------------------------------------------------------------- (b) public domain
@pytest.mark.slow
@pytest.mark.parametrize("name", list(GENERATORS))
def test_strict_domain_does_not_depend_on_the_data(fits: dict[tuple[str, str], Any], name: str) -> None:
    a, b = fits[name, "A"], fits[name, "B"]
    sig_a, sig_b = domain_signature(a.synth_._transformer), domain_signature(b.synth_._transformer)
    assert sig_a == sig_b
    flat = str(sig_a)
    assert "'violet'" in flat and "None" in flat  # public level absent from A; colour declared nullable
    assert a.details()["bounds"] == {
        "age": {"lower": 0.0, "upper": 100.0, "source": "spec"},
        "score": {"lower": 0.0, "upper": 100.0, "source": "spec"},
    }
    for gen in (a, b):
        out = gen.sample(400)
        assert set(out["colour"].dropna()) <= set(COLOURS) and set(out["label"].dropna()) <= {"no", "yes"}
        assert out["age"].between(0, 100).all() and out["score"].between(0, 100).all()
        assert "violet" in gen.training_categories_["colour"]


# ---------------------------------------------------------------------- (c) one-line errors
@pytest.mark.parametrize("name", list(GENERATORS))
def test_strict_without_bounds_is_a_one_line_config_error(name: str) -> None:
    cls, params = GENERATORS[name]
    with pytest.raises(ConfigError) as err:
        cls(epsilon=EPS, strict=True, **params).fit(TABLE_A, PLAIN_SPEC, seed=0)
    message = str(err.value)
    assert "\n" not in message and "dataset 'toy_plain' column 'age' (integer) has no `bounds" in message
    # public bounds given as a parameter fill the gap of the numeric columns (levels still missing)
    with pytest.raises(ConfigError, match="column 'colour' .* `domain"):
        cls(epsilon=EPS, strict=True, bounds={"age": [0, 100], "score": [0, 100]}).validate_spec(PLAIN_SPEC)


def test_strict_refuses_data_dependent_imputation_and_nullable_numbers_in_gans() -> None:
    with pytest.raises(ConfigError, match="missing: impute"):
        Mst(strict=True, missing="impute").validate_params()
    nullable_age = DatasetSpec.from_dict(
        {
            **SPEC.to_dict(),
            "columns": {
                **SPEC.to_dict()["columns"],
                "age": {"kind": "integer", "bounds": [0, 100], "nullable": True},
            },
        }
    )
    with pytest.raises(ConfigError, match="GANs cannot model"):
        Dpgan(strict=True).validate_spec(nullable_age)
    Mst(strict=True).validate_spec(nullable_age)  # MST models a null flag
