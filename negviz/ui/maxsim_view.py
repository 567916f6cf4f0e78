"""One model's MaxSim view on the explorer page: the matrices, the per-token deltas and the
verdicts, for the edited input and (when a counterfactual is applied) the original pinned beside."""

from __future__ import annotations

import time

import streamlit as st

from negviz.analyses import alignment
from negviz.analyses import playground as pg
from negviz.charts.alignment import alignment_heatmaps, delta_bars
from negviz.ui import resources
from negviz.ui.widgets import figure_downloads, safe_md, show_error


def draw(
    spec: str,
    caption: str,
    key: str,
    *,
    queries,
    docs,
    edited_q,
    edited_d,
    shown,
    sim,
    merge,
    hide,
    gold,
    marks,
    edit,
    slots,
    doc_names,
) -> None:
    """Load ``spec`` (cached), build its alignment views and place them; an unavailable checkpoint
    or a wrong family is a message, and the page keeps running."""
    try:
        scorer = resources.scorer(spec)
        cold = not scorer.loaded
        start = time.perf_counter()
        ex = alignment.explore(
            scorer, edited_q, edited_d, shown, None if sim == "default" else sim, merge, hide, gold, marks
        )
        base = alignment.explore(scorer, queries, docs, shown, ex.similarity) if edit else None
        ms = (time.perf_counter() - start) * 1000
    except Exception as exc:  # unavailable checkpoint, wrong family: a clear message, the page keeps running
        show_error(exc)
        return
    st.subheader(safe_md(caption))
    views = ex.views
    if any(v.doc_truncated or v.query_truncated for v in views):
        st.warning(
            f"Long input: truncated at the model's max length ({alignment.max_tokens(scorer, 'document')} "
            "document tokens); the rest is neither drawn nor scored."
        )
    names = [f"{slots[shown]} vs {n}" for n in doc_names]
    fig = alignment_heatmaps(views, names, f"{scorer.name} · {ex.similarity}")
    st.plotly_chart(fig, key=f"heat-{key}")
    figure_downloads(fig, f"maxsim-{key}", key=f"heat-{key}")
    bars = delta_bars(ex.deltas, labels=doc_names)
    st.plotly_chart(bars, key=f"delta-{key}")
    figure_downloads(bars, f"maxsim-delta-{key}", key=f"delta-{key}")
    left, right = st.columns(2)
    left.markdown("**Verdict" + (" (edited)**" if edit else "**"))
    left.dataframe(pg.grid_verdict_table(ex.grid, slots, doc_names), hide_index=True, key=f"verdict-{key}")
    if base is not None:
        right.markdown("**Original (pinned)**")
        right.dataframe(pg.grid_verdict_table(base.grid, slots, doc_names), hide_index=True, key=f"pinned-{key}")
    st.caption(
        f"{len(edited_q) + 2} texts encoded and {2 * len(edited_q)} matrices built in {ms:,.0f} ms on "
        f"{scorer.device}" + (" (including loading the model)." if cold else ".")
    )
