"""Real browser: the inspector explains a NevIR pair. MiniLM's occlusion attributions shade the
words of the query and both documents, the cue is underlined, and its share is a number that
equals what the library computes for the same pair."""

import re


from tests.browser import ROOT, needs_browser, painted

pytestmark = needs_browser
WAIT = 180_000


def test_the_inspector_shades_every_word_and_gives_the_cues_share(app_server, browser):
    from negviz.analyses import attribution as A
    from negviz.catalog import load_scorer
    from negviz.datasets import load

    page = browser.new_page(viewport={"width": 1500, "height": 3200})
    page.goto(app_server + "/inspector?dataset=nevir&pair=1230-2&model=all-MiniLM-L6-v2&why_on=true", timeout=WAIT)
    page.get_by_role("heading", name="NevIR · 1230-2").wait_for(timeout=WAIT)
    page.get_by_text("Cue's share of |attribution|").wait_for(timeout=WAIT)
    shaded = page.locator(".nv-att")
    row = load("nevir").frame.set_index("pair_id").loc["1230-2"].to_dict() | {"pair_id": "1230-2"}
    expected = A.occlusion(load_scorer("all-MiniLM-L6-v2"), A.contrasts("pairs", row)[0])
    assert shaded.count() == len(expected.tokens) + 2  # every word of q1, d1 and d2, and the legend's two
    cues = page.locator(".nv-att.nv-cue")
    assert cues.count() == int(expected.tokens["is_cue"].sum()) + 0 and cues.first.inner_text() == "had"
    shown = page.get_by_test_id("stMetric").filter(has_text="Cue's share").get_by_test_id("stMetricValue").inner_text()
    assert shown == f"{expected.cue_share:.1%}"
    assert re.search(r"remove each word|without it", page.get_by_text("occlusion").first.inner_text())
    painted(page, 240)
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "inspector-why.png"), full_page=True)
    page.close()
