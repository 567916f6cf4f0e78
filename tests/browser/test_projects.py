"""An annotation project end to end in a real browser: three annotators in three browser contexts
(overlap 2) read the guidelines, take their queues (never one pair to a third annotator), one
disagreement reaches the reviewer, whose decision shows on the heatmap as an adjudicated label,
and the page's Krippendorff's alpha equals a hand computation on the same labels."""

from __future__ import annotations

import re
from collections import Counter
from itertools import permutations

from negviz import projects as P
from negviz.datasets import load
from negviz.language.taxonomy import TAXONOMY
from negviz.store import Store
from tests.support.browser import needs_browser, painted, serve
from tests.support.store_copies import store_in
from tests.support.waiting import wait_for

pytestmark = needs_browser
WAIT = 90_000
PROJECT = "e2e"
GUIDE = "Mark the cue's type. <script>window.pwned = 1</script> ![x](https://example.com/track.png)"


def shown_pair(page) -> str:
    heading = page.get_by_role("heading", name=re.compile(rf"^{PROJECT} · "))
    heading.first.wait_for(timeout=WAIT)
    return heading.first.inner_text().split(" · ", 1)[1]


def start(context, base: str, who: str):
    page = context.new_page()
    page.goto(f"{base}/projects?project={PROJECT}", timeout=WAIT)
    page.get_by_role("heading", name="Annotation projects").wait_for(timeout=WAIT)
    page.get_by_role("textbox", name="Annotator").fill(who)
    page.get_by_role("textbox", name="Annotator").press("Enter")
    page.get_by_text("Mark the cue's type.").first.wait_for(timeout=WAIT)  # the guidelines, first
    assert page.evaluate("() => window.pwned") is None and page.locator('img[src*="example.com"]').count() == 0
    page.get_by_role("button", name="I have read the guidelines: start").click()
    return page


def choose_type(scope, page, kind: str) -> None:
    box = scope.get_by_role("combobox", name="Negation type")
    box.click()
    title = TAXONOMY.label(kind)  # the form shows titles and stores ids
    box.press_sequentially(title[:5])  # typing opens and filters the options
    page.get_by_role("option", name=title, exact=True).click()


def label_and_next(page, kind: str) -> str | None:
    """Label the shown pair; returns the next pair shown, or None when the queue is empty."""
    pair = shown_pair(page)
    form = page.locator('[data-testid="stForm"]').first
    choose_type(form, page, kind)
    form.get_by_role("radiogroup", name="Pair validity").get_by_text("valid", exact=True).click()
    form.get_by_role("button", name="Save and next").click()
    page.get_by_text(re.compile(rf"Saved {re.escape(pair)} as version 1")).wait_for(timeout=WAIT)
    painted(page)
    if page.get_by_text("Your queue is empty").count():
        return None
    return shown_pair(page)


def reloaded_shows(page, heading: str, locator) -> int:
    """Reload ``page`` and count ``locator`` once its script has run (``heading`` shown, idle)."""
    page.reload()
    page.get_by_role("heading", name=heading).wait_for(timeout=WAIT)
    painted(page, WAIT / 1000)
    return locator.count()


def hand_alpha(units: list[list[str]]) -> float:
    """Krippendorff's nominal alpha from the coincidence matrix, written out for this test."""
    o: Counter = Counter()
    for values in units:
        if len(values) < 2:
            continue
        for a, b in permutations(range(len(values)), 2):
            o[(values[a], values[b])] += 1 / (len(values) - 1)
    n_c: Counter = Counter()
    for (c, _), w in o.items():
        n_c[c] += w
    n = sum(n_c.values())
    observed = sum(w for (c, k), w in o.items() if c != k)
    expected = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k)
    return 1 - (n - 1) * observed / expected


