"""Token alignments of late-interaction scorers: which query token matched which document token.

Builds on ``LateInteractionScorer.token_embeddings`` and ``pair_matrix`` (the very path that
``score()`` takes), and adds what a reader of the matrix needs:

- ``AlignmentView``: the matrix sim(Q_i, D_j) before the max, each row's chosen column, each
  row's contribution to S(q, d), token kinds as the model sees them ([CLS]/[SEP], the [Q]/[D]
  marker, [MASK] query augmentation, masked punctuation) and negation cues on both axes.
- word-piece merging. A merged row or column is a word (a first piece and its "##"
  continuations). The cell of query word I and document word J shows
  max over pieces i in I, j in J of sim(i, j), counting only pieces that take part in MaxSim
  when the word has any. A word row's *contribution* is the sum of its pieces' row maxima,
  so the contributions still add up to the MaxSim total; its best cell holds the largest
  piece maximum (max over J of the merged row = max over its pieces of their row maxima), and
  every piece's choice is marked, so one merged row may show several marks.
- hiding [MASK] rows or punctuation only changes what is drawn: hidden rows keep counting
  (their contribution is reported), and a column that a shown row chose is never hidden.
- ``row_deltas``: per query token, max_j sim(q_i, d1_j) - max_j sim(q_i, d2_j); they add up
  to S(q, d1) - S(q, d2). Tokens whose best match did not move are where the negation was ignored.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from negviz.scorers.late_interaction import TokenEmbeddings, TokenMatrix, pair_matrix

Span = tuple[int, int]  # character offsets, end exclusive
NO_TEXT_KINDS = ("special", "marker", "mask_aug")  # tokens with no characters in the text
HIDEABLE = ("mask_aug", "punct", "special")


# ---------------------------------------------------------------- scorer access
def is_late_interaction(scorer: Any) -> bool:
    return callable(getattr(scorer, "token_embeddings", None))


def similarities(scorer: Any) -> tuple[str, ...]:
    """Similarities a late-interaction scorer can draw: both, since they are computed from
    the same token vectors (the encoders do not depend on the similarity option)."""
    from negviz.scorers.late_interaction import SIMILARITIES

    return SIMILARITIES if is_late_interaction(scorer) else ()


def max_tokens(scorer: Any, role: str) -> int | None:
    """The model's max length in tokens for a role (for the 'truncated' note)."""
    opts = getattr(scorer, "options", {})
    return opts.get("query_maxlen" if role == "query" else "doc_maxlen") or opts.get("max_length")


def encode(
    scorer: Any, queries: Sequence[str], docs: Sequence[str]
) -> tuple[list[TokenEmbeddings], list[TokenEmbeddings]]:
    """Token embeddings of each query (query role) and document (document role), once each."""
    if not is_late_interaction(scorer):
        raise TypeError(f"{getattr(scorer, 'name', scorer)!r} is not a late-interaction model: it has no token vectors")
    return scorer.token_embeddings(list(queries), "query"), scorer.token_embeddings(list(docs), "document")


def token_matrix(scorer: Any, query: str, doc: str, similarity: str | None = None) -> TokenMatrix:
    """The TokenMatrix of (query, doc); ``similarity`` overrides the scorer's (cosine or l2)."""
    (q,), (d,) = encode(scorer, [query], [doc])
    return pair_matrix(q, d, similarity or scorer.similarity)


# ---------------------------------------------------------------- tokens <-> characters
def _fold(text: str) -> tuple[str, list[int]]:
    """Lower-cased, accent-stripped text (what uncased WordPiece sees) and, per folded
    character, its index in ``text``."""
    chars, index = [], []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFD", ch):
            if unicodedata.category(c) != "Mn":
                chars.append(c.lower())
                index.append(i)
    return "".join(chars), index


