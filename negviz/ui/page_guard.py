"""A page's guard against a sidebar dataset of a kind it does not draw: the reason comes from the
page registry (negviz.core.page_registry.kind_problem), so every page words it alike."""

from __future__ import annotations

import streamlit as st

from negviz.core.page_registry import by_url_path, kind_problem
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import safe_md


def dataset_kind_problem(page: str, name: str) -> str | None:
    """Why the dataset ``name`` does not apply to the page at ``page`` (its URL path), else None;
    markdown, the dataset's name escaped (the registry's own words are plain)."""
    return kind_problem(by_url_path(page), safe_md(name), dataset_view(name).kind)


def require_dataset_kind(page: str, name: str) -> None:
    """Stop the page, saying why, when the sidebar's dataset is not of a kind it draws."""
    if problem := dataset_kind_problem(page, name):
        st.info(f"{problem} Pick a dataset of one of those kinds in the sidebar.")
        st.stop()