def test_a_project_end_to_end_with_three_annotators(tmp_path, browser, shipped_store_file):
    db_url = store_in(tmp_path, shipped_store_file)  # no background copy (~14 CPU-s) beside three browsers
    with Store(db_url) as store:
        project = P.create(store, PROJECT, load("nevir"), "owner", overlap=2, sample=3, guidelines=GUIDE)
    p1, p2, p3 = project.items
    with serve(tmp_path, db_url) as base:
        # Queues opened one after the other (each waits for its pair before the next opens): ana and
        # ben share p1 (overlap 2), cy never gets it.
        pages, seen = {}, {}
        for who in ("ana", "ben", "cy"):
            pages[who] = start(browser.new_context(viewport={"width": 1400, "height": 2000}), base, who)
            seen[who] = [shown_pair(pages[who])]
        assert seen["ana"] == seen["ben"] == [p1] and seen["cy"] == [p2]
        # ana and ben disagree on p1 (the one disagreement); every other pair is agreed on.
        seen["ana"].append(label_and_next(pages["ana"], "affixal"))  # -> p2, beside cy
        seen["ben"].append(label_and_next(pages["ben"], "implicit"))  # -> p3
        seen["cy"].append(label_and_next(pages["cy"], "implicit"))  # p2 -> p3, beside ben
        seen["ana"].append(label_and_next(pages["ana"], "implicit"))  # p2 -> nothing left
        seen["ben"].append(label_and_next(pages["ben"], "affixal"))  # p3 -> nothing left
        seen["cy"].append(label_and_next(pages["cy"], "affixal"))  # p3 -> nothing left
        assert seen == {"ana": [p1, p2, None], "ben": [p1, p3, None], "cy": [p2, p3, None]}
        shown = Counter(item for items in seen.values() for item in items if item)
        assert shown == {p1: 2, p2: 2, p3: 2}  # never a pair to a third annotator

        # The reviewer's queue holds the one disagreement, with both labels side by side.
        rita = pages["ana"]
        rita.get_by_role("textbox", name="Annotator").fill("rita")
        rita.get_by_role("textbox", name="Annotator").press("Enter")
        painted(rita)
        rita.get_by_role("tab", name="Review").click()
        review = rita.get_by_role("tabpanel", name="Review")
        review.locator('[data-testid="stForm"]').filter(has_text="Deciding as rita").wait_for(timeout=WAIT)
        review.get_by_text("1 pair whose labels disagree · 1 awaiting review").wait_for(timeout=WAIT)
        table = review.locator('[data-testid="review-labels"]')
        table.wait_for(timeout=WAIT)
        for who, kind in (("ana", "affixal"), ("ben", "implicit")):  # side by side
            assert table.get_by_text(f"label: {who}").count() == 1
            assert table.get_by_text(f"{kind} · valid · query clear").count() == 1
        review = review.locator('[data-testid="stForm"]').filter(has_text="Deciding as rita")
        # The decision starts empty: no type and no validity chosen for the reviewer.
        assert review.get_by_role("radio", checked=True).count() == 0
        review.get_by_role("button", name="Save decision").click()
        rita.get_by_text("Choose the negation type and the pair's validity").wait_for(timeout=WAIT)
        choose_type(review, rita, "implicit")
        review.get_by_text("valid", exact=True).first.click()
        review.get_by_role("button", name="Save decision").click()
        rita.get_by_text(f"Decision on {p1} saved (version 1) by rita.").wait_for(timeout=WAIT)

        # Alpha on the page equals the hand computation on the stored labels.
        with Store(db_url) as store:
            labels = P.review.project_labels(store, project)
            decided = P.adjudicated(store, "nevir")
        units = [list(part["negation_type"]) for _, part in labels.groupby("item_id")]
        expected = hand_alpha(units)
        assert abs(expected - 4 / 9) < 1e-12  # {affixal, implicit}, {implicit, implicit}, {affixal, affixal}
        assert decided.set_index("item_id").loc[p1, "negation_type"] == "implicit"
        rita.get_by_role("tab", name="Progress & agreement").click()
        # three pairs are too few for a headline (negviz.core.sample_size): a grey line with its n
        line = rita.get_by_text(re.compile(r"negation type: \d\.\d{3} on 3 pairs labelled by two or more"))
        line.first.wait_for(timeout=WAIT)
        assert f"negation type: {expected:.3f} on 3 pairs" in line.first.inner_text()

        # The heatmap types p1 by the adjudicated label and says so.
        rita.goto(f"{base}/heatmap?dataset=nevir", timeout=WAIT)
        caption = rita.get_by_text(re.compile(r"type labels: .*a reviewer's decision \(1\)"))
        # Type labels are cached for 30 s: reload until the heatmap reads the decision.
        wait_for(lambda: reloaded_shows(rita, "Per-type accuracy", caption), "the adjudicated label on the heatmap")
        for page in pages.values():
            assert page.locator('[data-testid="stException"]').count() == 0
