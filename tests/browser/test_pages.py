"""Real browser, fresh server: every page opens from its own URL with typical parameters, shows
its title, no error box and no "Page not found" (the first request of the server included); on
the same pass, at 1,400 px and at 1,000 px (the window resized: pages load at each width in turn),
nothing is clipped or overlapping (tests/support/layout.py's measures, checked themselves in tests/browser/test_layout.py),
and no text a person reads, its closed expanders opened, holds a raw value (`None`, snake_case, a
hex id, a corpus document's id ...: tests/support/raw_text.py)."""

import re

import pytest

from negviz.ui.navigation.page_registry import url_paths
from tests.support.browser import needs_browser, resize, running_app
from tests.support.layout import measure_page
from tests.support.raw_text import raw_values

pytestmark = needs_browser
# URL (path and query) -> the page's title; /overview comes first, as the first request of the server.
PAGES = {
    "/overview?dataset=nevir": "Overview",
    "/board?sort=NevIR": "Across benchmarks",
    "/heatmap?dataset=excluir": "Per-type accuracy",
    "/errors?dataset=nevir": "Error preference",
    "/sensitivity": "Perturbation sensitivity",
    "/drift": "Fine-tuning drift",
    "/cue-influence?dataset=nevir&axis=negation+type": "Cue influence",
    "/maxsim?dataset=nevir&pair=1230-2": "MaxSim explorer",
    "/playground": "Playground",
    "/inspector?dataset=nevir&pair=1230-2": "Pair inspector",
    "/search?qid=excluir_31": "Search",  # BM25 over the offline corpus by default
    "/search?q=unhappy": "Search",  # a typed query: hits from NevIR, CANNOT or DEMETR, named in words
    "/annotations": "Annotations",
    "/projects": "Annotation projects",  # no project yet: the creation form
    "/evaluate": "Evaluate a model",
    "/import-scores?dataset=nevir": "Import scores",
    "/catalog": "Models & data",
    "/add-dataset": "Add a dataset",
    "/?dataset=excluir": "Overview",  # the root shows the Overview too
}
WIDE, NARROW = 1400, 1000  # the widths every page is laid out at
DEFAULTS = {"dataset=nevir", "pair=1230-2"}  # a widget at its default value (the first pair) leaves the URL
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory):
    """A server of its own: this module's first request is its first request."""
    yield from running_app(tmp_path_factory, "fresh")


def test_every_page_opens_from_its_url_on_a_fresh_server(fresh_server, browser):
    app_paths = set(url_paths())
    assert app_paths == {re.match(r"/([\w-]*)", u).group(1) for u in PAGES} - {""}, "a page of app.py is not visited"
    page = browser.new_page(viewport={"width": WIDE, "height": 1200})
    laid_out, raw = {}, []
    for url, title in PAGES.items():
        page.goto(fresh_server + url, timeout=60_000)
        page.get_by_role("heading", name=title, exact=True).wait_for(timeout=120_000)
        # the page's script has run to its end
        page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=180_000)
        page.locator('[data-testid="stSidebar"]').get_by_text("Dataset", exact=True).first.wait_for(
            timeout=60_000
        )  # app.py ran
        assert page.get_by_text("Page not found").count() == 0, url
        errors = page.locator(ERRORS)
        assert errors.count() == 0, (url, errors.all_inner_texts())
        assert page.evaluate("location.pathname") == url.split("?")[0], url
        query = url.partition("?")[2]  # bound widgets keep non-default values in the URL
        for param in filter(None, query.split("&")):
            if param not in DEFAULTS:
                assert param in page.evaluate("location.search"), (url, page.evaluate("location.href"))
        if not url.startswith("/?"):  # the Overview again, through the root
            # each page at both widths on one load: a window resized lays the page out as a load
            # at that width does (no width reaches the server), and costs no second run; the
            # next page loads at the width this one ends at
            first = page.viewport_size["width"]
            second = NARROW if first == WIDE else WIDE
            laid_out[(url, first)] = measure_page(page, url, first)
            resize(page, second)
            laid_out[(url, second)] = measure_page(page, url, second)
        raw += raw_values(page, url)  # last: it scrolls each table into view to read its cells
    page.close()
    found = [f"{url} at {width} px: {p}" for (url, width), problems in laid_out.items() for p in problems]
    assert not found, "\n".join(found)
    assert not raw, "\n".join(raw)
