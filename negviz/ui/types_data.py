"""The data of the heatmap and error-preference pages, read through the one cached dataset view
(negviz.ui.dataset_cache): the dataset and its facts, the shown runs' verdicts and type labels."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from negviz.core.kinds import DatasetKind
from negviz.datasets import DatasetFacts
from negviz.language.taxonomy.labels import source_words
from negviz.ui.dataset_cache import dataset_view


@dataclass
class TypesContext:
    name: str
    kind: DatasetKind
    title: str
    split: str
    facts: DatasetFacts
    runs: pd.DataFrame  # the run shown per model (negviz.evaluation.run_choice)
    outcomes: pd.DataFrame  # negviz.core.outcomes.run_outcomes
    meta: pd.DataFrame  # per_type.item_meta

    @property
    def metric(self) -> str:
        return self.facts.item_metric_label

    @property
    def baseline(self) -> float | None:
        return self.facts.random_baseline

    @property
    def label_source(self) -> str:
        if "label_source" not in self.meta:
            return "none"
        counts = self.meta["label_source"].value_counts().items()
        return ", ".join(f"{source_words(k)} ({v:,})" for k, v in counts)


def context(name: str, runs: pd.DataFrame) -> TypesContext | None:
    """Everything both pages need for a dataset and the runs they show (the page's run picker,
    negviz.ui.navigation.pickers.shown_runs), or None when items of its kind have no verdicts."""
    view = dataset_view(name)
    ds = view.dataset
    if not ds.kind.has_verdicts:
        return None
    meta = view.item_meta()
    return TypesContext(name, ds.kind, ds.title, ds.spec.split, view.facts, runs, view.outcomes(runs), meta)
