"""negviz.ui.sensitivity.sensitivity_tabs: the DEMETR tabs' URL-bound controls and the "perturb your own
sentence" tab's edits of a typed translation, in AppTest (no model chosen: nothing is scored)."""

from streamlit.testing.v1 import AppTest

from negviz.analyses import sensitivity as sv
from negviz.language.text import perturb
from negviz.ui.sensitivity.sensitivity_tabs import CAND


def _controls():
    import streamlit as st

    from negviz.ui.sensitivity.sensitivity_tabs import demetr_controls

    st.session_state["controls"] = demetr_controls()


def test_the_controls_give_the_value_id_and_turn_published_columns_off_for_accuracy():
    at = AppTest.from_function(_controls, default_timeout=30).run()
    assert at.session_state["controls"] == ("sensitivity_ratio", False, True)
    assert at.toggle(key="published").disabled is False
    at.radio(key="value").set_value("detection accuracy").run()
    at.toggle(key="checked").set_value(True).run()
    assert at.session_state["controls"] == ("detection_accuracy", True, True)
    assert at.toggle(key="published").disabled is True  # NegBLEURT's figure has ratios only


def _own(candidate):
    import pandas as pd
    import streamlit as st

    from negviz.ui.sensitivity.sensitivity_tabs import own_sentence

    if candidate is not None:
        st.session_state.setdefault("own_cand", candidate)
    own_sentence({}, pd.DataFrame(columns=["model_name", "model_spec"]))


def test_own_sentence_lists_each_rule_that_fits_the_typed_candidate():
    at = AppTest.from_function(_own, args=(None,), default_timeout=30).run()  # the default sentence
    assert not at.exception
    edits = at.dataframe[0].value
    expected = {k: e for k, e in perturb.perturb_all(CAND).items() if e}
    assert list(edits["perturbation"]) == [sv.short_label(perturb.BY_NAME[k].stem) for k in expected]  # in words
    negation = edits.set_index("perturbation").loc["negation", "perturbed"]
    assert negation == "The new bridge did not open to traffic on Monday after two years of construction."
    assert [c.value for c in at.caption] == [
        "Not applied, as nothing in this sentence fits the rule: case (the case of the first pronoun changed)."
    ]


def test_own_sentence_with_an_empty_candidate_lists_no_edit():
    at = AppTest.from_function(_own, args=("   ",), default_timeout=30).run()
    assert at.dataframe[0].value.empty and list(at.caption) == []
