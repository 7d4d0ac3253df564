"""What the report says about its run: title, the QI set and target, the configuration file.

* :func:`report_title` — the experiment's name, or its description when the run kept Hydra's
  unnamed default (``default``): never "# default" when the run says what it is;
* :func:`roles_text` — per dataset, the QI set the privacy metrics attacked (its columns) and
  the target the utility metrics predicted, from the composed configuration
  (``dataset.qi_sets``, ``dataset.target``) or, failing that, from the metrics' details
  (``qi``, ``target``);
* :func:`write_config` — the full configuration in ``config.yaml`` next to the report, linked
  from ``report.md`` and ``report.html`` instead of printed inline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

CONFIG_FILE = "config.yaml"
UNNAMED = "default"
"""The experiment name of a run that did not set one (``experiments/config.yaml``)."""


@dataclass(frozen=True)
class RunContext:
    """What the composed configuration says about the run."""

    name: str = ""
    description: str = ""
    datasets: dict[str, dict[str, Any]] = field(default_factory=dict)


def run_context(config_text: str | None) -> RunContext:
    """Parse the composed Hydra configuration (anything unreadable gives an empty context)."""
    if not config_text:
        return RunContext()
    try:
        parsed = yaml.safe_load(config_text)
    except yaml.YAMLError:
        return RunContext()
    if not isinstance(parsed, dict):
        return RunContext()
    dataset = parsed.get("dataset")
    datasets = {}
    if isinstance(dataset, dict) and dataset.get("name"):
        datasets[str(dataset["name"])] = dataset
    description = parsed.get("description")
    return RunContext(
        name=str(parsed.get("name") or ""),
        description=" ".join(str(description).split()) if description else "",
        datasets=datasets,
    )


def report_title(title: str, context: RunContext, results: pd.DataFrame) -> str:
    """The page title: ``title`` unless it is the unnamed default, then the description or the datasets."""
    if title and title != UNNAMED:
        return title
    if context.description:
        return context.description
    datasets = sorted(set(results["dataset"].dropna().astype(str)) - {""}) if "dataset" in results else []
    return f"privbench report: {', '.join(datasets)}" if datasets else "privbench report"


def roles_text(frame: pd.DataFrame, context: RunContext) -> dict[str, str]:
    """Per dataset, one line naming the QI set(s) with their columns and the target."""
    out = {}
    for dataset, rows in frame.groupby("dataset", sort=True):
        spec = context.datasets.get(str(dataset), {})
        qi_sets = spec.get("qi_sets") if isinstance(spec.get("qi_sets"), dict) else {}
        used = sorted({str(q) for q in rows["qi_set"].dropna().unique() if str(q)}) or ["default"]
        parts = []
        for name in used:
            columns = qi_sets.get(name) if isinstance(qi_sets, dict) else None
            columns = columns or _detail(rows[rows["qi_set"].astype(str) == name], "qi")
            parts.append(
                f"QI set '{name}': {', '.join(map(str, columns))}" if columns else f"QI set '{name}'"
            )
        target = spec.get("target") or _detail(rows, "target")
        if target:
            parts.append(f"target: {target}")
        out[str(dataset)] = f"{dataset} — " + "; ".join(parts)
    return out


def _detail(rows: pd.DataFrame, key: str) -> Any:
    for text in rows.loc[rows["status"] == "ok", "details"].dropna().astype(str):
        if f'"{key}"' not in text:
            continue
        try:
            value = json.loads(text).get(key)
        except (ValueError, AttributeError):
            continue
        if isinstance(value, str | list) and value:
            return value
    return None


def write_config(out_dir: Path, config_text: str | None) -> Path | None:
    """Write the configuration to ``out_dir/config.yaml`` (None: nothing to write)."""
    if not config_text:
        return None
    path = Path(out_dir) / CONFIG_FILE
    path.write_text(config_text.rstrip() + "\n", encoding="utf-8")
    return path


__all__ = ["CONFIG_FILE", "RunContext", "report_title", "roles_text", "run_context", "write_config"]
