"""Real-browser test: a drift page URL (box plots, last epoch, one pair) reproduces its view,
and the drift figure and the pair's trajectory render in headless Chromium."""

from urllib.parse import quote

from negviz.core.paths import DATA_DIR
from negviz.finetune import history, views
from negviz.store.portable import read_record, read_scores, run_files
from tests.support.browser import ROOT, needs_browser

pytestmark = needs_browser


def test_drift_url_reproduces_the_view(app_server, browser):
    (file,) = [
        f
        for f in run_files(DATA_DIR / "runs")
        if f.name.startswith("finetune__") and read_record(f).dataset_name == "finetune:nevir-heldout"
    ]
    record = read_record(file)
    label = history.training_run_label(record)  # the NevIR run
    wide = history.items_wide(history.scores_as_items(read_scores(file)))
    pair, last = views.pair_order(wide)[1], record.summary["epochs_done"]  # not the default: it stays in the URL

    page = browser.new_page(viewport={"width": 1500, "height": 2600})
    page.goto(f"{app_server}/drift?runs={quote(label)}&shape=box&epoch={last}&pair={pair}", timeout=60_000)
    page.get_by_role("heading", name="Fine-tuning drift").wait_for(timeout=90_000)
    plots = page.locator(".js-plotly-plot")
    # the drift figure, negation against retrieval without negation (the run measured both), the pair
    plots.nth(2).wait_for(timeout=90_000)
    drift = plots.first.inner_text()
    assert "paired accuracy" in drift and "passage-disjoint 70/30" in drift and "before" in drift
    assert page.locator(".js-plotly-plot", has_text=f"Pair {pair}").count() == 1
    assert page.get_by_role("radio", name="box").is_checked()
    assert page.get_by_role("slider", name="Epoch").input_value() == str(last)
    card = page.locator("p.nv-text b")  # the pair card's texts, drawn as the inspector draws them
    card.first.wait_for(timeout=90_000)
    assert {"q1", "q2"} <= set(card.all_inner_texts()) and any(t.startswith("d1") for t in card.all_inner_texts())
    url = page.evaluate("location.href")
    assert "shape=box" in url and f"epoch={last}" in url and f"pair={pair}" in url
    assert page.get_by_text("Dataset", exact=True).count() == 1  # app.py ran: the shared sidebar is there
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "drift.png"), full_page=True)
    page.close()
