"""One model's MaxSim view on the explorer page: the matrices, the per-token deltas and the
verdicts, for the edited input and (when a counterfactual is applied) the original pinned beside."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from negviz.analyses import alignment
from negviz.analyses import playground as pg
from negviz.charts.alignment import alignment_heatmaps, delta_bars
from negviz.ui import chart_items, counterfactual_editor, resources
from negviz.ui.widgets import figure_downloads, safe_md, show_error


@dataclass(frozen=True)
class Inputs:
    """What the explorer draws: the queries and documents, the query shown, and the counterfactual
    edit (``edited_*`` are the texts with it applied; without an edit, the texts themselves)."""

    queries: list[str]
    docs: list[str]
    edited_queries: list[str]
    edited_docs: list[str]
    shown: int  # index of the query drawn
    slots: list[str]  # the queries' names (q1, q2)
    doc_names: list[str]
    gold: str | None = None  # the dataset's gold cue, marked in the matrices
    marks: dict = field(default_factory=dict)  # slot -> the edited span, marked
    edit: object = None  # negviz.language.text.counterfactual's edit, or None


@dataclass(frozen=True)
class Display:
    """How the matrices are drawn: the similarity (or the model's default), word pieces merged,
    the token groups hidden (mask_aug, punct, special)."""

    sim: str = "default"
    merge: bool = False
    hide: tuple[str, ...] = ()


# The "After" checkpoint (a folder path, a hub id or a model spec), checked before any file is
# looked up under its name: a name the file system cannot hold is said as such, not as an OSError.
CHECKPOINT_MAX_CHARS = 1024  # a folder path several levels deep, with a spec's options
NAME_MAX_BYTES = 255  # one folder or file name (Linux, macOS and Windows alike)


def checkpoint_problem(text: str) -> str | None:
    """What makes ``text`` impossible as a checkpoint's path or spec, in one line; None if nothing."""
    text = text.strip()
    if len(text) > CHECKPOINT_MAX_CHARS:
        return (
            f"The checkpoint is {len(text):,} characters long; a path or model spec has at most "
            f"{CHECKPOINT_MAX_CHARS:,}. Give the fine-tuned checkpoint's folder (e.g. "
            "~/.cache/negviz/checkpoints/RUN_ID/final) or a hub id."
        )
    if any(ord(c) < 32 for c in text):
        return "The checkpoint holds a control character (a line break?); give one folder path or hub id."
    longest = max((len(part.encode()) for part in text.replace("\\", "/").split("/")), default=0)
    if longest > NAME_MAX_BYTES:
        return (
            f"The checkpoint has a folder or file name of {longest:,} bytes; a name has at most "
            f"{NAME_MAX_BYTES}. Give the fine-tuned checkpoint's folder or a hub id."
        )
    return None


def draw(spec: str, caption: str, key: str, inputs: Inputs, display: Display) -> None:
    i, d = inputs, display
    texts = len(i.edited_queries) + len(i.edited_docs)
    try:
        # a first load or a model switch takes seconds: say what runs, with its clock, not a greyed page
        with st.spinner(f"{spec}: loading the model (once) and encoding {texts} texts…", show_time=True):
            scorer = resources.scorer(spec)
            cold = not scorer.loaded
            start = time.perf_counter()
            sim = None if d.sim == "default" else d.sim
            ex = alignment.explore(
                scorer, i.edited_queries, i.edited_docs, i.shown, sim, d.merge, list(d.hide), i.gold, i.marks
            )
            base = alignment.explore(scorer, i.queries, i.docs, i.shown, ex.similarity) if i.edit else None
            ms = (time.perf_counter() - start) * 1000
    except Exception as exc:  # unavailable checkpoint, wrong family: a clear message, the page keeps running
        show_error(exc)
        return
    st.subheader(safe_md(caption))
    views = ex.views
    if any(v.doc_truncated or v.query_truncated for v in views):
        st.warning(
            f"Long input: truncated at the model's max length ({alignment.max_tokens(scorer, 'document')} "
            "document tokens); the rest is neither drawn nor scored."
        )
    names = [f"{i.slots[i.shown]} vs {n}" for n in i.doc_names]
    fig = alignment_heatmaps(views, names, f"{scorer.name} · {ex.similarity}")
    st.plotly_chart(fig, key=f"heat-{key}")
    figure_downloads(fig, f"maxsim-{key}", key=f"heat-{key}")
    bars = delta_bars(ex.deltas, labels=i.doc_names)
    st.plotly_chart(bars, key=f"delta-{key}")
    figure_downloads(bars, f"maxsim-delta-{key}", key=f"delta-{key}")
    chart_items.mark_answer(counterfactual_editor.ANSWER)  # an edit's verdicts, below its charts
    # across the page, one under the other, the verdict first: half of a 1,000 px page cut it off
    st.markdown("**Verdict" + (" (edited)**" if i.edit else "**"))
    _verdicts(pg.grid_verdict_table(ex.grid, i.slots, i.doc_names), f"verdict-{key}")
    if base is not None:
        st.markdown("**Original (pinned)**")
        _verdicts(pg.grid_verdict_table(base.grid, i.slots, i.doc_names), f"pinned-{key}")
    st.caption(
        f"{len(i.edited_queries) + 2} texts encoded and {2 * len(i.edited_queries)} matrices built in {ms:,.0f} ms on "
        f"{scorer.device}" + (" (including loading the model)." if cold else ".")
    )


def _verdicts(table, key: str) -> None:
    """A verdict table with what it decides left of the scores and the (long) query text last."""
    first = [c for c in ("verdict", "pair", "ranked first") if c in table]
    order = first + [c for c in table if c not in first and c != "query"] + ["query"]
    st.dataframe(table, hide_index=True, key=key, column_order=order)
