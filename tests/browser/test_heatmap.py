"""Real browser: a click on a heatmap cell or an error bar lists its pairs (in the URL), the
pair links open, and the PNG / CSV downloads work."""

import csv
import io
import re

import pytest

from tests.support.browser import ROOT, click_point, download, needs_browser, painted, resize, settle, wait_for_url

pytestmark = needs_browser


def _click_point(page, selector: str, index: int = 0) -> None:
    """Click a plotly point (a heatmap cell marker or a bar segment) once the page's script has
    ended and the chart has settled: a figure redrawn after the click would drop it (seen once
    under a load of 7: the error page's segment click never reached the URL)."""
    painted(page, 120)
    settle(page, ".js-plotly-plot")
    click_point(page, page.locator(".js-plotly-plot").first.locator(selector).nth(index))


def _open(page, url: str, heading: str) -> None:
    """Open a page by its URL and wait until the router (app.py's st.navigation) has drawn it."""
    page.goto(url, timeout=60_000)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Per-type heatmap").wait_for(timeout=90_000)
    page.locator('[data-testid="stSidebar"]').get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
    page.get_by_role("heading", name=heading).wait_for(timeout=90_000)


def test_heatmap_cell_click_lists_pairs_that_link_to_the_inspector(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    _open(page, app_server + "/heatmap?dataset=nevir", "Per-type accuracy")
    page.locator(".js-plotly-plot .scatterlayer .point").first.wait_for(timeout=60_000)
    _click_point(page, ".scatterlayer .point", 0)  # top-left cell: best model x sentential
    href = wait_for_url(page, "cell_column=")
    assert "cell_model=" in href and "cell_column=sentential" in href, href
    head = page.get_by_text(re.compile(r"paired accuracy .* on n = [\d,]+ items")).last
    head.wait_for(timeout=60_000)
    page.locator('[data-testid="stDataFrame"]').last.wait_for(timeout=60_000)
    rows = list(csv.DictReader(io.StringIO(download(page, "Download these items (CSV)").decode())))
    # whichever model ranks first: the list holds the n items its caption states, all sentential
    n = int(re.search(r"on n = ([\d,]+) items", head.inner_text()).group(1).replace(",", ""))
    assert n > 0 and len(rows) == n and {r["type"] for r in rows} == {"sentential"}
    assert rows[0]["link"].startswith("inspector?dataset=nevir&pair=")
    assert download(page, "PNG").startswith(b"\x89PNG")
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "heatmap.png"), full_page=True)
    page.goto(app_server + "/" + rows[0]["link"], timeout=60_000)  # the pair link opens the inspector
    page.locator('[data-testid="stSidebar"]').wait_for(timeout=60_000)
    assert "pair=" in page.evaluate("location.href")
    assert page.get_by_text("Page not found").count() == 0
    page.close()


def test_error_segment_click_lists_its_items(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2400})
    _open(page, app_server + "/errors?dataset=excluir", "Error preference")
    page.locator(".js-plotly-plot .barlayer .point").first.wait_for(timeout=60_000)
    _click_point(page, ".barlayer .point", 0)  # the "correct" segment of the best model
    href = wait_for_url(page, "seg_category=")
    assert "dataset=excluir" in href and "seg_model=" in href and "seg_category=correct" in href, href
    page.locator('[data-testid="stDataFrame"]').last.wait_for(timeout=60_000)
    rows = list(csv.DictReader(io.StringIO(download(page, "Download these items (CSV)").decode())))
    assert rows and {r["verdict"] for r in rows} == {"correct"}
    assert rows[0]["link"].startswith("inspector?dataset=excluir&pair=excluir_")
    page.screenshot(path=str(ROOT / "test-results" / "errors.png"), full_page=True)
    page.close()


