"""negviz.ui.inspector_data: the pair inspector's cached data over a copy of the shipped runs
(app_env): every shown run's verdicts under its tie rule, the taxonomy's types, and the item
table with the annotation columns of now."""

import pandas as pd

from negviz.analyses import inspector as F
from negviz.datasets import load
from negviz.ui import inspector_data
from negviz.ui.dataset_cache import dataset_view


def test_verdicts_stack_each_shown_runs_verdicts_with_its_model(app_env):
    view = dataset_view("nevir")
    runs = view.chosen(["bm25", "tfidf"])
    verdicts = inspector_data.verdicts("nevir", runs)
    assert set(verdicts["model"]) == {"bm25", "tfidf"} and len(verdicts) == 2 * 1383
    bm25 = runs.loc[runs["model_name"] == "bm25", "run_id"].iloc[0]
    wide = view.scores(bm25)
    # NevIR's strict rule by hand: both queries rank their own document strictly first
    by_hand = int(((wide["q1_d1"] > wide["q1_d2"]) & (wide["q2_d2"] > wide["q2_d1"])).sum())
    assert int(verdicts.loc[verdicts["model"] == "bm25", "correct"].sum()) == by_hand


def test_automatic_types_are_the_taxonomys_types_of_every_item(app_env):
    types = inspector_data.automatic_types("nevir")
    assert types.equals(F.automatic_types(load("nevir")))
    assert len(types) == 1383 and types["type"].notna().all()


def test_items_carry_the_annotations_of_now(app_env):
    annotations = pd.DataFrame({"item_id": ["1230-2", "1230-2", "994-2"], "annotator": ["ana", "bo", "bo"]})
    items = inspector_data.items("nevir", annotations, "ana").set_index("item_id")
    assert items.loc["1230-2", "annotators"] == 2 and bool(items.loc["1230-2", "mine"])
    assert items.loc["994-2", "annotators"] == 1 and not items.loc["994-2", "mine"]
    assert items["annotators"].sum() == 3 and len(items) == 1383
    fresh = inspector_data.items("nevir", annotations.iloc[:0], "ana")  # the cached table, new annotations
    assert fresh["annotators"].sum() == 0 and not fresh["mine"].any()
