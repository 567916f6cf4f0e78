"""Fine-tuning drift: how pair cosines and paired accuracy move across epochs (NevIR App. C
Fig. 8 and Fig. 5), one pair's card per epoch, and fine-tuning jobs started from the browser."""

from pathlib import Path

import streamlit as st
from negviz.analyses import paircard
from negviz.charts import drift as cd
from negviz.finetune import views
from negviz.sections import drift
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view, training_pair
from negviz.ui.drift import finetune_jobs
from negviz.ui.navigation import links, url_check
from negviz.ui.widgets import csv_download, figure_downloads, headed, safe_md

st.title("Fine-tuning drift")
st.caption(drift.CAPTION.text())
store = resources.store()

finetune_jobs.start_form(store)
states = finetune_jobs.live_jobs(store)  # a running run may be interrupted (its process gone)
finetune_jobs.last_failure()
every_run = dataset_view()  # fine-tuning runs of every training dataset
runs = every_run.finetune_runs()
if runs.empty:
    st.info(
        "No fine-tuning runs stored yet. Start one above, or with `negviz finetune --model "
        "all-MiniLM-L6-v2`."
    )
    st.stop()
labels = runs["label"].tolist()
c1, c2 = st.columns([5, 1])
chosen = c1.multiselect(
    "Runs",
    labels,
    default=views.opening_runs(runs),  # the best evidence: the largest held-out accuracy rise
    key="runs",
    bind="query-params",
    help="Compare several runs on shared epoch axes. Each reads: model · family · epochs · "
    "the data held out · when it was stored.",
)
shape = c2.radio("Distribution", cd.SHAPES, key="shape", bind="query-params", horizontal=True)
picked = runs[runs["label"].isin(chosen)]
if picked.empty:
    st.info("Pick at least one run.")
    st.stop()
for r in picked[picked["status"] != "complete"].itertuples(index=False):
    why = f": {str(r.error).splitlines()[0]}" if r.error else ""
    state = states.get(r.run_id, r.status)
    (st.warning if state != "running" else st.info)(
        safe_md(f"{r.label} is {state}{why}; its stored epochs are shown.")
    )
section = drift.section(every_run, picked, shape=shape)  # the report's, at its defaults
epochs, cosines, wide, notes = (section.tables[k] for k in ("epochs", "cosines", "wide", "notes"))
percent = st.column_config.NumberColumn(format="percent")
st.plotly_chart(section.figures[drift.FIGURE], key="drift")
figure_downloads(section.figures[drift.FIGURE], "cosine-drift", key="drift")
compared = section.tables["comparison"]
st.dataframe(
    compared,
    hide_index=True,
    key="compare",
    column_config=headed(
        compared,
        {c: percent for c in ("acc_epoch0", "acc_final", "right_rank_epoch0", "right_rank_final")},
    ),
)
if drift.TRADEOFF in section.figures:  # negation gain against retrieval without negation
    st.plotly_chart(section.figures[drift.TRADEOFF], key="tradeoff")
    figure_downloads(section.figures[drift.TRADEOFF], "negation-vs-retrieval", key="tradeoff")
e1, e2, _ = st.columns([1, 1, 3])
with e1:
    csv_download(epochs, "drift-epochs.csv", "Epochs (CSV)")
with e2:
    csv_download(cosines, "drift-pair-cosines.csv", "Pair cosines (CSV)")

st.subheader("One pair across epochs")
card_label = (
    picked["label"].iloc[0]
    if len(picked) == 1
    else st.selectbox("Run", picked["label"].tolist(), key="card_run", bind="query-params")
)
card_run = picked.set_index("label").loc[card_label]
w = wide.get(card_label)
if w is None or w.empty:
    st.info("This run has no per-pair measurements yet.")
    st.stop()
order = views.pair_order(w)
p1, p2 = st.columns([2, 3])
sentences = "margin1" not in w.columns  # no verdicts: a sentence and its negation, a triplet
noun, cos_name = views.held_out_item(card_run["dataset_spec"])
pair = p1.selectbox(
    f"Held-out {noun} (by cosine drop)"
    if sentences
    else f"Held-out {noun} (wrong before and right after first, then by cosine drop)",
    order,
    key="pair",
    bind="query-params",
)
lo, hi = int(w["epoch"].min()), int(w["epoch"].max())
url_check.number("epoch", lo, hi, integer=True)
epoch = p2.slider("Epoch", lo, hi, key="epoch", bind="query-params") if hi > lo else lo
card = views.pair_card(w, pair, epoch)
m1, m2 = st.columns(2)
if not sentences:
    m1.metric(
        "Verdict at this epoch",
        "right" if card["correct"] else "wrong",
        f"epoch 0: {'right' if card['correct_epoch0'] else 'wrong'}",
        delta_color="off",
    )
m2.metric(
    cos_name,
    f"{card['cos']:.4f}",
    f"{card['cos'] - card['cos_epoch0']:+.4f} since epoch 0",
    delta_color="off",
)
if card["table"] is not None:
    st.dataframe(card["table"], hide_index=True, key="card")
item = training_pair(card_run["dataset_spec"], pair)
if item is None:
    st.caption("The pair's texts are not available (its dataset file is not on this machine).")
else:  # NevIR pairs, ExcluIR triplets or CANNOT sentences: drawn as the inspector draws them
    st.html(paircard.card_html(item.kind, item.as_row()))
traj = cd.pair_trajectory(card["trajectory"], epoch, f"Held-out {noun} {pair}", notes[card_label])
st.plotly_chart(traj, key="traj")
figure_downloads(traj, f"pair-{pair}", key="traj")
ckpt = (card_run["summary"] or {}).get("checkpoint")
# checkpoints stay on the machine that trained (a shipped run has none)
if ckpt and Path(ckpt).is_dir():
    st.markdown(
        f"Final checkpoint `{ckpt}` · [MaxSim before/after for this pair]"
        f"({links.maxsim('nevir', str(pair), src='dataset', after=ckpt)})"
    )
