"""Across benchmarks: every model on every benchmark, and whether what helps one moves another."""

import streamlit as st
from negviz.ui import board_view
from negviz.ui.widgets import no_runs_yet

st.title("Across benchmarks")
st.caption(
    "One row per model; each cell is the run the benchmark's own page shows for the model "
    "(the most items on the evaluation split, newest among equals), with its 95% CI and n. "
    "Colour: the model's rank within the column. A model trained on a benchmark is shown on its "
    "held-out split there (its n says so)."
)
frame = board_view.board()
if frame.empty:
    st.info(no_runs_yet("nevir", "any benchmark"))
    st.stop()
board_view.board_section(frame)
board_view.transfer_section(frame)
board_view.fixes_section()
