"""The pair inspector (AppTest) shows the shipped SmolLM2 run's reasoning, or says where to find it."""

from __future__ import annotations

import html
import re

from negviz.analyses.paircard import md_escape
from negviz.core import links
from negviz.datasets import load
from negviz.store import portable
from tests.analyses.test_shipped_reasoning import NAME, REASONING
from tests.support.apptest import open_page


def _inspector(**params):
    return open_page("pages/inspector.py", timeout=300, **params)


def _first_pair_texts():
    record = portable.read_record(REASONING)
    texts = portable.read_texts(REASONING)
    pair = load("nevir").frame["pair_id"].iloc[0]
    return record.run_id, pair, texts[texts["item_id"] == pair]


def test_the_inspector_shows_the_shipped_reasoning_of_a_pinned_pair(app_env):
    run_id, pair, texts = _first_pair_texts()
    at = _inspector(dataset="nevir", pair=pair, run=run_id)
    assert any(e.label == f"Why: the reasoning of {md_escape(NAME)}" for e in at.expander)
    shown = html.unescape(re.sub(r"<[^>]+>", "", " ".join(h.proto.body for h in at.get("html"))))
    for text in texts["text"]:  # each of the pair's four texts, as the model wrote it
        assert text in shown
    assert any(c.value.startswith("Over 50 queries with reasoning: ") for c in at.caption)


def test_a_run_without_texts_says_so_and_links_the_run_with_them(app_env):
    run_id, pair, _ = _first_pair_texts()
    # No pin, as on a fresh install: the policy shows the yes/no run, which kept no text.
    at = _inspector(dataset="nevir", pair=pair)
    lines = [c.value for c in at.caption if "stored no reasoning texts" in c.value]
    assert len(lines) == 1
    assert "template, yes\\-no, asks for the verdict without reasoning" in lines[0]
    assert f"({links.inspector('nevir', pair, run=run_id)})" in lines[0]
    assert not any(e.label.startswith("Why: the reasoning of") for e in at.expander)
