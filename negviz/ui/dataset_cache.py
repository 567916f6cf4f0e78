"""The pages' one read path: ``dataset_view(name)``, a negviz.dataset_view.DatasetView whose reads
are cached here, so every page shows what the report and the CLI compute, read once.

    view = dataset_view("nevir")
    view.dataset.frame, view.facts.metric, view.runs(), view.outcomes(chosen), view.labels()
    dataset_view().finetune_runs()          # no name: the whole store (the drift page)
    training_pair(run["dataset_spec"], "12-3")  # a fine-tuning run's held-out pair, from its spec

Every cache is keyed by the store's URL (resources.db_url), so another store, or the shipped runs
standing in while the database is away, never shows this one's data. A stored run never changes:
its scores and verdicts are kept by run id. Run lists get a few seconds, as other processes store
runs; type labels half a minute, as annotators relabel pairs while the app runs.
"""

from __future__ import annotations

from functools import cached_property

import pandas as pd
import streamlit as st

from negviz.dataset_view import DatasetView
from negviz.store.record import COMPLETE, EVAL
from negviz.ui import resources


def dataset_view(name: str | None = None) -> "CachedDatasetView":
    """The dataset's view (no name: the whole store), every read cached."""
    return CachedDatasetView(name)


def content_key(name: str) -> str:
    """What identifies a dataset's content (an added dataset's sha256; "" for shipped data): part
    of the key of every cache derived from its items, so a dataset removed and added again with
    other content is reloaded."""
    table = resources.datasets_table()
    sha = table.loc[table["name"] == name, "sha256"]
    return str(sha.iloc[0]) if len(sha) else ""


def _plain(name: str | None = None) -> DatasetView:
    return DatasetView(resources.store(), name)


class CachedDatasetView(DatasetView):
    def __init__(self, name: str | None = None):
        super().__init__(resources.store(), name)
        self.url = resources.db_url()

    @cached_property
    def dataset(self):
        return _dataset(self.url, self.name, content_key(self.name))

    @cached_property
    def facts(self):
        return _facts(self.url, self.name, content_key(self.name))

    def runs(self, kind: str | None = EVAL, status: str | None = COMPLETE) -> pd.DataFrame:
        return _runs(self.url, self.name, kind, status)

    def retrieval_runs(self) -> pd.DataFrame:
        return _retrieval_runs(self.url, self.name)

    def scores(self, run_id: str) -> pd.DataFrame:
        return _scores(self.url, run_id)

    def run_outcomes(self, run_id: str, model: str, tie_rule: str) -> pd.DataFrame:
        return _outcomes(self.url, self.name, self.kind, run_id, model, tie_rule)

    def labels(self, source: str = "auto") -> pd.DataFrame:
        return _labels(self.url, self.name, content_key(self.name), source)

    def finetune_runs(self, status: str | None = None) -> pd.DataFrame:
        return _finetune_runs(self.url, self.name, status)

    def drift_frames(self, runs: pd.DataFrame):
        """Complete runs' frames come from the cache; a running run's are read now (a new epoch
        may have landed)."""
        plain = _plain(self.name)
        parts = [
            _complete_frames(self.url, r.run_id, r.label)
            if r.status == COMPLETE
            else plain.drift_frames(pd.DataFrame([{"run_id": r.run_id, "label": r.label}]))
            for r in runs.itertuples(index=False)
        ]
        empty = plain.drift_frames(runs.iloc[:0])
        epochs = [p[0] for p in parts if len(p[0])]
        cosines = [p[1] for p in parts if len(p[1])]
        return (
            pd.concat(epochs, ignore_index=True) if epochs else empty[0],
            pd.concat(cosines, ignore_index=True) if cosines else empty[1],
            {k: v for p in parts for k, v in p[2].items()},
        )


def training_pair(dataset_spec: dict, pair: str) -> pd.Series | None:
    """The texts of one held-out pair of a fine-tuning run, read from the run's own dataset spec,
    or None when that dataset cannot be read here (a user file that stayed on another machine, a
    pair the dataset no longer has)."""
    from negviz.datasets import facts, load
    from negviz.errors import NegvizError
    from negviz.schema import DatasetSpec

    try:
        spec = DatasetSpec.from_dict(dataset_spec)
        return load(spec).frame.set_index(facts(spec.name).id_column).loc[pair]
    except (NegvizError, OSError, KeyError, ValueError):
        return None


def clear_runs() -> None:
    """Forget cached run lists (after this session stored a new run)."""
    _runs.clear()
    _retrieval_runs.clear()
    _finetune_runs.clear()


# ---------------------------------------------------------------- the caches behind the view
@st.cache_resource(show_spinner=False, max_entries=6)
def _dataset(url: str, name: str, content: str):
    return _plain(name).dataset


@st.cache_resource(show_spinner=False, max_entries=16)
def _facts(url: str, name: str, content: str):
    return _plain(name).facts


@st.cache_data(show_spinner=False, ttl=5, max_entries=64)
def _runs(url: str, name: str | None, kind: str | None, status: str | None) -> pd.DataFrame:
    return _plain(name).runs(kind, status)


@st.cache_data(show_spinner=False, ttl=5, max_entries=16)
def _retrieval_runs(url: str, name: str | None) -> pd.DataFrame:
    return _plain(name).retrieval_runs()


@st.cache_data(show_spinner=False, max_entries=32)
def _scores(url: str, run_id: str) -> pd.DataFrame:
    return _plain().scores(run_id)


# Room for every model of a big store (80+ per dataset): with fewer entries than models, a page
# drawing them all evicts each run before its next use and every render re-reads all runs.
@st.cache_data(show_spinner=False, max_entries=512)
def _outcomes(url: str, name: str, kind: str, run_id: str, model: str, tie_rule: str) -> pd.DataFrame:
    return DatasetView.run_outcomes(dataset_view(name), run_id, model, tie_rule)


@st.cache_data(show_spinner=False, ttl=30, max_entries=32)
def _labels(url: str, name: str, content: str, source: str) -> pd.DataFrame:
    return DatasetView.labels(dataset_view(name), source)


@st.cache_data(show_spinner=False, ttl=2, max_entries=8)
def _finetune_runs(url: str, name: str | None, status: str | None) -> pd.DataFrame:
    return _plain(name).finetune_runs(status)


@st.cache_data(show_spinner=False, max_entries=64)
def _complete_frames(url: str, run_id: str, label: str):
    return _plain().drift_frames(pd.DataFrame([{"run_id": run_id, "label": label}]))


def warm_up(dataset: str = "nevir") -> None:
    """What the first page reads, read once for the process (negviz.ui.serve calls it as the
    server starts): the store with the shipped runs recorded, the dataset and model tables, the
    published numbers, and the default dataset's runs."""
    resources.store()
    resources.datasets_table()
    resources.catalog()
    resources.reference()
    dataset_view(dataset).runs()
