"""report.html in a real browser (headless Chromium): every image decodes, the console stays
silent, no table cell wraps, and the verdict box fits the first 1400x900 screen.

Skips, saying why, where no Chromium is installed; `.ci/install-browser` installs it (CI runs it
before the tests)."""

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_fixtures import make_run

from terra_sim.analysis.report import build_report

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH, HEIGHT = 1400, 900

# Put first in <head>: it hears errors from the start, then, once the page and its images have
# loaded, writes what it measured into the page for --dump-dom to carry out.
PROBE = """<script>
window.__errors = [];
window.addEventListener("error", e => window.__errors.push(
  e.message || ("failed to load " + (e.target && e.target.tagName))), true);
// Drawing an image on a canvas decodes it there and then; a decoded plot has pixels that
// differ from its first one.
const decoded = img => {
  if (!img.complete || img.naturalWidth === 0) return false;
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 4; i < px.length; i += 4) {
    if (px[i] !== px[0] || px[i + 1] !== px[1] || px[i + 2] !== px[2]) return true;
  }
  return false;
};
window.addEventListener("load", () => {
  const images = [...document.images].map(img => ({alt: img.alt, ok: decoded(img)}));
  const lines = el => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  };
  const wrapped = [...document.querySelectorAll("td, th")].filter(c => lines(c) > 1)
    .map(c => c.textContent);
  const box = document.querySelector("section.box");
  const rect = box ? box.getBoundingClientRect().toJSON() : null;
  const out = document.createElement("pre");
  out.id = "probe-result";
  out.textContent = JSON.stringify({images, wrapped, box: rect, errors: window.__errors,
    viewport: [window.innerWidth, window.innerHeight]});
  document.body.appendChild(out);
});
</script>"""


def _browser() -> str | None:
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


def _probe(browser: str, page: Path, width: int, height: int) -> dict:
    """Load the page in the browser at this window size and return what the probe measured,
    with the browser's console lines."""
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={width},{height}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=10000", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=180)
    found = re.search(r"<pre id=\"probe-result\">(.*?)</pre>", done.stdout, re.S)
    assert found, f"the page did not finish loading in {browser}:\n{done.stderr[-2000:]}"
    result = json.loads(html.unescape(found.group(1)))
    # The report has no script of its own: any console line comes from a fault.
    result["console"] = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return result


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> tuple[str, Path, int]:
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium or Chrome on the PATH: the report's browser test needs one "
                    "(`apt-get install chromium`, or run .ci/install-browser)")
    tmp = tmp_path_factory.mktemp("browser")
    # Two player counts and data marked approximate: the tallest verdict box the fixture makes.
    report = build_report(make_run(tmp / "run"), out=tmp / "rep", formats="html")
    text = (report.out_dir / "report.html").read_text(encoding="utf-8")
    page = report.out_dir / "probed.html"
    page.write_text(text.replace("<head>", "<head>" + PROBE, 1), encoding="utf-8")
    return browser, page, len(list((report.out_dir / "plots").glob("*.png")))


@pytest.fixture(scope="module")
def page(probed) -> dict:
    browser, path, pngs = probed
    return {**_probe(browser, path, WIDTH, HEIGHT), "pngs": pngs}


def test_every_image_decodes(page):
    assert len(page["images"]) == page["pngs"] > 0
    assert [i["alt"] for i in page["images"] if not i["ok"]] == []


def test_the_console_shows_no_error(page):
    assert page["errors"] == [] and page["console"] == []


def test_no_table_cell_wraps(page, probed):
    assert page["wrapped"] == []
    # In a narrow window too: wide tables scroll sideways rather than break their cells.
    browser, path, _ = probed
    assert _probe(browser, path, 900, HEIGHT)["wrapped"] == []


def test_the_verdict_box_is_on_the_first_screen(page):
    width, height = page["viewport"]
    assert width >= WIDTH - 20 and height >= HEIGHT - 100  # the window we asked for
    box = page["box"]
    assert box is not None, "no verdict box (section.box) in the page"
    assert box["top"] >= 0 and box["left"] >= 0
    assert box["bottom"] <= height and box["right"] <= width
