"""One dataset as every reader sees it: its items and facts, the runs stored on it, the run that stands
for each model, their scores and verdicts, its type labels, annotations and adjudicated labels.

    view = DatasetView(store, "nevir")
    view.facts.metric                          # what the dataset is measured by
    chosen = view.chosen(["all-MiniLM-L6-v2"])   # negviz.run_choice's policy, one run per model
    view.outcomes(chosen)                      # negviz.outcomes' verdicts under each run's tie rule
    view.labels()                              # taxonomy types (gold cue / detected / annotated / adjudicated)

The report and the CLI read a dataset through this view, and the pages through one cached accessor
(negviz.ui.resources.dataset_view), so one dataset shows one set of numbers wherever it is read.
Reads are memoised for the view's life: make a new view to see runs stored since.
"""

from __future__ import annotations

from functools import cached_property
from typing import Iterable

import pandas as pd

from negviz import outcomes as oc
from negviz import run_choice
from negviz.store.record import EVAL


class DatasetView:
    def __init__(self, store, name: str):
        self.store, self.name = store, name
        self._runs: dict[str, pd.DataFrame] = {}
        self._wide: dict[str, pd.DataFrame] = {}

    def __repr__(self) -> str:
        return f"DatasetView({self.store!r}, {self.name!r})"

    # ------------------------------------------------------------ the items
    @cached_property
    def dataset(self):
        from negviz.datasets import load

        return load(self.name, store=self.store)

    @property
    def kind(self) -> str:
        return self.dataset.kind

    @cached_property
    def facts(self):
        from negviz.datasets import facts

        return facts(self.dataset, store=self.store)

    # ------------------------------------------------------------ runs and scores
    def runs(self, kind: str = EVAL) -> pd.DataFrame:
        """Complete runs of ``kind`` stored on the dataset, newest first (Store.runs)."""
        if kind not in self._runs:
            self._runs[kind] = self.store.runs(dataset=self.name, kind=kind)
        return self._runs[kind]

    def chosen(
        self,
        models: Iterable[str] | None = None,
        pinned: Iterable[str] = (),
        kind: str = EVAL,
        split: str | None = None,
    ) -> pd.DataFrame:
        """The run that stands for each model (negviz.run_choice.choose_runs)."""
        return run_choice.choose_runs(self.runs(kind), models, pinned, split=split, kind=kind)

    def scores(self, run_id: str) -> pd.DataFrame:
        """A run's scores, items x slots (Store.scores_wide), read once."""
        if run_id not in self._wide:
            self._wide[run_id] = self.store.scores_wide(run_id)
        return self._wide[run_id]

    def record(self, run_id: str):
        return self.store.get_run(run_id)

    def outcomes(self, chosen: pd.DataFrame) -> pd.DataFrame:
        """Per item and model, the verdict under each run's own tie rule (negviz.outcomes)."""
        runs = {
            r["model_name"]: (r["run_id"], self.scores(r["run_id"]), oc.tie_rule(r["options"]))
            for r in chosen.to_dict("records")
        }
        return oc.run_outcomes(self.kind, runs)

    # ------------------------------------------------------------ labels
    def labels(self, source: str = "auto") -> pd.DataFrame:
        """One negation type per item (negviz.taxonomy.label_pairs, annotations and adjudications included)."""
        from negviz.taxonomy import label_pairs

        return label_pairs(self.dataset, source, store=self.store)

    def annotations(self) -> pd.DataFrame:
        """Every annotator's latest label, flat (negviz.annotations.latest)."""
        from negviz import annotations

        return annotations.latest(self.store, self.name)

    def adjudicated(self) -> pd.DataFrame:
        """The reviewers' newest decision per pair (negviz.projects.review.adjudicated)."""
        from negviz.projects.review import adjudicated

        return adjudicated(self.store, self.name)
