"""Pages on an added dataset (AppTest): picked in the sidebar through ?dataset=NAME, the heatmap,
error preference, inspector and MaxSim explorer open on its items once runs exist; the add page
lists it and removes it after a confirmation that says how many runs use it."""

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz.cli import main

APP = str(Path(__file__).resolve().parents[2] / "app.py")
DATA = Path(__file__).resolve().parents[1] / "data"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"


@pytest.fixture
def added(app_env, capsys):
    db = os.environ["NEGVIZ_DB_URL"]
    assert (
        main(
            [
                "--db",
                db,
                "datasets",
                "add",
                "mypairs",
                str(DATA / "pairs.csv"),
                "--kind",
                "pairs",
                "--columns",
                PAIRS_MAP,
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "--db",
                db,
                "datasets",
                "add",
                "mysent",
                str(DATA / "sentences.tsv"),
                "--kind",
                "sentence_pairs",
                "--columns",
                "pair_id=id,sentence1=first,sentence2=second",
            ]
        )
        == 0
    )
    assert main(["--db", db, "eval", "--model", "tfidf", "--dataset", "mypairs", "--quiet"]) == 0
    capsys.readouterr()
    return db


def open_page(page: str, dataset: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["dataset"] = dataset
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["dataset"] == dataset
    return at


def texts(at: AppTest) -> str:
    parts = [*at.caption, *at.info, *at.markdown, *at.error, *at.warning, *at.success]
    return "\n".join(str(p.value) for p in parts)


def test_heatmap_and_errors_on_an_added_dataset(added):
    at = open_page("pages/heatmap.py", "mypairs")
    shown = texts(at)
    assert "**mypairs**" in shown and "n = 3 items" in shown and "type labels: cue detected in the texts" in shown
    at = open_page("pages/errors.py", "mypairs")
    assert "No stored runs" not in texts(at) and len(at.get("plotly_chart")) >= 1


def test_inspector_and_maxsim_on_an_added_dataset(added):
    at = open_page("pages/inspector.py", "mypairs")
    assert at.subheader[0].value == "mypairs · 007"  # natural order of the file's ids
    at.sidebar.text_input(key="annotator").input("ana").run()
    next(w for w in at.main.selectbox if w.label == "Negation type").select("sentential")
    next(w for w in at.main.radio if w.label == "Pair validity").set_value("valid")  # no pre-selected choice
    next(b for b in at.button if b.label == "Save").click().run()
    assert not at.exception and "Saved 007 as version 1 by ana." in texts(at)
    from negviz.store import Store

    assert Store(added).annotations(dataset="mypairs")["item_id"].tolist() == ["007"]
    at = open_page("pages/maxsim.py", "mypairs")
    assert at.selectbox(key="pair").options == ["p1", "p2", "007"]
    at = open_page("pages/playground.py", "mypairs")
    assert any(b.label.startswith("mypairs ") for b in at.button)  # presets from the added dataset's run


def test_pages_say_when_the_kind_does_not_apply(added):
    at = open_page("pages/heatmap.py", "mysent")
    assert (
        "Per-type heatmap draws NevIR-style contrast pairs, ExcluIR-style exclusion queries, "
        "DEMETR-style perturbations; mysent holds CANNOT-style sentence pairs." in texts(at)
    )
    for page in ("errors", "cue_influence"):  # the registry's kinds guard every verdict page alike
        assert "mysent holds CANNOT-style sentence pairs." in texts(open_page(f"pages/{page}.py", "mysent"))
    at = open_page("pages/maxsim.py", "mysent")
    assert "mysent holds CANNOT-style sentence pairs. Pick one of those in the sidebar, or type below." in texts(at)


def test_add_page_lists_and_removes_with_run_count(added):
    at = open_page("pages/add_dataset.py", "mypairs")
    assert set(at.dataframe[0].value["name"]) == {"mypairs", "mysent"}
    at.selectbox(key="remove_name").select("mypairs").run()
    assert "1 stored run(s) use mypairs" in texts(at)
    at.button(key="confirm_remove").click().run()
    assert not at.exception and "Removed mypairs; 1 run(s) kept." in texts(at)
    assert "mypairs" not in at.sidebar.selectbox[0].options


def test_add_page_with_a_hub_id_offline_says_why(added):
    at = open_page("pages/add_dataset.py", "mypairs")
    at.text_input(key="hub").input("hf:someone/pairs:train").run()
    assert not at.exception, [e.message for e in at.exception]
    shown = " ".join(e.value for e in at.error).replace("\\", "")
    assert "needs the Hugging Face Hub" in shown and "someone/pairs" in shown
