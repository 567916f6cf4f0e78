"""The pages' one read path: ``dataset_view(name)``, a negviz.results.dataset_view.DatasetView whose reads
are cached here, so every page shows what the report and the CLI compute, read once.

    view = dataset_view("nevir")
    view.dataset.frame, view.facts.metric, view.runs(), view.outcomes(chosen), view.labels()
    dataset_view().finetune_runs()          # no name: the whole store (the drift page)
    training_pair(run["dataset_spec"], "12-3")  # a fine-tuning run's held-out pair (its kind's record)

Every cache is keyed by the store's URL (resources.db_url), so another store, or the shipped runs
standing in while the database is away, never shows this one's data. A stored run never changes:
its scores and verdicts are kept by run id. Run lists get a few seconds, as other processes store
runs; type labels half a minute, as annotators relabel pairs while the app runs.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from negviz.results.dataset_view import READS, DatasetView
from negviz.ui import resources


def dataset_view(name: str | None = None, store=None) -> DatasetView:
    """The dataset's view (no name: the whole store) in the app's store, or in ``store`` (the one a
    form writes to), every read kept by PageCache under that store's URL."""
    if store is None:
        return DatasetView(resources.store(), name, PageCache(resources.db_url()))
    return DatasetView(store, name, PageCache(str(store.url)))


def content_key(name: str) -> str:
    """What identifies a dataset's content (an added dataset's sha256; "" for shipped data): part
    of the key of every cache derived from its items, so a dataset removed and added again with
    other content is reloaded."""
    table = dataset_view().datasets()
    sha = table.loc[table["name"] == name, "sha256"]
    return str(sha.iloc[0]) if len(sha) else ""


# Reads that may take seconds when not kept yet, and what the page says meanwhile (shown only while
# one is computed, after half a second, as st.cache_data's own spinner).
SPINNERS = {
    "automatic_types": "Typing the items with the negation taxonomy...",
    "lexical": "BM25's margins for the lexical measure (scored now where no BM25 run is stored)…",
    "uncertainty": "Ordering the pairs by the stored models' uncertainty…",
}


class PageCache:
    """A DatasetView's reads kept for every session of this server, keyed by the store's URL and
    kept as long as negviz.results.dataset_view.READS says each stays true (annotations: never kept)."""

    def __init__(self, url: str):
        self.url = url

    def get(self, what: str, key: tuple, compute: Callable[[], Any]) -> Any:
        life = READS[what]
        if life == "never":
            return compute()
        if life in ("content", "labels"):  # key[0] is the dataset's name
            key = (*key, content_key(key[0]) if key[0] else "")
        if what in SPINNERS:
            compute = _with_spinner(SPINNERS[what], compute)
        return _KEEP[life](self.url, what, key, compute)


def _with_spinner(text: str, compute: Callable[[], Any]) -> Callable[[], Any]:
    def spinning() -> Any:
        with st.spinner(text):
            return compute()

    return spinning


def clear_datasets() -> None:
    """Forget the kept dataset list (after this session added or removed a dataset, or a URL named
    one the list lacks): the next read lists the store's datasets again."""
    _seconds.clear(resources.db_url(), "datasets", ("listing",), None)


def training_pair(dataset_spec: dict, pair: str):
    """One held-out pair of a fine-tuning run as its kind's record (``item.kind``, ``item.as_row()``),
    read from the run's own dataset spec, or None when that dataset cannot be read here (a user
    file that stayed on another machine, a pair the dataset no longer has)."""
    from negviz.core.errors import NegvizError
    from negviz.core.schema import DatasetSpec
    from negviz.datasets import load

    try:
        return load(DatasetSpec.from_dict(dataset_spec)).item(pair)
    except (NegvizError, OSError, KeyError, ValueError):
        return None


def clear_runs() -> None:
    """Forget kept run lists and records (after this session stored or removed a run)."""
    _seconds.clear()
    _moment.clear()


# ---------------------------------------------------------------- the caches behind PageCache
# ``_compute`` is left out of each key (Streamlit hashes no argument whose name starts with "_").
@st.cache_resource(show_spinner=False, max_entries=48)  # the datasets themselves: shared, not copied
def _by_content(url: str, what: str, key: tuple, _compute: Callable[[], Any]) -> Any:
    return _compute()


@st.cache_data(show_spinner=False, ttl=30, max_entries=64)
def _half_a_minute(url: str, what: str, key: tuple, _compute: Callable[[], Any]) -> Any:
    return _compute()


@st.cache_data(show_spinner=False, ttl=5, max_entries=256)
def _seconds(url: str, what: str, key: tuple, _compute: Callable[[], Any]) -> Any:
    return _compute()


@st.cache_data(show_spinner=False, ttl=2, max_entries=16)
def _moment(url: str, what: str, key: tuple, _compute: Callable[[], Any]) -> Any:
    return _compute()


# Room for every run of a big store (80+ models per dataset, each with scores and verdicts): with
# fewer entries than runs, a page drawing them all evicts each before its next use.
@st.cache_data(show_spinner=False, max_entries=2048)
def _forever(url: str, what: str, key: tuple, _compute: Callable[[], Any]) -> Any:
    return _compute()


@st.cache_data(show_spinner=False, max_entries=64)
def _scores(url: str, what: str, key: tuple, _compute: Callable[[], Any]) -> Any:
    return _compute()


_KEEP = {
    "scores": _scores,
    "content": _by_content,
    "labels": _half_a_minute,
    "seconds": _seconds,
    "moment": _moment,
    "forever": _forever,
}


def warm_up(dataset: str = "nevir") -> None:
    """What the first page reads, read once for the process (negviz.ui.serve calls it as the
    server starts): the store with the shipped runs recorded, the dataset and model tables, the
    published numbers, and the default dataset's runs."""
    resources.store()
    dataset_view().datasets()
    resources.catalog()
    resources.reference()
    dataset_view(dataset).runs()
