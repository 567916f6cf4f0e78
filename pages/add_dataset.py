"""Add a dataset: upload a file, pick its kind, map its columns, see every problem, save it to
the results store (everyone on the store sees it); list and remove added datasets."""

import streamlit as st
from negviz.core.errors import NegvizError
from negviz.core.schema import KIND_HELP, KIND_TITLES, KINDS
from negviz.datasets import added
from negviz.datasets.formats import FORMATS
from negviz.datasets.userfile import format_columns, max_file_bytes, read_columns
from negviz.language.text.words import counted
from negviz.ui import dataset_cache, outage, resources
from negviz.ui.add_dataset.added_datasets import added_datasets_section
from negviz.ui.add_dataset.column_mapping import column_mapping
from negviz.ui.navigation import links
from negviz.ui.widgets import show_error

store = resources.store()
st.title("Add a dataset")
st.caption(
    "Your own contrast pairs, exclusion queries, perturbations or sentence pairs, kept in "
    "the results store so everyone on it can pick them in the sidebar. CSV, TSV, "
    "JSON Lines, JSON or Parquet; read as data only, checked like the shipped datasets."
)
if (away := resources.outage()) is not None:  # neither "none yet" nor a form that could only fail
    outage.unreadable("Added datasets", away.host, "added or removed")
    st.stop()

upload = st.file_uploader(
    "Data file",
    type=sorted({s.lstrip(".") for s in FORMATS}),
    key="upload",
    max_upload_size=max(1, max_file_bytes() // 2**20),
)
hub_ref = st.text_input(
    "...or a Hugging Face Hub dataset",
    key="hub",
    placeholder="hf:OWNER/NAME[:SPLIT]",
    help="Needs network to the Hub; read like an uploaded Parquet file.",
)
if upload is None and hub_ref.strip():
    try:
        upload = resources.hub_upload(hub_ref.strip())
    except NegvizError as exc:
        show_error(exc)
if upload is not None:
    data = upload.getvalue()
    try:
        raw = read_columns(data, upload.name)
    except NegvizError:
        raw = None
        st.error("This file cannot be read; nothing was stored.")
        problems = added.check_upload(data, upload.name, KINDS[0])[1]
        st.dataframe(problems, hide_index=True, key="read_problems")
    if raw is not None:
        kind = st.selectbox(
            "Kind",
            list(KINDS),
            key="kind",
            help="; ".join(f"{k}: {v}" for k, v in KIND_HELP.items()),
        )
        st.caption(KIND_HELP[kind])
        present = [str(c) for c in raw.columns]
        mapping = column_mapping(present, kind)
        st.markdown("**Preview** (first rows, your column names)")
        st.dataframe(raw.head(5), hide_index=True, key="preview")
        frame, problems = added.check_upload(data, upload.name, kind, mapping)
        if frame is None:
            st.error(
                f"{counted(len(problems), 'problem')} to fix before this file can be saved; "
                "nothing was stored."
            )
            st.dataframe(problems, hide_index=True, key="problems", use_container_width=True)
        else:
            passes = "passes" if len(frame) == 1 else "pass"
            st.success(f"{counted(len(frame), 'item')} ({KIND_TITLES[kind]}) {passes} every check.")
        with st.form("save"):
            c1, c2 = st.columns(2)
            if st.session_state.get("_name_of") != upload.name:  # a new file: its stem suggested
                st.session_state["_name_of"] = upload.name
                st.session_state["name"] = (
                    upload.name.rsplit(".", 1)[0].replace(" ", "-").lower()[:64]
                )
            name = c1.text_input(
                "Name",
                key="name",
                help="How the sidebar and the URL name it (?dataset=NAME).",
            )
            who = c2.text_input("Added by", key="who", placeholder="your name")
            description = c1.text_area("Description (optional)", key="description", height=68)
            licence = c2.text_input("Licence (optional)", key="licence")
            saved = st.form_submit_button(
                "Save to the store", icon=":material/save:", disabled=frame is None
            )
        if saved:
            try:
                rec, created = added.add_dataset(
                    store,
                    name,
                    data,
                    upload.name,
                    kind,
                    format_columns(mapping),
                    description=description,
                    licence=licence,
                    added_by=who or None,
                )
            except NegvizError as exc:
                show_error(exc)
            else:
                dataset_cache.clear_datasets()
                verb = "Saved" if created else "Already stored (same file, kind and mapping):"
                heatmap = links.page("heatmap", dataset=rec.name)
                st.session_state["saved_message"] = (
                    f"{verb} {rec.name}, {rec.n:,} items. Run models on it on the Evaluate page, "
                    f"then open [the heatmap]({heatmap})."
                )
                st.rerun()  # the sidebar's dataset picker lists it from now on
        if "saved_message" in st.session_state:
            st.success(st.session_state.pop("saved_message"))

added_datasets_section(store)
