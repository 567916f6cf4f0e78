"""negviz.sections.errors over a copy of the shipped runs: the error preference counted by hand
from the verdicts, the margins' table, the figure ids the report keeps, titles and captions."""

import pytest

from negviz.results.dataset_view import DatasetView
from negviz.sections import errors

MODELS = ["bm25", "tfidf"]


@pytest.fixture(scope="module")
def nevir(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    return view, view.outcomes(view.chosen(MODELS))


def test_the_preference_counts_each_models_verdicts(nevir):
    view, outcomes = nevir
    s = errors.section(view, outcomes, MODELS)
    assert s.title == "Error preference and margins" and s.data["figures"] == ["errors-nevir", "margins-nevir"]
    assert s.data["categories"][0] == "correct" and len(s.data["categories"]) == 5
    for row in s.data["preference"]:
        mine = outcomes[outcomes["model"] == row["model"]]
        assert row["n"] == len(mine) == 1383
        assert row["count"] == int((mine["category"] == row["category"]).sum())
        assert row["share"] == pytest.approx(row["count"] / len(mine))
    assert [r["model"] for r in s.data["preference"]][::5] == MODELS  # in the order asked
    margins = {(r["model"], r["margin"]): r for r in s.data["margins"]}
    first = "s(q1,d1) - s(q1,d2)"  # margin1, by its definition
    assert margins["bm25", first]["n"] == 1383
    assert margins["bm25", first]["share_negative"] == pytest.approx(
        (outcomes.loc[outcomes["model"] == "bm25", "margin1"] < 0).mean()
    )


def test_titles_and_captions_name_the_dataset_split_scope_and_verdicts(nevir):
    view, outcomes = nevir
    s = errors.section(view, outcomes, MODELS, scope="Affixal")
    assert s.figures["errors-nevir"].layout.title.text.startswith("Error preference · nevir test · Affixal (n = ")
    assert s.figures["margins-nevir"].layout.title.text == "Margins · nevir test · Affixal"
    verdicts = s.captions["errors-nevir"].text()
    assert verdicts.startswith("NevIR · split test · every item gets one verdict: correct, prefers original (d1)")
    assert "wrong document first" in s.captions["margins-nevir"].text()
    assert "s(q1,d1) - s(q1,d2) and s(q2,d2) - s(q2,d1)" in s.captions["margins-nevir"].text()
    assert errors.section(view, outcomes, MODELS).figure.layout.title.text.startswith(
        "Error preference · nevir test · all items"
    )
