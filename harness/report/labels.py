"""Readable labels for generator variants.

A generator variant is a (generator, generator_params) pair. Its label is the generator name
followed by the parameters whose values differ between that generator's variants in the
run, e.g. ``privatesmote (epsilon=0.5, knn=3)``; a generator with one variant is labelled
by its name alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd


def parse_params(text: object) -> dict[str, Any] | None:
    """Parse canonical-JSON generator parameters.

    Parameters
    ----------
    text : object
        The ``generator_params`` cell (a JSON object string, or NA).

    Returns
    -------
    dict or None
        The parameters (an empty dict for NA or an empty string), or None where the text is
        not a JSON object.
    """
    if text is None or (not isinstance(text, str) and pd.isna(text)):
        return {}
    raw = str(text).strip()
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def format_value(value: Any) -> str:
    """Short text for one parameter value (strings bare, everything else as JSON)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def varying_keys(param_sets: Iterable[Mapping[str, Any]]) -> list[str]:
    """Keys whose values are not the same in every parameter set (sorted).

    A key absent from some sets but present in others counts as varying.
    """
    sets = list(param_sets)
    keys = sorted({k for p in sets for k in p})
    out = []
    for key in keys:
        seen = {json.dumps(p.get(key, None), sort_keys=True) if key in p else "<missing>" for p in sets}
        if len(seen) > 1:
            out.append(key)
    return out


def variant_labels(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Map every (generator, generator_params) pair to a readable, unique label.

    Parameters
    ----------
    pairs : iterable of (str, str)
        Generator names and their canonical-JSON parameters (duplicates allowed).

    Returns
    -------
    dict
        ``{(generator, params): label}``.
    """
    by_generator: dict[str, list[str]] = {}
    for generator, params in pairs:
        variants = by_generator.setdefault(generator, [])
        if params not in variants:
            variants.append(params)
    labels: dict[tuple[str, str], str] = {}
    for generator, raw_list in by_generator.items():
        if len(raw_list) == 1:
            labels[(generator, raw_list[0])] = generator
            continue
        parsed = [parse_params(raw) for raw in raw_list]
        if any(p is None for p in parsed):
            for raw in raw_list:
                labels[(generator, raw)] = f"{generator} ({raw})"
            continue
        dicts = [p for p in parsed if p is not None]
        keys = varying_keys(dicts)
        for raw, values in zip(raw_list, dicts):
            shown = ", ".join(f"{k}={format_value(values[k])}" if k in values else f"{k}=-" for k in keys)
            labels[(generator, raw)] = f"{generator} ({shown})"
    return labels


def params_sort_key(params_text: str) -> tuple[tuple[int, float, str], ...]:
    """Sort key that orders parameter sets numerically where values are numbers.

    Parameters
    ----------
    params_text : str
        Canonical-JSON parameters.

    Returns
    -------
    tuple
        One ``(kind, number, text)`` triple per parameter, in key order.
    """
    params = parse_params(params_text)
    if params is None:
        return ((2, 0.0, params_text),)
    key: list[tuple[int, float, str]] = []
    for name in sorted(params):
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            key.append((1, 0.0, json.dumps(value, sort_keys=True)))
        else:
            key.append((0, float(value), ""))
    return tuple(key)
