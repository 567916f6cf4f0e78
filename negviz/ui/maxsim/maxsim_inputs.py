"""The MaxSim explorer's input: the texts it draws, from the sidebar's dataset (a NevIR pair or an
ExcluIR query picked by its id) or typed (a query, its optional negated twin and two documents).

Every widget here is bound to the URL (pair, tq, tq2, td1, td2), so a shared link shows the same
texts."""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from negviz.analyses import playground as pg
from negviz.analyses.paircard import md_escape
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.navigation import links
from negviz.ui.navigation.page_guard import dataset_kind_problem

TYPED = {
    "tq": pg.SAMPLE["q1"],
    "tq2": pg.SAMPLE["q2"],
    "td1": pg.SAMPLE["d1"],
    "td2": pg.SAMPLE["d2"],
}
TYPED_LABELS = {
    "tq": "Query",
    "tq2": "Negated query (optional)",
    "td1": "Document 1",
    "td2": "Document 2",
}
LIMIT = pg.TEXT_LIMIT  # the model truncates further (noted on the page)


@dataclass(frozen=True)
class Texts:
    """What the explorer draws: its queries and documents, the documents' names and the dataset's
    gold cue (None for typed text and ExcluIR queries)."""

    queries: list[str]
    docs: list[str]
    doc_names: list[str] = field(default_factory=lambda: ["d1", "d2"])
    gold: str | None = None


def pick_texts(dataset: str, src: str) -> Texts | None:
    """The texts of the picked item when ``src`` is "dataset" and ``dataset`` holds NevIR pairs or
    ExcluIR queries; typed texts otherwise (saying why when the dataset was asked for). None while
    a typed query or document is empty."""
    if src == "dataset" and dataset_view(dataset).kind.texts_of is not None:  # its items hold texts to pick
        return dataset_texts(dataset)
    if src == "dataset":
        problem = dataset_kind_problem("maxsim", dataset)
        st.info(f"{problem} Pick one of those in the sidebar, or type below.")
    return typed_texts()


def dataset_texts(dataset: str) -> Texts:
    """A picker of the dataset's pairs (or queries) by id, its texts returned; a NevIR pair's
    first query, gold cue and inspector link are said under it."""
    view = dataset_view(dataset)
    kind, frame = view.kind, view.dataset.frame
    ids = frame[kind.id_column].tolist()
    sample_name, sample_id = pg.SAMPLE_PAIR
    start = ids.index(sample_id) if dataset == sample_name and sample_id in ids else 0
    item = st.selectbox(
        kind.item_noun.capitalize(),
        ids,
        index=start,
        key="pair",
        bind="query-params",
        help="NevIR opens on 1283-3: MiniLM is fooled by 'not' on q2, NegMiniLM is not.",
    )
    row = view.dataset.item(item).as_row()  # these kinds' ids are their items' ids
    found = kind.texts_of(row)  # the kind says which columns are the queries and documents
    texts = Texts(found.queries, found.docs, found.doc_names, found.gold)
    if len(found.queries) == 1:  # the picked id is the query's own (ExcluIR): nothing to add
        return texts
    about = (
        f"Gold cue **{md_escape(row['cue'])}** · edit type {md_escape(row.get('edit_type'))} · " if "cue" in row else ""
    )
    # The picker holds ids (its value is the URL's pair=); the pair's query says which it is.
    inspector = links.inspector(dataset, item)
    st.caption(f"q1: {md_escape(found.queries[0])} · {about}[open in the pair inspector]({inspector})")
    return texts


def typed_texts() -> Texts | None:
    """Four text areas (query, negated query, two documents), each cut to ``LIMIT`` characters;
    the negated query may stay empty. None, with a note, while the query or a document is."""
    cols = st.columns(2)
    typed = {
        k: cols[i % 2].text_area(
            TYPED_LABELS[k],
            TYPED[k],
            key=k,
            bind="query-params",
            height=90,
            placeholder={"tq": "a query", "tq2": "its negated twin"}.get(k, "a document"),
        )
        for i, k in enumerate(TYPED)
    }
    clipped = {k: pg.clip(v, LIMIT) for k, v in typed.items()}
    if any(c for _, c in clipped.values()):
        st.warning(f"Texts longer than {LIMIT:,} characters were cut to that length.")
    queries = [t for k in ("tq", "tq2") if (t := clipped[k][0].strip())]
    docs = [clipped["td1"][0], clipped["td2"][0]]
    if not queries or not all(d.strip() for d in docs):
        st.info("Type a query and two documents.")
        return None
    return Texts(queries, docs)
