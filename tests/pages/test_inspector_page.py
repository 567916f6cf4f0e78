"""The inspector's item list (verdicts, filters, order) and the inspector and annotations pages (AppTest)."""

import os

import pandas as pd
import pytest

from negviz.analyses import inspector as F
from negviz.analyses import paircard
from negviz.datasets import load
from negviz.results import annotations as ann
from negviz.store import Store
from tests.support.apptest import open_page, stop_background_copies
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND


# ---------------------------------------------------------------- verdicts, filters, order
def pair_frame():
    ids = ["2-2", "10-2", "3-3", "1-3", "4-2"]
    return pd.DataFrame(
        {
            "pair_id": ids,
            "q1": "q",
            "d1": "d",
            "q2": "q",
            "d2": "d",
            "edit_type": [2, 2, 3, 3, 2],
            "cue": ["not", "Unlike", "not", "never", "not"],
        }
    )


def long_scores(rows):
    """rows: item -> (s11, s12, s21, s22)."""
    slots = ("q1_d1", "q1_d2", "q2_d1", "q2_d2")
    return pd.DataFrame(
        [(i, s, v) for i, vals in rows.items() for s, v in zip(slots, vals)], columns=["item_id", "slot", "score"]
    )


def to_wide(scores):
    """Long scores as Store.scores_wide gives them: items as index, one column per slot."""
    wide = scores.pivot(index="item_id", columns="slot", values="score")
    wide.columns.name = None
    return wide


SCORES = long_scores(
    {
        "2-2": (0.9, 0.1, 0.2, 0.8),  # correct, margins 0.8 / 0.6
        "10-2": (0.9, 0.1, 0.8, 0.2),  # prefers d1 for both: prefers_original
        "3-3": (0.1, 0.9, 0.2, 0.8),  # prefers d2 for both: prefers_edited
        "1-3": (0.5, 0.5, 0.1, 0.9),  # tie on q1
        # "4-2" not scored by this run
    }
)


def test_model_verdicts_of_pairs():
    v = F.model_verdicts(PAIRS_KIND, pair_frame(), to_wide(SCORES)).set_index("item_id")
    assert list(v.index) == ["2-2", "10-2", "3-3", "1-3"]
    assert v["category"].tolist() == ["correct", "prefers_original", "prefers_edited", "tie"]
    assert v.loc["2-2", "margin"] == pytest.approx(0.6) and v.loc["10-2", "margin"] == pytest.approx(-0.6)
    assert v.loc["1-3", "c2"] and not v.loc["1-3", "c1"]


def test_model_verdicts_of_exclusion_queries():
    frame = pd.DataFrame({"query_id": ["a", "b", "c"], "query": "q", "pos_doc": "p", "neg_doc": "n"})
    scores = pd.DataFrame(
        {"item_id": ["a", "a", "b", "b", "c", "c"], "slot": ["pos", "neg"] * 3, "score": [2.0, 1.0, 1.0, 2.0, 1.0, 1.0]}
    )
    v = F.model_verdicts(EXCLUSION_KIND, frame, to_wide(scores))
    assert v["category"].tolist() == ["correct", "wrong", "tie"] and v["margin"].tolist() == [1.0, -1.0, 0.0]


def make_items(annotator="ana"):
    types = pd.DataFrame(
        {
            "item_id": ["2-2", "10-2", "3-3", "1-3", "4-2"],
            "cue": "x",
            "type": ["sentential", "affixal", "sentential", "sentential", "sentential"],
        }
    )
    annotations = pd.DataFrame({"item_id": ["2-2", "2-2", "3-3"], "annotator": ["ana", "bo", "bo"]})
    return F.item_table(PAIRS_KIND, pair_frame(), types, annotations, annotator)


def test_item_table():
    items = make_items()
    assert items["cue"].tolist() == ["not", "unlike", "not", "never", "not"]  # the gold cue, lower-case
    assert items["annotators"].tolist() == [2, 0, 1, 0, 0] and items["mine"].tolist() == [True] + [False] * 4
    assert F.options(items, "cue") == ["not", "unlike", "never"]


