"""Sequential CART synthesis, synthpop-style (``spec/generators.md`` §7.7).

Sources: ``004_…`` *Generating Synthetic Data is Complicated* §2.2 and §4.1 (synthpop's
default CART synthesis; many-level categoricals last) and *Privacy Risk from Synthetic Data:
Practical Proposals* §2 (CART is synthpop's default method). R synthpop is not available, so
this is a Python port of ``syn.cart`` / ``syn.sample`` / ``syn.smooth``:

1. the first column of the visit sequence is bootstrapped from its observed values;
2. every next column gets a CART (classifier for categorical, regressor for numeric) fitted
   on the **original** rows with the previous columns as predictors; each synthetic row is
   routed down the tree with its already-synthesised predictors (``tree.apply``) and takes
   the value of a random original record (donor) of the same leaf;
3. a categorical NA is a category; a numeric column with NAs is synthesised as a
   missingness indicator first (its own tree), then the value among non-missing rows.

All randomness comes from ``self.rng_`` (tree ``random_state`` s are drawn from it at fit).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from harness.errors import ConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_choice, check_int

FIRST_METHODS: tuple[str, ...] = ("sample",)
SMOOTHINGS: tuple[str, ...] = ("none", "density")
MANY_LEVELS = 20
"""Unordered categorical columns with more observed levels than this are visited last."""
NUMERIC_SMOOTHED: frozenset[str] = frozenset({"continuous", "integer"})
_NA_CODE = -1


# ====================================================================== donor pools
@dataclass
class _LeafDonors:
    """A fitted tree and, per leaf, the original rows that fell into it (sorted by leaf)."""

    tree: DecisionTreeClassifier | DecisionTreeRegressor
    position: np.ndarray  # node id -> index into start/count (-1 for internal nodes)
    start: np.ndarray
    count: np.ndarray
    donors: np.ndarray  # values of the donors, grouped by leaf

    @classmethod
    def build(
        cls, tree: DecisionTreeClassifier | DecisionTreeRegressor, x: np.ndarray, values: np.ndarray
    ) -> _LeafDonors:
        leaves = tree.apply(x)
        order = np.argsort(leaves, kind="stable")
        uniq, start, count = np.unique(leaves[order], return_index=True, return_counts=True)
        position = np.full(tree.tree_.node_count, -1, dtype=np.int64)
        position[uniq] = np.arange(len(uniq))
        return cls(tree=tree, position=position, start=start, count=count, donors=values[order])

    @property
    def n_leaves(self) -> int:
        return len(self.start)

    def draw(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Route the rows of ``x`` and give each a random donor value of its leaf."""
        pos = self.position[self.tree.apply(x)]
        idx = self.start[pos] + np.floor(rng.random(len(x)) * self.count[pos]).astype(np.int64)
        return self.donors[idx]


# ====================================================================== predictor encoding
@dataclass
class _Encoder:
    """How one visited column enters the predictors of later columns."""

    name: str
    kind: str  # "numeric", "ordinal", "onehot"
    levels: tuple[Any, ...] = ()
    has_na: bool = False
    origin: float = 0.0

    def transform(self, values: pd.Series | np.ndarray) -> np.ndarray:
        """``(n, width)`` float64 block; numeric NA stays NaN (sklearn trees route it)."""
        s = pd.Series(values)
        if self.kind == "numeric":
            x = _numeric(s) - self.origin
            cols = [x]
            if self.has_na:
                cols.append(np.isnan(x).astype(np.float64))
            return np.column_stack(cols)
        if self.kind == "ordinal":
            lookup = {v: float(i) for i, v in enumerate(self.levels)}
            x = s.map(lookup).to_numpy(dtype=np.float64)  # NA (and unknown) -> NaN
            cols = [x]
            if self.has_na:
                cols.append(s.isna().to_numpy(dtype=np.float64))
            return np.column_stack(cols)
        codes = _codes(s, self.levels)
        width = len(self.levels) + (1 if self.has_na else 0)
        out = np.zeros((len(s), width), dtype=np.float64)
        rows = np.arange(len(s))
        na = codes == _NA_CODE
        out[rows[~na], codes[~na]] = 1.0
        if self.has_na:
            out[rows[na], width - 1] = 1.0
        return out


