"""Added datasets of every kind (issue 16), beyond tests/datasets/test_added.py and
tests/pages/test_added_dataset_pages.py: each kind added through the page's upload form, the pages opened
on an added exclusion and perturbation set, the loaders' malformed-file classes through the add
path (every problem shown, nothing stored), and the heatmap's columns from a type label column.

Streamlit 1.67's AppTest drives ``st.file_uploader`` (``FileUploader.set_value``), so the uploads
here go through the page itself; where an older AppTest has no ``file_uploader`` the upload tests
skip, as the functions the page calls on the bytes (``added.check_upload`` and ``add_dataset``)
are tested directly below as well.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from streamlit.testing.v1 import AppTest

from negviz.cli import main
from negviz.core.errors import DataValidationError
from negviz.datasets import load
from negviz.datasets.added import add_dataset, check_upload
from negviz.evaluation.runner import run_eval
from negviz.store import Store
from negviz.store import datasets as stored
from negviz.store import tables as t
from tests.datasets.test_added import EXCLUSION_CSV, PAIRS_MAP
from tests.pages.test_added_dataset_pages import APP, DATA, open_page, texts
from tests.support.apptest import click_run_and_wait

EXCLUSION_MAP = "query_id=qid,query=question,pos_doc=positive,neg_doc=excluded"
# Pairs with a type label column under the user's own name, mapped onto the label column
# (negation_type) by a dropdown of the page (test 1) or by the column mapping (test 4).
LABELLED_PAIRS = (
    "id,query1,doc1,query2,doc2,category\n"
    "a1,Who plays chess?,Ann plays chess.,Who does not play chess?,Bob does not play chess.,sentential\n"
    "a2,Which fruit is sweet?,The apple is sweet.,Which fruit is unsweet?,The lemon is unsweet.,affixal\n"
    "a3,Is the box full?,The box is full.,Is the box empty?,The box is empty.,antonym\n"
    "a4,Who stayed home?,Only Ann stayed.,Who stayed except Ann?,Everyone but Ann stayed.,my-own-type\n"
)
# Five problems in three rows (the CLI test of the same file counts them too).
MANY_PROBLEMS = b"id,query1,doc1,query2,doc2\na,Q,D, ,D2\na,Q,,Q2,D2\n,Q,D,Q2,\n"


# ---------------------------------------------------------------- helpers
def count_added(db: str) -> int:
    engine = sa.create_engine(db)
    try:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table(t.added_datasets.name):
                return 0
            return int(conn.execute(sa.select(sa.func.count()).select_from(t.added_datasets)).scalar())
    finally:
        engine.dispose()


def add_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/add_dataset.py").run()
    assert not at.exception, [e.message for e in at.exception]
    if not hasattr(at, "file_uploader"):
        pytest.skip("this Streamlit's AppTest cannot upload a file")
    return at


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    """Replace the uploaded file (the page's only uploader) and rerun."""
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream"))
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def mapping(at: AppTest, kind: str) -> dict[str, str]:
    """The column dropdowns of ``kind``: needed column -> the picked file column."""
    prefix = f"map-{kind}-"
    return {w.key[len(prefix) :]: w.value for w in at.selectbox if (w.key or "").startswith(prefix)}


def save(at: AppTest, name: str, who: str = "ana") -> AppTest:
    at.text_input(key="name").input(name)
    at.text_input(key="who").input(who)
    next(b for b in at.button if b.label == "Save to the store").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def table_with(at: AppTest, *columns: str) -> pd.DataFrame:
    """The first table with these columns (AppTest gives st.dataframe no key to find it by)."""
    return next(d.value for d in at.dataframe if set(columns) <= set(d.value.columns))


# ---------------------------------------------------------------- 1. each kind through the page
def test_each_kind_added_through_the_upload_form(app_env):
    db = os.environ["NEGVIZ_DB_URL"]
    at = add_page()
    assert at.file_uploader(key="upload").allowed_type  # the page's one uploader: CSV, TSV, JSONL, Parquet

    # Contrast pairs: the guesses map query1 -> q1 etc.; the type label column is picked by hand.
    upload(at, "labelled pairs.csv", LABELLED_PAIRS.encode())
    at.selectbox(key="kind").select("pairs").run()
    assert mapping(at, "pairs") == {
        "pair_id": "id",
        "q1": "query1",
        "d1": "doc1",
        "q2": "query2",
        "d2": "doc2",
        "negation_type": "(none)",
    }
    at.selectbox(key="map-pairs-negation_type").select("category").run()
    assert "4 items (NevIR-style contrast pairs) pass every check." in texts(at)
    assert at.text_input(key="name").value == "labelled-pairs"  # the file's stem, made a name
    save(at, "mypairs")
    assert "Saved mypairs, 4 items." in texts(at)

    # Exclusion queries: qid/question/positive/excluded guessed, negation_type found by its name.
    upload(at, "excl.csv", EXCLUSION_CSV.encode())
    at.selectbox(key="kind").select("exclusion").run()
    assert mapping(at, "exclusion") == {
        "query_id": "qid",
        "query": "question",
        "pos_doc": "positive",
        "neg_doc": "excluded",
        "negation_type": "negation_type",
    }
    save(at, "myexcl")
    assert "Saved myexcl, 2 items." in texts(at)

    # Perturbation items: the file has the needed names; severity and checked take their defaults.
    upload(at, "perturbations.csv", (DATA / "perturbations.csv").read_bytes())
    at.selectbox(key="kind").select("perturbation").run()
    assert mapping(at, "perturbation")["perturbed"] == "perturbed"
    assert mapping(at, "perturbation")["severity"] == "(none)"
    save(at, "mypert")
    assert "Saved mypert, 6 items." in texts(at)

    # Sentence pairs (TSV): first/second guessed, label by name, source left to its default.
    upload(at, "sentences.tsv", (DATA / "sentences.tsv").read_bytes())
    at.selectbox(key="kind").select("sentence_pairs").run()
    assert mapping(at, "sentence_pairs") == {
        "pair_id": "id",
        "sentence1": "first",
        "sentence2": "second",
        "label": "label",
        "source": "(none)",
        "negation_type": "(none)",
    }
    save(at, "mysent")
    assert "Saved mysent, 2 items." in texts(at)

    # The same file again is recognised, not stored twice.
    save(at, "mysent")
    assert "Already stored (same file, kind and mapping): mysent, 2 items." in texts(at)

    assert set(table_with(at, "sha256")["name"]) == {"mypairs", "myexcl", "mypert", "mysent"}
    assert {"mypairs", "myexcl", "mypert", "mysent"} <= set(at.sidebar.selectbox(key="dataset").options)
    store = Store(db)
    kinds = {n: stored.get(store, n).kind for n in ("mypairs", "myexcl", "mypert", "mysent")}
    assert kinds == {"mypairs": "pairs", "myexcl": "exclusion", "mypert": "perturbation", "mysent": "sentence_pairs"}
    assert stored.get(store, "mypairs").added_by == "ana"
    assert stored.get(store, "mypairs").source_file == "labelled pairs.csv"
    pairs = load("mypairs", store=store).frame
    assert pairs["negation_type"].tolist() == ["sentential", "affixal", "antonym", "my-own-type"]
    assert load("myexcl", store=store).frame["query_id"].tolist() == ["e1", "e2"]
    assert load("mysent", store=store).frame["source"].tolist() == ["user", "user"]


def test_a_malformed_upload_lists_every_problem_and_stores_nothing(app_env):
    db = os.environ["NEGVIZ_DB_URL"]
    at = add_page()
    upload(at, "many.csv", MANY_PROBLEMS)
    at.selectbox(key="kind").select("pairs").run()
    assert not at.exception
    assert "5 problems to fix before this file can be saved; nothing was stored." in texts(at)
    table = table_with(at, "problem")
    assert list(table.columns) == ["row", "column", "problem"] and len(table) == 5
    found = " | ".join(table["problem"])
    for needle in ("duplicate id 'a'", "whitespace-only", "missing id"):
        assert needle in found, found
    assert {"pair_id", "q2", "d1", "d2"} <= set(table["column"])  # each problem names its column
    assert table["row"].notna().all()  # ... and its row
    save_button = next(b for b in at.button if b.label == "Save to the store")
    assert save_button.disabled
    assert count_added(db) == 0


# ---------------------------------------------------------------- 2. pages on exclusion and perturbation sets
PAGES = (
    "overview",
    "heatmap",
    "errors",
    "inspector",
    "sensitivity",
    "maxsim",
    "playground",
    "search",
    "annotate",
    "evaluate",
)


@pytest.fixture
def excl_and_pert(app_env, capsys):
    """An added exclusion set and perturbation set, each with a TF-IDF run (one through
    negviz.evaluation.runner.run_eval, one through the CLI)."""
    db = os.environ["NEGVIZ_DB_URL"]
    store = Store(db)
    add_dataset(store, "myexcl", EXCLUSION_CSV.encode(), "excl.csv", "exclusion", EXCLUSION_MAP)
    add_dataset(store, "mypert", (DATA / "perturbations.csv").read_bytes(), "perturbations.csv", "perturbation")
    assert run_eval("tfidf", "myexcl", store=store).record.n == 2
    assert main(["--db", db, "eval", "--model", "tfidf", "--dataset", "mypert", "--quiet"]) == 0
    capsys.readouterr()
    return db


def walk(dataset: str) -> dict[str, str]:
    """Every page opened on ``dataset`` in one session (as a user clicking through the sidebar):
    page -> its text. No page may raise."""
    at = open_page(f"pages/{PAGES[0]}.py", dataset)
    shown = {}
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, [e.message for e in at.exception])
        assert at.session_state["dataset"] == dataset, page
        assert at.title, page
        shown[page] = texts(at)
        if page == "heatmap":
            shown["heatmap columns"] = at.selectbox(key="cell_column").options
        if page == "maxsim" and "pair" in [w.key for w in at.selectbox]:
            shown["maxsim items"] = at.selectbox(key="pair").options
        if page == "playground":
            shown["presets"] = [b.label for b in at.button if (b.key or "").startswith("preset-")]
        if page == "evaluate":  # the stored TF-IDF run is found again from the page's form
            at.selectbox(key="eval_model").select("tfidf")
            click_run_and_wait(at)
            assert not at.exception, [e.message for e in at.exception]
            shown["evaluated"] = texts(at)
    return shown


