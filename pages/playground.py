"""Playground: a query (and its negated twin) against two or more documents, scored live by every
selected model; one-click counterfactuals keep the original pinned beside; presets start a demo."""

import pandas as pd
import streamlit as st
from negviz.analyses import playground as pg
from negviz.charts.alignment import margin_bars
from negviz.language.text import counterfactual as cf
from negviz.scorers import score_unit
from negviz.ui import chart_items, resources
from negviz.ui.counterfactual_editor import ANSWER as EDITED
from negviz.ui.counterfactual_editor import counterfactual_editor
from negviz.ui.navigation import links
from negviz.ui.playground import playground_data, playground_presets
from negviz.ui.widgets import csv_download, figure_downloads, show_error

TEXTS = {
    "pq": pg.SAMPLE["q1"],
    "pq2": pg.SAMPLE["q2"],
    "pd1": pg.SAMPLE["d1"],
    "pd2": pg.SAMPLE["d2"],
    "pd3": "",
}
LIMIT = pg.TEXT_LIMIT


def negate_query() -> None:
    edit = cf.negate(st.session_state.get("pq", ""))
    st.session_state["pq2"] = edit.edited if edit else st.session_state.get("pq2", "")
    st.session_state["negate_failed"] = edit is None


st.title("Playground")
st.caption(
    "Query i is answered by document i (q1 → d1, q2 → d2); a query is right when its "
    "document scores "
    "strictly above every other. Each model scores on its own scale."
)

playground_presets.preset_buttons()

left, right = st.columns(2)
texts = {}
for k, col in zip(TEXTS, [left, left, right, right, right]):
    label = {
        "pq": "Query q1",
        "pq2": "Negated twin q2 (optional)",
        "pd3": "d3 (optional distractor)",
    }.get(k, k[1:])
    texts[k], cut = pg.clip(
        col.text_area(label, TEXTS[k], key=k, bind="query-params", height=80), LIMIT
    )
    if cut:
        col.warning(f"{label}: cut to {LIMIT:,} characters.")
left.button(
    "Negate q1 into q2",
    on_click=negate_query,
    icon=":material/block:",
    help="Rule-based: auxiliaries and do-support (negviz.language.text.counterfactual).",
)
if st.session_state.pop("negate_failed", False):
    left.warning(
        "No negation rule fits q1 (see negviz.language.text.counterfactual for what it covers); "
        "edit q2 by hand."
    )

available = playground_data.models().query("available")["name"].tolist()
chosen = st.multiselect(
    "Models",
    available,
    [m for m in pg.DEFAULT_MODELS if m in available],
    key="pm",
    bind="query-params",
    help="Catalog models whose files are on this machine.",
)

slots = [s for s in ("pq", "pq2") if texts[s].strip()]
doc_slots = [s for s in ("pd1", "pd2", "pd3") if texts[s].strip()]
if not slots or len(doc_slots) < 2 or len(slots) > len(doc_slots) or not chosen:
    st.info("Type a query, at least two documents, and pick a model.")
    st.stop()
names = {"pq": "q1", "pq2": "q2", "pd1": "d1", "pd2": "d2", "pd3": "d3"}

target, edit = counterfactual_editor(
    {names[s]: texts[s] for s in slots + doc_slots}, "Counterfactual", LIMIT
)

queries = [texts[s] for s in slots]
docs = [texts[s] for s in doc_slots]
versions = {"original": (queries, docs)}
if edit:
    versions = {"edited": cf.apply_to(queries, docs, target, edit), "original": (queries, docs)}

tables, cosines, units = {}, [], {}
with st.spinner("Scoring…"):
    for version, (qs, ds) in versions.items():
        grids = {}
        for name in chosen:
            try:
                scorer = resources.scorer(name)
                grids[name] = pg.score_grid(scorer, qs, ds)
                units[name] = score_unit(scorer.family, scorer.options)
                if (cos := pg.doc_cosines(scorer, ds[:2])) is not None:
                    cosines.append(f"{name}, {version}: cos(d1, d2) = {cos[0, 1]:.3f}")
            except Exception as exc:  # one unavailable model must not hide the others
                show_error(exc)
        tables[version] = pg.results_table(grids, version, units)

chart_items.mark_answer(playground_presets.ANSWER, EDITED)  # a preset or an edit: its verdicts
panes = st.columns(len(tables))
for pane, (version, table) in zip(panes, tables.items()):
    pane.markdown(f"**{version}**" + (" (pinned)" if version == "original" and edit else ""))
    verdict = table["correct"].map({True: "right", False: "wrong"})
    shown = table.drop(columns=["version"]).assign(verdict=verdict)
    pane.dataframe(
        shown.drop(columns=["correct"]),
        hide_index=True,
        key=f"grid-{version}",
        column_config={
            **{c: st.column_config.NumberColumn(format="%.3f") for c in names.values()},
            "margin": st.column_config.NumberColumn(format="%.4f", help="in the unit of its row"),
        },
    )
if cosines:
    st.caption(
        "Bi-encoder document cosine (NevIR App. C: near 1 means the model barely tells them "
        "apart): " + "; ".join(cosines)
    )
both = pd.concat(list(tables.values()), ignore_index=True)
fig = margin_bars(both)
st.plotly_chart(fig, key="margins")
figure_downloads(fig, "playground-margins", key="margins")
csv_download(both, "negviz-playground.csv", key="dl-playground")
link = links.page(
    "maxsim", src="typed", tq=texts["pq"], tq2=texts["pq2"], td1=texts["pd1"], td2=texts["pd2"]
)
st.caption(f"Draw the token alignment of q1 against d1 and d2 on the [MaxSim explorer]({link}).")
