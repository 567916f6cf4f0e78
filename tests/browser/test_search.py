"""Real-browser test: a Search URL with a query shows both result lists, the d+/d− marks, the
overlap and MaxSim links (BM25 over the offline corpus: an index built in seconds)."""

from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.support.browser import needs_browser, painted

pytestmark = needs_browser
SHOT = Path("/tmp/corpus/search.png")


def test_search_url_shows_results_marks_and_links(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2400})
    page.goto(app_server, timeout=60_000)  # registers st.navigation (see test_browser_maxsim)
    page.get_by_role("heading", name="Overview").wait_for(timeout=90_000)
    page.goto(app_server + "/search?model=bm25&corpus=offline&qid=excluir_31", timeout=60_000)
    page.get_by_role("heading", name="Search").wait_for(timeout=90_000)
    page.locator('[data-testid="search-hit-1"]').nth(9).wait_for(timeout=240_000)  # ten per list
    painted(page, timeout=240)  # a rerun (the URL losing its default values) redraws the metrics
    assert page.locator('[data-testid="search-hit-0"]').count() == 10
    assert page.get_by_text("Shared results (of 10)").count() == 1
    assert page.get_by_text("positive (d+)").count() >= 1  # BM25 finds aTelecine's paragraph
    assert page.get_by_text("in both lists").count() >= 1  # overlap marked per result
    assert page.locator(".nv-cue").filter(has_text="excluding").count() >= 1  # the cue underlined
    assert page.locator(".nv-cue").count() >= 1
    link = page.get_by_role("link", name="MaxSim", exact=True).first.get_attribute("href")
    params = parse_qs(urlparse(link).query)
    assert urlparse(link).path.lstrip("/") == "maxsim" and params["src"] == ["typed"] and "excluding" in params["tq"][0]
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOT), full_page=True)
    # A typed query from the URL alone, exclusion removed by undoing the negation.
    page.goto(app_server + "/search?model=bm25&corpus=offline&q=films+not+directed+by+Spielberg", timeout=60_000)
    page.locator('[data-testid="search-hit-1"]').nth(9).wait_for(timeout=120_000)
    painted(page, timeout=120)
    assert page.get_by_text("films directed by Spielberg").count() >= 1
    page.close()
