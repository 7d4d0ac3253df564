"""`privbench report` on a real quick run, with report.html rendered in headless Chromium.

The report itself carries no script, and it travels alone: its figures are embedded as base64
PNG (tracker issue 28). The test writes a copy of report.html into an empty tmp_path folder
(nothing next to it to load) with a small script that, on window load, writes each image's
``naturalWidth`` into a ``data-`` attribute; ``chromium --headless --dump-dom`` prints the DOM
after loading, which is parsed with the standard library. A broken image has naturalWidth 0.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import Runner

pytestmark = pytest.mark.slow

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHECK_SCRIPT = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("img").forEach(function (img) {
    img.setAttribute("data-natural-width", String(img.naturalWidth));
  });
  document.body.setAttribute("data-checked", "1");
});
</script>"""
TABLE_CAPTIONS = (
    "Trials by status",
    "Privacy metrics",
    "Utility metrics",
    "Fidelity metrics",
    "Win/draw/lose vs",
    "Optimisation paths",
    "Bayesian sign test vs the oracle",
    "Privacy–utility trade-off score (fixed scale)",
    "Which privacy outputs tell the raw data from new individuals",
    "Cost per generator variant",
    "Variants per minute per generator",
)
FIGURES = (
    "privacy_utility",
    "pareto",
    "bayes_sign_test",
    "k_threshold",
    "dcr_holdout",
    "box_privacy_adult",
    "box_utility_adult",
    "box_fidelity_adult",
    "cost",
)


def chromium() -> str:
    """Path of a Chromium binary (``PRIVBENCH_CHROMIUM`` or the usual names); fails the test without one."""
    candidates = [os.environ.get("PRIVBENCH_CHROMIUM", ""), *CHROMIUM_NAMES]
    for name in candidates:
        found = shutil.which(name) if name else None
        if found:
            return found
    pytest.fail(
        "headless Chromium is required to check report.html: install it (Debian/Ubuntu: `apt-get install "
        "chromium`) or point PRIVBENCH_CHROMIUM at a Chromium/Chrome binary"
    )


class _DomScan(HTMLParser):
    """Collects <img> attributes, <caption> texts and the body's data-checked flag."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []
        self.captions: list[str] = []
        self.checked = False
        self._in_caption = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "img":
            self.images.append(values)
        elif tag == "caption":
            self._in_caption = True
            self.captions.append("")
        elif tag == "body" and values.get("data-checked") == "1":
            self.checked = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self._in_caption = False

    def handle_data(self, data: str) -> None:
        if self._in_caption:
            self.captions[-1] += data


def render_dom(report_html: Path, work: Path) -> _DomScan:
    """Load a checking copy of ``report_html``, alone in a folder, in headless Chromium; parse the DOM."""
    page = report_html.read_text(encoding="utf-8")
    assert "<head>" in page and "</body>" in page
    page = page.replace("</body>", f"{CHECK_SCRIPT}\n</body>", 1)
    work = work / "alone"
    work.mkdir(exist_ok=True)
    wrapper = work / "check_report.html"
    wrapper.write_text(page, encoding="utf-8")
    command = [
        chromium(),
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--user-data-dir={work / 'chromium-profile'}",
        "--virtual-time-budget=10000",
        "--dump-dom",
        wrapper.as_uri(),
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"chromium failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    scan = _DomScan()
    scan.feed(proc.stdout)
    assert scan.checked, f"the load handler did not run; chromium stderr:\n{proc.stderr[-3000:]}"
    return scan


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of a real quick run: 3 generators × 3 split seeds on 1000 adult rows, default suite + reid_score."""
    from tests.conftest import PRIVBENCH, REPO

    tmp = tmp_path_factory.mktemp("quick_report")
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
    }

    def run(*args: str) -> str:
        proc = subprocess.run(
            [*PRIVBENCH, *args], cwd=tmp, env=env, capture_output=True, text=True, timeout=900
        )
        assert proc.returncode == 0, f"privbench {' '.join(args)} failed:\n{proc.stderr[-4000:]}"
        return proc.stdout

    run(
        "run", "-m", "generator=identity,independent_marginals,uniform", "gen_seed=0", "split_seed=0,1,2",
        "dataset=adult", "profile=quick", "data.max_rows=1000", "+metric@suite.metrics.reid_score=reid_score",
    )  # fmt: skip
    (run_dir,) = (tmp / "results" / "default").iterdir()
    run("report", str(run_dir), "--baseline", "real")
    return run_dir / "report"


