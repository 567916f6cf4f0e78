"""Reasoning beside verdicts (negviz.analyses.reasoning), on hand-built NevIR items: each
query's verdict from the pair rule, the cue marked in the reasoning, and the count of wrong
verdicts whose reasoning never names the cue."""

from __future__ import annotations

import pandas as pd

from negviz.analyses import reasoning as R

FRAME = pd.DataFrame(
    {
        "pair_id": ["a", "b"],
        "q1": ["Who did not win?", "Which city has no river?"],
        "d1": ["Ann did not win.", "Rome has no river."],
        "q2": ["Who won?", "Which city has a river?"],
        "d2": ["Ann won.", "Rome has a river."],
        "cue": ["not", "no"],
    }
)
# a: q1 right (2 > 1), q2 wrong (tie); b: q1 wrong, q2 right.
WIDE = pd.DataFrame(
    {"q1_d1": [2.0, 0.0], "q1_d2": [1.0, 1.0], "q2_d1": [0.0, 0.0], "q2_d2": [0.0, 2.0]},
    index=pd.Index(["a", "b"], name="item_id"),
)
TEXTS = pd.DataFrame(
    [
        ("a", "q1_d1", "The passage says Ann did not win, which answers it."),
        ("a", "q1_d2", "Ann won here, the opposite."),
        ("a", "q2_d1", "Both are about Ann winning."),
        ("a", "q2_d2", "Ann won."),
        ("b", "q1_d1", "Rome is a city with a river."),  # wrong verdict, cue never named
        ("b", "q2_d2", "Rome has a river."),
    ],
    columns=["item_id", "slot", "text"],
).assign(name="reasoning")


def test_each_query_gets_its_half_of_the_pair_rule():
    v = R.query_verdicts(WIDE)
    assert v.loc["a"].tolist() == [True, False] and v.loc["b"].tolist() == [False, True]


def test_wrong_verdicts_without_the_cue_are_counted():
    table = R.query_table(FRAME, WIDE, TEXTS)
    assert len(table) == 4
    got = table.set_index(["item_id", "query"])
    assert got.loc[("a", "q1"), "mentions_cue"] and not got.loc[("a", "q2"), "mentions_cue"]
    assert not got.loc[("b", "q1"), "mentions_cue"]
    m = R.cue_mentions(table)
    assert m == {
        "queries": 4,
        "wrong": 2,
        "wrong_without_cue": 2,
        "share_wrong_without_cue": 1.0,
        "right_without_cue": 1,
    }


def test_the_cue_is_marked_in_the_reasoning_and_text_is_escaped():
    texts = TEXTS[TEXTS["item_id"] == "a"].copy()
    texts.loc[texts["slot"] == "q2_d2", "text"] = "<b>Ann</b> won."
    html = R.item_html(FRAME.iloc[0].to_dict(), texts, {"q1": True, "q2": False})
    assert '<span class="nv-cue">not</span>' in html
    assert "q1 ranked right · names the cue" in html and "q2 ranked wrong · never names the cue" in html
    assert "&lt;b&gt;Ann&lt;/b&gt;" in html and "<b>Ann</b>" not in html


def test_no_texts_no_rows():
    assert R.query_table(FRAME, WIDE, TEXTS.iloc[:0]).empty
    assert R.cue_mentions(R.query_table(FRAME, WIDE, TEXTS.iloc[:0]))["share_wrong_without_cue"] is None


def test_a_loop_or_a_stub_holds_no_reasoning():
    from negviz.analyses.reasoning import no_reasoning, no_reasoning_count

    loop = "True\nFalse\n\nA:\n" * 8
    reasoned = "The query asks for a film without sequels.\nDocument 1 names two sequels.\nSo it fails.\nFalse"
    assert no_reasoning(loop) and no_reasoning("The answer is:") and no_reasoning("")
    assert not no_reasoning(reasoned) and not no_reasoning("It says the opposite of what q1 asks for.")
    assert no_reasoning_count(pd.DataFrame({"text": [loop, reasoned, "The answer is:"]})) == 2
