"""One-line descriptions of registered configs (for ``privbench list``)."""

from __future__ import annotations

from harness.errors import PrivbenchError
from harness.instantiate import import_target, split_config
from harness.registry import names, read_config


def describe(group: str) -> list[tuple[str, str]]:
    """(name, summary) for every config of ``group``.

    Generators and metrics are summarised by the first docstring line of their class;
    datasets, suites, experiments and profiles by their ``description`` key or first comment.
    """
    out = []
    for name in names(group):
        try:
            out.append((name, _summary(group, name)))
        except PrivbenchError as exc:
            out.append((name, f"(invalid: {exc})"))
    return out


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
