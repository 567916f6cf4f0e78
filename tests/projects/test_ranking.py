"""negviz.projects.ranking: the uncertainty table and queue order read from the stored runs."""

from __future__ import annotations

from negviz import projects as P
from negviz.projects import queue as Q
from tests.support.projects import new


def test_the_uncertainty_queue_reads_the_stored_runs(store, tmp_path):
    from negviz.core.paths import DATA_DIR

    store.import_runs(DATA_DIR / "runs" / "nevir__all-MiniLM-L6-v2.parquet")
    store.import_runs(DATA_DIR / "runs" / "nevir__bm25.parquet")
    project = new(store, overlap=1, size=40)
    ids = Q.order_ids(store, project, P.UNCERTAINTY)
    assert sorted(ids) == sorted(project.items)
    from negviz.projects.ranking import uncertainty_table
    from negviz.results.dataset_view import DatasetView

    table = uncertainty_table(DatasetView(store, project.dataset), project)
    assert table["models"].eq(2).all() and table["disagreement"].is_monotonic_decreasing
    assert table["item_id"].tolist() == ids
    assert P.next_pair(store, project, "ana", P.UNCERTAINTY) == ids[0]


def test_a_dataset_without_runs_leaves_the_pairs_in_their_order(store):
    from negviz.projects.ranking import project_outcomes, uncertainty_ids
    from negviz.results.dataset_view import DatasetView

    project = new(store, overlap=1, size=3)
    view = DatasetView(store, project.dataset)
    assert project_outcomes(view).empty and "correct" in project_outcomes(view).columns
    assert uncertainty_ids(view, project) == list(project.items)  # no model: no uncertainty, sample order
