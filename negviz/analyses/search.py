"""The Search page's pure parts: the exclusion-removed query, result tables, overlap.

Exclusion removal (``drop_exclusion``), one documented rule:
- the query's first exclusion cue of the taxonomy's ``exclusion_exceptor`` type ("excluding",
  "other than", "apart from", "besides", "instead of", "without including", ...) is replaced by
  "including" (keeping a leading capital): "films other than Jaws" -> "films including Jaws".
  The excluded thing stays in the query, now wanted: the two result lists should differ;
- otherwise the first negation a rule can undo, by ``counterfactual.remove_negation``
  ("films not directed by X" -> "films directed by X");
- no cue: the query is returned unchanged (the page says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from negviz.language.taxonomy.cues import find_cues
from negviz.language.text.counterfactual import remove_negation
from negviz.language.text.worddiff import Span, diff_words, render_html


def search_families() -> tuple[str, ...]:
    """The model families the Search page offers: every registered family but the generative
    rerankers, which take seconds per document (negviz.scorers.FAMILIES knows each one's architecture)."""
    from negviz.scorers import FAMILIES

    return tuple(
        e.name
        for e in FAMILIES.entries()
        if e.meta.get("architecture") != "generative" and not e.meta.get("scores_only")
    )


EXCEPTOR = "exclusion_exceptor"
INCLUSIVE = "including"
POSITIVE, EXCLUDED = "positive (d+)", "excluded (d−)"
# The page's default typed query: ExcluIR's excluir_2538, whose documents are in the offline
# corpus (d+ "Selena Gomez" ranks first under BM25, the excluded d− "Spring Breakers" in the
# top 10 too: tests/analyses/test_search.py).
DEFAULT_QUERY = "What other movies has Selena Gomez been in besides Spring Breakers?"


@dataclass(frozen=True)
class Removal:
    original: str
    edited: str
    rule: str  # what was done, for the page; "" when nothing could be removed


def drop_exclusion(query: str) -> Removal:
    for cue in find_cues(query):
        if cue.type == EXCEPTOR:
            word = INCLUSIVE.capitalize() if cue.text[:1].isupper() else INCLUSIVE
            edited = query[: cue.start] + word + query[cue.end :]
            return Removal(query, edited, f"exceptor “{cue.text}” → “{word}”")
    edit = remove_negation(query)
    if edit is not None:
        return Removal(query, edit.edited, edit.rule)
    return Removal(query, query, "")


def cue_html(text: str, changed: Sequence[Span] = ()) -> str:
    """Escaped HTML of a text with negation/exclusion cues underlined and changes highlighted."""
    cues = [Span(c.start, c.end) for c in find_cues(text)]
    return render_html(text, list(changed), cues)


def query_pair_html(removal: Removal) -> tuple[str, str]:
    left, right = diff_words(removal.original, removal.edited)
    return cue_html(removal.original, left), cue_html(removal.edited, right)


def results_table(
    ids: Sequence[str],
    texts: Sequence[str],
    titles: Sequence[str],
    scores: Sequence[float],
    pos_id: str | None = None,
    neg_id: str | None = None,
) -> pd.DataFrame:
    """One row per retrieved document: rank, doc_id, score, role (d+/d−/""), title, text."""
    roles = [POSITIVE if d == pos_id else EXCLUDED if d == neg_id else "" for d in ids]
    return pd.DataFrame({"rank": range(1, len(ids) + 1), "doc_id": list(ids), "score": list(map(float, scores)),
                         "role": roles, "title": list(titles), "text": list(texts)})  # fmt: skip


def overlap(a: Sequence[str], b: Sequence[str]) -> dict:
    """How much two result lists share: count, share of the first list, Jaccard, shared ids."""
    sa, sb = set(a), set(b)
    shared = [d for d in a if d in sb]
    union = len(sa | sb)
    return {"shared": len(shared), "of": len(a), "share": len(shared) / len(a) if a else 0.0,
            "jaccard": len(sa & sb) / union if union else 0.0, "ids": shared}  # fmt: skip


def role_rank(table: pd.DataFrame, role: str) -> int:
    """1-based rank of the document with ``role`` in a results table, 0 when absent."""
    hit = table.index[table["role"] == role]
    return int(table.loc[hit[0], "rank"]) if len(hit) else 0


def comparison_doc(table: pd.DataFrame, row: int, neg_text: str | None, pos_text: str | None) -> str:
    """The document a result is drawn against: the excluded one, or d+ when the result is d−,
    or (no gold) the top result, or the second when the result is the top one."""
    text = table["text"].iat[row]
    if neg_text is not None and pos_text is not None:
        return pos_text if text == neg_text else neg_text
    return table["text"].iat[1 if row == 0 and len(table) > 1 else 0]