@pytest.mark.parametrize(
    "filters, expected",
    [
        (F.Filters(), ["1-3", "2-2", "3-3", "4-2", "10-2"]),  # natural id order
        (F.Filters(negation_type="sentential"), ["1-3", "2-2", "3-3", "4-2"]),
        (F.Filters(cue="NOT", edit_type=2), ["2-2", "4-2"]),
        (F.Filters(model="m", verdict="failed"), ["1-3", "3-3", "10-2"]),
        (F.Filters(model="m", verdict="prefers_original"), ["10-2"]),
        (F.Filters(model="m", verdict="correct"), ["2-2"]),
        (F.Filters(model="m", margin_min=-0.1, margin_max=0.7), ["1-3", "2-2"]),
        (F.Filters(model="m", sort="margin"), ["3-3", "10-2", "1-3", "2-2", "4-2"]),  # unscored last
        (F.Filters(model="m", sort="margin desc"), ["2-2", "1-3", "10-2", "3-3", "4-2"]),
        (F.Filters(annotated="annotated"), ["2-2", "3-3"]),
        (F.Filters(annotated="not annotated"), ["1-3", "4-2", "10-2"]),
        (F.Filters(annotated="not annotated by me"), ["1-3", "3-3", "4-2", "10-2"]),
    ],
)
def test_filter_items(filters, expected):
    verdicts = F.verdict_table(
        PAIRS_KIND,
        pair_frame(),
        {"m": (to_wide(SCORES), "strict"), "other": (to_wide(long_scores({"2-2": (0, 1, 1, 0)})), "strict")},
    )
    assert F.filter_items(make_items(), verdicts, filters) == expected


def test_neighbours_and_position():
    ids = ["a", "b", "c"]
    assert F.neighbours(ids, "a") == (None, "b") and F.neighbours(ids, "b") == ("a", "c")
    assert F.neighbours(ids, "c") == ("b", None) and F.neighbours(ids, "zz") == (None, "a")
    assert F.neighbours([], None) == (None, None)
    assert F.position(ids, "b") == "2 of 3" and F.position(ids, "zz") == "3 items, this one not among them"


def test_nevir_gold_types_filter():
    nevir = load("nevir")
    types = F.automatic_types(nevir)
    items = F.item_table(PAIRS_KIND, nevir.frame, types)
    affixal = F.filter_items(items, F.verdict_table(PAIRS_KIND, nevir.frame, {}), F.Filters(negation_type="affixal"))
    assert len(affixal) == (types["type"] == "affixal").sum() > 100
    assert set(types.set_index("item_id").loc[affixal, "label_source"]) == {"gold_cue"}


# ---------------------------------------------------------------- pages
@pytest.fixture
def first_start_db(tmp_path, monkeypatch):
    """A fresh store as a user's app first opens it: the shipped runs' records at once, their scores
    read from the shipped files while a background thread copies them in. The copy (~14 CPU-s) is
    stopped when the test ends, as a stopping server stops it, instead of running on beside the
    next tests."""
    url = f"sqlite:///{tmp_path / 'results.sqlite'}"
    monkeypatch.setenv("NEGVIZ_DB_URL", url)
    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from negviz.ui import dataset_cache

    dataset_cache.clear_runs()  # stores are cached per database URL; run lists per URL too
    yield url
    stop_background_copies()


@pytest.fixture
def db(app_env):
    """The shipped runs with their scores (conftest's store copy), as the app has them once the
    first start's copy is done; the URL of that store."""
    return os.environ["NEGVIZ_DB_URL"]


