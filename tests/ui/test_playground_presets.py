"""negviz.ui.playground.playground_presets: the playground's preset buttons over a copy of the shipped runs
(app_env), in AppTest: a button per preset the stored runs give, a click filling the text boxes
(a one-query ExcluIR preset clears q2), and the sidebar dataset of a kind the playground does not
draw said so under the buttons."""

from streamlit.testing.v1 import AppTest

from negviz.ui.navigation.page_registry import DATASET_KEY


def _presets(dataset):
    import streamlit as st

    from negviz.ui.playground.playground_presets import preset_buttons

    if dataset is not None:
        st.session_state.setdefault("dataset", dataset)  # the sidebar picker's key (DATASET_KEY)
    st.session_state["presets"] = preset_buttons()


def _app(dataset=None) -> AppTest:
    at = AppTest.from_function(_presets, args=(dataset,), default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_button_per_stored_preset_and_a_click_fills_the_text_boxes(app_env):
    from negviz.ui.playground import playground_data

    at = _app()
    presets = at.session_state["presets"]
    assert [p.key for p in presets] == [p.key for p in playground_data.presets(added=("nevir", "pairs"))]
    # three a row: column i holds presets i, i + 3, ...
    keys = [[b.key for b in col.button] for col in at.columns]
    assert keys == [[f"preset-{p.key}" for p in presets[i::3]] for i in range(3)]
    shown = {b.key: (b.label, b.help) for b in at.button}
    assert shown == {f"preset-{p.key}": (p.label, p.why) for p in presets}
    assert list(at.caption) == []  # presets found, and NevIR is a kind the playground draws
    nevir = next(p for p in presets if p.key.startswith("nevir:"))
    at.button(key=f"preset-{nevir.key}").click().run()
    state = at.session_state
    assert (state["pq"], state["pq2"]) == tuple(nevir.queries)
    assert (state["pd1"], state["pd2"], state["pd3"], state["cf"]) == (*nevir.docs, "", "none")
    excluir = next(p for p in presets if p.key.startswith("excluir:"))
    assert len(excluir.queries) == 1
    at.button(key=f"preset-{excluir.key}").click().run()
    assert (at.session_state["pq"], at.session_state["pq2"]) == (excluir.queries[0], "")  # q2 cleared
    assert at.session_state["pd1"] == excluir.docs[0]


def test_a_sidebar_dataset_of_another_kind_is_named_under_the_buttons(app_env):
    assert DATASET_KEY == "dataset"
    at = _app("cannot")
    assert {p.key.split(":")[0] for p in at.session_state["presets"]} <= {"nevir", "excluir"}
    captions = [c.value for c in at.caption]
    assert len(captions) == 1 and captions[0].startswith("Playground draws ")
    assert "cannot holds CANNOT-style sentence pairs" in captions[0]
    assert captions[0].endswith("Presets come from datasets of those kinds only.")
