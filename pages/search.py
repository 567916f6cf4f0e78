"""Search: the top 10 of a corpus for a query and for the same query with its exclusion removed.

Where the two lists overlap, the model did not act on the exclusion. The URL holds the view."""

import streamlit as st
from negviz.analyses import playground as pg
from negviz.analyses import search as sa
from negviz.evaluation.retrieval.corpus import doc_label
from negviz.language.text.worddiff import STYLE, text_block
from negviz.ui import outage, resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import links, url_check
from negviz.ui.search import corpus_index
from negviz.ui.widgets import safe_md, show_error

K = 10
if not url_check.routed() and (away := resources.outage()) is not None:
    # The router says it above every page; run on its own, this page says it (it reads no run:
    # search works on while the database is away).
    outage.away(away)
st.title("Search")
st.caption(
    "Retrieve the top 10 of a corpus. Negation and exclusion cues are underlined; on the "
    "right the same query with its exclusion removed. Shared results: the exclusion was "
    "ignored."
)

models = pg.model_table(resources.catalog(), sa.search_families())
names = models.query("available")["name"].tolist() or models["name"].tolist()
names = sorted(names, key=lambda n: n != "bm25")  # default: an index built in seconds
c1, c2, c3 = st.columns([2, 1, 2])
model = c1.selectbox(
    "Model",
    names,
    key="model",
    bind="query-params",
    help="Bi-encoders search exactly (MiniLM and bge-small with compressed corpus vectors: "
    "they pick 100 or 200 candidates, re-scored exactly); BM25/TF-IDF through an index; late "
    "interaction and cross-encoders re-rank BM25's top 10.",
)
corpus_name = c2.selectbox(
    "Corpus",
    ["offline"],
    key="corpus",
    bind="query-params",
    help="offline: ExcluIR sample documents + NevIR, CANNOT and DEMETR distractors.",
)
queries = dataset_view("excluir").dataset.frame.set_index("query_id")
qid = c3.selectbox(
    "ExcluIR query (or type one below)",
    [""] + queries.index.tolist(),
    key="qid",
    bind="query-params",
)
typed = url_check.text_input(st, "Query", sa.DEFAULT_QUERY, "q", max_chars=1000)
pos_id = neg_id = pos_text = neg_text = None
if qid:
    row = queries.loc[qid]
    query = row["query"]
    pos_id, neg_id = str(row["pos_corpus_index"]), str(row["neg_corpus_index"])
    pos_text, neg_text = row["pos_doc"], row["neg_doc"]
else:
    query = typed.strip()
if not query:
    st.info("Type a query, or pick an ExcluIR query.")
    st.stop()

removal = sa.drop_exclusion(query)
try:
    # a first search loads the corpus and the model (seconds each): said, with a clock
    with st.spinner(f"Loading the {corpus_name} corpus…", show_time=True):
        corpus = corpus_index.corpus(corpus_name)
    label = f"Index of {corpus.size:,} documents for {model}"
    retriever = corpus_index.index(model, corpus_name, label)
    with st.spinner(f"Searching {corpus.size:,} documents with {safe_md(model)}…", show_time=True):
        rows, scores = retriever.search([removal.original, removal.edited], K)
except Exception as exc:  # model not available offline, corpus missing: a message, the page runs on
    show_error(exc)
    st.stop()


def table(n):
    f = corpus.frame.iloc[rows[n]]
    return sa.results_table(
        f["doc_id"].tolist(), f["text"].tolist(), f["title"].tolist(), scores[n], pos_id, neg_id
    )


tables = [table(0), table(1)]
ov = sa.overlap(tables[0]["doc_id"].tolist(), tables[1]["doc_id"].tolist())
m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "Shared results (of 10)",
    ov["shared"],
    help="Between the two lists; 10 = the exclusion was ignored.",
)
m2.metric("Jaccard overlap", f"{ov['jaccard']:.2f}")
if qid:
    m3.metric("Rank of d+", sa.role_rank(tables[0], sa.POSITIVE) or "> 10")
    m4.metric("Rank of d− (excluded)", sa.role_rank(tables[0], sa.EXCLUDED) or "> 10")
st.caption(
    f"{corpus.size:,} documents (hash {corpus.hash}) · {retriever.method} · "
    f"exclusion removed by rule: {removal.rule or 'no cue found; the query is unchanged'}"
)

st.markdown(STYLE, unsafe_allow_html=True)
left_q, right_q = sa.query_pair_html(removal)
heads = [("Query", left_q), ("Exclusion removed", right_q)]
for col, (head, qhtml), tab, n in zip(st.columns(2), heads, tables, (0, 1)):
    with col:
        st.markdown(text_block(head + ":", qhtml), unsafe_allow_html=True)
        for i in range(len(tab)):
            r = tab.iloc[i]
            shared = "↔ in both lists" if r["doc_id"] in ov["ids"] else ""
            mark = f" **{r['role']}**" if r["role"] else ""
            other = sa.comparison_doc(tab, i, neg_text, pos_text)
            link = links.maxsim_typed(
                query, r["text"], other, removal.edited if removal.rule else ""
            )
            doc = safe_md(doc_label(r["doc_id"], r["title"]))  # "NevIR pair 1230-2, document d1"
            st.markdown(
                f"`{r['rank']}` score `{r['score']:.4f}` · {doc}{mark} {shared} · [MaxSim]({link})"
            )
            body = sa.cue_html(r["text"][:600] + ("…" if len(r["text"]) > 600 else ""))
            st.markdown(
                f'<div class="nv-text" data-testid="search-hit-{n}">{body}</div>',
                unsafe_allow_html=True,
            )
