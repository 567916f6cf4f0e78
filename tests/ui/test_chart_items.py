"""negviz.ui.chart_items: a chart click copied into the cell pickers once, and the items behind a
cell listed with links to the pair inspector and type titles (in AppTest, over a few hand-made items)."""

import pandas as pd
from streamlit.testing.v1 import AppTest

from negviz.language.taxonomy import TAXONOMY
from negviz.ui.chart_items import type_titles


def test_item_tables_show_type_titles_and_keep_ids_elsewhere():
    items = pd.DataFrame({"item_id": ["a", "b", "c"], "type": ["exclusion_exceptor", "none", None]})
    shown = type_titles(items)
    assert shown["type"].tolist()[:2] == ["Exclusion: exceptor", TAXONOMY.label("none")]
    assert pd.isna(shown["type"].iloc[2]) and items["type"].iloc[0] == "exclusion_exceptor"  # a copy
    assert not any("_" in t for t in shown["type"].dropna())


def test_type_titles_leave_a_table_without_types_as_it_is():
    items = pd.DataFrame({"item_id": ["a"]})
    assert type_titles(items) is items


def _clicked(custom):
    import streamlit as st

    from negviz.ui.chart_items import apply_click

    if custom is not None:  # what st.plotly_chart leaves in session state after a click
        st.session_state["chart"] = {"selection": {"points": [{"customdata": custom}]}}
    apply_click("chart", {"model": 0, "lean": 1}, {"model": ["bm25", "tfidf"], "lean": ["right", "wrong"]})


def test_apply_click_copies_the_clicked_cell_into_the_pickers():
    at = AppTest.from_function(_clicked, args=(["tfidf", "wrong"],), default_timeout=30).run()
    assert at.session_state["model"] == "tfidf" and at.session_state["lean"] == "wrong"


def test_apply_click_ignores_a_value_the_picker_does_not_offer():
    at = AppTest.from_function(_clicked, args=(["no-such-model", "right"],), default_timeout=30).run()
    assert "model" not in at.session_state and at.session_state["lean"] == "right"


def test_apply_click_applies_each_click_once_so_the_pickers_stay_usable():
    at = AppTest.from_function(_clicked, args=(["bm25", "right"],), default_timeout=30).run()
    at.session_state["model"] = "tfidf"  # the reader picks another model after the click
    at.run()  # the same click still in the chart's state: not applied again
    assert at.session_state["model"] == "tfidf"


def _items(model):
    import pandas as pd

    from negviz.ui.chart_items import items_table

    items = pd.DataFrame({"item_id": ["7-1", "9-2"], "type": ["affixal", "exclusion_exceptor"], "margin1": [0.5, -1.0]})
    items_table(items, "nevir", "cell", "negviz-cell", model=model)


def test_items_table_links_each_item_to_the_inspector_and_shows_type_titles():
    at = AppTest.from_function(_items, args=(None,), default_timeout=30).run()
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["link", "item_id", "type", "margin1"]  # the link first
    assert list(frame["link"]) == ["inspector?dataset=nevir&pair=7-1", "inspector?dataset=nevir&pair=9-2"]
    assert list(frame["type"]) == [TAXONOMY.label("affixal"), "Exclusion: exceptor"]
    assert [b.proto.label for b in at.get("download_button")] == ["Download these items (CSV)"]


def test_items_table_with_a_model_turns_its_why_panel_on():
    at = AppTest.from_function(_items, args=("bm25",), default_timeout=30).run()
    assert at.dataframe[0].value["link"].iloc[0] == (
        "inspector?dataset=nevir&pair=7-1&model=bm25&why_model=bm25&why_on=true"
    )


def _answered(custom, picker):
    import streamlit as st

    from negviz.ui.chart_items import apply_click, mark_answer

    st.session_state["chart"] = {"selection": {"points": [{"customdata": custom}]}}
    apply_click("chart", {"model": 0, "lean": 1}, {"model": ["bm25", "tfidf"], "lean": ["right", "wrong"]})
    mark_answer(picker)


def test_mark_answer_marks_a_clicks_answer_once_and_only_for_its_own_pickers():
    """A click that set the model picker marks that answer (the scroll target) on its rerun only;
    another chart's answer on the same page is not marked for it."""
    from negviz.ui.chart_items import ANSWER_ID

    at = AppTest.from_function(_answered, args=(["tfidf", "wrong"], "model"), default_timeout=30).run()
    marks = [h for h in at.get("html") if ANSWER_ID in h.proto.body]
    assert len(marks) == 1 and "What you clicked" in marks[0].proto.body
    at.run()  # the same click still in the chart's state: nothing marked again
    assert not [h for h in at.get("html") if ANSWER_ID in h.proto.body]
    other = AppTest.from_function(_answered, args=(["tfidf", "wrong"], "seg_model"), default_timeout=30).run()
    assert not [h for h in other.get("html") if ANSWER_ID in h.proto.body]


def _expected(picker: str, marked: tuple[str, ...]):
    import streamlit as st

    from negviz.ui.chart_items import expect_answer, mark_answer

    if not st.session_state.get("clicked"):  # the first run only: a button's callback
        st.session_state["clicked"] = True
        expect_answer(picker)
    mark_answer(*marked)


def test_expect_answer_marks_a_buttons_answer_once_under_any_of_its_names():
    from negviz.ui.chart_items import ANSWER_ID

    at = AppTest.from_function(_expected, args=("preset", ("preset", "cf")), default_timeout=30).run()
    assert len([h for h in at.get("html") if ANSWER_ID in h.proto.body]) == 1
    assert not [h for h in at.run().get("html") if ANSWER_ID in h.proto.body]  # once
    other = AppTest.from_function(_expected, args=("preset", ("cf",)), default_timeout=30).run()
    assert not [h for h in other.get("html") if ANSWER_ID in h.proto.body]


def test_a_clicks_items_read_in_words():
    """A heatmap cell's or an error segment's items (issue 46 point 6): the verdict and the label
    source in words, not 'prefers_edited' and 'gold_cue'."""
    from negviz.ui.chart_items import in_words

    items = pd.DataFrame(
        {"item_id": ["1"], "type": ["affixal"], "label_source": ["gold_cue"], "verdict": ["prefers_edited"]}
    )
    shown = in_words(items)
    assert shown.iloc[0].tolist() == ["1", "Affixal", "the dataset's cue word", "prefers edited (d2) for both"]
    assert items["verdict"].tolist() == ["prefers_edited"]  # the CSV keeps the keys
