"""Real-browser test: a MaxSim explorer URL reproduces its view (pair, query, toggles) and the
heatmaps and delta bars render in headless Chromium."""

from tests.support.browser import ROOT, needs_browser

pytestmark = needs_browser


def test_maxsim_url_reproduces_the_view(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2600})
    page.goto(app_server + "/maxsim?dataset=nevir&pair=1125-3&q=q2&merge=true&punct=false", timeout=60_000)
    page.get_by_role("heading", name="MaxSim explorer").wait_for(timeout=90_000)
    page.get_by_text("Gold cue").first.wait_for(timeout=60_000)
    plots = page.locator(".js-plotly-plot")
    plots.nth(1).wait_for(timeout=90_000)  # the heatmaps and the delta bars
    assert "pair=1125-3" in page.get_by_role("link", name="open in the pair inspector").get_attribute("href")
    heat = plots.first.inner_text()
    assert "S =" in heat and "word pieces merged" in heat
    toggle = page.locator('[data-testid="stCheckbox"]')
    assert toggle.filter(has_text="Merge word pieces").locator("input").is_checked()
    assert not toggle.filter(has_text="Punctuation").locator("input").is_checked()
    page.get_by_text("Verdict").first.wait_for(timeout=30_000)
    assert page.get_by_text("Dataset", exact=True).count() == 1  # app.py ran: the shared sidebar is there
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "maxsim.png"), full_page=True)
    page.close()