def test_report_html_renders_every_table_and_figure(quick_report: Path, tmp_path: Path) -> None:
    html = quick_report / "report.html"
    dom = render_dom(html, tmp_path)
    pngs = sorted((quick_report / "figures").glob("*.png"))
    assert {p.stem for p in pngs} >= set(FIGURES)
    sources = [str(img.get("src")) for img in dom.images]
    assert len(sources) == len(pngs) and all(s.startswith("data:image/png;base64,") for s in sources)
    not_loaded = [img.get("alt") for img in dom.images if int(img.get("data-natural-width") or 0) <= 0]
    assert not not_loaded, f"images that did not load: {not_loaded}"
    for caption in TABLE_CAPTIONS:
        assert any(c.startswith(caption) for c in dom.captions), (
            f"table {caption!r} missing from {dom.captions}"
        )
    text = html.read_text(encoding="utf-8")
    # identity is a reference: two methods are compared, so no Friedman ranks (3 are needed) and no CD
    # diagram; 3 split seeds are 3 blocks: no Wilcoxon test can reach p < 0.05 (2/2^3) (tracker issue 16).
    omitted = re.findall(r"Table omitted: [^<]*", text)
    assert len(omitted) == 2, omitted
    assert "at least 3 treatments" in omitted[0] and "too few blocks paired with the control" in omitted[1]
    assert len(re.findall("Figure skipped", text)) == 2 and "Critical-difference diagram" in text
    assert text.index("Verdict") < text.index("Overview") and "3 more split seeds (6 blocks)" in text
    assert '<img src="figures/' not in text
    assert "<script" not in text
    assert not re.search(r'(src|href)="(https?:)?//', text), "the report must not reference the network"
    assert "privbench" in text and "Report settings" in text and "Versions" in text


def test_a_broken_image_is_detected(quick_report: Path, tmp_path: Path) -> None:
    """The check itself works: an embedded image whose bytes are not a PNG has naturalWidth 0."""
    copy = tmp_path / "report"
    shutil.copytree(quick_report, copy)
    page = (copy / "report.html").read_text(encoding="utf-8")
    start = page.index('src="data:image/png;base64,') + len('src="data:image/png;base64,')
    page = page[:start] + "AAAA" + page[page.index('"', start) :]
    (copy / "report.html").write_text(page, encoding="utf-8")
    dom = render_dom(copy / "report.html", tmp_path)
    broken = [img for img in dom.images if int(img.get("data-natural-width") or 0) <= 0]
    assert len(broken) == 1 and broken[0] is dom.images[0]


def test_report_settings_flags_and_file(quick_report: Path, privbench: Runner, tmp_path: Path) -> None:
    """Flags and RUN_DIR/report.yaml choose the comparisons; a missing treatment omits the table with a note."""
    run_dir = quick_report.parent
    # identity made a method (only real_holdout is a reference): three methods can be ranked
    (run_dir / "report.yaml").write_text(
        "control: uniform\nrank_metrics: [ks_complement]\nreferences: [real_holdout]\n"
    )
    try:
        privbench(
            "report",
            str(run_dir),
            "-o",
            str(tmp_path / "r1"),
            "--utility",
            "ml_efficacy/random_forest:roc_auc",
        )
        markdown = (tmp_path / "r1" / "report.md").read_text()
        # the control is uniform; its 3 blocks cannot reach p < 0.05, so the table says so (issue 16)
        assert "Table omitted: no comparison with the control 'uniform': too few blocks paired" in markdown
        assert "| generator | ks_complement ↑ |" in markdown
        privbench(
            "report", str(run_dir), "-o", str(tmp_path / "r2"), "--control", "nope", "--baseline", "nope"
        )
        markdown = (tmp_path / "r2" / "report.md").read_text()
        assert "Table omitted: control 'nope' is not a generator variant" in markdown
        assert "Table omitted: no column to compare with the baseline" in markdown
    finally:
        (run_dir / "report.yaml").unlink()
    bad = privbench("report", str(run_dir), "-o", str(tmp_path / "r3"), "--alpha", "2", check=False)
    assert bad.returncode == 2 and "alpha" in bad.stderr
