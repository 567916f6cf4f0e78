"""negviz.ui.counterfactual_editor: the one-click edit of a query or document, drawn in AppTest
over two short texts; the edit shown is negviz.language.text.counterfactual's, the typed text never markup."""

from streamlit.testing.v1 import AppTest

TEXTS = {"q1": "The film is good.", "d1": "It is not <b>red</b>."}


def _editor(texts):
    import streamlit as st

    from negviz.ui.counterfactual_editor import counterfactual_editor

    target, edit = counterfactual_editor(texts)
    st.session_state["result"] = (target, edit.edited if edit else None)


def _app() -> AppTest:
    return AppTest.from_function(_editor, args=(TEXTS,), default_timeout=30).run()


def test_no_edit_by_default():
    at = _app()
    assert at.radio(key="cf").value == "none" and at.session_state["result"] == ("q1", None)
    assert [t.label for t in at.text_area] == []  # the free text box only for a free edit


def test_insert_a_negation_shows_the_rule_and_both_texts():
    at = _app()
    at.radio(key="cf").set_value("insert a negation").run()
    assert at.session_state["result"] == ("q1", "The film is not good.")
    assert [m.value for m in at.markdown] == ["**q1** · `auxiliary: is -> is not`"]
    (shown,) = at.get("html")
    assert "original" in shown.proto.body and "edited" in shown.proto.body


def test_a_swap_on_the_chosen_text_keeps_its_tags_as_text():
    at = _app()
    at.selectbox(key="cf_on").set_value("d1")
    at.radio(key="cf").set_value("swap a cue").run()
    assert at.session_state["result"] == ("d1", "It is never <b>red</b>.")
    body = at.get("html")[0].proto.body
    assert "&lt;b&gt;red&lt;/b&gt;" in body and "<b>red</b>" not in body  # escaped, never drawn bold


def test_an_edit_no_rule_fits_is_a_warning_naming_the_text():
    at = _app()
    at.radio(key="cf").set_value("remove a negation cue").run()  # "The film is good." has no cue
    assert at.session_state["result"] == ("q1", None)
    assert [w.value for w in at.warning] == [
        "No rule fits “remove a negation cue” for q1; see `negviz.language.text.counterfactual` for what the rules cover."
    ]


def test_a_free_edit_takes_the_typed_text():
    at = _app()
    at.radio(key="cf").set_value("free edit").run()
    at.text_area(key="cf_text").input("The film is bad.").run()
    assert at.session_state["result"] == ("q1", "The film is bad.")
