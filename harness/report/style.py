"""One figure style for the whole report: print-readable, colour-blind safe.

Sans-serif text of at least 9 pt, a light grid, seaborn's "colorblind" palette, PNG at
200 dpi plus a PDF with embedded TrueType fonts. The style is applied in a
:func:`figure_style` context, so importing the report never changes global matplotlib
settings; figures are drawn on :class:`matplotlib.figure.Figure` objects with the Agg
canvas and never touch pyplot's state.

Rendering a finished figure to PNG and PDF (layout, drawing, font subsetting) is most of a
report's time, and figures do not depend on each other: inside :func:`background_saving`,
:func:`save_figure` hands each figure to a forked child process (at most a few at a time) and
returns at once, so the figures render on the other cores while the report goes on with its
tables; leaving the block waits for them (and renders again in the calling process any figure
whose child failed, so its error is raised as before).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib as mpl
import seaborn as sns
from cycler import cycler
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.forking import fork_children

PALETTE_NAME = "colorblind"
PALETTE_SIZE = 10  # distinct colours of the palette; beyond this they repeat
DPI = 200
FORMATS: tuple[str, ...] = ("png", "pdf")
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
FIGURE_WORKERS_ENV = "PRIVBENCH_FIGURE_WORKERS"
"""Figures rendered at once by :func:`background_saving` (``0``: render in the calling process)."""
MAX_FIGURE_WORKERS = 4


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
    """Save ``fig`` as ``stem.png`` (200 dpi) and ``stem.pdf`` under ``directory``; return the paths.

    Inside :func:`background_saving` the files are written by a child process and exist once
    the block has ended.
    """
    directory.mkdir(parents=True, exist_ok=True)
    if _SAVER is not None:
        return _SAVER.submit(fig, directory, stem)
    return _render(fig, directory, stem)


def _render(fig: Figure, directory: Path, stem: str) -> list[Path]:
    paths = []
    for fmt in FORMATS:
        path = directory / f"{stem}.{fmt}"
        fig.savefig(path, format=fmt, dpi=DPI)
        paths.append(path)
    return paths


class _BackgroundSaver:
    """Forked children that render figures, at most ``workers`` at a time."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.context = multiprocessing.get_context("fork")
        self.running: list[tuple[Any, Figure, Path, str]] = []
        self.failed: list[tuple[Figure, Path, str]] = []

    def submit(self, fig: Figure, directory: Path, stem: str) -> list[Path]:
        while len(self.running) >= self.workers:
            self._reap(self.running.pop(0))
        # A forked child inherits the figure as it is (nothing pickled); the style's rcParams
        # are read when the figure is drawn, so the child renders inside the same style.
        child = self.context.Process(target=_render_in_style, args=(fig, directory, stem), daemon=True)
        child.start()
        self.running.append((child, fig, directory, stem))
        return [directory / f"{stem}.{fmt}" for fmt in FORMATS]

    def _reap(self, entry: tuple[Any, Figure, Path, str]) -> None:
        child, fig, directory, stem = entry
        child.join()
        if child.exitcode != 0:
            self.failed.append((fig, directory, stem))

    def close(self, *, retry_failed: bool = True) -> None:
        while self.running:
            self._reap(self.running.pop(0))
        for fig, directory, stem in self.failed if retry_failed else []:
            with figure_style():
                _render(fig, directory, stem)  # raises the child's error here, in the caller


def _render_in_style(fig: Figure, directory: Path, stem: str) -> None:
    with figure_style():
        _render(fig, directory, stem)


_SAVER: _BackgroundSaver | None = None


def figure_workers() -> int:
    """How many figures :func:`background_saving` renders at once (0: none in the background).

    ``$PRIVBENCH_FIGURE_WORKERS`` if set, else the usable cores (at most
    :data:`MAX_FIGURE_WORKERS`); 0 where ``fork`` is not available, in a daemonic process
    (which may not have children) or on one core.
    """
    return fork_children(FIGURE_WORKERS_ENV, MAX_FIGURE_WORKERS)


@contextmanager
def background_saving(workers: int | None = None) -> Iterator[None]:
    """Render the figures saved inside the block in forked children; wait for them on leaving.

    Parameters
    ----------
    workers : int, optional
        Figures rendered at once (default :func:`figure_workers`); 0 renders each figure in
        the calling process when it is saved, as outside the block.
    """
    global _SAVER
    count = figure_workers() if workers is None else workers
    if count <= 0 or _SAVER is not None:
        yield
        return
    saver = _SAVER = _BackgroundSaver(count)
    try:
        yield
    except BaseException:
        _SAVER = None
        saver.close(retry_failed=False)  # the block's own error is the one to see
        raise
    _SAVER = None
    saver.close()
