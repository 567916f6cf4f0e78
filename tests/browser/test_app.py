"""Real-browser test: the app in headless Chromium finds the leaderboard; URLs reproduce views."""

from tests.support.browser import ROOT, needs_browser

pytestmark = needs_browser


def test_app_loads_and_shows_the_leaderboard(app_server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_server, timeout=60_000)
    page.get_by_role("heading", name="Overview").wait_for(timeout=90_000)
    page.get_by_text("Stored runs").wait_for(timeout=60_000)
    page.locator('[data-testid="stDataFrame"]:visible').first.wait_for(timeout=60_000)  # not the collapsed runs
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    page.get_by_text("Published results").wait_for(timeout=60_000)
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "overview.png"), full_page=True)
    page.close()


def test_url_reproduces_the_dataset_choice(app_server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_server + "/?dataset=excluir", timeout=60_000)
    page.get_by_role("heading", name="Overview").wait_for(timeout=90_000)
    page.get_by_text("ExcluIR").first.wait_for(timeout=60_000)
    page.get_by_text("right rank on excluir").first.wait_for(timeout=60_000)
    page.close()
