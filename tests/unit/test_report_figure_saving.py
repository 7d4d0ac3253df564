"""Figures rendered by forked children (``background_saving``) and box panels drawn with ``bxp``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib import cbook
from matplotlib.artist import Artist

from harness.report.boxes import draw_boxes
from harness.report.style import (
    FIGURE_WORKERS_ENV,
    background_saving,
    figure_style,
    figure_workers,
    new_figure,
    save_figure,
)


def line_figure(title: str):  # type: ignore[no-untyped-def]
    fig = new_figure(3, 2)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 0, 2])
    ax.set_title(title)
    return fig


class Exploding(Artist):
    """An artist whose drawing fails (as a figure with a bad value would)."""

    def draw(self, renderer):  # type: ignore[no-untyped-def]
        raise ValueError("cannot draw this artist")


def test_background_saving_writes_every_figure_by_the_end_of_the_block(tmp_path: Path) -> None:
    with figure_style(), background_saving(workers=2):
        returned = [save_figure(line_figure(f"figure {i}"), tmp_path, f"fig{i}") for i in range(5)]
    expected = [[tmp_path / f"fig{i}.png", tmp_path / f"fig{i}.pdf"] for i in range(5)]
    assert returned == expected
    for paths in expected:
        assert all(path.is_file() and path.stat().st_size > 1000 for path in paths)
        assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and paths[1].read_bytes()[:5] == b"%PDF-"


def test_background_png_equals_the_inline_png(tmp_path: Path) -> None:
    with figure_style():
        save_figure(line_figure("same"), tmp_path / "inline", "f")
        with background_saving(workers=2):
            save_figure(line_figure("same"), tmp_path / "child", "f")
    assert (tmp_path / "inline" / "f.png").read_bytes() == (tmp_path / "child" / "f.png").read_bytes()


def test_a_figure_that_fails_in_its_child_raises_in_the_caller(tmp_path: Path) -> None:
    with (
        pytest.raises(ValueError, match="cannot draw this artist"),
        figure_style(),
        background_saving(workers=2),
    ):
        save_figure(line_figure("fine"), tmp_path, "fine")
        broken = line_figure("broken")
        broken.add_artist(Exploding())
        save_figure(broken, tmp_path, "broken")
    assert (tmp_path / "fine.png").is_file()
    assert not (tmp_path / "broken.png").exists() or (tmp_path / "broken.png").stat().st_size == 0


def test_figure_workers_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FIGURE_WORKERS_ENV, "0")
    assert figure_workers() == 0
    monkeypatch.setenv(FIGURE_WORKERS_ENV, "3")
    assert figure_workers() == 3
    monkeypatch.delenv(FIGURE_WORKERS_ENV)
    assert 0 <= figure_workers() <= 4


def test_draw_boxes_uses_matplotlib_box_statistics_per_label() -> None:
    rng = np.random.default_rng(0)
    data = pd.DataFrame(
        {
            "label": ["a"] * 50 + ["b"] * 30,
            "generator": ["g1"] * 50 + ["g2"] * 30,
            "value": np.concatenate([rng.normal(0, 1, 50), rng.normal(3, 2, 30)]),
        }
    )
    colours = {"g1": (0.1, 0.4, 0.7), "g2": (0.9, 0.6, 0.0)}
    with figure_style():
        fig = new_figure(3, 2)
        ax = fig.add_subplot()
        draw_boxes(ax, data, ["b", "a", "empty"], colours)
    boxes = [patch for patch in ax.patches]
    assert len(boxes) == 2  # "empty" has no values: no box, but its tick
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a", "empty"]
    assert ax.get_ylim() == (2.5, -0.5)  # first label on top
    for box, label in zip(boxes, ["b", "a"]):
        values = data.loc[data["label"] == label, "value"].to_numpy()
        stats = cbook.boxplot_stats(values, whis=1.5)[0]
        xs = box.get_path().vertices[:, 0]
        assert xs.min() == pytest.approx(stats["q1"]) and xs.max() == pytest.approx(stats["q3"])
    face = boxes[0].get_facecolor()
    assert face[:3] == pytest.approx(colours["g2"]) and face[3] == pytest.approx(0.55)
