"""The pieces of one item's card in the inspector: its texts as escaped HTML with the diff and
the cue marked, each model's score matrix and verdict, and the links to other views.

Which texts a kind shows, and which two are diffed, is the kind's (negviz.core.kinds: text_groups,
diffed), so every dataset kind gets a card: NevIR q1/q2 and d1/d2, DEMETR candidate/perturbed,
CANNOT sentence1/sentence2; ExcluIR's documents are different passages, so only cues are marked.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from negviz.core import kinds
from negviz.core.kinds import QUERY_KINDS, DatasetKind
from negviz.language.text.worddiff import STYLE, Span, cue_spans, diff_words, render_html, text_block

CueFinder = Callable[[str], list[Span]]


def taxonomy_cues(text: str) -> list[Span]:
    """Cue spans found by the taxonomy lexicons (for items without a gold cue)."""
    from negviz.language.taxonomy import find_cues

    return [Span(c.start, c.end) for c in find_cues(text)]


def cue_finder(row: Mapping) -> CueFinder:
    """The gold cue when the item has one (NevIR), else the taxonomy's detected cues."""
    gold = row.get("cue")
    if isinstance(gold, str) and gold.strip():
        return lambda text: cue_spans(text, gold)
    return taxonomy_cues


def card_html(kind: DatasetKind, row: Mapping, cues: CueFinder | None = None) -> str:
    """All texts of one item as HTML, each changed stretch highlighted and each cue underlined.

    Every piece of text is html.escape'd (render_html); only our own tags remain."""
    cues = cues or cue_finder(row)
    blocks = [STYLE]
    for group in kind.card_groups:
        texts = [str(row[c]) for c in group]
        if len(group) == 2 and kind.diffed:
            changed = diff_words(*texts)
        else:
            changed = tuple([] for _ in group)
        for column, text, spans in zip(group, texts, changed):
            blocks.append(text_block(kind.column_title(column, row), render_html(text, spans, cues(text))))
    legend = (
        '<p class="nv-text" style="opacity:.7;font-size:.85em">'
        '<span class="nv-diff">changed words</span> · <span class="nv-cue">negation cue</span></p>'
    )
    return "".join(blocks) + legend


# ---------------------------------------------------------------- scores
def score_matrix(kind: DatasetKind, scores: Mapping[str, float]) -> pd.DataFrame:
    """s(query, document) as a matrix: rows are the query-side texts, columns the documents
    (NevIR: the 2x2 matrix s(q_i, d_j)); ``scores`` maps slot -> score."""
    rows: dict[str, dict[str, float]] = {}
    for slot, (qcol, dcol) in kind.slots.items():
        doc = f'"{dcol[1:]}" (empty)' if dcol.startswith("=") else dcol
        rows.setdefault(qcol, {})[doc] = scores.get(slot, float("nan"))
    return pd.DataFrame(rows).T


def extra_fields(kind: DatasetKind, row: Mapping) -> pd.DataFrame:
    """The item's other columns (a dataset's own metadata: label, source, free columns), as text,
    for the inspector; the texts and the id are on the card already."""
    from negviz.core.metric_text import heading

    skip = set(kind.text_columns) | {kind.id_column}
    items = [
        (heading(str(k)), _as_words(v)) for k, v in row.items() if k not in skip and v is not None and str(v) != "nan"
    ]
    return pd.DataFrame(items, columns=["field", "value"])


def _as_words(value) -> str:
    """A field's value as a person reads it: 'yes' / 'no' for a flag (not 'True'), else its text."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return str(value)


MAX_CARDS = 6  # more models than this: one table of scores instead of a score matrix per model


def verdict_rows(kind: DatasetKind, verdicts: pd.DataFrame, item_id: str, with_scores: bool = False) -> pd.DataFrame:
    """Per model, the verdict of one item (from inspector.verdict_table), its category in short
    words (kinds.CATEGORY_SHORT: the table fits a 1,000 px page);
    the scores themselves are in score_matrix, or here as one column per slot when
    ``with_scores``, headed by what it scores: "s(q1, d1)", not the slot's key."""
    part = verdicts[verdicts["item_id"] == item_id]
    cols = [c for c in (*kind.verdict_table_columns, *(kind.slots if with_scores else ())) if c in part]
    rows = part[cols].reset_index(drop=True)
    if "category" in rows:
        rows["category"] = [kinds.category_words(c, short=True) if isinstance(c, str) else c for c in rows["category"]]
    return rows.rename(columns={**{s: slot_heading(kind, s) for s in kind.slots if s in rows}, **margin_headings(kind)})


def margin_headings(kind: DatasetKind) -> dict[str, str]:
    """Each query's margin in words, "margin (q1)" (its own document's score minus the other's:
    kinds.margin_labels), short enough for a 1,000 px page, not the outcome key margin1."""
    queries = kind.text_groups[0] if kind.text_groups else ()  # pairs: ("q1", "q2")
    return {m: f"margin ({q})" for m, q in zip(("margin1", "margin2"), queries)}


def slot_heading(kind: DatasetKind, slot: str) -> str:
    """A score column's heading: the texts the slot scores, e.g. "s(q1, d1)" or "s(query, pos doc)"."""
    query, doc = kind.slots[slot]
    doc = f'"{doc[1:]}" (empty)' if doc.startswith("=") else doc
    return f"s({query}, {doc})".replace("_", " ")


def md_escape(text: object) -> str:
    """Text shown inside Streamlit markdown (a caption, a label) as itself: no emphasis,
    links or autolinks from a model name, an id in the URL or a cue's evidence.

    Backslash escapes stop markup but not GFM's bare-URL and e-mail links (found in the
    unescaped text), so an invisible word joiner (U+2060) goes into "://", "www." and "@"."""
    text = str(text).replace("://", ":\u2060//").replace("@", "@\u2060")
    text = re.sub(r"(?i)\b(www)\.", "\\1\u2060.", text)
    return re.sub(r"([\\`*_\[\]{}()#+\-.!|<>~$:])", r"\\\1", text)


def model_cards(kind: DatasetKind, verdicts: pd.DataFrame, item_id: str) -> list[tuple[str, str, pd.DataFrame]]:
    """Per model (by name): a markdown title with its verdict and margin, and its score matrix."""
    cards = []
    for name, part in verdicts[verdicts["item_id"] == item_id].groupby("model", sort=True):
        one = part.iloc[0].to_dict()
        margin = "" if pd.isna(one["margin"]) else f" · margin {one['margin']:+.4f}"
        category = one["category"]
        verdict = kinds.category_words(category) if isinstance(category, str) and category else "no verdict"
        title = f"**{md_escape(name)}** · `{verdict}`{margin}"
        cards.append((name, title, score_matrix(kind, one)))
    return cards


MAXSIM_KINDS = QUERY_KINDS  # the names of the kinds the MaxSim explorer draws (its page's entry)
