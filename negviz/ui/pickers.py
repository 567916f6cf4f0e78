"""Shared sidebar pickers, bound to the URL so a link reproduces the view."""

from __future__ import annotations

import streamlit as st

from negviz.ui import resources

DATASET_KEY = "dataset"
MODELS_KEY = "models"


def dataset_picker() -> str:
    # No format_func on URL-bound widgets: the URL would hold the formatted label.
    names = resources.datasets_table()["name"].tolist()
    return st.sidebar.selectbox(
        "Dataset",
        names,
        key=DATASET_KEY,
        bind="query-params",
        help="The benchmark every page shows; part of the URL (?dataset=...).",
    )


def models_picker(dataset: str) -> list[str]:
    """Models with stored runs on the dataset (all of them by default)."""
    stored = sorted(set(resources.runs(dataset)["model_name"])) if not resources.runs(dataset).empty else []
    return st.sidebar.multiselect(
        "Models",
        stored,
        key=MODELS_KEY,
        bind="query-params",
        placeholder="all stored runs",
        help="Filter the stored runs shown; empty means all. Part of the URL.",
    )


def current_dataset() -> str:
    return st.session_state.get(DATASET_KEY) or "nevir"


def current_models() -> list[str]:
    return list(st.session_state.get(MODELS_KEY) or [])
