"""Cached data of the sensitivity page: DEMETR item tables, perturbation tables and CANNOT
distributions of stored runs, keyed by store URL and run ids (a stored run never changes).
The computations are negviz.analyses.sensitivity's pure functions; only the reading and the
caching live here."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd
import streamlit as st

from negviz.analyses import sensitivity as sv
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view


def items(run_id: str) -> pd.DataFrame:
    """sensitivity.item_table of a stored DEMETR run."""
    return _items(resources.db_url(), run_id)


@st.cache_data(show_spinner=False, max_entries=16)
def _items(url: str, run_id: str) -> pd.DataFrame:
    demetr = dataset_view("demetr")
    return sv.item_table(demetr.dataset.frame, demetr.scores(run_id))


def cell_items(run_id: str, perturbation: str, checked_only: bool, show: str) -> pd.DataFrame:
    """sensitivity.cell_items of a stored run: cached on its own, as a hit of the whole item
    table (35,000 rows with texts) costs a copy of it on every rerun."""
    return _cell_items(resources.db_url(), run_id, perturbation, checked_only, show)


@st.cache_data(show_spinner=False, max_entries=64)
def _cell_items(url: str, run_id: str, perturbation: str, checked_only: bool, show: str) -> pd.DataFrame:
    return sv.cell_items(items(run_id), perturbation, checked_only, show)


def table(run: Mapping[str, Any], checked_only: bool = False) -> pd.DataFrame:
    """A stored run's perturbation table: its stored summary when made with the same
    ``checked_only`` (what the CLI printed), else recomputed from its item scores."""
    return sv.run_table(run, checked_only, lambda: _table(resources.db_url(), run["run_id"], checked_only))


@st.cache_data(show_spinner=False, max_entries=64)
def _table(url: str, run_id: str, checked_only: bool) -> pd.DataFrame:
    return sv.perturbation_table(items(run_id), checked_only)


def cannot_distribution(runs: pd.DataFrame, pairs: str = "negated") -> pd.DataFrame:
    """sensitivity.cannot_distribution of stored CANNOT runs (Store.runs rows, one per model)."""
    return _cannot(resources.db_url(), tuple(runs["run_id"]), tuple(runs["model_name"]), pairs)


@st.cache_data(show_spinner=False, max_entries=16)
def _cannot(url: str, run_ids: tuple[str, ...], models: tuple[str, ...], pairs: str) -> pd.DataFrame:
    cannot = dataset_view("cannot")
    items_ = {m: sv.cannot_items(cannot.dataset.frame, cannot.scores(r)) for r, m in zip(run_ids, models)}
    return sv.cannot_distribution(items_, pairs)