def _numeric(values: pd.Series) -> np.ndarray:
    """Numeric or datetime values as float64 (datetimes in days since the epoch); NA = NaN."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        ns = values.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(np.float64)
        ns[values.isna().to_numpy()] = np.nan
        return ns / 86_400e9
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)


def _codes(values: pd.Series, levels: tuple[Any, ...]) -> np.ndarray:
    """Position of every value in ``levels``; NA (and unseen values) = ``_NA_CODE``."""
    lookup = {v: i for i, v in enumerate(levels)}
    return values.map(lookup).fillna(_NA_CODE).to_numpy(dtype=np.int64)


# ====================================================================== smoothing
def sj_bandwidth(x: np.ndarray, nb: int = 1000) -> float:
    """Sheather–Jones "solve-the-equation" bandwidth, a port of R's ``bw.SJ(method = "ste")``.

    Pairwise distances are binned into ``nb`` bins as R does (``bw_den``); the binned
    functionals φ₄ and φ₆ and the root search (``uniroot`` → ``brentq`` with tolerance
    0.1·lower) follow R's code. Raises ``ValueError`` when the sample is too sparse.
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    xmin, xmax = float(x.min()), float(x.max())
    rang = (xmax - xmin) * 1.01
    if n < 2 or rang <= 0:
        raise ValueError("sample is too sparse for a bandwidth")
    dd = rang / nb
    bins = np.minimum(np.floor((x - xmin) / dd).astype(np.int64), nb - 1)
    hist = np.bincount(bins, minlength=nb).astype(np.float64)
    # cnt[k] = number of pairs i < j whose bins are k apart (R's bw_den, via autocorrelation)
    full = np.correlate(hist, hist, mode="full")[nb - 1 :]
    cnt = full.copy()
    cnt[0] = (full[0] - n) / 2.0  # pairs within one bin, each counted once
    delta_i = np.arange(nb) * dd

    def phi4(h: float) -> float:
        delta = (delta_i / h) ** 2
        keep = delta < 1000.0
        term = np.exp(-delta[keep] / 2) * (delta[keep] ** 2 - 6 * delta[keep] + 3)
        total = 2 * float(np.sum(term * cnt[keep])) + n * 3
        return total / (n * (n - 1) * h**5 * math.sqrt(2 * math.pi))

    def phi6(h: float) -> float:
        delta = (delta_i / h) ** 2
        keep = delta < 1000.0
        d = delta[keep]
        term = np.exp(-d / 2) * (d**3 - 15 * d**2 + 45 * d - 15)
        total = 2 * float(np.sum(term * cnt[keep])) - 15 * n
        return total / (n * (n - 1) * h**7 * math.sqrt(2 * math.pi))

    q75, q25 = np.percentile(x, [75, 25])
    scale = min(float(np.std(x, ddof=1)), float(q75 - q25) / 1.349)
    if not scale > 0:
        raise ValueError("sample is too sparse for a bandwidth")
    a = 1.24 * scale * n ** (-1 / 7)
    b = 1.23 * scale * n ** (-1 / 9)
    c1 = 1 / (2 * math.sqrt(math.pi) * n)
    td = -phi6(b)
    if not math.isfinite(td) or td <= 0:
        raise ValueError("sample is too sparse to find TD")
    alph2 = 1.357 * (phi4(a) / td) ** (1 / 7)
    if not math.isfinite(alph2):
        raise ValueError("sample is too sparse to find alph2")

    def f_sd(h: float) -> float:
        return (c1 / phi4(alph2 * h ** (5 / 7))) ** (1 / 5) - h

    hmax = 1.144 * scale * n ** (-1 / 5)
    lower, upper = 0.1 * hmax, hmax
    tol = 0.1 * lower
    for attempt in range(100):
        if f_sd(lower) * f_sd(upper) <= 0:
            break
        if attempt % 2 == 0:
            upper *= 1.2
        else:
            lower /= 1.2
    else:
        raise ValueError("no bandwidth solution in the search range")
    return float(brentq(f_sd, lower, upper, xtol=tol))


def _decimal_places(values: np.ndarray) -> int:
    """Largest number of decimal places (≤ 15) among ``values`` (synthpop ``decimalplaces``)."""
    frac = np.unique(values - np.floor(values))
    best = 0
    for v in frac[frac > 0]:
        for d in range(1, 16):
            if round(float(v), d) == round(float(v), 15):
                best = max(best, d)
                break
    return best


