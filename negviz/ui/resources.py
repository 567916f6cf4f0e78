"""The pages' resources, kept per process: the store objects, loaded scorers, the shipped model and
published-number tables, whether a model is on this machine, a file fetched from the Hub. None of
them is a read of results: those go through the dataset's view (negviz.ui.dataset_cache)."""

from __future__ import annotations

import os
import threading
import time

import pandas as pd
import streamlit as st

from negviz.core.paths import DATA_DIR
from negviz.ui import shutdown

BUNDLED_RUNS = DATA_DIR / "runs"


AWAY = " (away: shipped runs)"  # marks cache keys of data read from the stand-in
PROBE_SECONDS = 1.0  # how long "the database answered" is reused
AWAY_PROBE_SECONDS = 3.0  # and "it did not" (an unreachable host may take seconds to say so)
_probes: dict[str, tuple[float, Exception | None]] = {}
_probe_lock = threading.Lock()


def _configured_url() -> str:
    return os.environ.get("NEGVIZ_DB_URL", "")


def db_url() -> str:
    """The store's URL: part of every cache key, so another $NEGVIZ_DB_URL never sees this
    store's data, nor the store the data read from the shipped runs while its database is away."""
    url = _configured_url()
    return url + AWAY if outage() is not None else url


def outage():
    """Why the results database cannot be reached now (a StoreUnavailableError), else None.
    Asked of the database at most once a second per process (every 3 s while it is away): one
    connection checkout. A store that cannot be opened at all (a folder, a CSV, /dev/null) is no
    outage: None, and the page's own read raises its message once (outage.guard shows it)."""
    from negviz.store import StoreAccessError, StoreUnavailableError

    url = _configured_url()
    with _probe_lock:
        when, problem = _probes.get(url, (None, None))
        if when is not None and time.monotonic() - when < (AWAY_PROBE_SECONDS if problem else PROBE_SECONDS):
            return problem
    try:
        with _store(url).engine.connect():
            problem = None
    except StoreUnavailableError as exc:
        problem = exc
    except StoreAccessError:
        problem = None
    note(problem, url)
    return problem


def note(problem, url: str | None = None) -> None:
    """Remember what a probe or a failed page found (None: the database answered)."""
    with _probe_lock:
        _probes[_configured_url() if url is None else url] = (time.monotonic(), problem)


def store():
    """The results store, with the shipped precomputed runs loaded once per process; while its
    database is away, a read-only stand-in holding the shipped runs (negviz.store.shipped)."""
    problem = outage()
    if problem is not None:
        return _shipped_store(problem.host)
    return _store(_configured_url())


@st.cache_resource(show_spinner=False, max_entries=2)  # a store object (a resource, not a read)
def _shipped_store(host: str):
    from negviz.store.shipped import ShippedStore

    return ShippedStore(f"the results database at {host} is not reachable", host, BUNDLED_RUNS)


@st.cache_resource(show_spinner=False)  # the store object: its engine and connections
def _store(url: str):
    from negviz.store import open_store

    s = open_store(url or None)  # with the shipped runs' records, as every entry point opens it
    if not s.read_only and s.pending_runs():  # a read-only store is shown as it is
        # First start: the shipped runs' item scores are copied in by a background thread, and
        # read in place from their files until then (Store.pending_scores).
        _load_pending_in_background(s)
    return s


def _load_pending_in_background(s) -> None:
    """One run at a time, so a stopping server (negviz.ui.shutdown) waits for one run's copy at most."""
    import logging

    def load() -> None:
        try:
            try:  # Linux: nice this thread alone, so page renders win the CPU meanwhile
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
            except (AttributeError, OSError):
                pass
            for run_id in s.pending_runs():
                if shutdown.stopping():
                    return
                s.load_pending(run_id)
        except Exception:  # a page reads the run from its file meanwhile, and reports what fails
            logging.getLogger("negviz").exception("copying the shipped runs' scores into the store failed")

    shutdown.start_thread(load, "negviz-load-shipped-runs")


def available_offline(hub_id: str) -> bool:
    """Whether a model loads without network (short TTL: a download may land meanwhile)."""
    return _available_offline(hub_id)


@st.cache_data(show_spinner=False, ttl=60)  # files on this machine, not the store
def _available_offline(hub_id: str) -> bool:
    from negviz.scorers.loading import is_available_offline

    return is_available_offline(hub_id)


@st.cache_data(show_spinner=False)  # a file shipped with negviz (data/), not the store
def catalog() -> pd.DataFrame:
    from negviz.evaluation.catalog import load_catalog

    return load_catalog()


@st.cache_data(show_spinner=False)  # the published numbers: files shipped with negviz
def reference() -> pd.DataFrame:
    from negviz.evaluation.published import load_reference

    return load_reference()


@st.cache_resource(show_spinner=False, max_entries=4)  # a loaded model: a resource
def scorer(spec_text: str, device: str | None = None):
    """A loaded scorer per spec; few entries so GPU memory is freed when one is evicted."""
    from negviz.core.cache import ScoreCache
    from negviz.evaluation.catalog import load_scorer

    return load_scorer(spec_text, device=device, cache=ScoreCache())


class HubUpload:
    """A Hub dataset split in the shape of an uploaded file (name and bytes)."""

    def __init__(self, name: str, data: bytes):
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


def hub_upload(ref: str) -> HubUpload:
    """hf:OWNER/NAME[:SPLIT] fetched once per process (negviz.datasets.hub.hub_file)."""
    return HubUpload(*reversed(_hub_file(ref)))


@st.cache_data(show_spinner="Fetching the dataset from the Hub...", max_entries=4)  # a download, not the store
def _hub_file(ref: str) -> tuple[bytes, str]:
    from negviz.datasets.hub import hub_file

    return hub_file(ref)
