"""The pair inspector's sidebar filters, and the list of pairs they pick.

``sidebar`` draws the "Filters" expander (each widget bound to its URL key, so a shared link
opens the same list) and returns the negviz.analyses.inspector.Filters picked with the queue's
settings; ``listed_ids`` turns them into the ordered ids the inspector browses.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from negviz.analyses import inspector as F
from negviz.analyses import lexical as X
from negviz.datasets import Dataset
from negviz.language.taxonomy import TAXONOMY
from negviz.results import annotations as ann
from negviz.ui import lexical_data
from negviz.ui.navigation import url_check


@dataclass(frozen=True)
class Queue:
    """Queue mode: the annotator's unlabelled pairs of a seeded random sample of the list."""

    size: int | None  # None: the whole list
    seed: int


def sidebar(ds: Dataset, items: pd.DataFrame, verdicts: pd.DataFrame) -> tuple[F.Filters, Queue | None]:
    """Draw the sidebar's "Filters" expander over ``items`` (the inspector's item table) and
    ``verdicts`` (every shown run's); return the Filters picked and, in queue mode, the Queue."""
    with st.sidebar.expander("Filters", expanded=True):
        ntype = url_check.titled_choice(  # titles on screen, ids in the URL
            st,
            "Negation type",
            F.options(items, "negation_type"),
            "type",
            TAXONOMY.label,
            index=None,
            placeholder="any",
            help="Gold cue type (NevIR) or detected cue type.",
        )
        cue = st.selectbox(
            "Cue word",
            F.options(items, "cue"),
            index=None,
            key="cue",
            bind="query-params",
            placeholder="any",
        )
        edit = (
            st.selectbox(
                "Edit type",
                ["2", "3"],
                index=None,
                key="edit",
                bind="query-params",
                placeholder="any",
                help="CondaQA edit: 2 = scope of the negation changed, 3 = negation undone.",
            )
            if "edit_type" in ds.frame
            else None
        )
        model = st.selectbox(
            "Model (for verdict, margin and sort)",
            sorted(set(verdicts["model"])),
            index=0 if len(verdicts) else None,
            key="model",
            bind="query-params",
        )
        verdict = st.selectbox(
            "Verdict / error category", F.verdict_options(ds.kind), key="verdict", bind="query-params"
        )
        low, high = st.columns(2)
        margin_min = url_check.number_input(low, "Margin ≥", "margin_min", value=None, format="%.4f")
        margin_max = url_check.number_input(
            high,
            "Margin ≤",
            "margin_max",
            value=None,
            format="%.4f",
            help="Pairs: min of the two query margins (< 0 = failed); else pos - neg.",
        )
        lean = st.selectbox(
            "BM25 leans",
            list(X.LEANS),
            index=None,
            key="lean",
            bind="query-params",
            placeholder="any",
            disabled=not ds.kind.has_verdicts,
            help="The lexical confound: which document BM25 prefers for the query "
            "(pairs: 'wrong' if it does for either query).",
        )
        annotated = st.selectbox("Annotated", F.ANNOTATED, key="annotated", bind="query-params")
        sort = st.selectbox("Sort by", F.SORTS, key="sort", bind="query-params")
        queue = None
        if st.toggle("Queue: my unlabelled pairs", key="queue", bind="query-params"):
            size = url_check.number_input(
                st,
                "Random sample of",
                "sample",
                1,
                value=None,
                step=10,
                help="The same pairs for every annotator with this size and seed.",
            )
            seed = url_check.number_input(st, "Seed", "seed", 0, value=0, step=1)
            queue = Queue(size, int(seed))
    filters = F.Filters(
        ntype,
        cue,
        int(edit) if edit else None,
        model,
        verdict,
        margin_min,
        margin_max,
        F.ANY if queue else annotated,  # the queue picks by the annotator's own labels
        sort,
        lean if ds.kind.has_verdicts else None,  # a stale URL value of a disabled box
    )
    return filters, queue


def listed_ids(
    dataset: str,
    items: pd.DataFrame,
    verdicts: pd.DataFrame,
    filters: F.Filters,
    queue: Queue | None,
    annotator: str,
) -> tuple[list[str], pd.DataFrame]:
    """The ids of ``dataset``'s items that pass ``filters``, in order (in queue mode: those of the
    sample that ``annotator`` has not labelled, with a warning when no annotator is named), and
    the item table, with BM25's lean of each item when the filters pick by it."""
    if filters.lexical_lean:  # BM25's lean per item, for the filter
        lean = X.item_lean(lexical_data.margins(dataset)[0])
        items = items.merge(lean, on="item_id", how="left")
    ids = F.filter_items(items, verdicts, filters)
    if queue:  # the sample ignores who labelled what, so every annotator draws the same pairs
        sample = ann.sample_ids(ids, queue.size, queue.seed)
        ids = ann.queue(sample, set(items.loc[items["mine"], "item_id"]))
        if not annotator:
            st.warning("Queue mode serves the pairs *you* have not labelled: enter your annotator name in the sidebar.")
    return ids, items