def token_spans(text: str, tokens: Sequence[str], kinds: Sequence[str]) -> list[Span | None]:
    """Character span of each token in ``text`` (None for special tokens, [MASK]s and pieces
    not found, e.g. [UNK]). Greedy left-to-right search, so repeated words map in order."""
    folded, index = _fold(text)
    out: list[Span | None] = []
    cursor = 0
    for tok, kind in zip(tokens, kinds):
        core = tok.removeprefix("##").lstrip("Ġ▁")
        if kind in NO_TEXT_KINDS or not core or tok == "[UNK]":
            out.append(None)
            continue
        pos = folded.find(_fold(core)[0], cursor)
        if pos < 0:
            out.append(None)
            continue
        end = pos + len(core)
        out.append((index[pos], index[end - 1] + 1))
        cursor = end
    return out


@dataclass(frozen=True)
class CueSpan:
    start: int
    end: int
    text: str
    type: str  # taxonomy type, "gold" for the dataset's cue, "edit" for a counterfactual change


def find_cue_spans(text: str, gold: str | None = None) -> list[CueSpan]:
    """Negation cues in ``text``: negviz.language.taxonomy's find_cues plus every whole-word match of
    the item's gold cue (NevIR pairs carry CondaQA's cue)."""
    spans = [CueSpan(c.start, c.end, c.text, c.type) for c in _taxonomy_cues(text)]
    if gold and gold.strip():
        pattern = r"(?<![\w'’])" + re.escape(gold.strip()) + r"(?![\w'’])"
        seen = {(s.start, s.end) for s in spans}
        spans += [
            CueSpan(m.start(), m.end(), m.group(), "gold")
            for m in re.finditer(pattern, text, re.IGNORECASE)
            if (m.start(), m.end()) not in seen
        ]
    return sorted(spans, key=lambda s: s.start)


def _taxonomy_cues(text: str) -> list:
    try:
        from negviz.language.taxonomy import find_cues
    except ImportError:
        try:
            from negviz.language.taxonomy.cues import find_cues
        except ImportError:  # the taxonomy module is not there yet: gold cues only
            return []
    return find_cues(text)


def flag_tokens(spans: Sequence[Span | None], marks: Iterable[Span]) -> np.ndarray:
    """Per token: does its character span overlap any of ``marks``?"""
    marks = list(marks)
    return np.array([s is not None and any(s[0] < e and b < s[1] for b, e in marks) for s in spans], dtype=bool)


# ---------------------------------------------------------------- merging
def word_groups(kinds: Sequence[str]) -> list[list[int]]:
    """Consecutive positions that form one word: a token and the "subword" pieces after it."""
    groups: list[list[int]] = []
    for i, kind in enumerate(kinds):
        if kind == "subword" and groups:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def merge_label(pieces: Sequence[str]) -> str:
    """The word a group of pieces spells ("ins", "##till" -> "instill")."""
    if len(pieces) == 1:
        return pieces[0]
    return pieces[0].lstrip("Ġ▁") + "".join(
        p.removeprefix("##").replace("Ġ", " ").replace("▁", " ") for p in pieces[1:]
    )


def _group_max(values: np.ndarray, groups: list[list[int]], part: np.ndarray, axis: int) -> np.ndarray:
    """Max over each group's positions along ``axis``, over positions that take part when the
    group has any (a masked piece of a word never speaks for it)."""
    out = []
    for g in groups:
        idx = [i for i in g if part[i]] or g
        out.append(np.take(values, idx, axis=axis).max(axis=axis))
    return np.stack(out, axis=axis)


# ---------------------------------------------------------------- the view a figure draws
@dataclass(eq=False)
class Axis:
    """One axis of a view: one entry per drawn row or column."""

    labels: list[str]  # the token, or the merged word
    pieces: list[list[str]]  # the model's tokens behind each entry
    positions: list[list[int]]  # their positions in the TokenMatrix
    kinds: list[str]  # kind of the first piece
    part: np.ndarray  # bool: takes part in MaxSim
    cue: np.ndarray  # bool: lies in a negation cue
    edit: np.ndarray  # bool: changed by a counterfactual edit


