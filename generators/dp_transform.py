"""The smartnoise ``TableTransformer`` of a dataset spec: numeric bounds and category levels.

Used by :mod:`generators.smartnoise` (``mst``, ``aim``, ``dpgan``, ``pategan``). Bounds of a
numeric column come from the config's ``bounds`` (public), the spec's public domain (``strict``),
smartnoise's DP estimate (``preprocessor_eps > 0``) or — the default — the training min / max;
category levels and the presence of missing values come from the training data, or from the
public domain in ``strict`` mode (:mod:`generators.dp_domain`). Transformers with a known domain
are fitted on the domain alone, never on the data.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from generators.dp_domain import PublicColumn
from harness.errors import ConfigError
from harness.spec import DatasetSpec


def import_optional(module: str) -> Any:
    """Import a module of the optional ``privbench[dp]`` extra; a :class:`ConfigError` when absent."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"the smartnoise generators need the optional extra: install privbench[dp] (smartnoise-synth); {exc}"
        ) from None


def numeric_bounds(
    spec: DatasetSpec,
    train: pd.DataFrame,
    bounds: Mapping[str, Any] | None,
    *,
    estimate_with_dp: bool,
) -> dict[str, dict[str, Any]]:
    """Bounds of every numeric column and where they come from.

    Parameters
    ----------
    spec : DatasetSpec
    train : DataFrame
        The training table, numeric columns as floats (datetime as nanoseconds).
    bounds : mapping, optional
        Public bounds ``{column: [lower, upper]}`` from the config (source ``"config"``).
    estimate_with_dp : bool
        Columns without public bounds get ``lower = upper = None`` (source ``"dp"``: smartnoise
        estimates them with the preprocessor budget) instead of the training min / max (source
        ``"data"``).

    Returns
    -------
    dict
        ``{column: {"lower": float | None, "upper": float | None, "source": str}}``.
    """
    out: dict[str, dict[str, Any]] = {}
    for col in numeric_columns(spec):
        if bounds is not None and col in bounds:
            lo, hi = (float(v) for v in bounds[col])
            out[col] = {"lower": lo, "upper": hi, "source": "config"}
        elif estimate_with_dp:
            out[col] = {"lower": None, "upper": None, "source": "dp"}
        else:
            values = train[col].dropna()
            lo = float(values.min()) if len(values) else 0.0
            hi = float(values.max()) if len(values) else 1.0
            out[col] = {"lower": lo, "upper": hi if hi > lo else lo + 1.0, "source": "data"}
    return out


def numeric_columns(spec: DatasetSpec) -> list[str]:
    return [c for c in spec.table_columns if spec.kind(c) in ("continuous", "integer", "datetime")]


def build_transformer(
    spec: DatasetSpec,
    train: pd.DataFrame,
    *,
    style: str,
    bounds: Mapping[str, Mapping[str, Any]],
    n_bins: int = 20,
    domain: Mapping[str, PublicColumn] | None = None,
) -> Any:
    """The smartnoise ``TableTransformer`` of the spec's table columns.

    Transformers whose domain is known (categorical levels observed in ``train`` or public,
    numeric columns with both bounds) are fitted here on the domain alone, so fitting them
    spends no ε; numeric columns with ``lower is None`` are left for smartnoise to fit with its
    preprocessor budget. With ``domain`` (strict mode) the levels and whether a column is
    nullable come from the public domain, not from ``train``.

    Parameters
    ----------
    spec : DatasetSpec
    train : DataFrame
        Training table as passed to the library (categorical values str or None).
    style : {"cube", "gan"}
        ``cube``: labels and bins (MST, AIM); ``gan``: one-hot and min-max scaling (GANs).
    bounds : mapping
        Output of :func:`numeric_bounds`.
    n_bins : int
        Bins of numeric columns in ``cube`` style.
    domain : mapping of str to PublicColumn, optional
        Public domain (:func:`generators.dp_domain.public_domain`).

    Returns
    -------
    snsynth.transform.TableTransformer
    """
    tf = import_optional("snsynth.transform")
    columns = []
    for col in spec.table_columns:
        public = None if domain is None else domain[col]
        nullable = bool(train[col].isna().any()) if public is None else public.nullable
        if col in bounds:
            b = bounds[col]
            lo, hi = b["lower"], b["upper"]
            if style == "cube":
                bins = n_bins
                if lo is not None and spec.kind(col) == "integer":
                    bins = max(1, min(n_bins, int(math.floor(hi) - math.ceil(lo)) + 1))
                t = tf.BinTransformer(bins=bins, lower=lo, upper=hi, nullable=nullable)
            else:
                t = tf.MinMaxTransformer(lower=lo, upper=hi, negative=True, nullable=nullable)
            if lo is not None:
                t.fit([])  # bounds given: no data, no ε
        else:
            seen = train[col].dropna().unique().tolist() if public is None else list(public.levels or ())
            levels: list[Any] = sorted(seen)
            if nullable:
                levels.append(None)
            label = tf.LabelTransformer(nullable=nullable)
            t = label if style == "cube" else tf.ChainTransformer([label, tf.OneHotEncoder()])
            t.fit(levels)  # the domain, not the data
        columns.append(t)
    return tf.TableTransformer(columns)
