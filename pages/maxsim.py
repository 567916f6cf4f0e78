"""MaxSim explorer: which query token matched which document token, for a NevIR pair, an
ExcluIR query, typed text or a one-click counterfactual; the URL holds the whole view."""

import streamlit as st
from negviz.analyses import playground as pg
from negviz.core.schema import ModelSpec
from negviz.language.text import counterfactual as cf
from negviz.ui.counterfactual_editor import counterfactual_editor
from negviz.ui.maxsim import maxsim_inputs, maxsim_view
from negviz.ui.navigation import pickers
from negviz.ui.playground import playground_data
from negviz.ui.widgets import safe_md, show_error, user_path

LIMIT = maxsim_inputs.LIMIT  # the model truncates further (noted below)

dataset = pickers.current_dataset()
st.title("MaxSim explorer")
st.caption(
    "S(q, d) = Σ_i max_j sim(q_i, d_j): the matrix before the max, each query token's "
    "choice boxed, "
    "negation cues in red. Under it, per query token, how much closer its best match is in "
    "d1 than in d2."
)

models = playground_data.models(pg.LATE_INTERACTION)
top = st.columns([2, 2, 2])
model = top[0].selectbox(
    "Model",
    models["name"].tolist(),
    key="model",
    bind="query-params",
    help="Late-interaction models of the catalog; ColBERT needs its checkpoint cached locally.",
)
after = top[1].text_input(
    "After: fine-tuned checkpoint (path or spec)",
    key="after",
    bind="query-params",
    help="Draws this model's matrices under the first for the same input "
    "(before / after). "
    "A sentence-transformers folder is read as MaxSim over its tokens.",
)
top[0].caption("Offline here: " + ", ".join(models.query("available")["name"]))
src = top[2].radio(
    "Input",
    ["dataset", "typed"],
    key="src",
    bind="query-params",
    horizontal=True,
    help="A NevIR pair or ExcluIR query from the sidebar's dataset, or your own text.",
)

texts = maxsim_inputs.pick_texts(dataset, src)
if texts is None:  # a typed query or document is still empty
    st.stop()
queries, docs, doc_names, gold = texts.queries, texts.docs, texts.doc_names, texts.gold
slots = [f"q{i + 1}" for i in range(len(queries))]
shown = (
    0
    if len(slots) < 2
    else slots.index(st.radio("Query drawn", slots, key="q", bind="query-params", horizontal=True))
)

with st.expander(
    "Counterfactual: edit one text in one click; the original stays pinned beside", expanded=True
):
    target, edit = counterfactual_editor(
        dict(zip(slots + ["d1", "d2"], queries + docs)), "Edit", LIMIT
    )

# one wrapping row, each as wide as its words: five columns cut them at 1,000 px ("Me…")
toggles = st.container(horizontal=True, vertical_alignment="center")
merge = toggles.toggle(
    "Merge word pieces", False, key="merge", bind="query-params", help="Max over pieces; row = sum."
)
show_mask = toggles.toggle(
    "[MASK] rows", True, key="masks", bind="query-params", help="ColBERT's query augmentation."
)
show_punct = toggles.toggle("Punctuation", True, key="punct", bind="query-params")
show_special = toggles.toggle("Special tokens", True, key="special", bind="query-params")
sim = toggles.radio(
    "Similarity", ["default", "cosine", "l2"], key="sim", bind="query-params", horizontal=True
)
hide = [
    k
    for k, on in (("mask_aug", show_mask), ("punct", show_punct), ("special", show_special))
    if not on
]

edited_q, edited_d = cf.apply_to(queries, docs, target, edit)
marks = {target: edit.new_span} if edit else {}


inputs = maxsim_view.Inputs(
    queries, docs, edited_q, edited_d, shown, slots, doc_names, gold, marks, edit
)
display = maxsim_view.Display(sim, merge, tuple(hide))


def draw(spec: str, caption: str, key: str):
    maxsim_view.draw(spec, caption, key, inputs, display)


draw(model, f"{model}" + (" (before)" if after.strip() else ""), "before")
if after.strip() and (problem := maxsim_view.checkpoint_problem(after)):
    # said before any file is looked up under that name
    st.error(safe_md(problem), icon=":material/error:")
elif after.strip():
    try:
        # a typed or linked folder: only where this server may read
        user_path(ModelSpec.parse(after).name)
        after_spec = pg.late_interaction_spec(after)
    except ValueError as exc:
        show_error(exc)
    else:
        draw(after_spec, f"{after.strip()} (after)", "after")