@dataclass(eq=False)
class AlignmentView:
    rows: Axis  # query tokens (or words)
    cols: Axis  # document tokens (or words)
    values: np.ndarray  # [R, C] similarity (merged: max over pieces)
    best: np.ndarray  # [R] column of the row's largest piece maximum; -1 for rows outside MaxSim
    marks: list[tuple[int, int]]  # every (row, col) that some piece chose
    contribution: np.ndarray  # [R] the row's share of the MaxSim total (merged: sum over pieces)
    score: float  # S(q, d), hidden rows included
    hidden_contribution: float  # the share of rows not drawn
    similarity: str
    merged: bool
    query_truncated: bool = False
    doc_truncated: bool = False
    notes: list[str] = field(default_factory=list)


def build_view(
    tm: TokenMatrix,
    query_text: str = "",
    doc_text: str = "",
    merge: bool = False,
    hide: Iterable[str] = (),
    query_marks: Iterable[CueSpan] = (),
    doc_marks: Iterable[CueSpan] = (),
) -> AlignmentView:
    """What a heatmap of ``tm`` shows; ``hide`` names token kinds to leave out (HIDEABLE)."""
    hide = set(hide)
    unknown = hide - set(HIDEABLE)
    if unknown:
        raise ValueError(f"cannot hide {sorted(unknown)}; hideable kinds: {', '.join(HIDEABLE)}")
    q, d = tm.query, tm.doc
    q_groups = word_groups(q.kinds) if merge else [[i] for i in range(len(q.tokens))]
    d_groups = word_groups(d.kinds) if merge else [[j] for j in range(len(d.tokens))]
    values = _group_max(_group_max(tm.sim, d_groups, d.mask, axis=1), q_groups, q.mask, axis=0)
    q_group_of = {i: g for g, members in enumerate(q_groups) for i in members}
    d_group_of = {j: g for g, members in enumerate(d_groups) for j in members}

    contribution = np.array([tm.row_max[g].sum() for g in q_groups], dtype=np.float64)
    best = np.full(len(q_groups), -1)
    for g, members in enumerate(q_groups):
        taking = [i for i in members if q.mask[i]]
        if taking:
            top = max(taking, key=lambda i: tm.row_max[i])
            best[g] = d_group_of[int(tm.argmax[top])]
    marks = sorted({(q_group_of[i], d_group_of[int(j)]) for i, j in enumerate(tm.argmax) if j >= 0})

    rows = _axis(q, q_groups, query_text, query_marks)
    cols = _axis(d, d_groups, doc_text, doc_marks)
    keep_r = [r for r in range(len(q_groups)) if rows.kinds[r] not in hide]
    chosen = {c for r, c in marks if r in set(keep_r)}
    keep_c = [c for c in range(len(d_groups)) if cols.kinds[c] not in hide or c in chosen]
    new_c = {c: k for k, c in enumerate(keep_c)}
    hidden = float(contribution.sum() - contribution[keep_r].sum())
    notes = []
    if merge:
        notes.append("word pieces merged: cell = max over pieces; row contribution = sum of its pieces' maxima")
    if any(rows.part[r] for r in range(len(q_groups)) if r not in set(keep_r)):
        notes.append("hidden query rows still count: their share is given beside S")
    return AlignmentView(
        rows=_subset(rows, keep_r),
        cols=_subset(cols, keep_c),
        values=values[np.ix_(keep_r, keep_c)],
        best=np.array([new_c.get(int(best[r]), -1) for r in keep_r], dtype=int),
        marks=[(keep_r.index(r), new_c[c]) for r, c in marks if r in keep_r and c in new_c],
        contribution=contribution[keep_r],
        score=float(tm.score),
        hidden_contribution=hidden,
        similarity=tm.similarity,
        merged=merge,
        query_truncated=q.truncated,
        doc_truncated=d.truncated,
        notes=notes,
    )


