"""Add a dataset: upload a file, pick its kind, map its columns, see every problem, save it to
the results store (everyone on the store sees it); list and remove added datasets."""

import streamlit as st

from negviz import links
from negviz.datasets import added
from negviz.datasets.formats import FORMATS
from negviz.datasets.userfile import format_columns, guess_mapping, max_file_bytes, read_columns
from negviz.datasets.validate import DEFAULTS
from negviz.errors import NegvizError
from negviz.schema import COLUMNS, KIND_HELP, KIND_TITLES, KINDS
from negviz.text.words import counted
from negviz.store import datasets as stored
from negviz.ui import dataset_cache, resources
from negviz.ui.widgets import show_error

NONE = "(none)"
LABEL = "negation_type"  # a column of type labels: the heatmap's columns when present

store = resources.store()
st.title("Add a dataset")
st.caption(
    "Your own contrast pairs, exclusion queries, perturbations or sentence pairs, kept in "
    "the results store so everyone on it can pick them in the sidebar. CSV, TSV, "
    "JSON Lines, JSON or Parquet; read as data only, checked like the shipped datasets."
)
if (away := resources.outage()) is not None:  # neither "none yet" nor a form that could only fail
    st.warning(
        f"Added datasets cannot be read now: the results database at {away.host} is not "
        "reachable. They are kept there and show here again once it is back; nothing can be "
        "added or removed meanwhile."
    )
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
            "Kind", KINDS, key="kind", help="; ".join(f"{k}: {v}" for k, v in KIND_HELP.items())
        )
        st.caption(KIND_HELP[kind])
        present = [str(c) for c in raw.columns]
        guess = guess_mapping(present, kind)
        st.markdown(
            "**Columns**: which of your columns holds each needed one (pre-filled by name)."
        )
        defaults = DEFAULTS.get(kind, {})
        mapping = {}
        cols = st.columns(4)
        for i, target in enumerate([*COLUMNS[kind], LABEL]):
            optional = target in defaults or target == LABEL
            options = ([NONE] if optional or guess.get(target) is None else []) + present
            fallback = target if target in present else None
            pick = guess.get(target) or fallback
            label = target + (f" (default {defaults[target]!r})" if target in defaults else "")
            label = "type label (optional)" if target == LABEL else label
            index = options.index(pick) if pick in options else 0
            chosen = cols[i % 4].selectbox(label, options, index=index, key=f"map-{kind}-{target}")
            if chosen != NONE:
                mapping[target] = chosen
        st.markdown("**Preview** (first rows, your column names)")
        st.dataframe(raw.head(5), hide_index=True, key="preview")
        frame, problems = added.check_upload(data, upload.name, kind, mapping)
        if frame is None:
            st.error(
                f"{len(problems)} problem(s) to fix before this file can be saved; "
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
                resources.clear_datasets()
                verb = "Saved" if created else "Already stored (same file, kind and mapping):"
                heatmap = links.page("heatmap", dataset=rec.name)
                st.session_state["saved_message"] = (
                    f"{verb} {rec.name}, {rec.n:,} items. Run models on it on the Evaluate page, "
                    f"then open [the heatmap]({heatmap})."
                )
                st.rerun()  # the sidebar's dataset picker lists it from now on
        if "saved_message" in st.session_state:
            st.success(st.session_state.pop("saved_message"))

st.subheader("Added datasets")
listing = stored.listing(store)
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
        used = stored.runs_using(store, gone)
        c2.warning(f"{used} stored run(s) use {gone}. Removing it keeps them unless ticked below.")
        drop_runs = c2.checkbox(
            f"Also delete those {used} run(s)", key="drop_runs", disabled=used == 0
        )
        if c2.button(
            f"Yes, remove {gone}", key="confirm_remove", icon=":material/delete:", type="primary"
        ):
            used = stored.remove(store, gone, delete_runs=drop_runs)  # counted as it removes
            resources.clear_datasets()
            dataset_cache.clear_runs()
            done = "deleted" if drop_runs else "kept"
            st.session_state["removed_message"] = f"Removed {gone}; {used} run(s) {done}."
            del st.session_state["remove_name"]
            st.rerun()  # the sidebar's dataset picker no longer lists it
if "removed_message" in st.session_state:
    st.success(st.session_state.pop("removed_message"))
