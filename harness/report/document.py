"""A tiny document model written out as Markdown and as static HTML.

The report index is a list of blocks (headings, paragraphs, tables, figures, preformatted
text); :func:`to_markdown` and :func:`to_html` render the same list, so every table and
figure appears in both. Sections added later (statistical tests, Pareto fronts) are just
more blocks. The HTML is one self-contained page: inline CSS, no script, no network
reference, and its figures embedded as base64 PNG (given the report folder), so it can be
mailed or archived alone; the table files, PDFs and the configuration are relative links.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.report import render
from harness.report.render import DisplayTable


@dataclass(frozen=True)
class Heading:
    """Section heading (level 1 is the title)."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """Plain text (no markup)."""

    text: str


@dataclass(frozen=True)
class Bullets:
    """A list of plain-text items."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class TableBlock:
    """A table with a caption and links to its files (format name → relative path)."""

    table: DisplayTable
    caption: str
    files: dict[str, str] = field(default_factory=dict)
    note: str | None = None


@dataclass(frozen=True)
class FigureBlock:
    """A figure (relative PNG and PDF paths), or the reason it was skipped."""

    caption: str
    png: str | None = None
    pdf: str | None = None
    skipped: str | None = None


@dataclass(frozen=True)
class Preformatted:
    """Verbatim text such as the experiment configuration."""

    text: str


@dataclass(frozen=True)
class Link:
    """A sentence ending in a link to a file next to the report (e.g. the configuration)."""

    text: str
    href: str


Block = Heading | Paragraph | Bullets | TableBlock | FigureBlock | Preformatted | Link


def anchor(text: str) -> str:
    """The id of a heading (GitHub style: lower case, spaces to dashes)."""
    return re.sub(r"[^a-z0-9 _-]", "", text.lower()).strip().replace(" ", "-")


def to_markdown(blocks: list[Block]) -> str:
    """Render blocks as GitHub-flavoured Markdown."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"{'#' * block.level} {block.text}\n")
        elif isinstance(block, Paragraph):
            parts.append(block.text + "\n")
        elif isinstance(block, Bullets):
            parts.append("".join(f"- {item}\n" for item in block.items))
        elif isinstance(block, Link):
            parts.append(f"{block.text} ([{block.href}]({block.href}))\n")
        elif isinstance(block, TableBlock):
            text = f"**{block.caption}**\n\n" + render.to_markdown(block.table)
            if block.note:
                text += f"\n_{block.note}_\n"
            if block.files:
                links = " · ".join(f"[{name}]({path})" for name, path in block.files.items())
                text += f"\nFiles: {links}\n"
            parts.append(text)
        elif isinstance(block, FigureBlock):
            if block.png is None:
                parts.append(f"> **Figure skipped** — {block.caption} Reason: {block.skipped}.\n")
            else:
                pdf = f" ([PDF]({block.pdf}))" if block.pdf else ""
                parts.append(f"![{block.caption}]({block.png})\n\n_{block.caption}_{pdf}\n")
        else:
            fence = "`" * max(3, _longest_run(block.text, "`") + 1)
            parts.append(f"{fence}text\n{block.text.rstrip()}\n{fence}\n")
    return "\n".join(parts)


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(f"{re.escape(char)}+", text)
    return max((len(r) for r in runs), default=0)


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #222;
       max-width: 1200px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.6em; border-bottom: 2px solid #ddd; padding-bottom: .3em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #eee; padding-bottom: .2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
nav ul { columns: 2; }
.table-wrap { overflow-x: auto; margin: .5em 0 1.5em; }
table.results { border-collapse: collapse; font-size: .88em; }
table.results caption { caption-side: top; text-align: left; font-weight: 600; padding: .3em 0; }
table.results th, table.results td { padding: .25em .6em; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
table.results thead th { border-bottom: 2px solid #555; text-align: left; }
table.results th.num, table.results td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.results tr.group-start td { border-top: 1.5px solid #999; }
table.results strong { color: #000; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .9em; color: #444; }
.skipped { background: #fff6e0; border-left: 4px solid #e0a800; padding: .5em .8em; }
.note { font-size: .9em; color: #555; }
pre { background: #f6f8fa; padding: .8em; overflow-x: auto; font-size: .85em; }
"""


def embedded_src(png: str, base_dir: Path | None) -> str:
    """A ``data:`` URI of the PNG under ``base_dir`` (the relative path when there is none or it is missing)."""
    path = None if base_dir is None else Path(base_dir) / png
    if path is None or not path.is_file():
        return png
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def to_html(title: str, blocks: list[Block], *, base_dir: Path | None = None) -> str:
    """Render blocks as one static HTML page (inline CSS, no script).

    With ``base_dir`` (the report folder) every figure is embedded as a base64 PNG, so the page
    needs no other file to be read; downloads (tables, PDFs, configuration) stay relative links.
    """
    body: list[str] = []
    toc = [b for b in blocks if isinstance(b, Heading) and b.level == 2]
    for block in blocks:
        if isinstance(block, Heading):
            level = min(max(block.level, 1), 6)
            body.append(f'<h{level} id="{anchor(block.text)}">{html.escape(block.text)}</h{level}>')
            if level == 1 and toc:
                items = "".join(
                    f'<li><a href="#{anchor(h.text)}">{html.escape(h.text)}</a></li>' for h in toc
                )
                body.append(f"<nav><ul>{items}</ul></nav>")
        elif isinstance(block, Paragraph):
            body.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Bullets):
            body.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, Link):
            href = html.escape(block.href)
            body.append(f'<p>{html.escape(block.text)} (<a href="{href}">{href}</a>)</p>')
        elif isinstance(block, TableBlock):
            body.append(
                '<div class="table-wrap">' + render.to_html(block.table, caption=block.caption) + "</div>"
            )
            if block.note:
                body.append(f'<p class="note">{html.escape(block.note)}</p>')
            if block.files:
                links = " · ".join(
                    f'<a href="{html.escape(path)}">{html.escape(name)}</a>'
                    for name, path in block.files.items()
                )
                body.append(f'<p class="note">Files: {links}</p>')
        elif isinstance(block, FigureBlock):
            if block.png is None:
                body.append(
                    f'<p class="skipped"><strong>Figure skipped</strong> — {html.escape(block.caption)} '
                    f"Reason: {html.escape(str(block.skipped))}.</p>"
                )
            else:
                pdf = f' (<a href="{html.escape(block.pdf)}">PDF</a>)' if block.pdf else ""
                body.append(
                    f'<figure><img src="{html.escape(embedded_src(block.png, base_dir))}" '
                    f'alt="{html.escape(block.caption)}">'
                    f"<figcaption>{html.escape(block.caption)}{pdf}</figcaption></figure>"
                )
        else:
            body.append(f"<pre>{html.escape(block.text)}</pre>")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
