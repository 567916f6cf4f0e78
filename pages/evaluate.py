"""Evaluate: run a model on the selected dataset; the run lands in the store once."""

import streamlit as st
from negviz.ui import outage, resources
from negviz.ui.evaluate import eval_watch, fill_watch
from negviz.ui.navigation import pickers
from negviz.ui.widgets import show_error, user_path

dataset = pickers.current_dataset()
st.title("Evaluate a model")
st.caption(
    "Scores every item once (cached per text), stores the run, and shows it on every page. "
    "Runs in the background (you may leave the page; everyone else's pages stay "
    "responsive), on the GPU when there is one, else on the CPU."
)

if outage.refuses_writes(
    resources.store(), "Runs cannot be stored"
):  # no form that could only fail
    st.stop()
catalog = resources.catalog()
names = catalog["name"].tolist()
with st.form("eval"):
    picked = st.selectbox(
        "Model (catalog)", names, index=names.index("all-MiniLM-L6-v2"), key="eval_model"
    )
    typed = st.text_input(
        "…or any hub id or local path",
        key="eval_model_typed",
        placeholder="org/name[family=bi-encoder,similarity=cosine]",
        help="Overrides the catalog pick. Models outside the catalog need [family=...].",
    )
    model = typed.strip() or picked
    limit = st.number_input("Only the first N items (0 = all)", min_value=0, value=0, step=50)
    tie_rule = st.radio(
        "Tie rule",
        ["strict", "mteb"],
        horizontal=True,
        help="strict: a tie is a failure (NevIR code); mteb: a tie on q2 counts as correct.",
    )
    force = st.checkbox("Re-run even if the store has this run")
    go = st.form_submit_button("Run", type="primary")

if go:
    from negviz.core.schema import ModelSpec
    from negviz.evaluation import eval_jobs
    from negviz.evaluation.run_choice import preferred_split

    try:
        name = ModelSpec.parse(model).name
        user_path(name)  # a typed folder: only where this server may read
        split = preferred_split(name, dataset) or "test"  # the split whose run the pages show
        job = eval_jobs.start(
            model,
            dataset,
            split,
            store=resources.store(),
            limit=int(limit) or None,
            tie_rule=tie_rule,
            force=force,
        )
        eval_watch.started(job)
    except Exception as exc:  # a clear message; the app keeps running and the store is untouched
        show_error(exc)

eval_watch.watch()  # progress while it runs in the background, then its outcome

st.divider()
fill_watch.fill_section()  # the board's empty cells, planned, then run here or on Ray
