"""negviz.ui.types_data: the heatmap and error-preference pages' data for a dataset and the runs
they show, over a copy of the shipped runs (app_env); the label-source line from hand-made labels."""

import pandas as pd

from negviz.results.dataset_view import DatasetView
from negviz.store import Store
from negviz.ui.types_data import TypesContext, context


def test_context_holds_the_datasets_facts_and_the_shown_runs_verdicts(app_env):
    with Store(f"sqlite:///{app_env / 'results.sqlite'}") as store:
        plain = DatasetView(store, "nevir")
        runs = plain.chosen(["bm25", "tfidf"])
        expected = plain.outcomes(runs).groupby("model")["correct"].sum()  # the library's own verdicts
        baseline = plain.facts.random_baseline
    ctx = context("nevir", runs)
    assert (ctx.name, ctx.kind.name, ctx.split) == ("nevir", "pairs", "test")
    assert ctx.metric == "paired accuracy" and ctx.baseline == baseline
    assert set(ctx.outcomes["model"]) == {"bm25", "tfidf"} and len(ctx.outcomes) == 2 * 1383
    by_model = ctx.outcomes.groupby("model")["correct"].sum()
    assert by_model.to_dict() == expected.to_dict()
    assert len(ctx.meta) == 1383 and ctx.label_source.startswith("the dataset's cue word")


def test_context_is_none_for_a_dataset_without_verdicts(app_env):
    # CANNOT's sentence pairs have a similarity, not a right or wrong answer
    assert context("cannot", pd.DataFrame()) is None


def _ctx(meta: pd.DataFrame) -> TypesContext:
    return TypesContext("d", "pairs", "D", "test", None, pd.DataFrame(), pd.DataFrame(), meta)


def test_label_source_counts_each_source_most_common_first():
    meta = pd.DataFrame({"label_source": ["detected"] * 1200 + ["gold"] * 3})
    assert _ctx(meta).label_source == "cue detected in the texts (1,200), gold (3)"  # sources in words
    assert _ctx(pd.DataFrame({"item_id": ["a"]})).label_source == "none"