def _axis(emb: TokenEmbeddings, groups: list[list[int]], text: str, marks: Iterable[CueSpan]) -> Axis:
    marks = list(marks)
    spans = token_spans(text, emb.tokens, emb.kinds) if text else [None] * len(emb.tokens)
    cue = flag_tokens(spans, [(m.start, m.end) for m in marks if m.type != "edit"])
    edit = flag_tokens(spans, [(m.start, m.end) for m in marks if m.type == "edit"])
    pieces = [[emb.tokens[i] for i in g] for g in groups]
    return Axis(
        labels=[merge_label(p) for p in pieces],
        pieces=pieces,
        positions=groups,
        kinds=[emb.kinds[g[0]] for g in groups],
        part=np.array([bool(emb.mask[g].any()) for g in groups], dtype=bool),
        cue=np.array([bool(cue[g].any()) for g in groups], dtype=bool),
        edit=np.array([bool(edit[g].any()) for g in groups], dtype=bool),
    )


def _subset(axis: Axis, keep: list[int]) -> Axis:
    return Axis(
        [axis.labels[k] for k in keep],
        [axis.pieces[k] for k in keep],
        [axis.positions[k] for k in keep],
        [axis.kinds[k] for k in keep],
        axis.part[keep],
        axis.cue[keep],
        axis.edit[keep],
    )


def row_deltas(view1: AlignmentView, view2: AlignmentView) -> pd.DataFrame:
    """Per drawn query row: contribution against d1, against d2 and their difference, with the
    best-matching document token on each side. Both views must share the query rows."""
    if view1.rows.positions != view2.rows.positions:
        raise ValueError("the two views have different query rows; build them with the same query and options")
    best1 = [view1.cols.labels[c] if c >= 0 else "" for c in view1.best]
    best2 = [view2.cols.labels[c] if c >= 0 else "" for c in view2.best]
    return pd.DataFrame(
        {
            "token": view1.rows.labels,
            "kind": view1.rows.kinds,
            "cue": view1.rows.cue,
            "part": view1.rows.part,
            "max_d1": view1.contribution,
            "max_d2": view2.contribution,
            "delta": view1.contribution - view2.contribution,
            "best_d1": best1,
            "best_d2": best2,
        }
    )


# ---------------------------------------------------------------- everything the explorer draws
@dataclass(eq=False)
class Exploration:
    """One query against two documents, plus the score grid of every query for the verdicts."""

    queries: list[str]
    docs: list[str]
    shown: int  # which query the heatmaps draw
    views: tuple[AlignmentView, AlignmentView]
    deltas: pd.DataFrame
    grid: np.ndarray  # [n_queries, 2] MaxSim totals
    similarity: str


def explore(
    scorer: Any,
    queries: Sequence[str],
    docs: Sequence[str],
    shown: int = 0,
    similarity: str | None = None,
    merge: bool = False,
    hide: Iterable[str] = (),
    gold_cue: str | None = None,
    edits: dict[str, Span] | None = None,
) -> Exploration:
    """Encode each text once, build both views of ``queries[shown]`` against ``docs[0]`` and
    ``docs[1]``, the per-token deltas and the MaxSim grid of all queries x both documents.
    ``edits`` maps "q<k>" / "d1" / "d2" to a changed span (a counterfactual) to flag it."""
    if len(docs) != 2:
        raise ValueError(f"the explorer compares one query with two documents, not {len(docs)}")
    similarity = similarity or scorer.similarity
    edits = edits or {}
    q_emb, d_emb = encode(scorer, queries, docs)
    matrices = [[pair_matrix(q, d, similarity) for d in d_emb] for q in q_emb]
    grid = np.array([[m.score for m in row] for row in matrices])

    def marks(text: str, slot: str) -> list[CueSpan]:
        extra = [CueSpan(*edits[slot], "", "edit")] if slot in edits else []
        return find_cue_spans(text, gold_cue) + extra

    q_marks = marks(queries[shown], f"q{shown + 1}")
    views = tuple(
        build_view(matrices[shown][k], queries[shown], docs[k], merge, hide, q_marks, marks(docs[k], f"d{k + 1}"))
        for k in range(2)
    )
    return Exploration(list(queries), list(docs), shown, views, row_deltas(*views), grid, similarity)
