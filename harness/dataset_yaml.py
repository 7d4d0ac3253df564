"""The dataset YAML ``privbench init`` and ``privbench evaluate`` write, and its check.

:func:`render_yaml` turns an :class:`~harness.dataset_init.Inferred` table into the YAML text
(suggestions marked ``SUGGESTED`` in comments, the rule behind each column kind beside it);
:func:`check_yaml` builds the spec from that text and loads the data, so a YAML that would not
run is never written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from harness.dataset_init import Inferred

YAML_WORDS = {"y", "n", "yes", "no", "true", "false", "on", "off", "null", "none", "~"}
PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def render_yaml(inferred: Inferred, files: Sequence[dict[str, str]], *, command: str) -> str:
    """The dataset YAML text, suggestions marked ``SUGGESTED`` in comments.

    Parameters
    ----------
    inferred : Inferred
    files : sequence of dict
        ``source.files`` entries (``path`` and optionally ``role``).
    command : str
        The command that wrote it (first comment line).
    """
    lines = [
        f"# Written by `{command}`: column kinds inferred from the data (harness/dataset_init.py",
        "# documents the rules). Lines marked SUGGESTED are guesses: check them before you publish.",
        f"name: {_q(inferred.name)}",
        f"description: {_q(f'{inferred.n_rows} rows, inferred by privbench init')}",
        "source:",
        "  kind: path",
        "  files:   # relative paths resolve from the directory you run privbench in",
        *[f"    - {_flow(entry)}" for entry in files],
    ]
    dropped = [c.name for c in inferred.columns if c.kind == "drop"]
    if dropped:
        lines.append(f"  drop: {_flow(dropped)}   # columns without any value")
    lines.append("columns:")
    for col in inferred.columns:
        if col.kind == "drop":
            continue
        body = {"kind": col.kind, **({"categories": col.categories} if col.categories else {})}
        lines.append(f"  {_q(col.name)}: {_flow(body) if len(body) > 1 else col.kind}   # {col.why}")
    if inferred.target is not None:
        why = "--target" if inferred.target_given else "SUGGESTED (--target COL to choose another)"
        lines.append(f"target: {_q(inferred.target)}   # {why}")
    lines.append(f"task: {inferred.task}")
    if inferred.qi:
        why = (
            "--qi"
            if inferred.qi_given
            else "SUGGESTED quasi-identifiers: the attacker's background knowledge"
        )
        lines.append(f"qi_sets:   # {why}")
        lines.append(f"  {'given' if inferred.qi_given else 'suggested'}: {_flow(inferred.qi)}")
    if inferred.sensitive:
        why = "--sensitive" if inferred.sensitive_given else "SUGGESTED: what an attacker would infer"
        lines.append(f"sensitive: {_flow(inferred.sensitive)}   # {why}")
    if inferred.drop_na_target:
        lines.append("preprocess: {drop_na_target: true}   # the target has missing values: drop those rows")
    return "\n".join(lines) + "\n"


def _q(value: str) -> str:
    if PLAIN.fullmatch(value) and value.lower() not in YAML_WORDS:
        return value
    return json.dumps(value)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_q(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _q(str(value))


def check_yaml(text: str, name: str) -> None:
    """Build the spec from ``text`` and load its data (relative paths from the working directory).

    Raises
    ------
    ConfigError, DataError
        Whatever the loader says about it.
    """
    from harness.datasets import load_dataset
    from harness.spec import DatasetSpec

    spec = DatasetSpec.from_dict(yaml.safe_load(text), name=name)
    load_dataset(spec)


__all__ = ["check_yaml", "render_yaml"]
