"""``metrics.utility.glm``: a logit fit on the collapsed covariate patterns equals the full fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf

from metrics.utility import glm

WEIRD = 'we"ird'  # a column name that needs escaping inside Q("...")
FRAME = pd.DataFrame(
    {
        "y": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, np.nan],
        "race": ["a", "a", "a", "b", "b", "b", "a", "a"],
        WEIRD: ["x", "x", "x", "x", "y", "y", "x", "x"],
    }
)
FORMULA = f"{glm.quote('y')} ~ {glm.categorical_term('race', 'a')} + {glm.categorical_term(WEIRD, 'x')}"


def test_patterns_are_the_distinct_complete_rows_with_counts() -> None:
    collapsed, weights = glm.patterns(FORMULA, FRAME)
    assert weights is not None
    # complete rows: (1,a,x) ×2, (0,a,x) ×2, (1,b,x), (1,b,y), (0,b,y); the NA row is dropped
    rows = sorted(zip(collapsed["y"], collapsed["race"], collapsed[WEIRD], weights))
    assert rows == [
        (0.0, "a", "x", 2.0),
        (0.0, "b", "y", 1.0),
        (1.0, "a", "x", 2.0),
        (1.0, "b", "x", 1.0),
        (1.0, "b", "y", 1.0),
    ]


def test_fit_equals_the_row_level_fit() -> None:
    rng = np.random.default_rng(0)
    n = 5_000
    frame = pd.DataFrame(
        {"age": rng.integers(20, 60, n).astype(float), "race": rng.choice(["a", "b", "c"], n)}
    )
    frame["y"] = (rng.random(n) < np.where(frame["race"] == "a", 0.2, 0.4)).astype(float)
    formula = f"{glm.quote('y')} ~ {glm.quote('age')} + {glm.categorical_term('race', 'a')}"
    ours = glm.fit(formula, frame, "logit")
    full = smf.glm(formula, frame, family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(ours.params.to_numpy(), full.params.to_numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.ci_low.to_numpy(), full.conf_int()[0].to_numpy(), rtol=1e-9, atol=1e-12)
    assert list(ours.params.index) == list(full.params.index) and ours.n_used == n


def test_formulas_with_bare_names_are_not_collapsed() -> None:
    assert glm.patterns("y ~ race", FRAME)[1] is None
    assert glm.patterns(f"{glm.quote('y')} ~ np.log({glm.quote('race')})", FRAME)[1] is None
    single = pd.DataFrame({"y": [1.0, 0.0], "race": ["a", "b"]})
    assert (
        glm.patterns(f"{glm.quote('y')} ~ {glm.categorical_term('race', 'a')}", single)[1] is None
    )  # no shrink
