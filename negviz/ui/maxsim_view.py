"""One model's MaxSim view on the explorer page: the matrices, the per-token deltas and the
verdicts, for the edited input and (when a counterfactual is applied) the original pinned beside."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from negviz.analyses import alignment
from negviz.analyses import playground as pg
from negviz.charts.alignment import alignment_heatmaps, delta_bars
from negviz.ui import resources
from negviz.ui.widgets import figure_downloads, safe_md, show_error


@dataclass(frozen=True)
class Inputs:
    """What the explorer draws: the queries and documents, the query shown, and the counterfactual
    edit (``edited_*`` are the texts with it applied; without an edit, the texts themselves)."""

    queries: list[str]
    docs: list[str]
    edited_queries: list[str]
    edited_docs: list[str]
    shown: int  # index of the query drawn
    slots: list[str]  # the queries' names (q1, q2)
    doc_names: list[str]
    gold: str | None = None  # the dataset's gold cue, marked in the matrices
    marks: dict = field(default_factory=dict)  # slot -> the edited span, marked
    edit: object = None  # negviz.text.counterfactual's edit, or None


@dataclass(frozen=True)
class Display:
    """How the matrices are drawn: the similarity (or the model's default), word pieces merged,
    the token groups hidden (mask_aug, punct, special)."""

    sim: str = "default"
    merge: bool = False
    hide: tuple[str, ...] = ()


def draw(spec: str, caption: str, key: str, inputs: Inputs, display: Display) -> None:
    try:
        scorer = resources.scorer(spec)
        cold = not scorer.loaded
        start = time.perf_counter()
        i, d = inputs, display
        sim = None if d.sim == "default" else d.sim
        ex = alignment.explore(
            scorer, i.edited_queries, i.edited_docs, i.shown, sim, d.merge, list(d.hide), i.gold, i.marks
        )
        base = alignment.explore(scorer, i.queries, i.docs, i.shown, ex.similarity) if i.edit else None
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
    names = [f"{i.slots[i.shown]} vs {n}" for n in i.doc_names]
    fig = alignment_heatmaps(views, names, f"{scorer.name} · {ex.similarity}")
    st.plotly_chart(fig, key=f"heat-{key}")
    figure_downloads(fig, f"maxsim-{key}", key=f"heat-{key}")
    bars = delta_bars(ex.deltas, labels=i.doc_names)
    st.plotly_chart(bars, key=f"delta-{key}")
    figure_downloads(bars, f"maxsim-delta-{key}", key=f"delta-{key}")
    left, right = st.columns(2)
    left.markdown("**Verdict" + (" (edited)**" if i.edit else "**"))
    left.dataframe(pg.grid_verdict_table(ex.grid, i.slots, i.doc_names), hide_index=True, key=f"verdict-{key}")
    if base is not None:
        right.markdown("**Original (pinned)**")
        right.dataframe(pg.grid_verdict_table(base.grid, i.slots, i.doc_names), hide_index=True, key=f"pinned-{key}")
    st.caption(
        f"{len(i.edited_queries) + 2} texts encoded and {2 * len(i.edited_queries)} matrices built in {ms:,.0f} ms on "
        f"{scorer.device}" + (" (including loading the model)." if cold else ".")
    )
