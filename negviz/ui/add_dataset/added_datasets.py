"""The Add a dataset page's list of the datasets added to the results store, and the removal of
one after a confirmation that says how many stored runs use it (kept unless ticked)."""

from __future__ import annotations

import streamlit as st

from negviz.store import datasets as stored
from negviz.ui import dataset_cache

REMOVED = "removed_message"  # session state: said once after the rerun that follows a removal


def added_datasets_section(store) -> None:
    """The added datasets of ``store`` as a table, a picker of one to remove (key remove_name), the
    runs it would take along, and the confirming button (key confirm_remove)."""
    st.subheader("Added datasets")
    listing = dataset_cache.dataset_view(store=store).added_datasets()
    if listing.empty:
        st.caption("None yet.")
    else:
        st.dataframe(
            listing,
            hide_index=True,
            key="added",
            column_config={"sha256": st.column_config.TextColumn("sha256", width="small")},
        )
        c1, c2 = st.columns(2)
        gone = c1.selectbox(
            "Remove",
            listing["name"].tolist(),
            key="remove_name",
            index=None,
            placeholder="pick an added dataset",
        )
        if gone:
            _confirm_removal(store, gone, c2)
    if REMOVED in st.session_state:
        st.success(st.session_state.pop(REMOVED))


def _confirm_removal(store, gone: str, column) -> None:
    """In ``column``: how many runs use ``gone``, whether to delete them too, and the button."""
    used = dataset_cache.dataset_view(store=store).runs_using(gone)
    column.warning(f"{used} stored run(s) use {gone}. Removing it keeps them unless ticked below.")
    drop_runs = column.checkbox(f"Also delete those {used} run(s)", key="drop_runs", disabled=used == 0)
    if column.button(f"Yes, remove {gone}", key="confirm_remove", icon=":material/delete:", type="primary"):
        used = stored.remove(store, gone, delete_runs=drop_runs)  # counted as it removes
        dataset_cache.clear_datasets()
        dataset_cache.clear_runs()
        done = "deleted" if drop_runs else "kept"
        st.session_state[REMOVED] = f"Removed {gone}; {used} run(s) {done}."
        del st.session_state["remove_name"]
        st.rerun()  # the sidebar's dataset picker no longer lists it
