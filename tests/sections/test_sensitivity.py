"""negviz.sections.sensitivity over a copy of the shipped runs: the model x perturbation matrix of
the chosen DEMETR runs (each run's cells its perturbation table's), the published columns after
the runs', the page's options (value, checked items, published) as parameters, title and caption."""

import pytest

from negviz.analyses import sensitivity as sv
from negviz.results.dataset_view import DatasetView
from negviz.sections import sensitivity

MODELS = ["tfidf", "bm25"]


@pytest.fixture(scope="module")
def demetr(shipped_store):
    view = DatasetView(shipped_store, "demetr")
    return view, view.chosen(MODELS).set_index("model_name").loc[MODELS].reset_index()


def test_each_runs_cells_are_its_perturbation_table(demetr):
    view, runs = demetr
    s = sensitivity.section(view, runs, models=MODELS)
    assert s.title == "DEMETR perturbation sensitivity" and list(s.figures) == ["sensitivity-demetr"]
    cells = [c for c in s.data["cells"] if not c["published"]]
    for run in runs.to_dict("records"):
        table = view.perturbation_table(run).set_index("perturbation")
        mine = {c["perturbation"]: c for c in cells if c["model"] == run["model_name"]}
        assert set(mine) == set(table.index) and len(mine) == 35
        for pert, cell in mine.items():
            assert cell["n"] == table.at[pert, "n"]
            assert cell["sensitivity_ratio"] == pytest.approx(table.at[pert, "sensitivity_ratio"], nan_ok=True)
    assert s.tables["columns"][:2] == [("tfidf", False), ("bm25", False)]  # the order asked, then published
    assert s.data["published_models"] == [m for m in sv.PUBLISHED_MODELS if m in s.data["published_models"]]
    assert s.data["published_models"] and all(p for _, p in s.tables["columns"][2:])
    assert sensitivity.section(view, runs).tables["columns"][:2] == [("bm25", False), ("tfidf", False)]  # by name


def test_title_and_caption_say_the_value_items_and_where_published_cells_come_from(demetr):
    view, runs = demetr
    s = sensitivity.section(view, runs)
    title = s.figure.layout.title.text
    assert title.startswith("DEMETR sensitivity ratio · 2 stored runs · all items") and "NegBLEURT Fig. 4" in title
    words = s.caption.text()
    assert words.startswith("demetr test · sensitivity ratio per model and perturbation over all 35,000 items: ")
    assert "Published columns: NegBLEURT Fig. 4, not run here." in words
    acc = sensitivity.section(view, runs, value=sv.ACCURACY, checked_only=True, published=False)
    assert acc.figure.layout.title.text == "DEMETR detection accuracy · 2 stored runs · pert_check items only"
    assert "detection accuracy (random 50.0%) per model and perturbation over the pert_check items" in str(acc.caption)
    assert "Published columns" not in str(acc.caption) and acc.data["published_models"] == []
    assert acc.data["checked_only"] and acc.data["value"] == sv.ACCURACY
