"""Across benchmarks: every model on every benchmark, and whether what helps one moves another."""

import streamlit as st
from negviz.ui.board import board_view
from negviz.ui.widgets import no_runs_yet

st.title("Across benchmarks")
st.caption(
    "One row per model; each cell is the run the benchmark's own page shows for the model "
    "(the most items on the evaluation split, newest among equals), with its 95% CI and n. "
    "Colour: how far the cell lies from its metric's chance level (legend above the table). A "
    "model trained on a benchmark is shown on its held-out split there (its n says so)."
)
frame = board_view.board()
if frame.empty:
    st.info(no_runs_yet("nevir", "any benchmark"))
    st.stop()
board_view.board_section(frame)
transfer, fixes = st.tabs(
    ["Transfer between benchmarks", "A fix against its base"]
)  # one at a time
with transfer:
    board_view.transfer_section(frame)
with fixes:
    board_view.fixes_section()
