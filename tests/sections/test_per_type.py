"""negviz.sections.per_type over a copy of the shipped runs: the heatmap's cells against a count by
hand from the verdicts and the type labels, a model's difference to a reference on the same items,
the figure ids the report keeps, and the caption's words (metric, unit and chance level from the
metric model, n, the reference escaped by the renderer)."""

import pytest

from negviz.results.dataset_view import DatasetView
from negviz.sections import per_type

MODELS = ["bm25", "tfidf"]


@pytest.fixture(scope="module")
def nevir(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    return view, view.outcomes(view.chosen(MODELS))


def _by_hand(outcomes, meta, model, column):
    items = set(meta.loc[meta["type"] == column, "item_id"])
    mine = outcomes[(outcomes["model"] == model) & outcomes["item_id"].isin(items)]
    return mine.set_index("item_id")["correct"]


def test_cells_are_each_models_accuracy_on_the_items_of_a_type(nevir):
    view, outcomes = nevir
    s = per_type.section(view, outcomes, MODELS)
    assert s.title == "Per-type accuracy" and s.data["axis"] == "type"
    meta = view.item_meta()
    cells = {(c["model"], c["column"]): c for c in s.data["cells"]}
    assert {m for m, _ in cells} == set(MODELS) and len(cells) == 2 * len(s.data["columns"])
    for (model, column), cell in cells.items():
        correct = _by_hand(outcomes, meta, model, column)
        assert cell["n"] == len(correct) and cell["value"] == pytest.approx(correct.mean())
    assert sum(cells["bm25", c]["n"] for c in s.data["columns"]) == meta["type"].notna().sum()


def test_the_first_models_difference_to_each_other_model_is_on_the_same_items(nevir):
    view, outcomes = nevir
    s = per_type.section(view, outcomes, MODELS)
    assert list(s.figures) == ["per_type-nevir", "per_type-nevir-diff-1"]  # the report's ids
    (diff,) = s.data["differences"]
    assert diff["reference"] == "tfidf" and diff["figure"] == "per_type-nevir-diff-1"
    meta = view.item_meta()
    for cell in diff["cells"]:
        assert cell["model"] == "bm25"
        mine, theirs = (_by_hand(outcomes, meta, m, cell["column"]) for m in MODELS)
        shared = mine.index.intersection(theirs.index)
        want = mine[shared].mean() - theirs[shared].mean()
        assert cell["n"] == len(shared) and cell["value"] == pytest.approx(want)
    assert per_type.section(view, outcomes, MODELS, differences=False).data["differences"] == []


def test_the_title_and_caption_say_the_metric_its_unit_chance_level_and_n(nevir):
    view, outcomes = nevir
    s = per_type.section(view, outcomes, MODELS, min_n=30)
    title = s.figure.layout.title.text.replace("<br>", " ")
    assert title.startswith("paired accuracy by negation type · nevir test") and "▾ below random (25%)" in title
    assert s.caption.text() == (
        "Cells: paired accuracy in %, n = items in the cell; hover for the 95% CI. ▾ below random (25%). "
        "Grey: fewer than 30 items, only n shown."
    )
    assert s.captions["per_type-nevir-diff-1"].text(lambda name: f"<{name}>").count("<tfidf>") == 1


def test_the_pages_options_are_parameters(nevir):
    view, outcomes = nevir
    s = per_type.section(view, outcomes, MODELS, axis="cue", top_k=3, reference="tfidf", differences=False)
    assert s.data["axis"] == "cue" and len(s.data["columns"]) == 3 + ("other" in s.data["columns"])
    reference = [c for c in s.data["cells"] if c["model"] == "tfidf"]  # itself: a difference of 0
    assert reference and all(c["value"] == 0.0 for c in reference)
    assert "Δ to tfidf" in s.figure.layout.title.text.replace("<br>", " ")
    assert "percentage points to tfidf on the same items" in s.caption.text()
    assert s.tables["rows"] == MODELS and s.tables["cells"].reference == "tfidf"
