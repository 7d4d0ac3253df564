"""Raab's identity and attribute disclosure measures as pure functions.

Specification: ``spec/metrics.md`` P10; paper: Raab, *Privacy Risk from Synthetic Data:
Practical Proposals* (PSD 2024), Appendix 1; reference implementation: R ``synthpop``
``disclosure()`` (version 1.8-x).

Notation (Appendix 1): the key columns form a composite quasi-identifier q; d_{.q}, d_{tq}
count the ground-truth (GT) records with q (and target level t), s_{.q}, s_{tq} the same in the
synthetic data (SD). Levels of q and t are aligned on GT ∪ SD; a missing value is a level of
its own. pd_{tq} = d_{tq}/d_{.q}, ps_{tq} = s_{tq}/s_{.q}; N_d = |GT|, N_s = |SD|. Every
measure is a percentage.

Every attribute measure is a sum over the GT cells (t, q) of d_{tq} times an indicator, so
the whole computation is a handful of hash-based counts over the rows (``pandas.factorize``
and ``numpy.bincount``): O(|GT| + |SD|), no loop over levels.

Exclusion rule (as ``synthpop``): the indicators (pd_{tq} = 1, ps_{tq} = 1, ...) are computed
on the complete tables; the options ``not_targetslev``, ``use_targets_na``,
``use_keys_na`` and ``denom_lim`` then remove cells from the numerators only. Denominators
(N_d, N_s, N_d,both) never change, so excluded records count as not disclosive. This
reproduces the original-data columns of the paper's Table 2 exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import ConfigError

DENOM_SOURCES: tuple[str, ...] = ("synthetic", "original")
"""Which cell count ``denom_lim`` and the denominator statistics use for the SD measures."""

DEFAULT_ONE_WAY_THRESHOLD = 0.8
"""Share of the DiSCO records in one target level at which the one-way check flags the target."""


# ====================================================================== results
@dataclass(frozen=True)
class IdentityMeasures:
    """Identity disclosure measures (Appendix 1, Eqs. 2–5), all in % .

    Attributes
    ----------
    UiO : float
        GT records unique on q in the GT, % of N_d.
    UiS : float
        SD records unique on q in the SD, % of N_s (the prose definition; Eq. 3 as printed
        divides a sum over GT-unique q by N_d).
    UiOiS : float
        GT-unique records whose q occurs in the SD, % of N_d (``synthpop``'s ``UiOiS``;
        the paper's ``UiOoS``).
    repU : float
        Replicated uniques: GT-unique records whose q is also unique in the SD, % of N_d.
    n_levels_gt, n_levels_sd, n_levels_all : int
        Levels of q in the GT, the SD and their union.
    n_gt, n_sd : int
        N_d and N_s.
    """

    UiO: float
    UiS: float
    UiOiS: float
    repU: float
    n_levels_gt: int
    n_levels_sd: int
    n_levels_all: int
    n_gt: int
    n_sd: int

    def as_dict(self) -> dict[str, Any]:
        """The measures as a JSON-serialisable dict."""
        return asdict(self)


@dataclass(frozen=True)
class AttributeMeasures:
    """Attribute disclosure measures for one target (Appendix 1, Eqs. 6–14), all in %.

    Attributes
    ----------
    Dorig : float
        GT records whose q predicts their target with certainty in the GT (pd_{tq} = 1).
    iS : float
        GT records whose q occurs in the SD (Eq. 9 prints s_{tq} > 0; the prose and
        ``synthpop`` use s_{.q} > 0).
    DiS : float
        GT records whose q is disclosive in the SD for some target level (ps_{jq} = 1).
    DiSCO : float
        Disclosive in the SD and correct in the GT: ps_{tq} = 1 for the record's own level t.
    DiSDiO : float
        DiSCO records that are also disclosive in the GT (pd_{tq} = 1).
    DCAP : float
        Expected correct attributions from the SD, 100·Σ ps_{tq}·d_{tq}/N_d.
    CAPd : float
        The same from the GT, 100·Σ pd_{tq}·d_{tq}/N_d.
    TCAP : float or None
        DiSCO's numerator over N_d,both (GT records whose q occurs in the SD), Eq. 13;
        None when no GT q occurs in the SD.
    TCAP_matched : float or None
        DiSCO's numerator over the DiS records (GT records whose q is disclosive in the SD),
        i.e. Taub et al.'s TCAP (P11, ``nonmatch: undefined``) and what ``synthpop`` 1.8
        reports as TCAP; None without DiS records.
    baseCAPd : float
        Marginal guessing, 100·Σ_t (d_{t.}/N_d)² (Eq. 14 prints a spurious "/N_d").
    max_denom, mean_denom : float or None
        Largest and record-weighted mean denominator (s_{tq}, or d_{tq} with
        ``denom_source="original"``) of the DiSCO records; None without DiSCO records.
    mean_denom_cells : float or None
        Unweighted mean of that denominator over the DiSCO cells (t, q): ``synthpop``'s
        ``mean_denom``. The paper's Table 1 columns (max 3–4, mean 1.16–1.23) are
        ``synthpop``'s max and cell mean of d_{tq}, i.e. ``max_denom`` and
        ``mean_denom_cells`` with ``denom_source="original"``, although its prose speaks
        of SD denominators.
    n_disco : int
        Number of DiSCO records.
    one_way_level : str or None
        The target level holding the most DiSCO records.
    one_way_share : float or None
        Its share of the DiSCO records, in [0, 1].
    one_way_flag : bool
        ``one_way_share >= one_way_threshold``.
    n_target_levels : int
        Levels of the target in GT ∪ SD (after grouping).
    n_excluded : int
        GT records removed from the numerators by ``not_targetslev``, ``use_targets_na``
        and ``use_keys_na`` (``denom_lim`` not included).
    n_both : int
        N_d,both.
    """

    Dorig: float
    iS: float
    DiS: float
    DiSCO: float
    DiSDiO: float
    DCAP: float
    CAPd: float
    TCAP: float | None
    TCAP_matched: float | None
    baseCAPd: float
    max_denom: float | None
    mean_denom: float | None
    mean_denom_cells: float | None
    n_disco: int
    one_way_level: str | None
    one_way_share: float | None
    one_way_flag: bool
    n_target_levels: int
    n_excluded: int
    n_both: int

    def as_dict(self) -> dict[str, Any]:
        """The measures as a JSON-serialisable dict."""
        return asdict(self)


# ====================================================================== validation
def check_options(
    *,
    not_targetslev: Collection[Any] | None = None,
    use_targets_na: bool = True,
    use_keys_na: bool = True,
    denom_lim: int | None = None,
    denom_source: str = "synthetic",
    ngroups_target: int | None = None,
    ngroups_keys: int | Mapping[str, int] | None = None,
    one_way_threshold: float = DEFAULT_ONE_WAY_THRESHOLD,
) -> None:
    """Raise :class:`ConfigError` (one line naming the option) for an invalid option.

    Parameters
    ----------
    not_targetslev, use_targets_na, use_keys_na, denom_lim, denom_source, ngroups_target,
    ngroups_keys, one_way_threshold
        As for :func:`attribute_measures`.
    """
    if not_targetslev is not None and (
        isinstance(not_targetslev, (str, bytes)) or not isinstance(not_targetslev, Collection)
    ):
        raise ConfigError(f"`not_targetslev` must be null or a list of target levels; got {not_targetslev!r}")
    for name, value in (("use_targets_na", use_targets_na), ("use_keys_na", use_keys_na)):
        if not isinstance(value, (bool, np.bool_)):
            raise ConfigError(f"`{name}` must be true or false; got {value!r}")
    if denom_lim is not None and not _is_int(denom_lim, 1):
        raise ConfigError(f"`denom_lim` must be null or an integer >= 1; got {denom_lim!r}")
    if denom_source not in DENOM_SOURCES:
        raise ConfigError(
            f"`denom_source` must be one of {', '.join(map(repr, DENOM_SOURCES))}; got {denom_source!r}"
        )
    if ngroups_target is not None and not _is_int(ngroups_target, 2):
        raise ConfigError(f"`ngroups_target` must be null or an integer >= 2; got {ngroups_target!r}")
    if isinstance(ngroups_keys, Mapping):
        bad = {k: v for k, v in ngroups_keys.items() if not isinstance(k, str) or not _is_int(v, 2)}
        if bad or not ngroups_keys:
            raise ConfigError(
                "`ngroups_keys` must be null, an integer >= 2 or a non-empty mapping of key column "
                f"to an integer >= 2; got {dict(ngroups_keys)!r}"
            )
    elif ngroups_keys is not None and not _is_int(ngroups_keys, 2):
        raise ConfigError(
            "`ngroups_keys` must be null, an integer >= 2 or a mapping of key column to an integer "
            f">= 2; got {ngroups_keys!r}"
        )
    if (
        isinstance(one_way_threshold, bool)
        or not isinstance(one_way_threshold, (int, float, np.floating, np.integer))
        or not 0.0 < float(one_way_threshold) <= 1.0
    ):
        raise ConfigError(f"`one_way_threshold` must be a number in (0, 1]; got {one_way_threshold!r}")


def _is_int(value: Any, minimum: int) -> bool:
    return bool(not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= minimum)


# ====================================================================== grouping
def group_numeric(gt: pd.Series, sd: pd.Series, ngroups: int) -> tuple[pd.Series, pd.Series]:
    """Group a numeric variable into at most ``ngroups`` quantile groups, as ``synthpop``.

    The breaks are the type-7 quantiles at 0, 1/n, ..., 1 of the non-missing GT and SD
    values pooled, duplicates dropped; groups are ``[b_i, b_{i+1})``, the last one closed.
    When fewer than 3 groups of GT values result, equal-width breaks over the pooled range are
    used instead (``synthpop``'s fallback). Missing values stay missing.

    Parameters
    ----------
    gt, sd : Series
        The variable in the GT and the SD (numeric).
    ngroups : int
        Requested number of groups (>= 2).

    Returns
    -------
    (Series, Series)
        Interval labels such as ``"[0, 40)"`` (object dtype, NA kept), indexed like the inputs.
    """
    g = pd.to_numeric(gt, errors="coerce").astype("float64").to_numpy()
    s = pd.to_numeric(sd, errors="coerce").astype("float64").to_numpy()
    pooled = np.concatenate([g[~np.isnan(g)], s[~np.isnan(s)]])
    if pooled.size == 0:
        return gt.astype(object), sd.astype(object)
    breaks = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, ngroups + 1)))
    if _n_groups(g, breaks) < 3:
        breaks = np.unique(np.linspace(pooled.min(), pooled.max(), ngroups + 1))
    return (
        pd.Series(_cut(g, breaks), index=gt.index, dtype=object),
        pd.Series(_cut(s, breaks), index=sd.index, dtype=object),
    )


def _bins(x: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    idx = np.searchsorted(breaks, x, side="right") - 1
    return np.clip(idx, 0, max(len(breaks) - 2, 0))


def _n_groups(x: np.ndarray, breaks: np.ndarray) -> int:
    x = x[~np.isnan(x)]
    return int(np.unique(_bins(x, breaks)).size) if x.size else 0


def _cut(x: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    out = np.full(x.shape, None, dtype=object)
    ok = ~np.isnan(x)
    if len(breaks) == 1:
        out[ok] = f"[{_fmt(breaks[0])}]"
        return out
    last = len(breaks) - 2
    labels = np.array(
        [
            f"[{_fmt(breaks[i])}, {_fmt(breaks[i + 1])}{']' if i == last else ')'}"
            for i in range(len(breaks) - 1)
        ],
        dtype=object,
    )
    out[ok] = labels[_bins(x[ok], breaks)]
    return out


def _fmt(value: float) -> str:
    return f"{value:.8g}"


# ====================================================================== encoding
@dataclass(frozen=True)
class _Codes:
    """Integer codes of one variable (or the composite q) aligned on GT ∪ SD."""

    gt: np.ndarray
    sd: np.ndarray
    n_levels: int
    na_rows_gt: np.ndarray  # bool: the row has a missing value (in any key, for q)
    na_rows_sd: np.ndarray
    labels: np.ndarray | None = None  # object array: label of each code (single variables)


def _encode(gt: pd.Series, sd: pd.Series) -> _Codes:
    pooled = pd.concat([gt.reset_index(drop=True), sd.reset_index(drop=True)], ignore_index=True)
    if isinstance(pooled.dtype, pd.CategoricalDtype):
        pooled = pooled.astype(object)
    na = pooled.isna().to_numpy()
    codes, uniques = pd.factorize(pooled)
    codes = np.asarray(codes, dtype=np.int64)
    labels = np.asarray(uniques, dtype=object)
    if na.any():
        codes[na] = len(labels)
        labels = np.append(labels, np.array([None], dtype=object))
    n = len(gt)
    return _Codes(codes[:n], codes[n:], len(labels), na[:n], na[n:], labels)


def _composite(parts: Sequence[_Codes]) -> _Codes:
    n = len(parts[0].gt)
    q = np.zeros(len(parts[0].gt) + len(parts[0].sd), dtype=np.int64)
    na = np.zeros(q.shape, dtype=bool)
    n_levels = 1
    for part in parts:
        q = q * part.n_levels + np.concatenate([part.gt, part.sd])
        codes, uniques = pd.factorize(q)
        q, n_levels = np.asarray(codes, dtype=np.int64), len(uniques)
        na |= np.concatenate([part.na_rows_gt, part.na_rows_sd])
    return _Codes(q[:n], q[n:], n_levels, na[:n], na[n:])


def _prepare_keys(
    gt: pd.DataFrame,
    sd: pd.DataFrame,
    keys: Sequence[str],
    ngroups_keys: int | Mapping[str, int] | None,
) -> _Codes:
    if not keys:
        raise ConfigError("`keys` must name at least one column")
    missing = [k for k in keys if k not in gt.columns or k not in sd.columns]
    if missing:
        raise ConfigError(f"`keys` names column(s) {', '.join(missing)} absent from the GT or SD table")
    if len(set(keys)) != len(keys):
        raise ConfigError(f"`keys` must not repeat a column; got {list(keys)!r}")
    parts = []
    for key in keys:
        n = ngroups_keys.get(key) if isinstance(ngroups_keys, Mapping) else ngroups_keys
        parts.append(_encode(*_maybe_group(gt[key], sd[key], n)))
    return _composite(parts)


def _maybe_group(gt: pd.Series, sd: pd.Series, ngroups: int | None) -> tuple[pd.Series, pd.Series]:
    if ngroups is None or not (_numeric(gt) and _numeric(sd)):
        return gt, sd  # as synthpop: grouping applies to numeric variables only
    return group_numeric(gt, sd, ngroups)


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


# ====================================================================== measures
def identity_measures(
    gt: pd.DataFrame,
    sd: pd.DataFrame,
    keys: Sequence[str],
    *,
    use_keys_na: bool = True,
    ngroups_keys: int | Mapping[str, int] | None = None,
) -> IdentityMeasures:
    """UiO, UiS, UiOiS and repU of the composite key q (Appendix 1, Eqs. 2–5).

    Parameters
    ----------
    gt, sd : DataFrame
        Ground truth (the data synthesised, T) and the released table S.
    keys : sequence of str
        Key columns forming q.
    use_keys_na : bool
        False: records with a missing key value never count as unique.
    ngroups_keys : int or mapping, optional
        Quantile-group numeric keys into that many groups (one number for all numeric keys,
        or per key); None = every distinct value is a level.

    Returns
    -------
    IdentityMeasures
    """
    check_options(use_keys_na=use_keys_na, ngroups_keys=ngroups_keys)
    _check_sizes(gt, sd)
    q = _prepare_keys(gt, sd, keys, ngroups_keys)
    return _identity(q, use_keys_na)


def _identity(q: _Codes, use_keys_na: bool) -> IdentityMeasures:
    n_gt, n_sd = len(q.gt), len(q.sd)
    dq = np.bincount(q.gt, minlength=q.n_levels)
    sq = np.bincount(q.sd, minlength=q.n_levels)
    usable = np.ones(q.n_levels, dtype=bool)
    if not use_keys_na:
        usable[q.gt[q.na_rows_gt]] = False
        usable[q.sd[q.na_rows_sd]] = False
    uniq_gt = (dq == 1) & usable
    return IdentityMeasures(
        UiO=100.0 * int(uniq_gt.sum()) / n_gt,
        UiS=100.0 * int(((sq == 1) & usable).sum()) / n_sd,
        UiOiS=100.0 * int((uniq_gt & (sq > 0)).sum()) / n_gt,
        repU=100.0 * int((uniq_gt & (sq == 1)).sum()) / n_gt,
        n_levels_gt=int((dq > 0).sum()),
        n_levels_sd=int((sq > 0).sum()),
        n_levels_all=int(((dq > 0) | (sq > 0)).sum()),
        n_gt=n_gt,
        n_sd=n_sd,
    )


def attribute_measures(
    gt: pd.DataFrame,
    sd: pd.DataFrame,
    keys: Sequence[str],
    target: str,
    *,
    not_targetslev: Collection[Any] | None = None,
    use_targets_na: bool = True,
    use_keys_na: bool = True,
    denom_lim: int | None = None,
    denom_source: str = "synthetic",
    ngroups_target: int | None = None,
    ngroups_keys: int | Mapping[str, int] | None = None,
    one_way_threshold: float = DEFAULT_ONE_WAY_THRESHOLD,
) -> AttributeMeasures:
    """Every attribute disclosure measure of Appendix 1 for one target.

    Parameters
    ----------
    gt, sd : DataFrame
        Ground truth (the data synthesised, T) and the released table S.
    keys : sequence of str
        Key columns forming q.
    target : str
        The target column t (not a key).
    not_targetslev : collection, optional
        Target levels excluded from every measure (compared as values and as text, so
        ``0`` and ``"0"`` both exclude the integer level 0).
    use_targets_na : bool
        False: records with a missing target are excluded.
    use_keys_na : bool
        False: records with a missing key value are excluded (``synthpop``'s ``usekeysNA``).
    denom_lim : int, optional
        Count a disclosive record only if its cell count is at most this limit: d_{tq} for
        Dorig; for DiS, DiSCO, DiSDiO and TCAP s_{tq} (``denom_source="synthetic"``, the
        paper's prose) or d_{tq} (``"original"``, what ``synthpop`` 1.8 computes).
    denom_source : {"synthetic", "original"}
        The cell count used by ``denom_lim`` and by ``max_denom``/``mean_denom``.
    ngroups_target, ngroups_keys : int, optional
        Quantile-group a numeric target / numeric keys (see :func:`group_numeric`).
    one_way_threshold : float
        Flag the target when one level holds at least this share of the DiSCO records.

    Returns
    -------
    AttributeMeasures
    """
    check_options(
        not_targetslev=not_targetslev,
        use_targets_na=use_targets_na,
        use_keys_na=use_keys_na,
        denom_lim=denom_lim,
        denom_source=denom_source,
        ngroups_target=ngroups_target,
        ngroups_keys=ngroups_keys,
        one_way_threshold=one_way_threshold,
    )
    _check_sizes(gt, sd)
    q = _prepare_keys(gt, sd, keys, ngroups_keys)
    return _attribute(
        q,
        _prepare_target(gt, sd, keys, target, ngroups_target),
        not_targetslev=not_targetslev,
        use_targets_na=use_targets_na,
        use_keys_na=use_keys_na,
        denom_lim=denom_lim,
        denom_source=denom_source,
        one_way_threshold=float(one_way_threshold),
    )


def disclosure_measures(
    gt: pd.DataFrame,
    sd: pd.DataFrame,
    keys: Sequence[str],
    targets: Sequence[str],
    *,
    not_targetslev: Mapping[str, Collection[Any]] | None = None,
    use_targets_na: bool = True,
    use_keys_na: bool = True,
    denom_lim: int | None = None,
    denom_source: str = "synthetic",
    ngroups_target: int | None = None,
    ngroups_keys: int | Mapping[str, int] | None = None,
    one_way_threshold: float = DEFAULT_ONE_WAY_THRESHOLD,
) -> tuple[IdentityMeasures, dict[str, AttributeMeasures]]:
    """Identity measures of ``keys`` and attribute measures of each target (q encoded once).

    Parameters
    ----------
    gt, sd, keys
        As for :func:`attribute_measures`.
    targets : sequence of str
        Target columns, each measured on its own.
    not_targetslev : mapping, optional
        Target column -> levels excluded for that target.
    use_targets_na, use_keys_na, denom_lim, denom_source, ngroups_target, ngroups_keys, one_way_threshold
        As for :func:`attribute_measures` (applied to every target).

    Returns
    -------
    (IdentityMeasures, dict of str to AttributeMeasures)
    """
    if not_targetslev is not None and not isinstance(not_targetslev, Mapping):
        raise ConfigError(
            f"`not_targetslev` must be null or a mapping of target column to levels; got {not_targetslev!r}"
        )
    for levels in (not_targetslev or {}).values():
        check_options(not_targetslev=levels)
    check_options(
        use_targets_na=use_targets_na,
        use_keys_na=use_keys_na,
        denom_lim=denom_lim,
        denom_source=denom_source,
        ngroups_target=ngroups_target,
        ngroups_keys=ngroups_keys,
        one_way_threshold=one_way_threshold,
    )
    _check_sizes(gt, sd)
    q = _prepare_keys(gt, sd, keys, ngroups_keys)
    attributes = {
        target: _attribute(
            q,
            _prepare_target(gt, sd, keys, target, ngroups_target),
            not_targetslev=(not_targetslev or {}).get(target),
            use_targets_na=use_targets_na,
            use_keys_na=use_keys_na,
            denom_lim=denom_lim,
            denom_source=denom_source,
            one_way_threshold=float(one_way_threshold),
        )
        for target in targets
    }
    return _identity(q, use_keys_na), attributes


def _check_sizes(gt: pd.DataFrame, sd: pd.DataFrame) -> None:
    if len(gt) == 0 or len(sd) == 0:
        raise ValueError("the GT and SD tables must both have rows")


def _prepare_target(
    gt: pd.DataFrame, sd: pd.DataFrame, keys: Sequence[str], target: str, ngroups: int | None
) -> _Codes:
    if target not in gt.columns or target not in sd.columns:
        raise ConfigError(f"target {target!r} is absent from the GT or SD table")
    if target in keys:
        raise ConfigError(f"target {target!r} must not be one of the keys")
    return _encode(*_maybe_group(gt[target], sd[target], ngroups))


def _level_mask(labels: np.ndarray, levels: Collection[Any] | None) -> np.ndarray:
    """True for target codes whose label is one of ``levels`` (as value or as text)."""
    if not levels:
        return np.zeros(len(labels), dtype=bool)
    as_text = {str(v) for v in levels}
    out = np.zeros(len(labels), dtype=bool)
    for i, label in enumerate(labels):
        if label is None:
            continue
        try:
            hit = label in levels
        except TypeError:
            hit = False
        out[i] = hit or str(label) in as_text
    return out


def _attribute(
    q: _Codes,
    t: _Codes,
    *,
    not_targetslev: Collection[Any] | None,
    use_targets_na: bool,
    use_keys_na: bool,
    denom_lim: int | None,
    denom_source: str,
    one_way_threshold: float,
) -> AttributeMeasures:
    n_gt = len(q.gt)
    n_t = t.n_levels
    # ---- counts per q and per (q, t) cell, cells aligned on GT ∪ SD
    dq = np.bincount(q.gt, minlength=q.n_levels)
    sq = np.bincount(q.sd, minlength=q.n_levels)
    cell_codes, cells = pd.factorize(np.concatenate([q.gt * n_t + t.gt, q.sd * n_t + t.sd]))
    cell_codes = np.asarray(cell_codes, dtype=np.int64)
    cells = np.asarray(cells, dtype=np.int64)
    d_cell = np.bincount(cell_codes[:n_gt], minlength=len(cells))
    s_cell = np.bincount(cell_codes[n_gt:], minlength=len(cells))
    cell_q, cell_t = cells // n_t, cells % n_t
    # target levels present in the SD for each q: a q is disclosive in the SD iff exactly one
    n_sd_levels = np.bincount(cell_q[s_cell > 0], minlength=q.n_levels)

    # ---- restrict to GT cells (every measure is a sum of d_tq over GT cells)
    g = d_cell > 0
    d, s, cq, ct = d_cell[g], s_cell[g], cell_q[g], cell_t[g]
    d_q, s_q = dq[cq], sq[cq]
    in_sd = s_q > 0
    dis_orig = d == d_q  # pd_tq = 1
    dis_syn_any = n_sd_levels[cq] == 1  # ps_jq = 1 for some j
    dis_syn = in_sd & (s == s_q)  # ps_tq = 1

    # ---- exclusions (cells removed from numerators only)
    excluded = _level_mask(t.labels if t.labels is not None else np.array([]), not_targetslev)[ct]
    if not use_targets_na:
        na_code = _na_code(t)
        if na_code is not None:
            excluded |= ct == na_code
    if not use_keys_na:
        key_na = np.zeros(q.n_levels, dtype=bool)
        key_na[q.gt[q.na_rows_gt]] = True
        excluded |= key_na[cq]
    keep = ~excluded
    denom = s if denom_source == "synthetic" else d
    denom_any = s_q if denom_source == "synthetic" else d
    lim_orig = np.ones(d.shape, dtype=bool) if denom_lim is None else d <= denom_lim
    lim_syn = np.ones(d.shape, dtype=bool) if denom_lim is None else denom <= denom_lim
    lim_any = np.ones(d.shape, dtype=bool) if denom_lim is None else denom_any <= denom_lim

    def pct(mask: np.ndarray) -> float:
        return 100.0 * int(d[mask & keep].sum()) / n_gt

    disco = dis_syn & lim_syn & keep
    n_disco = int(d[disco].sum())
    n_dis = int(d[dis_syn_any & lim_any & keep].sum())
    n_both = int(dq[sq > 0].sum())
    ps = np.divide(s, s_q, out=np.zeros(s.shape, dtype=float), where=s_q > 0)
    pd_ = d / d_q
    # baseCAPd: each kept record guessed from the GT marginal of the target
    d_t = np.bincount(t.gt, minlength=n_t).astype(float)
    kept_t = np.bincount(ct[keep], weights=d[keep].astype(float), minlength=n_t)
    one_way_level, one_way_share = _one_way(t, ct[disco], d[disco], n_disco)
    return AttributeMeasures(
        Dorig=pct(dis_orig & lim_orig),
        iS=pct(in_sd),
        DiS=pct(dis_syn_any & lim_any),
        DiSCO=100.0 * n_disco / n_gt,
        DiSDiO=pct(disco & dis_orig),
        DCAP=100.0 * float((ps * d)[keep].sum()) / n_gt,
        CAPd=100.0 * float((pd_ * d)[keep].sum()) / n_gt,
        TCAP=100.0 * n_disco / n_both if n_both > 0 else None,
        TCAP_matched=100.0 * n_disco / n_dis if n_dis > 0 else None,
        baseCAPd=100.0 * float((d_t * kept_t).sum()) / n_gt**2,
        max_denom=float(denom[disco].max()) if n_disco else None,
        mean_denom=float((denom[disco] * d[disco]).sum() / n_disco) if n_disco else None,
        mean_denom_cells=float(denom[disco].mean()) if n_disco else None,
        n_disco=n_disco,
        one_way_level=one_way_level,
        one_way_share=one_way_share,
        one_way_flag=one_way_share is not None and one_way_share >= one_way_threshold,
        n_target_levels=n_t,
        n_excluded=int(d[excluded].sum()),
        n_both=n_both,
    )


def _na_code(t: _Codes) -> int | None:
    if t.labels is None or len(t.labels) == 0 or t.labels[-1] is not None:
        return None
    return len(t.labels) - 1


def _one_way(
    t: _Codes, levels: np.ndarray, counts: np.ndarray, total: int
) -> tuple[str | None, float | None]:
    if total == 0:
        return None, None
    per_level = np.bincount(levels, weights=counts.astype(float), minlength=t.n_levels)
    top = int(np.argmax(per_level))
    label = t.labels[top] if t.labels is not None else top
    return ("NA" if label is None else str(label)), float(per_level[top] / total)
