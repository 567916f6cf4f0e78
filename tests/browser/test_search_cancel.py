"""Real-browser test: a Search-page index build (a model without shipped codes, so the whole
offline corpus is encoded) shows its bar and a Cancel button; Cancel stops the build, says so and
offers to build again, which starts the bar again."""

from pathlib import Path

from tests.support.browser import needs_browser, painted

pytestmark = needs_browser
SHOT = Path("/tmp/corpus/search-cancel.png")
BAR = "Index of 42,871 documents for splade-tiny"


def test_an_index_build_can_be_cancelled_and_started_again(app_server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.goto(app_server, timeout=60_000)  # registers st.navigation (see test_browser_maxsim)
    page.get_by_role("heading", name="Overview").wait_for(timeout=90_000)
    page.goto(app_server + "/search?model=splade-tiny&corpus=offline&q=films+not+directed+by+Spielberg")
    page.get_by_text(BAR).wait_for(timeout=240_000)
    page.get_by_role("button", name="Cancel", exact=True).click()
    page.get_by_text("Stopped building the index for splade-tiny").wait_for(timeout=240_000)
    # The bar goes (the build stopped); until the page's run ends, the last run's bar may still show.
    page.get_by_text(BAR).wait_for(state="detached", timeout=120_000)
    page.get_by_role("button", name="Cancel", exact=True).wait_for(state="detached", timeout=60_000)
    painted(page, timeout=120)
    assert page.get_by_text("vectors encoded so far are kept").count() == 0  # SPLADE keeps none
    assert page.locator('[data-testid="search-hit-0"]').count() == 0
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOT), full_page=True)
    page.get_by_role("button", name="Build the index").click()
    page.get_by_text(BAR).wait_for(timeout=240_000)
    page.get_by_role("button", name="Cancel", exact=True).click()  # not left running for the next tests
    page.get_by_text("Stopped building the index for splade-tiny").wait_for(timeout=240_000)
    page.close()
