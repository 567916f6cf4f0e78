"""Cached data of the pair inspector, so a P/N step only redraws one pair.

The dataset, its automatic types and every shown run's verdicts are computed once per process
(keyed by store URL, run id and tie rule: a stored run never changes); only the annotations,
which other annotators may be writing, are read on each step.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import inspector as F
from negviz.core import outcomes
from negviz.ui import resources
from negviz.ui.dataset_cache import content_key, dataset_view


def automatic_types(name: str) -> pd.DataFrame:
    """The taxonomy's type of every item, once per dataset content."""
    return _automatic_types(resources.db_url(), name, content_key(name))


@st.cache_data(show_spinner="Typing the items with the negation taxonomy...", max_entries=8)
def _automatic_types(url: str, name: str, content: str) -> pd.DataFrame:
    return F.automatic_types(dataset_view(name).dataset)


@st.cache_data(show_spinner=False, max_entries=8)
def _base_items(url: str, name: str, content: str) -> pd.DataFrame:
    ds = dataset_view(name).dataset
    return F.item_table(ds.kind, ds.frame, automatic_types(name))


def items(name: str, annotations: pd.DataFrame, annotator: str) -> pd.DataFrame:
    """The inspector's item table: computed once per dataset, with the annotation columns of now."""
    return F.with_annotations(_base_items(resources.db_url(), name, content_key(name)), annotations, annotator)


@st.cache_data(show_spinner=False, max_entries=16)
def _verdicts(url: str, name: str, runs: tuple[tuple[str, str, str], ...]) -> pd.DataFrame:
    view = dataset_view(name)  # each run's verdicts are the view's, kept by run id
    return F.stack_verdicts({model: view.item_verdicts(run_id, rule) for run_id, model, rule in runs})


def verdicts(name: str, runs: pd.DataFrame) -> pd.DataFrame:
    """Every shown run's verdicts (negviz.core.outcomes under its tie rule), stacked with ``model``."""
    key = tuple((r.run_id, r.model_name, outcomes.tie_rule(r.options)) for r in runs.itertuples())
    return _verdicts(resources.db_url(), name, key)
