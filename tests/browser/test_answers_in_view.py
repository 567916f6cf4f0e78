"""Real browser, at 1,400 and 1,000 px: a click whose answer is drawn far below it scrolls the page
to that answer and marks it (negviz.ui.chart_items.mark_answer): a MaxSim explorer counterfactual's
verdicts (~1,900 px below the edit) and a Playground preset's verdicts (below the fold)."""

import pytest

from tests.support.browser import needs_browser, painted

pytestmark = needs_browser


def _answer_in_view(page, answer: str) -> None:
    """The click's mark, then ``answer`` (the first text of what it answers), inside the window."""
    from playwright.sync_api import expect

    mark = page.get_by_test_id("negviz-answer")
    mark.wait_for(timeout=120_000)
    expect(mark).to_contain_text("What you clicked")
    painted(page, 120)
    expect(mark).to_be_in_viewport(timeout=30_000)
    expect(page.get_by_text(answer, exact=True).first).to_be_in_viewport(timeout=30_000)


@pytest.mark.parametrize("width", [1400, 1000])
def test_a_counterfactual_edit_scrolls_to_its_verdicts(app_server, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(app_server + "/maxsim?dataset=nevir&pair=1230-2", timeout=60_000)
    page.get_by_role("heading", name="MaxSim explorer", exact=True).wait_for(timeout=120_000)
    page.get_by_text("Verdict", exact=True).first.wait_for(timeout=180_000)  # the first drawing
    painted(page, 120)
    page.locator('[data-testid="stRadio"]').filter(has_text="insert a negation").get_by_text(
        "remove a negation cue"
    ).click()
    _answer_in_view(page, "Original (pinned)")
    page.close()


@pytest.mark.parametrize("width", [1400, 1000])
def test_a_playground_preset_scrolls_to_its_verdicts(app_server, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(app_server + "/playground", timeout=60_000)
    page.get_by_role("heading", name="Playground", exact=True).wait_for(timeout=120_000)
    painted(page, 180)
    preset = page.locator('[data-testid="stExpander"] [data-testid="stButton"] button').first  # the first preset
    preset.click()
    _answer_in_view(page, "original")
    page.close()
