"""Real browser: markdown and HTML from a shared URL or a typed name create no link, image or tag."""

import re
from urllib.parse import quote, urlencode

from tests.support.browser import needs_browser, painted

pytestmark = needs_browser
WAIT = 90_000
PAYLOAD = (
    "Session expired - sign in again at https://evil.example/login [x](https://evil.example) "
    '![i](https://evil.example/a.png) <img src=x onerror="window.pwned=1"> **b**'
)


def assert_nothing_built(page) -> None:
    # no link *to* the payload's host (the app's own links may carry the text as a query value)
    to_evil = (
        "[...document.querySelectorAll('a[href]')].filter(a => new URL(a.href, location.href).hostname"
        ".endsWith('evil.example')).length"
    )
    assert page.evaluate(to_evil) == 0
    assert page.locator('img[src*="evil"]').count() == 0
    assert page.locator('img[src="x"]').count() == 0
    assert page.evaluate("window.pwned") is None


def test_maxsim_after_url_value_is_text(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    page.goto(app_server + "/maxsim?dataset=nevir&after=" + quote(PAYLOAD), timeout=WAIT)
    page.get_by_text("Session expired", exact=False).first.wait_for(timeout=WAIT)
    assert_nothing_built(page)
    page.close()


def test_inspector_annotator_name_is_text(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    page.goto(app_server + "/inspector?dataset=nevir&pair=1230-2", timeout=WAIT)
    box = page.get_by_role("textbox", name="Annotator")
    box.wait_for(timeout=WAIT)
    box.fill(PAYLOAD)
    box.press("Enter")
    page.locator('[data-testid="stForm"]').get_by_text("Labelling as Session expired", exact=False).wait_for(
        timeout=WAIT
    )
    assert_nothing_built(page)
    page.close()


# ---------------------------------------------------------------- every URL key on every page
def bound_keys() -> set[str]:
    """Every URL key a widget is bound to: the page registry's (tests/architecture/test_page_registry.py checks
    each entry against the keys its page and the streamlit code it uses bind)."""
    from negviz.ui.navigation.page_registry import PAGES as ENTRIES
    from negviz.ui.navigation.page_registry import SIDEBAR_KEYS

    return set(SIDEBAR_KEYS).union(*(e.url_keys for e in ENTRIES))


def test_every_url_key_on_every_page_is_text(app_server, browser):
    keys = bound_keys()
    assert {"min_n", "pair", "q", "pq", "td1", "own_ref", "cf_old", "dataset", "models"} <= keys, keys
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    for path, title in PAGES.items():
        values = {k: PAYLOAD for k in keys | {"after", "run", "qid"}} | {"dataset": "nevir"}
        page.goto(f"{app_server}/{path}?{urlencode(values)}", timeout=WAIT)
        page.get_by_role("heading", name=title).first.wait_for(timeout=WAIT)
        painted(page, timeout=WAIT / 1000)
        assert_nothing_built(page)
        assert page.locator("strong", has_text=re.compile(r"^b$")).count() == 0, path
        assert page.locator('[data-testid="stException"]').count() == 0, path
    for path in ("overview", "heatmap", "inspector"):  # an unknown dataset named by the payload
        page.goto(f"{app_server}/{path}?dataset={quote(PAYLOAD)}", timeout=WAIT)
        page.locator('[data-testid="stSidebar"]').get_by_text("Dataset", exact=True).wait_for(timeout=WAIT)
        painted(page, timeout=WAIT / 1000)
        assert_nothing_built(page)
    assert not any("pwned" in e for e in errors)
    page.close()


PAGES = {
    "overview": "Overview",
    "heatmap": "Per-type accuracy",
    "errors": "Error preference",
    "sensitivity": "Perturbation sensitivity",
    "drift": "Fine-tuning drift",
    "maxsim": "MaxSim explorer",
    "playground": "Playground",
    "inspector": "Pair inspector",
    "search": "Search",
    "annotations": "Annotations",
    "evaluate": "Evaluate a model",
    "catalog": "Models & data",
    "add-dataset": "Add a dataset",
}