def smooth_density(
    ysyn: np.ndarray, yobs: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, float | None]:
    """Gaussian-kernel smoothing of synthesised numeric values (synthpop ``syn.smooth``, density).

    Values of a category holding more than 70 % of ``ysyn`` are left alone, as are values
    equal to the observed maximum when the data look top-coded (the largest value is more
    than 10 times as frequent as the second largest, synthpop's check). The others get
    N(0, bw²) noise with bw the Sheather–Jones bandwidth of the smoothed values, are clipped
    to [min(yobs), max(yobs) + bw] (max(yobs) when top-coded) and rounded to the observed
    number of decimal places. Returns the values and the bandwidth (None = not smoothed).
    """
    ysyn = ysyn.astype(np.float64).copy()
    if len(ysyn) < 2 or len(yobs) == 0:
        return ysyn, None
    uniq, counts = np.unique(ysyn, return_counts=True)
    keep = np.ones(len(ysyn), dtype=bool)
    top = int(np.argmax(counts))
    if counts[top] / len(ysyn) > 0.7:
        keep &= ysyn != uniq[top]
    ymax = float(np.max(yobs))
    maxy: float | None = None
    if len(counts) >= 2 and 10 * counts[-2] < counts[-1] - counts[-2]:
        keep &= ysyn != ymax
        maxy = ymax
    if keep.sum() < 2:
        return ysyn, None
    try:
        bw = sj_bandwidth(ysyn[keep])
    except ValueError:
        return ysyn, None
    noisy = rng.normal(ysyn[keep], bw)
    upper = maxy if maxy is not None else ymax + bw
    noisy = np.clip(noisy, float(np.min(yobs)), upper)
    ysyn[keep] = np.round(noisy, _decimal_places(yobs))
    return ysyn, bw


# ====================================================================== per-column models
@dataclass
class _ColumnModel:
    """What the sampler needs to synthesise one visited column."""

    name: str
    kind: str
    values: np.ndarray  # the column's training values (spec dtype, as numpy)
    na_model: _LeafDonors | None = None  # numeric with NA: tree of the missingness indicator
    value_model: _LeafDonors | None = None  # None = bootstrap (first column) or constant
    all_missing: bool = False
    details: dict[str, Any] = field(default_factory=dict)


