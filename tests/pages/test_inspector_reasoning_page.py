"""The pair inspector (AppTest) shows the shipped SmolLM2 run's reasoning, or says where to find it."""

from __future__ import annotations

import html
import re

from negviz.analyses.paircard import md_escape
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


def test_the_reader_is_told_what_the_text_is_and_that_most_holds_no_reasoning(app_env):
    """SmolLM2-135M's stored texts are "True / False / A:" loops and "The answer is:" stubs: the
    panel says what a reader is looking at (text generated before each verdict, for 25 pairs) and
    how many of the texts hold no reasoning."""
    from negviz.analyses.reasoning import no_reasoning

    run_id, pair, texts = _first_pair_texts()
    at = _inspector(dataset="nevir", pair=pair, run=run_id)
    [said] = [c.value for c in at.caption if "generated before each verdict" in c.value]
    assert "kept for 25 pairs: what the model wrote, not an explanation" in said  # 25: no sample warning
    all_texts = portable.read_texts(REASONING)
    empty = sum(no_reasoning(t) for t in all_texts["text"])
    here = sum(no_reasoning(t) for t in texts["text"])
    assert empty > 0
    assert f"{empty:,} of its {len(all_texts):,} texts" in said and "hold no reasoning" in said
    assert (f"({here} of this pair's {len(texts)})" in said) == (here > 0)
