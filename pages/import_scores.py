"""Import scores: a score file computed elsewhere stored as a run of the sidebar's dataset, then
shown on every page like a run negviz computed (negviz.results.external.importing)."""

import streamlit as st
from negviz.datasets.userfile import max_file_bytes
from negviz.ui import outage, resources
from negviz.ui.import_scores import import_view
from negviz.ui.navigation import pickers

dataset = pickers.current_dataset()
st.title("Import scores")
import_view.intro(dataset)
if outage.refuses_writes(
    resources.store(), "Scores cannot be imported"
):  # no form that could only fail
    st.stop()

with st.form("import"):
    upload = st.file_uploader(
        "Score file",
        type=list(import_view.TYPES),
        key="import_file",
        max_upload_size=max(1, max_file_bytes() // 2**20),
    )
    left, right = st.columns(2)
    name = left.text_input(
        "Model name",
        key="import_name",
        placeholder="e.g. rank1-32b",
        help="Required: what produced these scores. Not a catalog model's name.",
    )
    source = right.text_input(
        "Source (URL, doi: or arxiv:)",
        key="import_source",
        placeholder="https://... · doi:10.... · arxiv:2502.....",
        help="Optional: the model or paper, kept with the run.",
    )
    partial = st.checkbox(
        "Allow a partial file (only some items scored)",
        key="import_partial",
        help="The run then says 'n of N items' wherever its metric shows.",
    )
    go = st.form_submit_button("Import", type="primary", icon=":material/input:")

if go:
    import_view.submit(upload, dataset, name, source, partial)
import_view.show_outcome(dataset)
