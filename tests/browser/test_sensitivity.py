"""Real browser: the sensitivity heatmap draws the published columns, a click on a cell lists its
items (and goes into the URL), the CSV / PNG downloads work, and the CANNOT tab opens from its URL."""

import csv
import io

from tests.support.browser import ROOT, click_point, download, needs_browser, settle, wait_for_url

pytestmark = needs_browser
NAV = "Perturbation sensitivity"


def _open(page, url: str) -> None:
    """Open the page by its URL and wait for the router's sidebar and the page's title."""
    page.goto(url, timeout=60_000)
    page.locator('[data-testid="stSidebar"]').get_by_text("Dataset", exact=True).wait_for(timeout=60_000)
    page.get_by_role("heading", name=NAV).wait_for(timeout=90_000)


def test_heatmap_click_lists_items_and_cannot_tab_opens(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2400})
    _open(page, app_server + "/sensitivity")
    plot = page.locator(".js-plotly-plot").first
    plot.locator(".scatterlayer .point").first.wait_for(timeout=90_000)
    ticks = plot.locator(".xtick text").evaluate_all("els => els.map(e => e.textContent)")  # SVG text
    assert {"BLEURT20", "NegBLEURT", "NegMPNet"} <= set(ticks), ticks  # the paper's columns, at the right
    notes = plot.locator(".annotation-text").evaluate_all("els => els.map(e => e.textContent)")
    assert "run here" in notes and "published" in notes, notes  # one label each side of the dotted line
    settle(page, ".js-plotly-plot")
    click_point(page, plot.locator(".scatterlayer .point").first)  # row codemix, first stored run
    href = wait_for_url(page, "sens_pert=critical_id4_codemix")
    assert "sens_model=" in href, href
    page.get_by_text("showing", exact=False).last.wait_for(timeout=60_000)
    rows = list(csv.DictReader(io.StringIO(download(page, "Download these items (CSV)").decode())))
    assert rows and {r["perturbation"] for r in rows} == {"critical_id4_codemix"}
    assert {"reference", "candidate", "perturbed", "score_candidate", "score_perturbed", "score_empty", "ratio"} <= set(
        rows[0]
    )
    assert download(page, "PNG").startswith(b"\x89PNG")
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "sensitivity.png"), full_page=True)
    page.goto(app_server + "/sensitivity?view=CANNOT", timeout=60_000)
    page.get_by_text("Lower similarity on negated pairs", exact=False).wait_for(timeout=90_000)
    page.locator(".js-plotly-plot .boxlayer").first.wait_for(timeout=60_000)
    assert "view=CANNOT" in page.evaluate("location.href")
    page.screenshot(path=str(out / "sensitivity-cannot.png"), full_page=True)
    page.close()
