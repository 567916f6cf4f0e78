"""Real browser: the Import scores page refuses a file with a NaN score (the problem listed,
nothing stored), then imports the shipped MiniLM NevIR scores moved by a constant under another
name; the page's links open the heatmap with that model's row and the inspector with its verdict
on a pair, where the Why panel says the model itself is not here."""

import os
import re
from pathlib import Path

from playwright.sync_api import expect

from negviz.results.external.exporting import score_csv
from negviz.store.portable import read_scores
from tests.support.browser import ROOT, needs_browser, painted

pytestmark = needs_browser
SHOTS = Path(os.environ.get("NEGVIZ_SHOTS", ROOT / "test-results"))
SHIPPED = ROOT / "data" / "runs" / "nevir__all-MiniLM-L6-v2.parquet"
NAME = "minilm-browser"
WAIT = 120_000
ERRORS = '[data-testid="stException"]'


def _open(page, url: str, heading: str) -> None:
    page.goto(url, timeout=WAIT)
    page.get_by_role("heading", name=heading).wait_for(timeout=WAIT)


def _import(page, path: Path, name: str) -> None:
    """Choose the file, wait for its upload, name the model and press Import."""
    form = page.locator('[data-testid="stForm"]')
    form.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    form.get_by_text(path.name).wait_for(timeout=WAIT)  # uploaded: the uploader lists it
    form.get_by_role("textbox", name="Model name").fill(name)
    form.get_by_role("button", name="Import").click()


def _href(page, text: str) -> str:
    return page.get_by_test_id("stMainBlockContainer").get_by_role("link", name=text, exact=True).get_attribute("href")


def test_refuse_a_nan_then_import_and_open_the_heatmap_and_inspector(app_server, browser, tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    scores = read_scores(SHIPPED)
    scores["score"] = scores["score"] - 0.5  # same verdicts, another model's file
    good = tmp_path / "minilm-browser.csv"
    good.write_text(score_csv("pairs", scores), encoding="utf-8")
    lines = good.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].rsplit(",", 1)[0] + ",NaN"
    lines.append("<b>ghost</b>,q1,d1,0.5")  # an item nevir does not have, its id shown as text
    bad = tmp_path / "with-nan.csv"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")

    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    _open(page, app_server + "/import-scores?dataset=nevir", "Import scores")
    _import(page, bad, NAME)
    refused = page.get_by_test_id("stAlertContentError")
    expect(refused).to_contain_text("with-nan.csv was refused: 2 problems; nothing was stored.", timeout=WAIT)
    problems = refused.locator("li")  # each problem a list item, shown as its text
    expect(problems).to_have_count(2)
    expect(problems.first).to_have_text(
        "1 row has a score that is not a finite number (first: row 3: 'NaN'); every score must be "
        "a number, not NaN or infinite."
    )
    expect(problems.last).to_contain_text("1 row names items that are not in nevir (first: '<b>ghost</b>')")

    _open(page, app_server + "/catalog", "Models & data")
    page.get_by_text("None stored yet").wait_for(timeout=WAIT)  # the refused file stored no run

    _open(page, app_server + "/import-scores?dataset=nevir", "Import scores")
    page.get_by_role("textbox", name="Source (URL, doi: or arxiv:)").fill("arxiv:2305.12345")
    _import(page, good, NAME)
    success = page.get_by_test_id("stAlertContentSuccess")
    expect(success).to_contain_text(f"Imported {NAME} on nevir: paired accuracy 7.1% (n = 1,383 items)", timeout=WAIT)
    page.get_by_text("arxiv:2305.12345", exact=False).last.wait_for(timeout=WAIT)  # the source is kept
    painted(page)
    assert page.locator(ERRORS).count() == 0
    page.screenshot(path=str(SHOTS / "import_scores.png"), full_page=True)
    overview, heatmap = _href(page, "Overview"), _href(page, "Per-type heatmap")
    inspector = _href(page, "Pair inspector")
    assert heatmap.startswith("heatmap?dataset=nevir&models=" + NAME), heatmap
    assert f"model={NAME}" in inspector, inspector

    # the overview draws the best 16 models: the link pins this run, so it is drawn whatever its rank
    _open(page, f"{app_server}/{overview}", "Overview")
    # the run in words (run_choice.run_name), marked pinned
    page.get_by_text(re.compile(rf"{re.escape(NAME)}[^,]* \(pinned\)")).first.wait_for(timeout=WAIT)

    _open(page, f"{app_server}/{heatmap}", "Per-type accuracy")
    page.locator(".js-plotly-plot .scatterlayer .point").first.wait_for(timeout=WAIT)
    expect(page.locator(".js-plotly-plot .ytick text", has_text=NAME).first).to_be_visible(timeout=WAIT)
    page.get_by_text(re.compile(r"1 runs \(one per model\) · n = 1,383 items")).wait_for(timeout=WAIT)
    assert page.locator(ERRORS).count() == 0

    _open(page, f"{app_server}/{inspector}&pair=1230-2", "NevIR · 1230-2")
    # MiniLM's verdict on 1230-2 (it prefers the edited d2 for both queries), moved scores and all
    card = page.get_by_text(re.compile(rf"^{NAME} · prefers edited \(d2\) for both · margin -0\.0028$"))
    card.wait_for(timeout=WAIT)
    page.get_by_text("were imported from a file", exact=False).wait_for(timeout=WAIT)
    assert page.get_by_role("switch", name="Explain").count() == 0  # the Why panel offers nothing to run
    painted(page)
    assert page.locator(ERRORS).count() == 0
    page.screenshot(path=str(SHOTS / "inspector_imported.png"), full_page=True)
    page.close()
