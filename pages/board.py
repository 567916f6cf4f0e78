"""Across benchmarks: every model on every benchmark, and whether what helps one moves another."""

import streamlit as st
from negviz.sections import board
from negviz.ui.board import board_view
from negviz.ui.widgets import no_runs_yet

st.title("Across benchmarks")
st.caption(board.CAPTION.text())
frame = board_view.board()
if frame.empty:
    st.info(no_runs_yet("nevir", "any benchmark"))
    st.stop()
board_view.board_section()
transfer, fixes = st.tabs(
    ["Transfer between benchmarks", "A fix against its base"]
)  # one at a time
with transfer:
    board_view.transfer_section(frame)
with fixes:
    board_view.fixes_section()
