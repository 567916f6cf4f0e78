"""Real browser: a shared link with values its view cannot take opens the view and says, above
it and as text, which values it ignored (app.py's router reports them: see tests/pages/test_url_values_page.py)."""

from urllib.parse import quote

from tests.support.browser import needs_browser

pytestmark = needs_browser
WAIT = 90_000


def test_a_shared_link_with_bad_values_says_what_it_ignored(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 1800})
    page.goto(
        app_server
        + "/heatmap?dataset=nevir&min_n=1e309&top_k=inf&axis=bogus&rows=name&mode="
        + quote("[x](https://evil.example)"),
        timeout=WAIT,
    )
    page.get_by_role("heading", name="Per-type accuracy").wait_for(timeout=WAIT)
    notice = page.get_by_text("ignored min_n=1e309", exact=False).first
    notice.wait_for(timeout=WAIT)
    text = notice.inner_text()
    assert "not a finite number (expected a whole number from 1 to 500)" in text
    assert "ignored top_k=inf" in text and "ignored axis=bogus: not one of the values" in text
    assert "ignored mode=[x](https://evil.example)" in text.replace("\u2060", "")  # as text
    assert "rows" not in text and "dataset" not in text, "values the view took are not listed"
    assert page.locator('a[href*="evil.example"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0

    # min_n belongs to the heatmap, not the inspector (the page registry lists each page's keys)
    page.goto(app_server + "/inspector?dataset=nevir&margin_min=nan&sort=bogus&min_n=5", timeout=WAIT)
    page.get_by_text("ignored margin_min=nan", exact=False).first.wait_for(timeout=WAIT)
    assert page.get_by_text("ignored sort=bogus", exact=False).count() >= 1
    assert page.get_by_text("ignored min_n=5: the Pair inspector page has no such setting", exact=False).count() >= 1
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()
