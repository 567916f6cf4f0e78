"""Annotation projects as readers see them, on top of negviz.results.dataset_view.DatasetView: every read
goes through the dataset view's store and cache, so the projects page reads the way every other
page does. Projects change while people label, so these reads are kept by no cache (READS:
"annotations"); the uncertainty order, computed from stored runs, is kept per set of runs.

    pv = ProjectView(DatasetView(store))
    pv.projects()                            # every project of the store
    pv.progress(project), pv.review_queue(project), pv.disagreements(project)
    pv.uncertainty(project)                  # its pairs, most uncertain first

Writers (create, claim, save a label, adjudicate) take the store itself (negviz.projects).
"""

from __future__ import annotations

from typing import Any, Callable

import pandas as pd

from negviz.projects import project as P
from negviz.projects import queue as Q
from negviz.projects import review as R
from negviz.results.dataset_view import DatasetView


class ProjectView:
    def __init__(self, view: DatasetView):
        self.view = view
        self.store = view.store

    def _read(self, key: tuple, compute: Callable[[], Any]) -> Any:
        return self.view.cache.get("annotations", ("project", *key), compute)

    def projects(self) -> list[P.Project]:
        return self._read(("all",), lambda: P.all_projects(self.store))

    def project(self, name: str) -> P.Project:
        return self._read(("get", name), lambda: P.get(self.store, name))

    def progress(self, project: P.Project) -> pd.DataFrame:
        """Per annotator: claimed, labelled, left (negviz.projects.queue.progress)."""
        return self._read(("progress", project.name), lambda: Q.progress(self.store, project))

    def project_progress(self, project: P.Project) -> dict:
        return self._read(("whole", project.name), lambda: Q.project_progress(self.store, project))

    def labels(self, project: P.Project) -> pd.DataFrame:
        """Every annotator's latest label of the project's pairs (negviz.projects.review)."""
        return self._read(("labels", project.name), lambda: R.project_labels(self.store, project))

    def disagreements(self, project: P.Project) -> pd.DataFrame:
        return self._read(("disagreements", project.name), lambda: R.disagreements(self.store, project))

    def review_queue(self, project: P.Project) -> list[str]:
        return self._read(("review", project.name), lambda: R.review_queue(self.store, project))

    def agreement_with_adjudicated(self, project: P.Project) -> pd.DataFrame:
        return self._read(("agreement", project.name), lambda: R.agreement_with_adjudicated(self.store, project))

    def uncertainty(self, project: P.Project) -> pd.DataFrame:
        """The project's pairs, most uncertain first (negviz.projects.ranking), from the runs stored
        on its dataset: kept per project items and set of runs (READS "uncertainty"; the run list
        itself is read like every run list)."""
        from negviz.projects.ranking import uncertainty_table

        view = DatasetView(self.store, project.dataset, self.view.cache)
        runs = tuple(sorted(map(str, view.runs()["run_id"])))
        return self.view.cache.get(
            "uncertainty",
            (project.dataset, project.name, tuple(map(str, project.items)), runs),
            lambda: uncertainty_table(view, project),
        )
