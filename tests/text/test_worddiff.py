"""Word diff of pair texts, cue marking, and HTML rendering that escapes every piece of text."""

import html

from negviz import links
from negviz.analyses import paircard
from negviz.text.worddiff import Span, changed_words, cue_spans, diff_words, render_html, tokenize
from negviz.schema import EXCLUSION, PAIRS

Q1 = "Who had no love for the violin?"
Q2 = "Who did not yet have love for the violin?"


def texts(text, spans):
    return [text[s.start : s.end] for s in spans]


def test_tokens_are_words_and_punctuation():
    assert [t.text for t in tokenize("He didn't go, (did he?)")] == [
        "He",
        "didn't",
        "go",
        ",",
        "(",
        "did",
        "he",
        "?",
        ")",
    ]
    tok = tokenize("  two  words")[1]
    assert (tok.start, tok.end) == (7, 12)


def test_diff_of_a_nevir_query_pair():
    assert changed_words(Q1, Q2) == (["had no"], ["did not yet have"])
    left, right = diff_words(Q1, Q2)
    assert left == [Span(4, 10)] and texts(Q2, right) == ["did not yet have"]


def test_diff_edge_cases():
    assert diff_words("same text.", "same text.") == ([], [])
    assert diff_words("a  b\nc", "a b c") == ([], [])  # spacing is not a change
    assert changed_words("", "new words") == ([], ["new words"])
    assert changed_words("It is likely.", "It is unlikely.") == (["likely"], ["unlikely"])
    # two separate edits stay two spans; frequent words still align (autojunk off)
    a = "the cat saw the dog and the bird " * 20 + "the end"
    b = a.replace("cat", "rat", 1).replace("the end", "no end")
    assert changed_words(a, b) == (["cat", "the"], ["rat", "no"])


def test_cue_spans():
    text = "Not a knot: he did not stay, no longer, Unlike us; he didn't."
    assert texts(text, cue_spans(text, "not")) == ["Not", "not"]
    assert texts(text, cue_spans(text, "no longer")) == ["no longer"]
    assert texts(text, cue_spans(text, "unlike")) == ["Unlike"]
    assert texts(text, cue_spans(text, "n't")) == ["n't"]
    assert cue_spans(text, "") == [] and cue_spans(text, None) == []
    assert texts("a (b) c", cue_spans("a (b) c", "(b")) == ["(b"]  # regex characters in a cue are literal
    assert cue_spans("a b", ".") == []


def test_render_escapes_every_piece():
    evil = 'Who <script>alert("x")</script> & <b>not</b> me?'
    other = 'Who <script>alert("y")</script> & <b>not</b> me?'
    left, _ = diff_words(evil, other)
    out = render_html(evil, left, cue_spans(evil, "not"))
    assert "<script" not in out and "<b>" not in out
    assert "&lt;script&gt;" in out and "&amp;" in out
    assert '<span class="nv-cue">not</span>' in out
    assert '&quot;<span class="nv-diff">x</span>&quot;' in out
    # stripping our own spans gives back exactly the escaped text
    plain = out.replace('<span class="nv-diff">', "").replace('<span class="nv-cue">', "").replace("</span>", "")
    assert plain == html.escape(evil)
    assert render_html("a < b") == "a &lt; b"


def test_overlapping_spans_nest():
    text = "he did not go"
    out = render_html(text, [Span(3, 10)], [Span(7, 10)])
    assert out == 'he <span class="nv-diff">did </span><span class="nv-diff nv-cue">not</span> go'


def test_card_of_a_pair_marks_diff_and_cue_and_escapes():
    row = {
        "q1": Q1,
        "q2": Q2,
        "d1": "It was <i>not</i> there.",
        "d2": "It was there.",
        "cue": "not",
        "d1_is_original": True,
        "d2_is_edited": True,
    }
    out = paircard.card_html(PAIRS, row)
    assert "<i>" not in out and "&lt;i&gt;" in out
    assert "<b>d1 (original)</b>" in out and "<b>d2 (edited)</b>" in out
    assert '<span class="nv-diff">did </span><span class="nv-diff nv-cue">not</span>' in out


def test_card_of_an_exclusion_query_marks_detected_cues_without_diff():
    row = {"query": "Films with Vanessa Bayer, excluding Trainwreck", "pos_doc": "A & B", "neg_doc": "Trainwreck"}
    out = paircard.card_html(EXCLUSION, row)
    assert out.count('class="nv-diff"') == 1  # the legend only
    assert '<span class="nv-cue">excluding</span>' in out and "A &amp; B" in out


def test_model_cards_escape_names():
    import pandas as pd

    verdicts = pd.DataFrame(
        {
            "item_id": ["a", "a", "b"],
            "model": ["my_model", "[x](http://e.vil)", "m"],
            "category": ["tie", "correct", "tie"],
            "margin": [0.0, 0.25, 1.0],
            "q1_d1": 1.0,
            "q1_d2": 1.0,
            "q2_d1": 0.5,
            "q2_d2": 0.75,
        }
    )
    cards = paircard.model_cards(PAIRS, verdicts, "a")
    assert [c[0] for c in cards] == ["[x](http://e.vil)", "my_model"]
    assert cards[1][1] == "**my\\_model** · `tie` · margin +0.0000"
    assert "](" not in cards[0][1] and cards[0][2].loc["q2", "d2"] == 0.75


def test_score_matrix_and_links():
    m = paircard.score_matrix(PAIRS, {"q1_d1": 0.9, "q1_d2": 0.8, "q2_d1": 0.7, "q2_d2": 0.6})
    assert m.loc["q1", "d1"] == 0.9 and m.loc["q2", "d2"] == 0.6 and list(m.index) == ["q1", "q2"]
    assert links.inspector("nevir", "1230-2") == "inspector?dataset=nevir&pair=1230-2"
    assert links.maxsim("demetr", "a b:1") == "maxsim?dataset=demetr&pair=a+b%3A1"


def test_extra_fields_list_a_datasets_own_columns():
    row = {"pair_id": "1", "q1": "q", "d1": "d", "q2": "q", "d2": "d", "source": "mine", "note": None, "label": 3}
    fields = paircard.extra_fields(PAIRS, row)
    assert fields.to_dict("records") == [{"field": "source", "value": "mine"}, {"field": "label", "value": "3"}]
