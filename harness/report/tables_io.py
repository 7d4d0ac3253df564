"""Writing a report table's files: Markdown, CSV and LaTeX side by side."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from harness.report import render
from harness.report.render import DisplayTable


@dataclass
class TableWriter:
    """Writes one table as ``.md``, ``.csv`` and ``.tex`` under ``directory`` and remembers the files."""

    directory: Path
    written: dict[str, Path] = field(default_factory=dict)

    def write(self, display: DisplayTable, numbers: pd.DataFrame, stem: str, caption: str) -> dict[str, str]:
        """Write the three files of a table; return format name → path relative to the report."""
        files = {
            "Markdown": (f"{stem}.md", render.to_markdown(display)),
            "CSV": (f"{stem}.csv", render.to_csv(numbers)),
            "LaTeX": (f"{stem}.tex", render.to_latex(display, caption=caption, label=f"tab:{stem}")),
        }
        links = {}
        for name, (filename, text) in files.items():
            path = self.directory / filename
            path.write_text(text, encoding="utf-8")
            relative = f"{self.directory.name}/{filename}"
            self.written[relative] = path
            links[name] = relative
        return links


__all__ = ["TableWriter"]