# Boxes of the heatmap's parts, in CSS px: column width (the x axis over its columns), the
# column-label and cell-text boxes, the model-label boxes and the figure.
_MEASURE = """() => {
  const plot = document.querySelector('.js-plotly-plot');
  const fig = plot.getBoundingClientRect();
  const axis = plot.querySelector('.nsewdrag').getBoundingClientRect();
  const box = el => el.getBoundingClientRect();
  const ticks = [...plot.querySelectorAll('.xaxislayer-above .xtick text')].map(box);
  return {
    figure: [fig.left, fig.width, fig.height],
    axis: [axis.left, axis.width, axis.height],
    columns: ticks.length,
    labels: ticks.map(b => b.width),
    cells: [...plot.querySelectorAll('.heatmaplayer text')].map(t => box(t).width),
    names: [...plot.querySelectorAll('.yaxislayer-above .ytick text')].map(t => box(t).left),
  };
}"""


def test_heatmap_is_sized_to_its_content_at_1400_and_1000_px(app_server, browser):
    """Column labels and cell texts fit their columns, model names are not cut on the left, and
    each model row is tall enough for two lines, at two browser widths, in both modes and with
    ten cue-word columns (drawn in parts of five)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    widths = (1400, 1000)
    for mode in ("mode=accuracy", "mode=difference", "axis=cue"):
        _open(page, app_server + f"/heatmap?dataset=nevir&{mode}", "Per-type accuracy")
        page.locator(".js-plotly-plot .scatterlayer .point").first.wait_for(timeout=60_000)
        for width in widths:  # one load, the window resized for the second width
            if page.viewport_size["width"] != width:
                resize(page, width)
            settle(page, ".js-plotly-plot")
            m = page.evaluate(_MEASURE)
            rows = len(m["names"])
            assert m["columns"] >= 4 and rows >= 4, m
            column = m["axis"][1] / m["columns"]
            assert column >= 60, (width, mode, m)  # not squeezed: room for "37.7% ▾" / "n=440"
            assert max(m["labels"]) <= column, (width, mode, m)
            assert max(m["cells"]) <= column - 4, (width, mode, m)
            assert m["axis"][2] / rows >= 50 and m["figure"][2] >= 56 * rows, (width, mode, m)
            assert min(m["names"]) >= m["figure"][0], (width, mode, m)  # no model name cut
        widths = widths[::-1]  # the next mode loads at the width this one ended at
    page.get_by_text("Very different n: smollm2-135m").first.wait_for(timeout=30_000)
    page.close()


def _answer_after_click(browser, url: str, heading: str, points: str, fragment: str, width: int):
    """Open ``url`` in a laptop-sized window (900 px tall), click its chart's first point and return
    the page and the mark where the click's answer starts, once it is in view."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": 900})
    _open(page, url, heading)
    page.locator(f".js-plotly-plot {points}").first.wait_for(timeout=60_000)
    _click_point(page, points, 0)
    wait_for_url(page, fragment)
    mark = page.get_by_test_id("negviz-answer")
    mark.wait_for(timeout=60_000)
    expect(mark).to_contain_text("What you clicked")
    expect(mark).to_be_in_viewport(timeout=30_000)
    return page, mark


@pytest.mark.parametrize("width", [1400, 1000])
def test_a_cell_click_scrolls_to_its_pairs_and_marks_them(app_server, browser, width):
    """The pairs of a clicked cell were listed ~2,000 px below the cell: the page now scrolls to
    them and marks where they start, at both widths."""
    from playwright.sync_api import expect

    url = app_server + "/heatmap?dataset=nevir"
    page, _ = _answer_after_click(browser, url, "Per-type accuracy", ".scatterlayer .point", "cell_column=", width)
    head = page.get_by_text(re.compile(r"paired accuracy .* on n = [\d,]+ items")).last
    expect(head).to_be_in_viewport(timeout=30_000)
    page.close()


def test_an_error_segment_click_scrolls_to_its_items(app_server, browser):
    """An error segment's items came after the whole lexical section: the page scrolls to them."""
    url = app_server + "/errors?dataset=excluir"
    page, _ = _answer_after_click(browser, url, "Error preference", ".barlayer .point", "seg_category=", 1000)
    page.close()
