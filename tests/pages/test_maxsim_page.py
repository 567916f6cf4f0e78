"""Page tests (AppTest) of the MaxSim explorer and the playground: they open, draw a NevIR pair,
an ExcluIR query and typed text, apply one-click counterfactuals, and report an unavailable
model or over-long input with a message instead of an exception."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(page: str, dataset: str = "nevir") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["dataset"] = dataset
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


def test_explorer_draws_a_nevir_pair(app_env):
    at = open_page("pages/maxsim.py")
    at.selectbox(key="pair").select("1230-2").run()
    at.radio(key="q").set_value("q2").run()
    at.toggle(key="merge").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.title[0].value == "MaxSim explorer"
    assert at.subheader[0].value.replace("\\", "") == "maxsim-all-MiniLM-L6-v2"  # escaped user text
    assert charts(at) == 2  # the two heatmaps in one figure, and the delta bars
    verdict = at.dataframe[0].value
    assert list(verdict["query"]) == ["q1", "q2"] and set(verdict["pair"]) == {"wrong"}
    assert any("Gold cue **not**" in c.value for c in at.caption)


def test_explorer_opens_on_a_pair_that_fools_minilm_and_not_negminilm(app_env):
    at = open_page("pages/maxsim.py")
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="pair").value == "1283-3"
    assert "wrong" in set(at.dataframe[0].value["pair"]), "MaxSim over MiniLM ranks the pair wrong"
    at.selectbox(key="model").select("maxsim-negminilm").run()
    assert not at.exception, [e.message for e in at.exception]
    assert set(at.dataframe[0].value["pair"]) == {"right"}, "MaxSim over NegMiniLM ranks it right"


def test_explorer_counterfactual_pins_the_original(app_env):
    at = open_page("pages/maxsim.py")
    at.selectbox(key="pair").select("1230-2").run()
    at.radio(key="cf").set_value("insert a negation").run()
    at.selectbox(key="cf_on").select("d2").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("`do-support: played -> did not play`" in m.value for m in at.markdown)
    assert len(at.dataframe) == 2  # edited and the pinned original
    edited, original = (d.value for d in at.dataframe)
    assert edited["S(q, d2)"].iloc[0] != original["S(q, d2)"].iloc[0]
    assert edited["S(q, d1)"].iloc[0] == pytest.approx(original["S(q, d1)"].iloc[0])


def test_explorer_typed_text_long_and_hostile(app_env):
    at = open_page("pages/maxsim.py")
    at.radio(key="src").set_value("typed").run()
    at.text_area(key="tq").input("<script>alert(1)</script> who is not here?").run()
    at.text_area(key="td1").input("nobody is here. " * 500).run()  # 8,000 characters
    assert not at.exception, [e.message for e in at.exception]
    warnings = " ".join(w.value for w in at.warning)
    assert "cut to that length" in warnings and "truncated at the model's max length" in warnings
    assert charts(at) == 2


def test_explorer_excluir_query_and_unavailable_model(app_env):
    at = open_page("pages/maxsim.py", dataset="excluir")
    assert not at.exception
    verdict = at.dataframe[0].value
    assert list(verdict.columns[1:3]) == ["S(q, positive)", "S(q, excluded)"]
    at.selectbox(key="model").select("colbertv2.0").run()
    assert not at.exception
    assert at.error and "colbert" in at.error[0].value.lower()


def test_playground_preset_negate_and_scores(app_env):
    at = open_page("pages/playground.py")
    preset = next(b for b in at.button if b.key and b.key.startswith("preset-nevir:"))
    preset.click().run()
    pair_id = preset.key.split(":")[1]
    from negviz.datasets import load

    row = load("nevir").frame.set_index("pair_id").loc[pair_id]
    assert at.text_area(key="pq").value == row["q1"] and at.text_area(key="pd2").value == row["d2"]
    table = at.dataframe[0].value
    from negviz.analyses.playground import DEFAULT_MODELS

    assert set(table["model"]) == set(DEFAULT_MODELS)  # the cross-encoder (ONNX) among them
    minilm = table[table["model"] == "all-MiniLM-L6-v2"]
    assert (minilm["verdict"] == "wrong").any()  # the stored run said so; live scores agree
    at.text_area(key="pq").input("He plays the violin.").run()
    next(b for b in at.button if b.label.startswith("Negate q1")).click().run()
    assert at.text_area(key="pq2").value == "He does not play the violin."
    assert not at.exception, [e.message for e in at.exception]
    assert charts(at) == 1


def test_explorer_before_after_with_a_local_checkpoint(app_env, tmp_path):
    from tests.support.tiny.late import build_tiny_colbert

    path = build_tiny_colbert(tmp_path / "ckpt")  # stands in for a fine-tuned checkpoint folder
    at = open_page("pages/maxsim.py")
    at.text_input(key="after").input(str(path)).run()
    assert not at.exception, [e.message for e in at.exception]
    # the titles are markdown-escaped (user text): compare what is shown
    assert [s.value.replace("\\", "") for s in at.subheader] == ["maxsim-all-MiniLM-L6-v2 (before)", f"{path} (after)"]
    assert charts(at) == 4