def test_pages_on_an_added_exclusion_set(excl_and_pert):
    shown = walk("myexcl")
    assert "**myexcl**" in shown["overview"] and "n = 2" in shown["overview"]
    assert "No stored runs" not in shown["overview"]
    assert "type labels: the dataset's own label (2)" in shown["heatmap"]  # its negation_type column
    # taxonomy order (by its titles), then the file's own label as it is
    assert shown["heatmap columns"] == ["Affixal", "exclusion"]
    assert "No stored runs" not in shown["errors"]
    assert "Type **exclusion** (the dataset's own label)" in shown["inspector"]  # its source in words
    assert "This page draws DEMETR and CANNOT only, not myexcl (exclusion items)" in shown["sensitivity"]
    assert shown["maxsim items"] == ["e1", "e2"]
    assert any(p.startswith("myexcl: ") for p in shown["presets"]), shown["presets"]
    assert "**myexcl** · 0 labelled pairs" in shown["annotate"]
    assert "Reused the stored run" in shown["evaluated"] and "tfidf on myexcl:test, n=2" in shown["evaluated"]
    # The answer is words and links to the pages that now show the run, not a JSON tree first.
    assert "Right Rank" in shown["evaluated"] and "Open it: [Overview](overview?dataset=myexcl" in shown["evaluated"]
    assert "[Pair inspector](inspector?" in shown["evaluated"]


