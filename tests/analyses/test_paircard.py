"""negviz.analyses.paircard: one item's card in the inspector (texts escaped, diff and cue marked),
its score matrix, each model's verdict row and card, and text shown in markdown as itself."""

from negviz.analyses import paircard
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND
from negviz.ui.navigation import links

Q1 = "Who had no love for the violin?"
Q2 = "Who did not yet have love for the violin?"


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
    out = paircard.card_html(PAIRS_KIND, row)
    assert "<i>" not in out and "&lt;i&gt;" in out
    assert "<b>d1 (original)</b>" in out and "<b>d2 (edited)</b>" in out
    assert '<span class="nv-diff">did </span><span class="nv-diff nv-cue">not</span>' in out


def test_card_of_an_exclusion_query_marks_detected_cues_without_diff():
    row = {"query": "Films with Vanessa Bayer, excluding Trainwreck", "pos_doc": "A & B", "neg_doc": "Trainwreck"}
    out = paircard.card_html(EXCLUSION_KIND, row)
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
    cards = paircard.model_cards(PAIRS_KIND, verdicts, "a")
    assert [c[0] for c in cards] == ["[x](http://e.vil)", "my_model"]
    assert cards[1][1] == "**my\\_model** · `tie` · margin +0.0000"
    assert "](" not in cards[0][1] and cards[0][2].loc["q2", "d2"] == 0.75


def test_score_matrix_and_links():
    m = paircard.score_matrix(PAIRS_KIND, {"q1_d1": 0.9, "q1_d2": 0.8, "q2_d1": 0.7, "q2_d2": 0.6})
    assert m.loc["q1", "d1"] == 0.9 and m.loc["q2", "d2"] == 0.6 and list(m.index) == ["q1", "q2"]
    assert links.inspector("nevir", "1230-2") == "inspector?dataset=nevir&pair=1230-2"
    assert links.maxsim("demetr", "a b:1") == "maxsim?dataset=demetr&pair=a+b%3A1"


def test_extra_fields_list_a_datasets_own_columns():
    row = {"pair_id": "1", "q1": "q", "d1": "d", "q2": "q", "d2": "d", "source": "mine", "note": None, "label": 3}
    fields = paircard.extra_fields(PAIRS_KIND, row)
    assert fields.to_dict("records") == [{"field": "source", "value": "mine"}, {"field": "label", "value": "3"}]
    # names and flags in words (issue 46): 'd1 is original: yes', not 'd1_is_original: True'
    nevir_row = {"pair_id": "1", "passage_id": 1230, "edit_type": 2, "d1_is_original": True, "d2_is_edited": False}
    assert paircard.extra_fields(PAIRS_KIND, nevir_row).values.tolist() == [
        ["passage id", "1230"],
        ["edit type", "2"],
        ["d1 is original", "yes"],
        ["d2 is edited", "no"],
    ]


def test_cue_finder_prefers_the_gold_cue_to_detected_ones():
    text = "it was not unkind"
    gold = paircard.cue_finder({"cue": "unkind"})(text)
    assert [text[s.start : s.end] for s in gold] == ["unkind"]
    detected = paircard.cue_finder({"cue": " "})(text)  # a blank cue: the taxonomy finds "not"
    assert "not" in [text[s.start : s.end] for s in detected]


def test_verdict_rows_keep_one_items_rows_and_the_kinds_columns():
    import pandas as pd

    verdicts = pd.DataFrame(
        {"item_id": ["a", "b"], "model": ["m", "m"], "category": ["wrong", "correct"], "margin": [-1.0, 2.0]}
    ).assign(pos=[1.0, 3.0], neg=[2.0, 1.0], extra=0)
    assert paircard.verdict_rows(EXCLUSION_KIND, verdicts, "a").to_dict("records") == [
        {"model": "m", "category": "wrong", "margin": -1.0}  # in words (issue 46), short
    ]
    assert list(paircard.verdict_rows(EXCLUSION_KIND, verdicts, "b", with_scores=True)) == [
        "model",
        "category",
        "margin",
        "s(query, pos doc)",
        "s(query, neg doc)",
    ]


def test_md_escape_stops_markup_and_autolinks():
    assert paircard.md_escape("my_model*[x](y)") == r"my\_model\*\[x\]\(y\)"
    out = paircard.md_escape("see https://e.vil or www.e.vil or a@b.c")
    assert "://" not in out and "www." not in out and "@b" not in out
    assert out.replace("\u2060", "").replace("\\", "") == "see https://e.vil or www.e.vil or a@b.c"


def test_the_model_table_reads_in_words():
    """NevIR's model table (issue 46 point 6): a category in words, each score headed by the texts
    it scores; the model card's title says the verdict the same way."""
    import pandas as pd

    verdicts = pd.DataFrame(
        {"item_id": ["a"], "model": ["m"], "category": ["prefers_edited"], "margin": [-0.5]}
    ).assign(q1_d1=0.1, q1_d2=0.9, q2_d1=0.2, q2_d2=0.8)
    rows = paircard.verdict_rows(PAIRS_KIND, verdicts, "a", with_scores=True)
    assert rows["category"].tolist() == ["prefers d2"]  # short: the table fits a 1,000 px page
    assert [c for c in rows if c.startswith("s(")] == ["s(q1, d1)", "s(q1, d2)", "s(q2, d1)", "s(q2, d2)"]
    assert not [c for c in rows if "_" in c]
    ((_, title, _),) = paircard.model_cards(PAIRS_KIND, verdicts, "a")
    assert "`prefers edited (d2) for both`" in title


def test_the_model_tables_verdict_columns_read_in_words():
    """Each query's margin headed in words (not margin1); each query's own verdict (c1, c2) is in
    the category already, and left out so the table fits a 1,000 px page."""
    import pandas as pd

    verdicts = pd.DataFrame(
        {"item_id": ["a"], "model": ["m"], "category": ["prefers_edited"], "c1": [True], "c2": [False]}
    ).assign(margin1=0.4, margin2=-0.2, margin=-0.2)
    rows = paircard.verdict_rows(PAIRS_KIND, verdicts, "a")
    assert list(rows) == ["model", "category", "margin (q1)", "margin (q2)"]
