"""BM25's margins for a dataset (negviz.analyses.lexical), once per process: from the stored BM25
run the pages would show for it (negviz.run_choice), else scored now with negviz's BM25 (seconds)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import lexical as X
from negviz.ui import resources
from negviz.ui.dataset_cache import content_key, dataset_view


@st.cache_data(show_spinner="Scoring the dataset with BM25 for the lexical measure…", max_entries=8)
def _margins(url: str, name: str, content: str, run_id: str | None) -> tuple[pd.DataFrame, str]:
    view = dataset_view(name)
    ds = view.dataset
    if run_id:
        wide = view.scores(run_id)
        return X.lexical_margins(ds.kind, ds.frame, wide), f"the stored BM25 run {run_id[:8]}"
    from negviz.catalog import load_scorer
    from negviz.item_scoring import score_dataset, wide_scores

    scores = score_dataset(ds.kind, ds.frame, load_scorer(X.LEXICAL_MODEL))
    wide = wide_scores(ds.kind, ds.frame, scores).set_index("item_id")
    return X.lexical_margins(ds.kind, ds.frame, wide), "BM25 scored now (no stored BM25 run on this dataset)"


def margins(name: str) -> tuple[pd.DataFrame, str]:
    """(item_id, margin1[, margin2] of BM25, where they come from)."""
    chosen = dataset_view(name).chosen([X.LEXICAL_MODEL])
    run_id = str(chosen.iloc[0]["run_id"]) if len(chosen) else None
    return _margins(resources.db_url(), name, content_key(name), run_id)
