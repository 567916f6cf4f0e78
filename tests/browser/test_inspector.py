"""Real browser: open a pair by URL, read its diff, label it, reload and find the label again."""

import re

from playwright.sync_api import expect

from tests.support.browser import ROOT, needs_browser

pytestmark = needs_browser
WAIT = 60_000


def test_label_a_pair_and_see_it_after_reload(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 2200})  # the whole card and form in view
    page.goto(app_server + "/inspector?dataset=nevir&pair=1230-2", timeout=WAIT)
    page.get_by_role("heading", name="NevIR · 1230-2").wait_for(timeout=90_000)
    page.get_by_role("combobox", name="Dataset").wait_for(timeout=WAIT)  # a deep link runs the router too
    # the card: the changed words highlighted, the gold cue underlined
    assert page.locator(".nv-diff").first.inner_text(timeout=WAIT) == "had no"
    assert page.locator(".nv-cue").first.inner_text() == "not"
    page.get_by_text("Open in the MaxSim explorer").wait_for(timeout=WAIT)

    page.get_by_role("textbox", name="Annotator").fill("browser-tester")
    page.get_by_role("textbox", name="Annotator").press("Enter")
    form = page.locator('[data-testid="stForm"]')
    form.get_by_text("Labelling as browser-tester").wait_for(timeout=WAIT)  # the rerun made a new form
    kind = form.get_by_role("combobox", name="Negation type")
    kind.click()
    kind.press_sequentially("Impl")  # typing opens and filters the options
    page.get_by_role("option", name="Implicit", exact=True).click()
    # no validity is pre-selected, and a save without one is refused in words
    expect(form.get_by_role("radio", checked=True)).to_have_count(0)
    form.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text("Choose the pair's validity (valid, invalid, unsure); nothing was saved.").wait_for(timeout=WAIT)
    form.get_by_role("radiogroup", name="Pair validity").get_by_text("unsure").click()
    form.get_by_role("textbox", name="Note").fill("<script>window.pwned = 1</script> scope is odd")
    form.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text(re.compile(r"Saved 1230-2 as version \d+ by browser-tester\.")).wait_for(timeout=WAIT)
    assert page.evaluate("window.pwned") is None  # the note never ran as markup
    expect(form.get_by_role("button", name="Save", exact=True)).to_have_count(1, timeout=WAIT)  # rerun done
    expect(page.locator('[data-stale="true"]')).to_have_count(0, timeout=WAIT)

    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "inspector.png"), full_page=True)

    # The keyboard shortcut moves to the next pair, and the URL follows.
    page.locator("h1").first.click()  # focus outside any input
    page.keyboard.press("n")
    page.get_by_role("heading", name="NevIR · 1230-3").wait_for(timeout=WAIT)
    page.wait_for_url(re.compile(r"pair=1230-3"), timeout=WAIT)

    # A reload is a new session: the label comes back from the store, with its history.
    page.goto(app_server + "/inspector?dataset=nevir&pair=1230-2", timeout=WAIT)
    page.get_by_role("heading", name="NevIR · 1230-2").wait_for(timeout=90_000)
    page.get_by_role("textbox", name="Annotator").fill("browser-tester")
    page.get_by_role("textbox", name="Annotator").press("Enter")
    form = page.locator('[data-testid="stForm"]')
    form.get_by_text("Labelling as browser-tester").wait_for(timeout=WAIT)
    kind = form.get_by_role("combobox", name="Negation type")
    page.wait_for_function("el => el.value === 'Implicit'", arg=kind.element_handle(), timeout=WAIT)  # my label
    # Streamlit may keep a stale copy of the form for a moment after a rerun: wait for the checked one.
    form.get_by_role("radio", name="unsure", checked=True).first.wait_for(timeout=WAIT)
    assert "scope is odd" in form.get_by_role("textbox", name="Note").input_value()
    assert page.get_by_text("Nobody has labelled this pair yet.").count() == 0
    page.close()
