"""Write display tables as Markdown, LaTeX (booktabs), HTML and CSV.

A :class:`DisplayTable` holds the cell text, which cells are bold (the best values), which
columns are numeric (right-aligned) and which leading columns group the rows (repeated
values are left blank and a rule separates the groups). The renderers add no dependency:
pandas' ``to_latex`` needs jinja2, which is not a privbench dependency.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import pandas as pd

_LATEX_CHARS: dict[str, str] = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
    "↑": r"$\uparrow$",
    "↓": r"$\downarrow$",
    "→": r"$\rightarrow$",
    "–": "--",
    "…": r"\ldots{}",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "†": r"\dag{}",
}


@dataclass(frozen=True)
class DisplayTable:
    """Cell text of a report table and how to show it.

    Attributes
    ----------
    text : DataFrame
        String cells with flat, string column names (no index is shown).
    bold : DataFrame, optional
        Boolean frame of the same shape: cells to emphasise.
    numeric : frozenset of str
        Columns to right-align.
    group_by : tuple of str
        Leading columns that group rows: a value equal to the one above is left blank and a
        rule is drawn where the first of them changes.
    """

    text: pd.DataFrame
    bold: pd.DataFrame | None = None
    numeric: frozenset[str] = field(default_factory=frozenset)
    group_by: tuple[str, ...] = ()

    def is_bold(self, row: int, col: int) -> bool:
        """Whether cell (row, col) (positions) is emphasised."""
        return self.bold is not None and bool(self.bold.iat[row, col])

    def shown_rows(self) -> list[list[str]]:
        """Cell text with repeated group values blanked."""
        rows = [[str(v) for v in r] for r in self.text.itertuples(index=False, name=None)]
        positions = [list(self.text.columns).index(c) for c in self.group_by]
        shown = [list(r) for r in rows]
        for i in range(1, len(rows)):
            for depth, pos in enumerate(positions):
                same_prefix = all(rows[i][p] == rows[i - 1][p] for p in positions[: depth + 1])
                if same_prefix:
                    shown[i][pos] = ""
        return shown

    def group_starts(self) -> list[bool]:
        """For every row, whether it starts a new group (the first group column changes)."""
        if not self.group_by or self.text.empty:
            return [False] * len(self.text)
        values = self.text[self.group_by[0]].tolist()
        return [i > 0 and values[i] != values[i - 1] for i in range(len(values))]


def to_markdown(table: DisplayTable) -> str:
    """GitHub-flavoured Markdown table; bold cells as ``**text**``."""
    columns = [str(c) for c in table.text.columns]
    if not columns:
        return "_(empty table)_\n"
    header = "| " + " | ".join(_md_escape(c) for c in columns) + " |"
    align = "|" + "|".join("---:" if c in table.numeric else ":---" for c in columns) + "|"
    lines = [header, align]
    for i, row in enumerate(table.shown_rows()):
        cells = []
        for j, value in enumerate(row):
            text = _md_escape(value)
            cells.append(f"**{text}**" if text and table.is_bold(i, j) else text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("\n", " ")


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters and map the report's symbols (±, arrows) to math."""
    return "".join(_LATEX_CHARS.get(ch, ch) for ch in text)


def to_latex(table: DisplayTable, *, caption: str | None = None, label: str | None = None) -> str:
    """A booktabs ``tabular`` (inside a ``table`` float when a caption is given).

    Bold cells are wrapped in ``\\textbf{}``; the document needs ``\\usepackage{booktabs}``.
    """
    columns = [str(c) for c in table.text.columns]
    spec = "".join("r" if c in table.numeric else "l" for c in columns) or "l"
    lines = ["% requires \\usepackage{booktabs}"]
    if caption is not None:
        lines += ["\\begin{table}[htbp]", "\\centering", f"\\caption{{{latex_escape(caption)}}}"]
        if label:
            lines.append(f"\\label{{{label}}}")
    lines += [f"\\begin{{tabular}}{{{spec}}}", "\\toprule"]
    lines.append(" & ".join(latex_escape(c) for c in columns) + r" \\")
    lines.append("\\midrule")
    starts = table.group_starts()
    for i, row in enumerate(table.shown_rows()):
        if starts[i]:
            lines.append("\\midrule")
        cells = []
        for j, value in enumerate(row):
            text = latex_escape(value)
            cells.append(f"\\textbf{{{text}}}" if text and table.is_bold(i, j) else text)
        lines.append(" & ".join(cells) + r" \\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    if caption is not None:
        lines.append("\\end{table}")
    return "\n".join(lines) + "\n"


def to_html(table: DisplayTable, *, caption: str | None = None) -> str:
    """An HTML ``<table>``; bold cells in ``<strong>``, numeric cells with class ``num``."""
    columns = [str(c) for c in table.text.columns]
    out = ['<table class="results">']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    head = "".join(f'<th{_num_class(c, table)} scope="col">{html.escape(c)}</th>' for c in columns)
    out.append(f"<thead><tr>{head}</tr></thead>")
    out.append("<tbody>")
    starts = table.group_starts()
    for i, row in enumerate(table.shown_rows()):
        cells = []
        for j, value in enumerate(row):
            text = html.escape(value)
            if text and table.is_bold(i, j):
                text = f"<strong>{text}</strong>"
            cells.append(f"<td{_num_class(columns[j], table)}>{text}</td>")
        row_class = ' class="group-start"' if starts[i] else ""
        out.append(f"<tr{row_class}>{''.join(cells)}</tr>")
    out.append("</tbody></table>")
    return "\n".join(out) + "\n"


def _num_class(column: str, table: DisplayTable) -> str:
    return ' class="num"' if column in table.numeric else ""


def to_csv(frame: pd.DataFrame) -> str:
    """CSV of a numeric table: the index becomes columns, MultiIndex column names are joined by a space."""
    flat = frame.copy()
    if isinstance(flat.columns, pd.MultiIndex):
        flat.columns = [" ".join(str(p) for p in col if str(p)) for col in flat.columns]
    has_index = any(name is not None for name in flat.index.names)
    if has_index:
        flat = flat.reset_index()
    return str(flat.to_csv(index=False, lineterminator="\n"))
