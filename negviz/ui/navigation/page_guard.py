"""The router's guard against a sidebar dataset of a kind the page does not draw: the reason comes
from the page registry (negviz.ui.navigation.page_registry.kind_problem), so every page is refused alike,
and a page need not guard itself."""

from __future__ import annotations

import streamlit as st

from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation.page_registry import by_url_path, kind_problem
from negviz.ui.widgets import safe_md


def dataset_kind_problem(page: str, name: str) -> str | None:
    """Why the dataset ``name`` does not apply to the page at ``page`` (its URL path), else None;
    markdown, the dataset's name escaped (the registry's own words are plain)."""
    return kind_problem(by_url_path(page), safe_md(name), dataset_view(name).kind)


def refuses(page: str, name: str) -> bool:
    """Whether the router stops the page at ``page`` for the sidebar's dataset ``name``, saying
    why in its place; a page that also takes typed texts is never stopped (it says so itself)."""
    if not by_url_path(page).guarded or (problem := dataset_kind_problem(page, name)) is None:
        return False
    st.info(f"{problem} Pick a dataset of one of those kinds in the sidebar.")
    return True
