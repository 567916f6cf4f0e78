"""negviz.projects.view.ProjectView: the projects' reads through the read model give what the
project functions give on the same store, and are never kept (a label saved since shows at once)."""

from negviz import projects as P
from negviz.projects import queue as Q
from negviz.projects import review as R
from negviz.projects.view import ProjectView
from negviz.results.dataset_view import DatasetView
from negviz.store import Store
from tests.support.projects import label, new


def test_project_reads_are_the_project_functions_and_see_new_labels(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'p.sqlite'}") as store:
        project = new(store, "types", overlap=2, size=4)
        pv = ProjectView(DatasetView(store))  # the default cache: a memo for the view's life
        assert [p.name for p in pv.projects()] == ["types"] and pv.project("types") == project
        assert pv.review_queue(project) == []
        first = P.next_pair(store, project, "ana")
        assert P.next_pair(store, project, "ben") == first
        label(store, first, "ana", "affixal")
        label(store, first, "ben", "implicit")  # the two disagree: the pair awaits review
        assert pv.review_queue(project) == R.review_queue(store, project) == [first]
        assert pv.progress(project).equals(Q.progress(store, project))
        assert pv.project_progress(project) == Q.project_progress(store, project)
        assert pv.labels(project).equals(R.project_labels(store, project))
        assert pv.disagreements(project).equals(R.disagreements(store, project))
        assert DatasetView(store, "nevir").current_label(first, "ana")[1] == 1
        label(store, first, "ana", "implicit")  # ana changes her mind: no disagreement now
        assert pv.review_queue(project) == []
        assert DatasetView(store, "nevir").current_label(first, "ana")[1] == 2


class KeepAllButRuns:
    """A ReadCache keeping every read for good but the run lists, as the pages' keeps a stored
    run's values while its run list is read again within seconds."""

    def __init__(self):
        self.kept: dict = {}

    def get(self, what, key, compute):
        if what == "runs":
            return compute()
        if (what, key) not in self.kept:
            self.kept[what, key] = compute()
        return self.kept[what, key]


def test_the_uncertainty_order_is_kept_per_set_of_stored_runs(store):
    from negviz.core.paths import DATA_DIR
    from negviz.projects.ranking import uncertainty_table

    store.import_runs(DATA_DIR / "runs" / "nevir__bm25.parquet")
    project = new(store, "u", overlap=1, size=40)
    pv = ProjectView(DatasetView(store, cache=KeepAllButRuns()))
    one = pv.uncertainty(project)
    # one model: every pair agrees with itself (disagreement 0), ordered by BM25's closest calls
    assert sorted(one["item_id"]) == sorted(project.items) and one["models"].eq(1).all()
    assert one["disagreement"].eq(0).all() and one["closeness"].is_monotonic_increasing
    assert pv.uncertainty(project) is one  # kept: the same runs
    store.import_runs(DATA_DIR / "runs" / "nevir__all-MiniLM-L6-v2.parquet")
    two = pv.uncertainty(project)  # a new run: a new set of runs, computed again
    assert two["models"].eq(2).all() and two["disagreement"].is_monotonic_decreasing
    assert two.equals(uncertainty_table(DatasetView(store, "nevir"), project))
