"""BM25's margins for a dataset (negviz.analyses.lexical), once per process: DatasetView's rule
(the stored BM25 run the pages would show for it, else scored now with negviz's BM25, seconds)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import lexical as X
from negviz.ui import resources
from negviz.ui.dataset_cache import content_key, dataset_view


@st.cache_data(show_spinner="Scoring the dataset with BM25 for the lexical measure…", max_entries=8)
def _margins(url: str, name: str, content: str, run_id: str | None) -> tuple[pd.DataFrame, str]:
    margins, source, _run = dataset_view(name).lexical_margins()
    return margins, source


def margins(name: str) -> tuple[pd.DataFrame, str]:
    """(item_id, margin1[, margin2] of BM25, where they come from)."""
    chosen = dataset_view(name).chosen([X.LEXICAL_MODEL])
    run_id = str(chosen.iloc[0]["run_id"]) if len(chosen) else None  # the cache key: a new run, new margins
    return _margins(resources.db_url(), name, content_key(name), run_id)
