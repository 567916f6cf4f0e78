"""Real browser: markdown and HTML from a shared URL or a typed name create no link, image or tag."""

from urllib.parse import quote

from tests.browser import needs_browser

pytestmark = needs_browser
WAIT = 90_000
PAYLOAD = ("Session expired - sign in again at https://evil.example/login [x](https://evil.example) "
           "![i](https://evil.example/a.png) <img src=x onerror=\"window.pwned=1\"> **b**")


def assert_nothing_built(page) -> None:
    assert page.locator('a[href*="evil.example"]').count() == 0
    assert page.locator('img[src*="evil"]').count() == 0
    assert page.locator('img[src="x"]').count() == 0
    assert page.evaluate("window.pwned") is None


def test_maxsim_after_url_value_is_text(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    page.goto(app_server + "/maxsim?dataset=nevir&after=" + quote(PAYLOAD), timeout=WAIT)
    page.get_by_text("Session expired", exact=False).first.wait_for(timeout=WAIT)
    assert_nothing_built(page)


def test_inspector_annotator_name_is_text(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    page.goto(app_server + "/inspector?dataset=nevir&pair=1230-2", timeout=WAIT)
    box = page.get_by_role("textbox", name="Annotator")
    box.wait_for(timeout=WAIT)
    box.fill(PAYLOAD)
    box.press("Enter")
    page.locator('[data-testid="stForm"]').get_by_text("Labelling as Session expired", exact=False).wait_for(timeout=WAIT)
    assert_nothing_built(page)
