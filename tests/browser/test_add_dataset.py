"""Real browser: upload a malformed file (every problem listed, nothing saved), then a good one,
save it, evaluate TF-IDF on it on the Evaluate page and open the heatmap on ?dataset=NAME."""

import os
from pathlib import Path

from tests.support.browser import ROOT, needs_browser, painted
from tests.support.waiting import wait_for

pytestmark = needs_browser
DATA = ROOT / "tests" / "data"
SHOTS = Path(os.environ.get("NEGVIZ_SHOTS", ROOT / "test-results"))


def _open(page, url: str, heading: str) -> None:
    """Open a page by its URL (a deep link works on a fresh server) and wait for its heading."""
    page.goto(url, timeout=60_000)
    page.get_by_role("heading", name=heading).wait_for(timeout=90_000)


def _upload(page, path: Path) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))


def test_upload_save_evaluate_and_open_the_heatmap(app_server, browser, tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    _open(page, app_server + "/add-dataset", "Add a dataset")

    bad = tmp_path / "bad_pairs.csv"
    bad.write_text("id,query1,doc1,query2,doc2\na,Q,D, ,D2\na,Q,,Q2,D2\n,Q,D,Q2,\n", encoding="utf-8")
    _upload(page, bad)
    page.get_by_text("5 problems to fix before this file can be saved").wait_for(timeout=60_000)
    assert page.get_by_role("button", name="Save to the store").is_disabled()
    page.locator('[data-testid="stDataFrame"] canvas').last.wait_for(timeout=30_000)
    painted(page)  # the grids draw their cells after the canvas appears
    page.screenshot(path=str(SHOTS / "add_dataset_malformed.png"), full_page=True)

    _upload(page, DATA / "pairs.csv")
    page.get_by_text("3 items (NevIR-style contrast pairs) pass every check").wait_for(timeout=60_000)
    name = page.get_by_role("textbox", name="Name")
    # the new file's stem replaces the last file's, once the rerun has replaced the old form
    # one look at the page: the old form may still be there between counting and reading (a rerun)
    only_new = "els => els.length === 1 && els[0].value === 'pairs'"
    wait_for(lambda: name.evaluate_all(only_new), "the new file's name in the form", 60)
    name.fill("browser-pairs")
    page.get_by_role("button", name="Save to the store").click()
    page.get_by_text("Saved browser-pairs, 3 items").wait_for(timeout=60_000)

    _open(page, app_server + "/evaluate?dataset=browser-pairs", "Evaluate a model")
    page.get_by_role("textbox", name="…or any hub id or local path").fill("tfidf")
    page.get_by_role("button", name="Run").click()
    page.get_by_text("Stored run").wait_for(timeout=120_000)

    _open(page, app_server + "/heatmap?dataset=browser-pairs&min_n=1", "Per-type accuracy")
    page.locator(".js-plotly-plot .scatterlayer .point").first.wait_for(timeout=60_000)
    page.get_by_text("n = 3 items", exact=False).wait_for(timeout=30_000)
    page.get_by_text("type labels: cue detected in the texts", exact=False).wait_for(timeout=30_000)
    painted(page)
    page.screenshot(path=str(SHOTS / "heatmap_added_dataset.png"), full_page=True)
    assert page.get_by_text("Traceback").count() == 0
    page.close()
