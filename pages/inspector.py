"""Pair inspector: one pair with its word diff, cue and model scores; filters; labelling."""

import streamlit as st
from negviz.analyses import inspector as F
from negviz.analyses import paircard
from negviz.language.taxonomy import TAXONOMY, source_words
from negviz.ui import inspector_data, resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.inspector import inspector_filters, reasoning_view, why_view
from negviz.ui.label_form import annotator_name, label_form
from negviz.ui.navigation import links, pickers
from negviz.ui.widgets import headed

dataset = pickers.current_dataset()
store = resources.store()  # labels are written here
view = dataset_view(dataset)
ds = view.dataset
st.title("Pair inspector")
runs = pickers.shown_runs(dataset)
verdicts = inspector_data.verdicts(dataset, runs)
annotator = annotator_name()
types = inspector_data.automatic_types(dataset)
items = inspector_data.items(dataset, view.annotations(), annotator)

filters, queue = inspector_filters.sidebar(ds, items, verdicts)
ids, items = inspector_filters.listed_ids(dataset, items, verdicts, filters, queue, annotator)


def go(item_id):
    st.session_state["pair"] = item_id


def pick(table_ids):  # a click in the list; row positions are the frame's, whatever the user's sort
    rows = st.session_state["pair_list"].selection.rows
    st.session_state["pair"] = table_ids[rows[0]] if rows else st.session_state.get("pair", "")


# one wrapping row, each part as wide as its content: columns cut the buttons' words at 1,000 px
bar = st.container(horizontal=True, vertical_alignment="bottom")
wanted = bar.text_input(
    "Pair id", key="pair", bind="query-params", placeholder="first of the list", width=220
)
known = list(items["item_id"])
current = wanted if wanted in set(known) else (ids[0] if ids else None)
prev_id, next_id = F.neighbours(ids, current)
bar.button(
    "Previous",
    on_click=go,
    args=(prev_id,),
    disabled=prev_id is None,
    shortcut="P",
    icon=":material/arrow_back:",
    key="prev",
)
bar.button(
    "Next",
    on_click=go,
    args=(next_id,),
    disabled=next_id is None,
    shortcut="N",
    icon=":material/arrow_forward:",
    key="next",
)
bar.caption(f"{'Queue' if queue else 'Filtered list'}: {F.position(ids, current)} · keys P / N")
if wanted and wanted not in set(known):
    st.warning(
        f"{ds.title} has no pair {paircard.md_escape(wanted[:80])}; showing the first of the list."
    )
if current is None:
    st.info(
        "Your queue is empty: you labelled every pair in it."
        if queue
        else "No pair matches these filters."
    )
    st.stop()

row = ds.item(current).as_row()  # the item as its kind's record, as a row for the card
typed = types.set_index("item_id").loc[current]
st.subheader(f"{ds.title} · {current}")
st.caption(
    f"Type **{TAXONOMY.label(typed['type'])}** ({source_words(typed['label_source'])}): "
    f"{paircard.md_escape(typed['evidence'])}"
    + (f" · edit type {row['edit_type']}" if "edit_type" in row else "")
)
left, right = st.columns([3, 2])
left.html(paircard.card_html(ds.kind, row))
# the dataset's own
left.dataframe(paircard.extra_fields(ds.kind, row), hide_index=True, key="fields")
if ds.kind.name in paircard.MAXSIM_KINDS:
    left.markdown(
        f"[Open in the MaxSim explorer :material/open_in_new:]({links.maxsim(dataset, current)})"
    )
with left:
    reasoning_view.show(dataset, runs, current, row)
many = verdicts["model"].nunique() > paircard.MAX_CARDS  # then tables instead of a card per model
# many models: their verdicts (model, category, margin) across the page under the card, where a
# 1,000 px window shows every column (the right column stays empty), and their scores in a second
# table (seven columns need a sideways scroll there)
(st if many else left).dataframe(
    paircard.verdict_rows(ds.kind, verdicts, current), hide_index=True, key="verdicts"
)
if many:
    with st.expander("Every model's scores of this pair"):
        st.dataframe(
            paircard.verdict_rows(ds.kind, verdicts, current, with_scores=True),
            hide_index=True,
            key="scores",
        )
with right:
    if verdicts.empty:
        st.info(
            "No stored runs for this dataset: run a model on the Evaluate page to see scores here."
        )
    for name, title, matrix in [] if many else paircard.model_cards(ds.kind, verdicts, current):
        st.markdown(title)
        st.dataframe(matrix, key=f"matrix-{name}")

with st.container(border=True):
    why_view.show(ds.kind, runs, current, row, dataset)

label_form(store, ds, dataset, current, annotator, next_id, pair_key="pair")

st.markdown("**Labels of this pair** (every annotator's versions, newest first)")
hist = view.annotation_history(current)
if hist.empty:
    st.caption("Nobody has labelled this pair yet.")
else:
    st.dataframe(hist, hide_index=True, key="history")


listed = "Queue" if queue else "Filtered pairs"
listing = F.listing(items, verdicts, ids, filters.model)
with st.expander(f"{listed} ({len(ids):,}): click a row to open it"):
    st.dataframe(
        listing,
        hide_index=True,
        column_config=headed(listing),
        key="pair_list",
        on_select=lambda: pick(ids),
        selection_mode="single-row",
    )
