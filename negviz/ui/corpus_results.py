"""Retrieval over a corpus (negviz eval --corpus) on the Overview and the heatmap: ExcluIR's
ΔR@1, ΔMRR@10 and Right Rank per stored run, with ExcluIR Table 6's published columns beside
them only when the run searched the paper's own corpus; otherwise the corpus is named."""

from __future__ import annotations

import streamlit as st

from negviz.analyses.leaderboard import CORPUS_COLUMNS, corpus_board, corpus_published
from negviz.datasets.facts import metric_label
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download, safe_md

LABELS = {c: metric_label(c) for c in CORPUS_COLUMNS}


def corpus_section(dataset: str, key: str) -> None:
    """The corpus runs of ``dataset`` (nothing when it has none)."""
    board = corpus_board(dataset_view(dataset).retrieval_runs())
    if board.empty:
        return
    st.subheader("Retrieval over a corpus")
    percent = st.column_config.NumberColumn(format="percent")
    config = {c: percent for c in board.columns if c.split("_ci_")[0] in CORPUS_COLUMNS}
    config |= {c: st.column_config.NumberColumn(LABELS[c], format="percent") for c in CORPUS_COLUMNS}
    st.dataframe(board, hide_index=True, column_config=config, key=f"{key}-corpus")
    csv_download(board, f"negviz-corpus-runs-{dataset}.csv", key=f"{key}-corpus-csv")
    others = board[~board["paper_corpus"]].drop_duplicates("corpus_hash")
    for r in others.itertuples(index=False):
        st.caption(
            f"Runs over corpus {safe_md(r.corpus)} ({int(r.corpus_size):,} documents, hash "
            f"{safe_md(r.corpus_hash)}), "
            "not ExcluIR's 90,406-paragraph corpus, so not on ExcluIR Table 6's scale (a smaller "
            'corpus makes retrieval easier); the Overview\'s "negviz beside the papers" puts '
            "Table 6's rows of the same models beside them with that caveat."
        )
    if board["paper_corpus"].any():
        st.caption("ExcluIR Table 6, same metrics over the same corpus (top-10 list, Sec. 3):")
        st.dataframe(
            corpus_published(resources.reference()),
            hide_index=True,
            column_config=config,
            key=f"{key}-corpus-published",
        )
