"""negviz.ui.maxsim.maxsim_view: the explorer's check of a typed "After" checkpoint before any file is
looked up under its name, and one model's view drawn in AppTest with a tiny offline MaxSim model."""

from streamlit.testing.v1 import AppTest

from negviz.ui.maxsim.maxsim_view import CHECKPOINT_MAX_CHARS, NAME_MAX_BYTES, checkpoint_problem
from negviz.ui.widgets import safe_md


def test_a_plain_path_or_hub_id_has_no_problem():
    assert checkpoint_problem("~/.cache/negviz/checkpoints/abc/final") is None
    assert checkpoint_problem("  sentence-transformers/all-MiniLM-L6-v2  ") is None  # spaces around are trimmed


def test_a_text_longer_than_a_path_may_be_is_refused_with_its_length():
    problem = checkpoint_problem("a/" * 600)  # 1,200 characters, each name short
    assert problem.startswith("The checkpoint is 1,200 characters long; a path or model spec has at most 1,024.")
    assert CHECKPOINT_MAX_CHARS == 1024


def test_a_control_character_is_refused():
    assert "control character" in checkpoint_problem("models/a\nmodels/b")


def test_a_name_longer_than_a_file_system_allows_is_refused_in_bytes():
    # "é" is two bytes: 128 of them make a 256-byte name of 128 characters
    problem = checkpoint_problem("models/" + "é" * 128 + "/final")
    assert problem.startswith("The checkpoint has a folder or file name of 256 bytes; a name has at most 255.")
    assert checkpoint_problem("models\\" + "a" * NAME_MAX_BYTES) is None  # exactly the limit, Windows separator


def _explorer(spec, inputs):
    import streamlit as st

    from negviz.ui.maxsim.maxsim_view import Display, draw

    draw(spec, "Before: tiny <b>model</b>", "before", inputs, Display())
    st.text("end")


def _inputs(edit=None):
    from negviz.ui.maxsim.maxsim_view import Inputs

    queries = ["Who did not play the violin?", "Who played the violin?"]
    docs = ["He never played the violin.", "He played the violin well."]
    return Inputs(queries, docs, queries, docs, 0, ["q1", "q2"], ["d1", "d2"], edit=edit)


def test_draw_shows_the_matrices_deltas_and_each_querys_verdict(tiny_model_dir):
    spec = f"{tiny_model_dir('maxsim')}[family=maxsim]"
    at = AppTest.from_function(_explorer, args=(spec, _inputs()), default_timeout=120).run()
    assert not at.exception and list(at.error) == []
    assert [s.value for s in at.subheader] == [safe_md("Before: tiny <b>model</b>")]  # the caption as text
    assert len(at.get("plotly_chart")) == 2  # the matrices, then the per-token deltas
    (verdicts,) = at.dataframe  # no edit: no pinned original beside it
    assert len(verdicts.value) == 2  # one row per query
    assert at.caption[-1].value.startswith("4 texts encoded and 4 matrices built in ")
    assert [t.value for t in at.text] == ["end"]


def test_an_unavailable_checkpoint_is_an_error_and_the_page_goes_on(tmp_path):
    spec = f"{tmp_path / 'no-such-checkpoint'}[family=maxsim]"
    at = AppTest.from_function(_explorer, args=(spec, _inputs()), default_timeout=60).run()
    assert len(at.error) == 1 and list(at.get("plotly_chart")) == []
    assert [t.value for t in at.text] == ["end"]
