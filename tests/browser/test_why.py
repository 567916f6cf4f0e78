"""Real browser: the inspector explains a NevIR pair. MiniLM's occlusion attributions shade the
words of the query and both documents, the cue is underlined, and its share is a number that
equals what the library computes for the same pair. The panel explains its own model (not the
list's filter model), writes its choices to the URL, and a click on Cancel stops the work."""

import re

from tests.support.browser import ROOT, needs_browser, painted, wait_for_url
from negviz.core.kinds import PAIRS_KIND

pytestmark = needs_browser
WAIT = 180_000


def work_cancel(page):
    """The Cancel of the explanation's work (the cost estimate before it has its own)."""
    # .last: while a rerun replaces the panel, Streamlit can show the old button beside the new one
    return page.locator(".st-key-why_cancel").get_by_role("button", name="Cancel").last


def start_if_asked(page) -> None:
    """Click Start when the panel asks for it: work estimated over 30 s on this machine (a
    busy CPU) waits for the click; otherwise it starts by itself, with a Cancel button."""
    start, cancel = page.get_by_role("button", name="Start"), work_cancel(page)
    start.or_(cancel).or_(page.get_by_text("Cue's share of |attribution|")).first.wait_for(timeout=WAIT)
    if start.count():
        start.click()


def test_the_inspector_shades_every_word_and_gives_the_cues_share(app_server, browser):
    from negviz.analyses import attribution as A
    from negviz.datasets import load
    from negviz.evaluation.catalog import load_scorer

    page = browser.new_page(viewport={"width": 1500, "height": 3200})
    # the list's filter model is TF-IDF; the panel's own choice, MiniLM, is what it explains
    url = "/inspector?dataset=nevir&pair=1230-2&model=tfidf&why_model=all-MiniLM-L6-v2&why_on=true"
    page.goto(app_server + url, timeout=WAIT)
    page.get_by_role("heading", name="NevIR · 1230-2").wait_for(timeout=WAIT)
    start_if_asked(page)
    page.get_by_text("Cue's share of |attribution|").wait_for(timeout=WAIT)
    shaded = page.locator(".nv-att")
    row = load("nevir").frame.set_index("pair_id").loc["1230-2"].to_dict() | {"pair_id": "1230-2"}
    expected = A.occlusion(load_scorer("all-MiniLM-L6-v2"), A.contrasts(PAIRS_KIND, row)[0])
    assert shaded.count() == len(expected.tokens) + 2  # every word of q1, d1 and d2, and the legend's two
    cues = page.locator(".nv-att.nv-cue")
    assert cues.count() == int(expected.tokens["is_cue"].sum()) + 0 and cues.first.inner_text() == "had"
    shown = page.get_by_test_id("stMetric").filter(has_text="Cue's share").get_by_test_id("stMetricValue").inner_text()
    assert shown == f"{expected.cue_share:.1%}"
    page.get_by_text("all-MiniLM-L6-v2, occlusion: a word's value is the score difference minus").wait_for()
    painted(page, 240)
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "inspector-why.png"), full_page=True)
    page.close()


def test_the_panel_writes_its_choices_to_the_url_and_cancel_stops_the_work(app_server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 3200})
    page.goto(app_server + "/inspector?dataset=nevir&pair=1230-2&why_model=negminilm&why_on=true", timeout=WAIT)
    page.get_by_text(re.compile(r"on this machine, estimated from")).first.wait_for(timeout=WAIT)  # its cost
    assert page.get_by_role("combobox", name="Model to explain").input_value() == "negminilm"
    method = page.get_by_role("combobox", name="Method")
    method.click()
    method.press_sequentially("integ")
    page.get_by_role("option", name="integrated gradients", exact=True).click()
    assert "why_method=integrated+gradients" in wait_for_url(page, "why_method=integrated")
    assert "why_model=negminilm" in page.evaluate("location.href")
    page.get_by_text(re.compile(r"forward and backward passes \(32 integration steps per text\)")).wait_for(
        timeout=WAIT
    )
    start_if_asked(page)
    page.get_by_text(re.compile(r"Integrated gradients with negminilm: integration steps \d+/32")).wait_for(
        timeout=WAIT
    )
    work_cancel(page).click()
    page.get_by_text(re.compile(r"Cancelled at integration steps \d+/32, after \d+ s; nothing was kept")).wait_for(
        timeout=WAIT
    )
    assert page.get_by_role("button", name="Start").is_visible()  # not restarted by itself
    assert page.get_by_text("Cue's share of |attribution|").count() == 0
    painted(page, 240)
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "inspector-why-cancelled.png"), full_page=True)
    page.close()
