"""One figure style for the whole report: print-readable, colour-blind safe.

Sans-serif text of at least 9 pt, a light grid, seaborn's "colorblind" palette, PNG at
200 dpi plus a PDF with embedded TrueType fonts. The style is applied in a
:func:`figure_style` context, so importing the report never changes global matplotlib
settings; figures are drawn on :class:`matplotlib.figure.Figure` objects with the Agg
canvas and never touch pyplot's state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib as mpl
import seaborn as sns
from cycler import cycler
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PALETTE_NAME = "colorblind"
PALETTE_SIZE = 10  # distinct colours of the palette; beyond this they repeat
DPI = 200
FORMATS: tuple[str, ...] = ("png", "pdf")
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def style_rc() -> dict[str, Any]:
    """The rcParams of the report style."""
    rc: dict[str, Any] = {}
    rc.update(sns.axes_style("whitegrid"))
    rc.update(
        {
            "font.family": "sans-serif",
            "font.sans-serif": ["Arial", "Helvetica", "Liberation Sans", "DejaVu Sans"],
            "font.size": 9,
            "axes.titlesize": 10,
            "axes.labelsize": 9.5,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "legend.fontsize": 9,
            "legend.title_fontsize": 9,
            "figure.titlesize": 11,
            "axes.edgecolor": "0.35",
            "axes.linewidth": 0.8,
            "grid.color": "0.88",
            "grid.linewidth": 0.6,
            "lines.linewidth": 1.2,
            "patch.linewidth": 0.6,
            "axes.prop_cycle": cycler(color=sns.color_palette(PALETTE_NAME)),
            "savefig.dpi": DPI,
            "savefig.bbox": None,  # constrained layout already fits every label
            "pdf.fonttype": 42,
            "ps.fonttype": 42,
        }
    )
    return rc


@contextmanager
def figure_style() -> Iterator[None]:
    """Apply the report style inside a ``with`` block."""
    rc: Any = style_rc()  # matplotlib's stubs type the keys as a Literal union
    with mpl.rc_context(rc):
        yield


def palette(names: Iterable[str]) -> dict[str, tuple[float, float, float]]:
    """A stable colour per name (sorted), from the colour-blind palette (cycled beyond 10)."""
    ordered = sorted(dict.fromkeys(names))
    colours = sns.color_palette(PALETTE_NAME, n_colors=PALETTE_SIZE)
    return {name: tuple(colours[i % PALETTE_SIZE]) for i, name in enumerate(ordered)}


def new_figure(width: float, height: float) -> Figure:
    """A figure (inches) with constrained layout and an Agg canvas, outside pyplot."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, directory: Path, stem: str) -> list[Path]:
    """Save ``fig`` as ``stem.png`` (200 dpi) and ``stem.pdf`` under ``directory``; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in FORMATS:
        path = directory / f"{stem}.{fmt}"
        fig.savefig(path, format=fmt, dpi=DPI)
        paths.append(path)
    return paths
