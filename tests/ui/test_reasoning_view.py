"""negviz.ui.inspector.reasoning_view: a generative run's reasoning in the inspector, over the shipped
SmolLM2 runs (app_env): the pair's reasoning when the shown run kept some, else one line saying
why and linking the run of the model that has some; the template note from hand-made runs."""

from streamlit.testing.v1 import AppTest

from negviz.ui.inspector.reasoning_view import TEXT_FAMILIES, _template_note

MODEL = "smollm2-135m"


def test_only_llm_families_keep_text():
    assert TEXT_FAMILIES == {"llm-pointwise", "llm-listwise"}


def test_template_note_says_a_template_asks_for_the_verdict_alone():
    run = {"model_spec": {"options": {"template": "yes-no"}}}
    assert _template_note(run) == " (its template, yes\\-no, asks for the verdict without reasoning)"
    assert _template_note({"model_spec": {"options": {"template": "rank1"}}}) == ""  # rank1 reasons
    assert _template_note({"model_name": "x"}) == ""


def _panel(run_filter):
    import streamlit as st

    from negviz.ui.dataset_cache import dataset_view
    from negviz.ui.inspector.reasoning_view import show

    view = dataset_view("nevir")
    runs = view.runs()
    runs = runs[(runs["model_name"] == "smollm2-135m") & runs["dataset_spec"].map(run_filter)]
    row = view.dataset.frame.set_index("pair_id").loc["1230-2"].to_dict()
    show("nevir", runs.head(1), "1230-2", row)
    st.text("end")


def _limit(n):
    return lambda spec: (spec or {}).get("limit") == n


def test_a_run_that_kept_reasoning_shows_it_for_the_pair(app_env):
    at = AppTest.from_function(_panel, args=(_limit(25),), default_timeout=60).run()
    assert not at.exception
    (expander,) = at.expander
    assert expander.label.startswith("Why: the reasoning of smollm2\\-135m") and "first 25 items" in expander.label
    (html,) = at.get("html")
    assert "q1 · d1 — q1 ranked " in html.proto.body  # each query's text under its verdict
    what, over = [c.value for c in at.caption][:2]  # what the text is (issue 46), then the cue rates
    assert what.startswith("The text smollm2\\-135m generated before each verdict") and "not an explanation" in what
    assert over.startswith("Over ") and " queries with reasoning: " in over


def test_a_run_without_text_says_why_and_links_the_run_that_has_some(app_env):
    at = AppTest.from_function(_panel, args=(_limit(100),), default_timeout=60).run()
    assert not at.exception and list(at.expander) == []
    (line,) = [c.value for c in at.caption]
    assert "stored no reasoning texts (its template, yes\\-no, asks for the verdict without reasoning)" in line
    assert "has some for this pair: [show it](inspector?dataset=nevir&pair=1230-2&run=" in line