class CartSynthpop(BaseGenerator):
    """Sequential CART synthesis as R synthpop's default method (``spec/generators.md`` §7.7).

    Parameters
    ----------
    visit_sequence : list of str, optional
        Order in which columns are synthesised. None = schema order with the unordered
        categorical columns of more than 20 observed levels moved last (Latner et al. §4.1).
        A list is visited first, in its order; columns it does not name follow in the
        default order.
    first_method : {"sample"}
        How the first visited column is synthesised: a bootstrap of its observed values.
    min_samples_leaf : int
        Minimum donors per leaf (synthpop ``minbucket``); trees also need ``3·min_samples_leaf``
        rows to split a node (rpart's ``minsplit`` when only ``minbucket`` is set).
    ccp_alpha : float
        sklearn minimal cost-complexity pruning (≥ 0). **Decision** of the spec: 0 (synthpop
        uses ``cp`` 1e-8; 1e-3 in synthpop 1.8.0 per Latner et al.).
    smoothing : {"none", "density"}
        ``density``: Gaussian-kernel smoothing of the synthesised ``continuous`` / ``integer``
        values (synthpop ``syn.smooth``; Sheather–Jones bandwidth).
    m : int
        Number of synthetic copies. They are stacked in the output (copy 1 first); the
        artifact ``synthetic_copy`` gives each output row's copy number.

    Notes
    -----
    Predictors: ``continuous`` / ``integer`` / ``datetime`` columns enter as numbers
    (datetimes in days; NA kept as NaN, which sklearn trees route, plus a 0/1 NA indicator);
    ``ordinal`` columns as their category rank (declared order, else sorted) plus an NA
    indicator; unordered ``categorical`` columns one-hot (NA its own level), since sklearn
    trees do not search the 2^(L−1)−1 subset splits of rpart. Categorical columns are
    fitted with a classifier, numeric and datetime ones with a regressor; a donor's value is
    copied verbatim, so only observed values are released (before ``density`` smoothing).
    ``sample(n)`` returns ``n`` rows per copy (``m·n`` in all); ``sample()`` ``n_train``
    per copy.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(
        self,
        visit_sequence: list[str] | None = None,
        first_method: str = "sample",
        min_samples_leaf: int = 5,
        ccp_alpha: float = 0.0,
        smoothing: str = "none",
        m: int = 1,
    ) -> None:
        self.visit_sequence = visit_sequence
        self.first_method = first_method
        self.min_samples_leaf = min_samples_leaf
        self.ccp_alpha = ccp_alpha
        self.smoothing = smoothing
        self.m = m

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        vs = self.visit_sequence
        if vs is not None:
            if (
                isinstance(vs, str)
                or not isinstance(vs, (list, tuple))
                or not vs
                or not all(isinstance(c, str) for c in vs)
            ):
                raise ConfigError(
                    f"`visit_sequence` must be null or a non-empty list of column names; got {vs!r}"
                )
            dupes = sorted({c for c in vs if list(vs).count(c) > 1})
            if dupes:
                raise ConfigError(f"`visit_sequence` names column(s) {', '.join(dupes)} more than once")
        check_choice("first_method", self.first_method, FIRST_METHODS)
        check_int("min_samples_leaf", self.min_samples_leaf, 1)
        alpha = self.ccp_alpha
        if (
            isinstance(alpha, bool)
            or not isinstance(alpha, (int, float))
            or not alpha >= 0
            or math.isinf(alpha)
        ):
            raise ConfigError(f"`ccp_alpha` must be a finite number >= 0; got {alpha!r}")
        check_choice("smoothing", self.smoothing, SMOOTHINGS)
        check_int("m", self.m, 1)

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return int(self.m) * (self.n_train_ if n_rows is None else n_rows)

    # ------------------------------------------------------------------ fit
    def _order(self, train: pd.DataFrame) -> tuple[list[str], list[str]]:
        """The visit sequence and the many-level categoricals moved last."""
        spec = self.spec_
        columns = list(spec.table_columns)
        many = [
            c
            for c in columns
            if spec.kind(c) == "categorical" and train[c].nunique(dropna=True) > MANY_LEVELS
        ]
        default = [c for c in columns if c not in many] + many
        if self.visit_sequence is None:
            return default, many
        unknown = [c for c in self.visit_sequence if c not in columns]
        if unknown:
            raise ConfigError(
                f"`visit_sequence` names unknown column(s) {', '.join(map(repr, unknown))}; expected some of: "
                + ", ".join(columns)
            )
        listed = list(self.visit_sequence)
        return listed + [c for c in default if c not in listed], many

    def _encoder(self, name: str, values: pd.Series) -> _Encoder:
        col = self.spec_.column(name)
        has_na = bool(values.isna().any())
        if col.kind == "categorical":
            levels = tuple(sorted(values.dropna().unique(), key=str))
            return _Encoder(name, "onehot", levels=levels, has_na=has_na)
        if col.kind == "ordinal":
            seen = set(values.dropna().unique())
            declared = [c for c in (col.categories or ()) if c in seen]
            levels = tuple(declared + sorted(seen - set(declared), key=str))
            return _Encoder(name, "ordinal", levels=levels, has_na=has_na)
        x = _numeric(values)
        finite = x[~np.isnan(x)]
        origin = float(finite.min()) if finite.size else 0.0
        return _Encoder(name, "numeric", has_na=has_na, origin=origin)

    def _tree(self, classifier: bool) -> DecisionTreeClassifier | DecisionTreeRegressor:
        kwargs: dict[str, Any] = {
            "min_samples_leaf": int(self.min_samples_leaf),
            "min_samples_split": 3 * int(self.min_samples_leaf),
            "ccp_alpha": float(self.ccp_alpha),
            "random_state": int(self.rng_.integers(0, 2**31 - 1)),
        }
        return DecisionTreeClassifier(**kwargs) if classifier else DecisionTreeRegressor(**kwargs)

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        train = train.reset_index(drop=True)
        self.visit_order_, self.many_level_columns_ = self._order(train)
        self.encoders_: dict[str, _Encoder] = {}
        self.models_: list[_ColumnModel] = []
        blocks: list[np.ndarray] = []
        for position, name in enumerate(self.visit_order_):
            t0 = time.perf_counter()
            values = train[name]
            kind = self.spec_.kind(name)
            model = _ColumnModel(name=name, kind=kind, values=values.to_numpy())
            x = np.column_stack(blocks) if blocks else np.zeros((len(train), 0))
            if position == 0:
                model.details["method"] = "sample"
            elif self.spec_.column(name).is_categorical:
                model.value_model = self._fit_categorical(x, values)
                model.details.update(method="cart", leaves=model.value_model.n_leaves)
            else:
                self._fit_numeric(model, x, values)
            model.details["fit_seconds"] = round(time.perf_counter() - t0, 6)
            self.models_.append(model)
            encoder = self._encoder(name, values)
            self.encoders_[name] = encoder
            blocks.append(encoder.transform(values))

    def _fit_categorical(self, x: np.ndarray, values: pd.Series) -> _LeafDonors:
        levels = tuple(sorted(values.dropna().unique(), key=str))
        y = _codes(values, levels)  # NA is its own class
        tree = self._tree(classifier=True).fit(x, y)
        return _LeafDonors.build(tree, x, values.to_numpy(dtype=object))

    def _fit_numeric(self, model: _ColumnModel, x: np.ndarray, values: pd.Series) -> None:
        missing = values.isna().to_numpy()
        model.details["method"] = "cart"
        if missing.all():
            model.all_missing = True
            model.details["leaves"] = 0
            return
        if missing.any():
            indicator = missing.astype(np.int64)
            tree = self._tree(classifier=True).fit(x, indicator)
            model.na_model = _LeafDonors.build(tree, x, indicator)
            model.details["na_leaves"] = model.na_model.n_leaves
        observed = ~missing
        x_obs = x[observed]
        y = _numeric(values[observed])
        tree = self._tree(classifier=False).fit(x_obs, y)
        model.value_model = _LeafDonors.build(tree, x_obs, values.to_numpy()[observed])
        model.details["leaves"] = model.value_model.n_leaves

    # ------------------------------------------------------------------ sample
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        copies = [self._sample_copy(n) for _ in range(int(self.m))]
        self.copy_ids_ = np.repeat(np.arange(1, int(self.m) + 1), n)
        out = pd.concat(copies, ignore_index=True)
        return out[list(self.spec_.table_columns)]

    def _sample_copy(self, n: int) -> pd.DataFrame:
        rng = self.rng_
        synthetic: dict[str, np.ndarray] = {}
        blocks: list[np.ndarray] = []
        self.bandwidths_: dict[str, float | None] = {}
        for model in self.models_:
            x = np.column_stack(blocks) if blocks else np.zeros((n, 0))
            if model.all_missing:
                new = np.full(n, np.nan)
            elif model.value_model is None:  # the first column: bootstrap
                new = model.values[rng.integers(0, len(model.values), size=n)]
            else:
                new = self._draw(model, x, rng)
            if self.smoothing == "density" and model.kind in NUMERIC_SMOOTHED:
                new = self._smooth(model, new, rng)
            synthetic[model.name] = new
            blocks.append(self.encoders_[model.name].transform(new))
        return pd.DataFrame(synthetic)

    @staticmethod
    def _draw(model: _ColumnModel, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        assert model.value_model is not None
        if model.na_model is None:
            return model.value_model.draw(x, rng)
        is_na = model.na_model.draw(x, rng).astype(bool)
        dtype = model.values.dtype
        if dtype.kind == "M":
            out = np.full(len(x), np.datetime64("NaT"), dtype=dtype)
        else:
            out = np.full(len(x), np.nan, dtype=np.float64 if dtype.kind in "iufb" else object)
        present = ~is_na
        if present.any():
            out[present] = model.value_model.draw(x[present], rng)
        return out

    def _smooth(self, model: _ColumnModel, new: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        values = new.astype(np.float64)
        present = ~np.isnan(values)
        yobs = pd.to_numeric(pd.Series(model.values), errors="coerce").dropna().to_numpy(dtype=np.float64)
        smoothed, bw = smooth_density(values[present], yobs, rng)
        values[present] = smoothed
        self.bandwidths_[model.name] = bw
        return values

    # ------------------------------------------------------------------ reporting
    def details(self) -> dict[str, Any]:
        """Visit sequence, moved many-level columns, and per column its method, leaves and fit time."""
        if not hasattr(self, "models_"):
            return {}
        out: dict[str, Any] = {
            "visit_sequence": list(self.visit_order_),
            "many_level_columns_last": list(self.many_level_columns_),
            "m": int(self.m),
            "columns": {mdl.name: dict(mdl.details) for mdl in self.models_},
            "fit_seconds": round(sum(mdl.details.get("fit_seconds", 0.0) for mdl in self.models_), 6),
        }
        if self.smoothing == "density" and hasattr(self, "bandwidths_"):
            out["smoothing_bandwidth"] = dict(self.bandwidths_)
        return out

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``synthetic_copy``: the copy number (1..m) of every output row, when m > 1."""
        ids = getattr(self, "copy_ids_", None)
        if ids is None or int(self.m) == 1:
            return {}
        return {"synthetic_copy": pd.DataFrame({"copy": ids})}
