"""Descriptions of registered configs (``privbench list`` and ``privbench describe``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.errors import PrivbenchError, unknown_name
from harness.instantiate import import_target, split_config
from harness.registry import config_path, names, read_config

PARAMETER_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(?P<value>[^#]*)(?:#\s*(?P<comment>.*))?$")
HIDDEN_KEYS = frozenset({"_target_", "check_params", "defaults"})


@dataclass(frozen=True)
class Parameter:
    """One parameter of a generator or metric as its YAML declares it.

    Attributes
    ----------
    name : str
    default : object
        The value in the YAML (what a run uses unless overridden).
    doc : str
        The YAML's comment on that line: meaning, valid values or range, the paper's grid.
    """

    name: str
    default: object
    doc: str


def describe(group: str) -> list[tuple[str, str]]:
    """(name, summary) for every config of ``group``.

    Generators and metrics are summarised by the first docstring line of their class;
    datasets, suites, experiments and profiles by their ``description`` key or first comment.
    """
    out = []
    for name in names(group):
        try:
            out.append((name, _summary(group, name) + _availability(group, name)))
        except PrivbenchError as exc:
            out.append((name, f"(invalid: {exc})"))
    return out


def _availability(group: str, name: str) -> str:
    """`` [needs privbench[EXTRA]: not installed]`` for a generator whose optional extra is missing."""
    if group != "generator":
        return ""
    target, _, _ = split_config(read_config(group, name))
    cls = import_target(target)
    requires = getattr(cls, "requires", None)
    if requires is None or not hasattr(cls, "missing_extra") or cls.missing_extra() is None:
        return ""
    return f" [needs privbench[{requires[0]}]: not installed]"


def parameters(group: str, name: str) -> list[Parameter]:
    """The parameters of a generator or metric config with their defaults and documented ranges."""
    data = read_config(group, name)
    comments: dict[str, str] = {}
    for line in config_path(group, name).read_text().splitlines():
        match = PARAMETER_LINE.match(line)
        if match and match.group("comment"):
            comments[match.group(1)] = match.group("comment").strip()
    return [
        Parameter(key, value, comments.get(key, ""))
        for key, value in data.items()
        if key not in HIDDEN_KEYS and not key.startswith("_")
    ]


def describe_one(name: str) -> list[str]:
    """The lines ``privbench describe NAME`` prints: group, summary, parameters (generator or metric).

    Raises
    ------
    ConfigError
        If no generator, metric, dataset, suite, experiment or profile has that name.
    """
    for group in ("generator", "metric", "dataset", "suite", "experiment", "profile"):
        if name not in names(group):
            continue
        lines = [
            f"{name} ({group}, {config_path(group, name)})",
            f"  {_summary(group, name)}{_availability(group, name)}",
        ]
        if group in ("generator", "metric"):
            params = parameters(group, name)
            lines.append("  parameters (default; meaning and valid values):" if params else "  no parameters")
            width = max((len(p.name) for p in params), default=0)
            for p in params:
                lines.append(f"    {p.name:<{width}} = {p.default!r}" + (f"   # {p.doc}" if p.doc else ""))
            lines.append(
                f"  set one with {group}.NAME=VALUE; in a sweep of several {group}s: "
                f"{group}_overrides.{name}.NAME=VALUE"
            )
        return lines
    every = sorted({n for g in ("generator", "metric", "dataset") for n in names(g)})
    raise unknown_name("generator, metric or dataset", name, every)


def _summary(group: str, name: str) -> str:
    data = read_config(group, name)
    if group in ("generator", "metric"):
        target, _, _ = split_config(data)
        doc = (import_target(target).__doc__ or "").strip().splitlines()
        summary = doc[0] if doc else target
        comment = _first_comment(group, name)
        return f"{summary} Preset: {comment}" if "preset" in comment else summary
    if data.get("description"):
        return " ".join(str(data["description"]).split())
    if group == "suite":
        metrics = [next(iter(d.values())) for d in data.get("defaults", []) if isinstance(d, dict)]
        return "metrics: " + ", ".join(str(m) for m in metrics)
    return _first_comment(group, name)


def _first_comment(group: str, name: str) -> str:
    from harness.registry import config_path

    for line in config_path(group, name).read_text().splitlines():
        if line.startswith("#") and "@package" not in line:
            return line.lstrip("# ").strip()
    return ""
