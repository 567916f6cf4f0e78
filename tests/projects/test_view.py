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