def table_with(at, column):
    """The first table with this column (AppTest gives keys only to selectable tables)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def form_widget(at, kind, label):
    """A widget of the label form (the sidebar has a "Negation type" filter too)."""
    return next(w for w in getattr(at.main, kind) if w.label == label)


def button(at, label):
    return next(b for b in at.button if b.label == label)


def test_inspector_opens_a_pair_url_with_diff_and_scores(first_start_db):
    at = open_page("pages/inspector.py", dataset="nevir", pair="1230-2")
    assert at.title[0].value == "Pair inspector" and at.subheader[0].value == "NevIR · 1230-2"
    card = at.get("html")[0].proto.body
    assert '<span class="nv-diff">had <span' not in card  # our spans never nest inside one another
    assert "<b>q1</b> Who " in card and 'class="nv-diff nv-cue">not</span>' in card
    margin1 = "margin (q1)"  # in words, not the outcome key "margin1"
    verdicts = table_with(at, margin1)
    assert {"all-MiniLM-L6-v2", "tfidf"} <= set(verdicts["model"]) and {margin1, "margin (q2)"} <= set(verdicts)
    matrices = [d.value for d in at.dataframe if list(d.value.index) == ["q1", "q2"]]
    if len(verdicts) <= paircard.MAX_CARDS:  # one card per model
        assert len(matrices) == len(verdicts) and matrices[0].shape == (2, 2)
    else:  # more models (the shipped runs grow): a second table with every model's scores instead
        scores = table_with(at, "s(q1, d1)")  # headed by what each scores, not the slot key
        assert not matrices and {"s(q2, d2)", margin1} <= set(scores) and len(scores) == len(verdicts)
        assert "s(q1, d1)" not in verdicts  # the verdicts alone fit a 1,000 px page (tests/browser/test_narrow.py)
    assert any("maxsim?dataset=nevir&pair=1230-2" in m.value for m in at.markdown)


def test_filter_to_a_type_label_and_reload(db):
    at = open_page("pages/inspector.py", dataset="nevir")
    at.sidebar.selectbox(key="type").select("affixal").run()
    first = at.subheader[0].value.split(" · ")[1]
    assert "Type **Affixal**" in at.caption[1].value  # its title; the URL keeps type=affixal
    assert at.query_params["type"] == "affixal"
    # saving without a name: a clear message, nothing written
    form_widget(at, "selectbox", "Negation type").select("affixal")
    button(at, "Save").click().run()
    assert "annotator name" in at.error[0].value
    assert Store(db).annotations(latest=False).empty
    at.sidebar.text_input(key="annotator").input("ana").run()
    form_widget(at, "selectbox", "Negation type").select("implicit")
    form_widget(at, "radio", "Pair validity").set_value("unsure")
    form_widget(at, "text_area", "Note").input("<i>stem?</i>")
    button(at, "Save and next").click().run()
    shown = at.success[0].value.replace("\\", "")  # escaped user text, compared as shown
    assert not at.exception and shown.startswith(f"Saved {first} as version 1 by ana")
    assert at.subheader[0].value != f"NevIR · {first}"  # moved on to the next affixal pair

    again = open_page("pages/inspector.py", dataset="nevir", pair=first)  # a reload: a new session
    history = table_with(again, "version")
    assert history[["annotator", "version", "negation_type", "validity", "note"]].values.tolist() == [
        ["ana", 1, "implicit", "unsure", "<i>stem?</i>"]
    ]
    again.sidebar.text_input(key="annotator").input("ana").run()  # the form shows my label again
    assert form_widget(again, "selectbox", "Negation type").value == "implicit"
    assert form_widget(again, "radio", "Pair validity").value == "unsure"


def test_next_and_queue_mode(db):
    at = open_page("pages/inspector.py", dataset="nevir", pair="1230-2")
    button(at, "Next").click().run()
    assert at.subheader[0].value == "NevIR · 1230-3" and at.query_params["pair"] == "1230-3"
    at = open_page("pages/inspector.py", dataset="nevir", queue="true", sample="5", seed="1")
    assert "Queue: 1 of 5" in at.caption[0].value and at.warning  # no annotator name yet
    sample = ann.sample_ids(list(load("nevir").frame["pair_id"]), 5, 1)
    assert at.subheader[0].value == f"NevIR · {sorted(sample, key=F.natural_key)[0]}"


def test_annotations_page_agreement_and_export(db):
    store, nevir = Store(db), load("nevir")
    for item, a, b in (
        ("1230-2", "sentential", "sentential"),
        ("994-2", "affixal", "implicit"),
        ("1052-2", "sentential", "sentential"),
    ):
        ann.save(store, nevir, item, "ana", ann.Label(a, "valid"))
        ann.save(store, nevir, item, "bo", ann.Label(b, "valid"))
    at = open_page("pages/annotate.py", dataset="nevir")
    table = table_with(at, "kappa").set_index("label")
    assert (
        table.loc["negation_type", "shared_pairs"] == 3 and table.loc["negation_type", "statistic"] == "Cohen's kappa"
    )
    diff = table_with(at, "open")
    assert diff["item_id"].tolist() == ["994-2"] and diff["open"].tolist() == ["inspector?dataset=nevir&pair=994-2"]
    assert [b.proto.label for b in at.get("download_button")] == ["CSV", "JSONL"]
    # o_ss = 4, o_ai = o_ia = 1; n_s = 4, n_a = n_i = 1, n = 6: alpha = 1 - 5 * 2 / 18 = 4/9
    alpha = table_with(at, "alpha").set_index("label")
    assert alpha.loc["negation_type", "alpha"] == pytest.approx(4 / 9)
    assert alpha.loc["negation_type", "pairable_items"] == 3 and alpha.loc["negation_type", "items"] == "all"
    # kappa on 3 shared pairs is said to be too few to read, as alpha is (one minimum n)
    assert any(w.value.startswith("1 of these kappas rest on fewer than 20 pairs") for w in at.warning)
    assert "3 labelled pairs · 2 annotators" in at.caption[0].value


def test_inspector_browses_excluir_queries(db):
    at = open_page("pages/inspector.py", dataset="excluir", verdict="wrong", sort="margin")
    first = at.subheader[0].value.split(" · ")[1]
    assert first.startswith("excluir_") and "Filtered list: 1 of " in at.caption[0].value
    card = at.get("html")[0].proto.body
    assert "<b>positive document</b>" in card and "<b>excluded document</b>" in card and "nv-cue" in card
    verdicts = table_with(at, "margin")
    assert set(verdicts["category"]) <= {"correct", "wrong", "tie"}  # in words, short
