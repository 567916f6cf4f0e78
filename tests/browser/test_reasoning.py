"""Real browser: a generative run that kept reasoning (Rank1's template on a real tiny causal LM,
one text rewritten to name the cue) shows in the pair inspector: each query's reasoning beside
its verdict, the cue marked where the reasoning names it, and the dataset-level count."""

from __future__ import annotations

import re

import pytest

from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.datasets import load
from negviz.evaluation.runner import run_eval
from negviz.store import Store
from tests.support.browser import CHROMIUM, ROOT, needs_browser, serve
from tests.support.store_copies import store_in

pytestmark = needs_browser
WAIT = 90_000


@pytest.fixture(scope="module")
def reasoning_app(tmp_path_factory, tiny_model_dir, shipped_store_file):
    if CHROMIUM is None:
        pytest.skip("Debian chromium is not installed")
    tmp = tmp_path_factory.mktemp("reasoning-app")
    url = store_in(tmp, shipped_store_file)  # no background copy (~14 CPU-s) while the page is read
    dataset = DatasetSpec.make("nevir", limit=2)
    item = load(dataset).frame.iloc[0]
    spec = ModelSpec.make(
        str(tiny_model_dir("llm-pointwise")), "llm-pointwise", template="rank1", max_reasoning_tokens=6
    )
    with Store(url) as store:
        run = run_eval(spec, dataset, store=store, cache=ScoreCache(tmp / "c.sqlite"), device="cpu").record
        texts = store.item_texts(run.run_id)
        mine = (texts["item_id"] == item["pair_id"]) & (texts["slot"] == "q1_d1")
        texts.loc[mine, "text"] = f"The passage says it is {item['cue']} so; the query asks exactly that."
        store.save_item_texts(run.run_id, texts)
    with serve(tmp, url, name="reasoning") as base:
        yield base, run.run_id, item


def test_the_inspector_shows_reasoning_beside_each_verdict(reasoning_app, browser):
    base, run_id, item = reasoning_app
    page = browser.new_page(viewport={"width": 1500, "height": 2400})
    page.goto(f"{base}/inspector?dataset=nevir&pair={item['pair_id']}&run={run_id}", timeout=WAIT)
    page.get_by_role("heading", name=f"NevIR · {item['pair_id']}").wait_for(timeout=WAIT)
    why = page.get_by_text(re.compile("^Why: the reasoning of")).first
    why.wait_for(timeout=WAIT)
    box = page.locator('[data-testid="stExpander"]').filter(has_text="Why: the reasoning of")
    box.get_by_text("names the cue", exact=False).first.wait_for(timeout=WAIT)
    box.get_by_text(re.compile("^Over 4 queries with reasoning")).wait_for(timeout=WAIT)  # drawn last
    body = box.inner_text()
    assert re.search(r"q1 · d1 — q1 ranked (right|wrong) · names the cue", body)
    assert "never names the cue" in body  # the tiny model's own texts do not name it
    assert box.locator(".nv-cue").first.inner_text() == item["cue"]
    assert re.search(r"Over 4 queries with reasoning: \d+ of \d+ wrong verdicts", body)
    out = ROOT / "test-results"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "inspector-reasoning.png"), full_page=True)
    page.close()
