"""The playground's presets: an expander of buttons, one per demo pair that the stored runs of
the preset models get wrong (negviz.ui.playground.playground_data.presets), each filling the playground's
text boxes (keys pq, pq2, pd1, pd2, pd3) with its queries and documents on a click."""

from __future__ import annotations

import streamlit as st

from negviz.analyses import playground as pg
from negviz.ui import chart_items
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import pickers
from negviz.ui.navigation.page_guard import dataset_kind_problem
from negviz.ui.playground import playground_data
from negviz.ui.widgets import show_error

ANSWER = "preset"  # mark_answer's name for a preset's verdicts


def use_preset(p: pg.Preset) -> None:
    """Fill the playground's text boxes with preset ``p`` and clear the counterfactual edit."""
    q2 = p.queries[1] if len(p.queries) > 1 else ""
    st.session_state.update(pq=p.queries[0], pq2=q2, pd1=p.docs[0], pd2=p.docs[1], pd3="", cf="none")
    chart_items.expect_answer(ANSWER)  # its verdicts, below the fold, scrolled to


def preset_buttons() -> list[pg.Preset]:
    """The presets expander: a button per preset (from NevIR, ExcluIR and the sidebar's added
    dataset), three a row; returns the presets drawn (none when the store cannot be read)."""
    with st.expander("Presets: pairs the stored runs of MiniLM (bi-encoder and MaxSim) get wrong", expanded=True):
        picked = None
        try:
            picked = dataset_view(pickers.current_dataset()).dataset
            presets = playground_data.presets(added=(picked.spec.name, picked.kind.name))
        except Exception as exc:  # an empty or unreachable store: the playground still works
            presets = []
            show_error(exc)
        cols = st.columns(3)
        for i, p in enumerate(presets):
            cols[i % 3].button(
                p.label,
                key=f"preset-{p.key}",
                on_click=use_preset,
                args=(p,),
                help=p.why,
                use_container_width=True,
            )
        if not presets:
            st.caption("No stored NevIR/ExcluIR runs of MiniLM yet: run them on the Evaluate page.")
        if picked is not None and (problem := dataset_kind_problem("playground", picked.spec.name)):
            st.caption(f"{problem} Presets come from datasets of those kinds only.")
    return presets
