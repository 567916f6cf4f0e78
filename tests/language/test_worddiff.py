"""Word diff of pair texts, cue marking, and HTML rendering that escapes every piece of text."""

import html

from negviz.language.text.worddiff import Span, changed_words, cue_spans, diff_words, render_html, tokenize

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
