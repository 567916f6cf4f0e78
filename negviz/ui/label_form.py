"""The inspector's labelling form: one pair's label (negation type, validity, ambiguity, note)
prefilled with the annotator's latest version, saved as a new version; "save and next" moves on."""

from __future__ import annotations

import streamlit as st

from negviz.analyses import paircard
from negviz.core.kinds import DatasetKind
from negviz.language.taxonomy import TAXONOMY
from negviz.results import annotations as ann
from negviz.store import StoreError
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.outage import cannot_save
from negviz.ui.widgets import safe_md


def annotator_name() -> str:
    """The sidebar's annotator box (one key for the inspector and the projects page, kept for the
    browser tab), with runs of spaces closed up."""
    return " ".join(
        st.sidebar.text_input(
            "Annotator",
            key="annotator",
            persist_state="session",
            placeholder="your name",
            help="Saved with every label and decision; remembered while this browser tab is open.",
        ).split()
    )


def asks_ambiguity(kind: DatasetKind) -> bool:
    """Whether items of this kind have a query an annotator may call ambiguous (the kind's label fields)."""
    return "query_ambiguous" in kind.label_fields


def validity_index(label) -> int | None:
    """The validity radio's choice for an annotator's stored label: none for a pair not yet labelled
    (a pre-selected "valid" was stored when the annotator never chose one)."""
    return ann.VALIDITY.index(label.validity) if label.validity in ann.VALIDITY else None


def label_form(store, ds, dataset: str, current: str, annotator: str, next_id: str | None, pair_key: str) -> None:
    """Draw the form for ``current`` and the message of the last save. After a save the page's
    pair widget (session-state key ``pair_key``, which the page owns) is set to the next pair."""

    def save(item_id, form, before, advance_to):
        s = st.session_state
        label = ann.Label(s[f"type_{form}"], s[f"valid_{form}"], bool(s.get(f"amb_{form}")), s[f"note_{form}"] or "")
        try:
            version = ann.save(store, ds, item_id, s.get("annotator", ""), label)
        except (ann.AnnotationError, StoreError) as exc:  # StoreError: the store went away, is full, ...
            s["ann_message"] = ("error", safe_md(exc))
            return
        s["ann_message"] = (
            "success",
            f"Saved {safe_md(item_id)} as version {version} by {safe_md(annotator)}."
            if version != before
            else f"No change: {safe_md(item_id)} already has this label (version {version}).",
        )
        s[pair_key] = advance_to or item_id  # pin the pair, so a shrinking queue does not move it

    st.subheader("Label this pair")
    mine, version = dataset_view(dataset, store).current_label(current, annotator)
    mine = mine or ann.Label(None)
    form = f"{current}|{annotator}|{version}"  # new widgets, prefilled, for each pair, name and save
    choices = ann.type_options()
    refusal = cannot_save(store)
    if refusal:
        st.warning(f"Labels cannot be saved now: {safe_md(refusal)}.", icon=":material/block:")
    with st.form(f"label-{form}"):
        st.caption(
            f"Labelling as **{paircard.md_escape(annotator)}**"
            if annotator
            else "Enter your annotator name in the sidebar first."
        )
        st.selectbox(
            "Negation type",
            choices,
            key=f"type_{form}",
            format_func=TAXONOMY.label,  # its title; the stored label is the id
            placeholder="choose",
            index=choices.index(mine.negation_type) if mine.negation_type in choices else None,
        )
        st.radio("Pair validity", ann.VALIDITY, index=validity_index(mine), horizontal=True, key=f"valid_{form}")
        if asks_ambiguity(ds.kind):
            st.checkbox("Query ambiguous", value=mine.query_ambiguous, key=f"amb_{form}")
        st.text_area("Note", value=mine.note, max_chars=ann.MAX_NOTE, key=f"note_{form}")
        a, b = st.columns(2)
        a.form_submit_button(
            "Save",
            on_click=save,
            args=(current, form, version, None),
            type="primary",
            icon=":material/save:",
            disabled=bool(refusal),
        )
        b.form_submit_button(
            "Save and next",
            on_click=save,
            args=(current, form, version, next_id),
            icon=":material/skip_next:",
            disabled=next_id is None or bool(refusal),
        )
    status, message = st.session_state.pop("ann_message", (None, None))
    if status:
        (st.error if status == "error" else st.success)(message)