def test_pages_on_an_added_perturbation_set(excl_and_pert):
    shown = walk("mypert")
    assert "**mypert**" in shown["overview"] and "n = 6" in shown["overview"]
    assert "No stored runs" not in shown["overview"]
    assert "n = 6 items" in shown["heatmap"]
    assert shown["heatmap columns"] == ["antonym", "negation"]  # its perturbation column
    assert "No stored runs" not in shown["errors"]
    assert "Type **No negation found** (cue detected in the texts)" in shown["inspector"]
    # The pages that cannot apply to perturbation items say so.
    assert "This page draws DEMETR and CANNOT only, not mypert (perturbation items)" in shown["sensitivity"]
    assert (
        "MaxSim explorer draws NevIR-style contrast pairs, ExcluIR-style exclusion queries; "
        "mypert holds DEMETR-style perturbations." in shown["maxsim"]
    )
    assert "mypert holds DEMETR-style perturbations. Presets come from" in shown["playground"]
    assert not any(p.startswith("mypert") for p in shown["presets"])
    assert "**mypert** · 0 labelled pairs" in shown["annotate"]
    assert "Reused the stored run" in shown["evaluated"] and "tfidf on mypert:test, n=6" in shown["evaluated"]


# ---------------------------------------------------------------- 3. the loaders' malformed-file classes
class Marker:
    """Unpickling this creates a file: a pickle that was loaded leaves a trace."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (self.path,))


def malformed_files(tmp_path: Path) -> dict[str, tuple[str, bytes, str]]:
    """class -> (file name, bytes, what the message says), like tests/datasets/test_datasets.py's cases."""
    good = (DATA / "pairs.parquet").read_bytes()
    pairs = (DATA / "pairs.csv").read_bytes()
    return {
        "oversize": ("big.csv", pairs + pairs.split(b"\n", 1)[1] * 60, "over the limit"),  # 20+ KB
        "corrupt parquet": ("cut.parquet", good[: len(good) // 2], "not a readable Parquet file"),
        "pickle as parquet": (
            "frame.parquet",
            pickle.dumps(Marker(tmp_path / "unpickled")),
            "not a readable Parquet file",
        ),
        "unbalanced quotes": (
            "quotes.csv",
            b'id,query1,doc1,query2,doc2\np1,"Who plays chess?,D,Q2,D2\np2,Q,D,Q2,D2\n',
            "malformed CSV",
        ),
    }


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setenv("NEGVIZ_MAX_FILE_MB", "0.01")  # 10,485 bytes: only the oversize file is over it


def test_malformed_files_are_refused_by_add_dataset_and_the_cli(app_env, small_limit, tmp_path, capsys):
    db = os.environ["NEGVIZ_DB_URL"]
    store = Store(db)
    pickle.loads(pickle.dumps(Marker(tmp_path / "loaded")))
    assert (tmp_path / "loaded").exists()  # the marker works: loading a pickle would leave a trace
    for case, (name, data, message) in malformed_files(tmp_path).items():
        with pytest.raises(DataValidationError) as info:
            add_dataset(store, "bad", data, name, "pairs", PAIRS_MAP)
        assert message in str(info.value) and name in str(info.value), (case, str(info.value))
        if case == "oversize":  # says how to raise the limit
            assert "NEGVIZ_MAX_FILE_MB" in str(info.value) and "over the limit of 10,485 bytes" in str(info.value)
        assert info.value.problems, case
        frame, problems = check_upload(data, name, "pairs", PAIRS_MAP)
        assert frame is None and problems["problem"].str.contains(message).all(), case
        path = tmp_path / name
        path.write_bytes(data)
        code, (_, err) = (
            main(["--db", db, "datasets", "add", "bad", str(path), "--kind", "pairs", "--columns", PAIRS_MAP]),
            capsys.readouterr(),
        )
        assert code == 2 and message in err and "nothing was stored" in err, (case, err)
        assert "Traceback" not in err
    assert not (tmp_path / "unpickled").exists()  # the pickle was never loaded
    assert stored.listing(store).empty and count_added(db) == 0


def test_malformed_uploads_on_the_page_say_why_and_store_nothing(app_env, small_limit, tmp_path):
    db = os.environ["NEGVIZ_DB_URL"]
    at = add_page()
    for case, (name, data, message) in malformed_files(tmp_path).items():
        upload(at, name, data)
        shown = texts(at)
        assert "This file cannot be read; nothing was stored." in shown, case
        table = table_with(at, "problem")
        assert len(table) >= 1 and table["problem"].str.contains(message).all(), (case, table)
        assert not [b for b in at.button if b.label == "Save to the store"], case  # no form to save
    assert not (tmp_path / "unpickled").exists()
    assert count_added(db) == 0


# ---------------------------------------------------------------- 4. the heatmap's columns from type labels
def test_heatmap_of_added_pairs_uses_its_type_label_column(app_env):
    store = Store(os.environ["NEGVIZ_DB_URL"])
    add_dataset(
        store,
        "labelled",
        LABELLED_PAIRS.encode(),
        "labelled.csv",
        "pairs",
        {**dict(p.split("=") for p in PAIRS_MAP.split(",")), "negation_type": "category"},
    )
    run_eval("tfidf", "labelled", store=store)
    at = open_page("pages/heatmap.py", "labelled")
    shown = texts(at)
    assert "**labelled**" in shown and "n = 4 items" in shown
    assert "type labels: the dataset's own label (4)" in shown and "detected" not in shown.split("type labels:")[1]
    assert at.selectbox(key="axis").value == "type"
    # The file's labels are the columns, in taxonomy order, its own label last.
    # (by their titles on screen; the file's own label as it is)
    assert at.selectbox(key="cell_column").options == ["Sentential", "Affixal", "Contrasting antonyms", "my-own-type"]
    at.number_input(key="min_n").set_value(1)
    at.selectbox(key="cell_model").select("tfidf")
    at.selectbox(key="cell_column").select("my-own-type").run()
    assert not at.exception, [e.message for e in at.exception]
    items = table_with(at, "item_id", "label_source")
    assert items["item_id"].tolist() == ["a4"] and items["label_source"].tolist() == ["the dataset's own label"]
