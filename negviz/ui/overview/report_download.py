"""The Overview's "Download report" button: a model's report (negviz.report) as one HTML file,
built when clicked and cached by store URL, model and the ids of every stored run."""

from __future__ import annotations

import re

import streamlit as st

from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view


# A report built for download: a computation keyed by its inputs (the report reads the store through
# its own DatasetView); every stored run's id is in the key, so a new run builds a new file.
@st.cache_data(show_spinner=False, max_entries=8)
def report_file(url: str, model: str, run_ids: tuple[str, ...]) -> bytes:  # noqa: ARG001 (cache key)
    from negviz.report.html import report_bytes

    return report_bytes(resources.store(), model)[0]


def report_button(models: list[str], key: str = "report") -> None:
    """A model picker and a button that downloads that model's report (against its default comparisons)."""
    if not models:
        return
    left, right = st.columns([2, 3], vertical_alignment="bottom")
    model = left.selectbox(
        "Report for model",
        models,
        key=f"{key}_model",
        help="Every stored analysis of this model against the catalog's base model "
        "(else TF-IDF and BM25), in one HTML file that opens offline; the numbers as "
        "JSON come from `negviz report`.",
    )
    ids = tuple(sorted(dataset_view().runs(kind=None, status=None)["run_id"]))
    right.download_button(
        "Download report",
        data=lambda: report_file(resources.db_url(), model, ids),
        file_name=f"negviz-report-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}.html",
        mime="text/html",
        icon=":material/description:",
        key=f"{key}_download",
        on_click="ignore",
        help="Built when clicked (up to a minute or two: figures are drawn as SVG).",
    )
