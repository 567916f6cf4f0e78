"""Retrieval over a corpus (negviz eval --corpus) on the Overview and the heatmap: ExcluIR's
ΔR@1, ΔMRR@10 and Right Rank per stored run, with ExcluIR Table 6's published columns beside
them only when the run searched the paper's own corpus; otherwise the corpus is named."""

from __future__ import annotations

import streamlit as st

from negviz.analyses.leaderboard import CORPUS_COLUMNS, corpus_board, corpus_published
from negviz.core import metric_text
from negviz.datasets.facts import metric_label
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download, headed, safe_md

LABELS = {c: metric_label(c) for c in CORPUS_COLUMNS}


def printf(column: str) -> str:
    """A corpus column's format from its metric (negviz.core.metrics): ΔR@1 in pp, ΔMRR@10 a number."""
    return metric_text.printf(column.split("_ci_")[0])


def in_units(frame):
    """The corpus columns (and their CIs) in their metrics' shown scale (x100 for % and pp)."""
    out = frame.copy()
    for c in out.columns:
        if c.split("_ci_")[0] in CORPUS_COLUMNS:
            out[c] = metric_text.scaled(c.split("_ci_")[0], out[c].astype(float))
    return out


def shown(board):
    """The board for a person: metrics in their units, how each run searched in words, counts
    with thousands, a limited run's n as "5 of 1,000", "—" for what does not apply (no "None")."""
    from negviz.evaluation.retrieval.index import method_title

    out = in_units(board)
    out["retrieval"] = out["retrieval"].map(method_title)
    for c in ("first_stage", "top_k", "corpus_size"):
        out[c] = out[c].map(metric_text.cell)
    out["n"] = [metric_text.n_of(n, of) for n, of in zip(out["n"], out["of_n"])]
    return out.drop(columns=["of_n"])


def corpus_section(dataset: str, key: str) -> None:
    """The corpus runs of ``dataset`` (nothing when it has none)."""
    board = corpus_board(dataset_view(dataset).retrieval_runs())
    if board.empty:
        return
    st.subheader("Retrieval over a corpus")
    config = {  # a CI bound's header names its metric: "ΔR@1 95% CI low", not delta_r1_ci_low
        c: st.column_config.NumberColumn(f"{LABELS[m]} 95% CI {c.rsplit('_', 1)[1]}", format=printf(c))
        for c in board.columns
        if "_ci_" in c and (m := c.split("_ci_")[0]) in CORPUS_COLUMNS
    }
    config |= {c: st.column_config.NumberColumn(LABELS[c], format=printf(c)) for c in CORPUS_COLUMNS}
    table = shown(board)
    st.dataframe(table, hide_index=True, column_config=headed(table, config), key=f"{key}-corpus")
    csv_download(board, f"negviz-corpus-runs-{dataset}.csv", key=f"{key}-corpus-csv")
    if (board["retrieval"] == "codes").any():  # negviz.evaluation.retrieval.plan: a limited run's cheaper route
        st.caption(
            'Runs that searched by "shipped codes, top candidates re-scored" (a limited run\'s default) searched two '
            "stages: the shipped compressed vectors picked each query's candidates, which alone were encoded and "
            "re-scored, so their ranks are exact among those candidates only, not over the whole corpus "
            "(`--plan exact` gives exact ranks)."
        )
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
        published = in_units(corpus_published(resources.reference()))
        st.dataframe(
            published,
            hide_index=True,
            column_config=headed(published, config),
            key=f"{key}-corpus-published",
        )
