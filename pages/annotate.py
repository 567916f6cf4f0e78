"""Annotations: who labelled what, agreement between annotators, disagreements, export / import."""

import streamlit as st
from negviz.analyses import agreement, paircard
from negviz.language.text.words import counted
from negviz.results import annotations as ann
from negviz.store import StoreError
from negviz.store.shipped import ShippedStore
from negviz.ui import outage, resources
from negviz.ui.annotate import agreement_view
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import links, pickers
from negviz.ui.widgets import show_error

dataset = pickers.current_dataset()
store = resources.store()  # imports write here
st.title("Annotations")
if isinstance(
    store, ShippedStore
):  # the database is away: neither "no labels yet" nor an import box
    outage.unreadable("Labels", store.host, "imported")
    st.stop()
view = dataset_view(dataset)
ds = view.dataset
latest = view.annotations()

st.caption(
    f"**{paircard.md_escape(ds.title)}** · "
    f"{counted(latest['item_id'].nunique(), 'labelled pair')} · "
    f"{counted(latest['annotator'].nunique(), 'annotator')} · labels are kept with every earlier "
    "version."
)

if latest.empty:
    more = "" if outage.cannot_save(store) else ", or import an exported file below"
    st.info(f"No labels yet. Label pairs on the Pair inspector page{more}.")
else:
    per = latest.groupby("annotator").agg(
        pairs=("item_id", "nunique"), last_label=("created_at", "max")
    )
    st.dataframe(per.reset_index(), hide_index=True, key="per_annotator")

    st.subheader("Agreement")
    everyone = sorted(latest["annotator"].unique())
    who = st.multiselect(
        "Annotators",
        everyone,
        default=everyone[:2],
        key="annotators",
        bind="query-params",
        help="Two: Cohen's kappa; three or more: Fleiss' kappa, on the pairs all of them labelled.",
    )
    if len(who) < 2:
        st.caption("Choose at least two annotators.")
    else:
        table = agreement.agreement_table(latest, who)
        if few := agreement.few_items_warning(
            table, "shared_pairs", "kappa", "all of them labelled"
        ):
            st.warning(few)
        st.dataframe(
            table,
            hide_index=True,
            key="agreement",
            placeholder="undefined",
            column_config={
                "observed_agreement": st.column_config.NumberColumn(
                    "observed agreement", format="percent"
                ),
                "kappa": st.column_config.NumberColumn(
                    "kappa", format="%.3f", help="Undefined when every label falls in one category."
                ),
            },
        )
        agreement_view.alpha_section(dataset, latest, who)
        if len(who) > 2:
            label = st.selectbox("Pairwise Cohen's kappa of", agreement.LABELS, key="pairwise")
            st.dataframe(agreement.pairwise_cohen(latest, who, label), key="pairwise_table")
        diff = agreement.disagreements(latest, who)
        st.markdown(f"**Disagreements** ({len(diff):,})")
        if diff.empty:
            st.caption("The chosen annotators agree on every shared pair.")
        else:
            diff.insert(0, "open", [links.inspector(dataset, i) for i in diff["item_id"]])
            st.dataframe(
                diff,
                hide_index=True,
                key="disagreements",
                column_config={
                    "open": st.column_config.LinkColumn("pair", display_text=r"pair=([^&]+)"),
                },
            )

st.subheader("Export")
all_versions = st.toggle(
    "Every version (the full history), not only each annotator's latest label", key="all_versions"
)
frame = view.annotation_export(all_versions)
stem = f"negviz-annotations-{dataset}{'-history' if all_versions else ''}"
left, right, _ = st.columns([1, 1, 3])
for col, fmt, mime in ((left, "csv", "text/csv"), (right, "jsonl", "application/jsonl")):
    col.download_button(
        fmt.upper(),
        ann.to_bytes(frame, fmt),
        file_name=f"{stem}.{fmt}",
        mime=mime,
        key=f"export-{fmt}",
        icon=":material/download:",
        disabled=frame.empty,
        on_click="ignore",
    )
st.caption(f"{len(frame):,} rows with the pair text, the dataset's source and the negviz version.")

st.subheader("Import")
if outage.refuses_writes(store, "Labels cannot be imported"):  # no upload that could only fail
    st.stop()
upload = st.file_uploader(
    "A CSV or JSONL file exported by negviz",
    type=["csv", "jsonl"],
    key="import_file",
    max_upload_size=ann.MAX_IMPORT_BYTES // 2**20,
)
if upload is not None and st.button(
    "Import into " + ds.title, key="import", icon=":material/upload:"
):
    try:
        result = ann.import_annotations(store, ds, upload.getvalue(), upload.name)
    except (ann.AnnotationError, StoreError) as exc:  # StoreError: away, read-only, disk full
        show_error(exc)
    else:
        st.success(
            f"{result.rows:,} rows read: {result.added:,} labels added, "
            f"{result.unchanged:,} already current."
        )
