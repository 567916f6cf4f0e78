"""Token attributions for one item: how much each word of the query and of the two documents
contributes to the score difference the verdict rests on (its kind's ``margin_labels``).

    contrast = contrasts(ds.kind, row)[0]          # NevIR: s(q1,d1) - s(q1,d2)
    att = occlusion(scorer, contrast)              # any family: remove each word, re-score
    att = integrated_gradients(scorer, contrast)   # PyTorch encoders (negviz.scorers.introspect)
    att.tokens[["role", "token", "attribution", "is_cue"]]; att.cue_share

Attributions are in score units and explain the contrast's margin m = s(q, good) - s(q, bad):
a positive value pushes the model towards the document that should win.

- Occlusion (exact, model-agnostic): a word's attribution is m minus the margin with that word
  removed from its text. Every variant of the item is scored in one ``score`` call, without the
  disk cache (hundreds of one-off texts per item); a collection-dependent scorer (BM25) sees the
  item's texts and their variants as its collection.
- Integrated gradients: see ``negviz.scorers.introspect``; attributions sum to m minus the
  margin at the baseline, and the gap is reported.

The cue is the negation edit (CUE_RULE): the words the item's cue marks (the gold cue, else the
taxonomy's) that are among, or directly beside, the words that differ between the two documents
(and between the two queries of a NevIR pair); where none is, every changed word. "Beside" counts
a cue the word diff aligned as unchanged although the edit moved it ("did not enjoy it" ->
"enjoyed it but not"). Its share is sum |attribution| over cue words / sum |attribution| over all
words.
"""

from __future__ import annotations

import copy
import html
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from negviz.analyses.paircard import cue_finder
from negviz.core.kinds import DatasetKind
from negviz.core.progress import stoppable
from negviz.language.text.worddiff import CUE_CLASS, Span, diff_words, text_block, tokenize
from negviz.scorers.base import Progress, Scorer, no_progress

CUE_RULE = "marked cue words among or beside the changed words, else every changed word"

StopCheck = Callable[[], bool]  # should_stop(): True ends the work at its next progress report
ROLES = ("query", "good", "bad")
TOKEN_COLUMNS = ("role", "column", "position", "token", "start", "end", "attribution", "is_cue")
OCCLUSION = "occlusion"


# Which texts are diffed to find the edit: the query's twin (NevIR pairs only) and the documents.
def _twin(spec: DatasetKind, column: str) -> str | None:
    """The text ``column`` is diffed against on an item card (NevIR: q1's is q2), if any."""
    if not spec.diffed:
        return None
    return next((g[1 - g.index(column)] for g in spec.card_groups if len(g) == 2 and column in g), None)


@dataclass(frozen=True)
class Contrast:
    """One score difference of an item: s(query, good) - s(query, bad) (bad is None for a plain
    similarity such as CANNOT's)."""

    name: str  # outcomes' margin column: margin1, margin2
    label: str  # "s(q1,d1) - s(q1,d2)"
    columns: Mapping[str, str | None]  # role -> dataset column
    texts: Mapping[str, str | None]  # role -> text
    cue_spans: Mapping[str, tuple[Span, ...]] = field(default_factory=dict)  # role -> cue characters


@dataclass
class Attribution:
    method: str  # "occlusion", "integrated gradients (32 steps, baseline: ...)"
    contrast: Contrast
    margin: float  # m, the score difference explained
    tokens: pd.DataFrame  # TOKEN_COLUMNS, one row per word of each text
    forward_passes: int  # (query, document) pairs or texts the model scored
    completeness: dict = field(default_factory=dict)  # IG: baseline margin, sum, gap

    @property
    def cue_share(self) -> float:
        return cue_share(self.tokens)


def cue_share(tokens: pd.DataFrame) -> float:
    """Share of the absolute attribution that falls on cue words (NaN when nothing moved the score)."""
    total = float(tokens["attribution"].abs().sum())
    if total == 0:
        return float("nan")
    return float(tokens.loc[tokens["is_cue"], "attribution"].abs().sum()) / total


# ---------------------------------------------------------------- contrasts of an item
def contrasts(kind: DatasetKind, row: Mapping) -> list[Contrast]:
    """The item's score differences, in outcomes' margin order (NevIR: q1's, then q2's)."""
    out = []
    for name, (good_slot, bad_slot), label in zip(("margin1", "margin2"), kind.margin_slots, kind.margin_labels):
        query_col, good_col = kind.slots[good_slot]
        bad_col = kind.slots[bad_slot][1] if bad_slot else None
        columns = {"query": query_col, "good": good_col, "bad": bad_col}
        texts = {role: (str(row[col]) if col else None) for role, col in columns.items()}
        out.append(
            Contrast(name, label or f"s({query_col},{good_col})", columns, texts, _cue_spans(kind, row, columns, texts))
        )
    return out


def _cue_spans(
    kind: DatasetKind, row: Mapping, columns: Mapping[str, str | None], texts: Mapping[str, str | None]
) -> dict:
    marked = cue_finder(row)
    changed: dict[str, list[Span]] = {}
    if texts["bad"] is not None and kind.diffed:
        changed["good"], changed["bad"] = diff_words(texts["good"], texts["bad"])
    twin = _twin(kind, columns["query"])
    if twin:
        changed["query"], other = diff_words(texts["query"], str(row[twin]))
        if twin == columns["good"]:  # CANNOT: a sentence and its negation or paraphrase, the edit in both
            changed["good"] = other
    out = {}
    for role, text in texts.items():
        if text is None:
            continue
        cues = marked(text)
        if role in changed:  # the edit: changed words the cue marks or touches, else all changed words
            inside = tuple(c for c in cues if any(_overlaps(s, c) or _touches(s, c, text) for s in changed[role]))
            out[role] = inside if inside else tuple(changed[role])
        elif role == "query" and kind.detect_alone == columns["query"]:
            out[role] = tuple(cues)  # ExcluIR: the exclusion is in the query
        else:
            out[role] = ()
    return out


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _touches(a: Span, b: Span, text: str) -> bool:
    """Whether only spaces or punctuation lie between two spans: a cue the word diff aligned as
    unchanged but that sits against the edit ("did not enjoy it" -> "enjoyed it but not")."""
    gap = text[min(a.end, b.end) : max(a.start, b.start)]
    return not any(ch.isalnum() for ch in gap)


def word_table(contrast: Contrast) -> pd.DataFrame:
    """One row per word (and punctuation mark) of each text of the contrast, attribution 0."""
    rows = []
    for role in ROLES:
        text = contrast.texts.get(role)
        if text is None:
            continue
        cues = contrast.cue_spans.get(role, ())
        for i, tok in enumerate(tokenize(text)):
            is_cue = any(_overlaps(Span(tok.start, tok.end), c) for c in cues)
            rows.append((role, contrast.columns[role], i, tok.text, tok.start, tok.end, 0.0, is_cue))
    return pd.DataFrame(rows, columns=list(TOKEN_COLUMNS))


def without(text: str, start: int, end: int) -> str:
    """``text`` with characters [start, end) removed and the space they leave closed up."""
    left, right = text[:start], text[end:]
    if left.endswith(" ") and (right.startswith(" ") or not right):
        left = left[:-1]
    elif not left and right.startswith(" "):
        right = right[1:]
    return left + right


# ---------------------------------------------------------------- occlusion
def uncached(scorer: Scorer) -> Scorer:
    """The same loaded model without the disk cache: occluded variants are one-off texts."""
    scorer.model  # load once, on the original, so that later calls share the model
    clone = copy.copy(scorer)
    clone.cache = None
    return clone


def occlusion(
    scorer: Scorer, contrast: Contrast, progress: Progress = no_progress, should_stop: StopCheck | None = None
) -> Attribution:
    """Remove each word in turn and re-score: attribution = margin - margin without the word.
    ``progress`` gets the scorer's own counts (pairs scored, texts encoded); ``should_stop`` is
    asked at each of them and ends the work with negviz.core.progress.Cancelled."""
    return occlusion_many(scorer, [contrast], progress, should_stop)[0]


def occlusion_pairs(contrast: Contrast, words: pd.DataFrame | None = None) -> list[tuple[str, str]]:
    """The (query, document) pairs occlusion scores: the contrast's own, then each word's variant."""
    words = word_table(contrast) if words is None else words
    q, good, bad = (contrast.texts[r] for r in ROLES)
    pairs = [(q, good)] + ([(q, bad)] if bad is not None else [])
    for w in words.itertuples():
        text = without(contrast.texts[w.role], w.start, w.end)
        if w.role == "query":
            pairs += [(text, good)] + ([(text, bad)] if bad is not None else [])
        else:
            pairs.append((q, text))
    return pairs


def occlusion_many(
    scorer: Scorer, items: list[Contrast], progress: Progress = no_progress, should_stop: StopCheck | None = None
) -> list[Attribution]:
    """``occlusion`` of several contrasts, every variant of all of them scored in one call."""
    plain = uncached(scorer)
    queries: list[str] = []
    docs: list[str] = []
    plans = []
    for contrast in items:
        words = word_table(contrast)
        start = len(queries)
        pairs = occlusion_pairs(contrast, words)
        queries += [p[0] for p in pairs]
        docs += [p[1] for p in pairs]
        plans.append((contrast, words, start))
    scores = plain.score(queries, docs, stoppable(progress, should_stop))
    out = []
    for contrast, words, start in plans:
        s = scores[start:]
        two = contrast.texts["bad"] is not None
        base_good, base_bad = s[0], (s[1] if two else 0.0)
        margin = base_good - base_bad
        k, values = (2 if two else 1), []
        for w in words.itertuples():
            if w.role == "query":
                occluded = s[k] - (s[k + 1] if two else 0.0)
                k += 2 if two else 1
            elif w.role == "good":
                occluded = s[k] - base_bad
                k += 1
            else:
                occluded = base_good - s[k]
                k += 1
            values.append(margin - occluded)
        words = words.assign(attribution=np.asarray(values, dtype=np.float64))
        out.append(Attribution(OCCLUSION, contrast, float(margin), words, forward_passes=k))
    return out


# ---------------------------------------------------------------- one contrast, any method
# The methods' names (the CLI's --method, the inspector's URL): occlusion and the gradient ones.
INTEGRATED_GRADIENTS, AT_INPUT = "integrated-gradients", "gradient-x-input"
GRADIENT_METHODS = (INTEGRATED_GRADIENTS, AT_INPUT)
METHODS = (OCCLUSION, *GRADIENT_METHODS)
# What the inspector shows for each, and its URL holds (why_method=integrated+gradients).
METHOD_TITLES = {OCCLUSION: "occlusion", INTEGRATED_GRADIENTS: "integrated gradients", AT_INPUT: "gradient x input"}


def attribute(
    scorer: Scorer,
    contrast: Contrast,
    method: str,
    steps: int | None = None,
    progress: Progress = no_progress,
    should_stop: StopCheck | None = None,
) -> Attribution:
    """The contrast's attribution by ``method`` (occlusion, integrated-gradients,
    gradient-x-input), reporting progress and stopping when asked as each method does."""
    if method == OCCLUSION:
        return occlusion(scorer, contrast, progress, should_stop)
    if method not in GRADIENT_METHODS:
        raise ValueError(f"unknown attribution method {method!r}; use {OCCLUSION} or {', '.join(GRADIENT_METHODS)}")
    return integrated_gradients(scorer, contrast, steps, method == AT_INPUT, progress, should_stop)


# ---------------------------------------------------------------- integrated gradients
def supports_gradients(scorer: Scorer) -> bool:
    """Whether the scorer has a PyTorch encoder to differentiate (loads the model to find out)."""
    return scorer.encoder_parts() is not None


GRADIENT_X_INPUT = "gradient x input"


def planned_passes(method: str, contrast: Contrast, steps: int | None = None) -> int:
    """What a method will score for this contrast, counted as ``Attribution.forward_passes``
    counts it (the cost said before the work starts): occlusion's pairs, or one text per
    integration step (gradient x input: one step; each a forward and a backward pass)."""
    from negviz.scorers.introspect import IG_STEPS

    if method == OCCLUSION:
        return len(occlusion_pairs(contrast))
    texts = sum(contrast.texts.get(r) is not None for r in ROLES)
    return texts * (1 if method == AT_INPUT else int(steps or IG_STEPS))


def integrated_gradients(
    scorer: Scorer,
    contrast: Contrast,
    steps: int | None = None,
    at_input: bool = False,
    progress: Progress = no_progress,
    should_stop: StopCheck | None = None,
) -> Attribution:
    """Integrated gradients of the contrast's margin (negviz.scorers.introspect), summed from word
    pieces to the words of ``word_table``; ``completeness`` holds F(x), F(x'), the sum and the gap.
    ``at_input``: gradient x input (one pass, no completeness) instead. ``progress`` counts
    integration steps; ``should_stop`` is asked after each chunk of them (as for ``occlusion``)."""
    from negviz.scorers import introspect

    parts = scorer.encoder_parts()
    if parts is None:
        raise ValueError(
            f"{scorer.name!r} ({scorer.family}) has no PyTorch encoder to take gradients of; "
            "use occlusion, which works for every model"
        )
    steps = int(steps or introspect.IG_STEPS)
    texts = [contrast.texts[r] for r in ROLES]
    report = stoppable(progress, should_stop)
    if isinstance(parts, introspect.JointParts):  # a cross-encoder: query and document in one sequence
        if at_input:
            raise ValueError("gradient x input is for bi-encoders; use integrated gradients for a cross-encoder")
        pieces = introspect.integrated_gradients_joint(parts, texts[0], texts[1], texts[2], steps, progress=report)
    else:
        pieces = introspect.integrated_gradients(
            parts, texts[0], texts[1], texts[2], steps=steps, at_input=at_input, progress=report
        )
    return _from_pieces(contrast, pieces, at_input)


def gradient_x_input_many(scorer: Scorer, contrasts: list[Contrast]) -> list[Attribution]:
    """Gradient x input of several contrasts in one batched pass (negviz.scorers.introspect)."""
    from negviz.scorers import introspect

    parts = scorer.encoder_parts()
    if not isinstance(parts, introspect.EncoderParts):  # a cross-encoder: one comparison at a time
        return [integrated_gradients(scorer, c, at_input=True) for c in contrasts]
    triples = [tuple(c.texts[r] for r in ROLES) for c in contrasts]
    return [_from_pieces(c, p, True) for c, p in zip(contrasts, introspect.gradient_x_input_many(parts, triples))]


def _from_pieces(contrast: Contrast, pieces, at_input: bool) -> Attribution:
    """Word-piece attributions summed into the words of ``word_table``."""
    from negviz.scorers import introspect

    steps = pieces.steps
    words = word_table(contrast)
    values = np.zeros(len(words))
    present = [r for r in ROLES if contrast.texts.get(r) is not None]
    for role, attr, offsets in zip(present, pieces.attributions, pieces.offsets):
        rows = words.index[words["role"] == role]
        starts, ends = words.loc[rows, "start"].to_numpy(), words.loc[rows, "end"].to_numpy()
        for value, (start, end) in zip(attr, offsets):
            if end <= start:
                continue  # a special token
            hit = np.flatnonzero((starts < end) & (start < ends))
            if len(hit):  # a piece lies inside one word; a word may hold several pieces
                values[rows[hit[0]]] += value
    if at_input:  # no path integral, so nothing to be complete against
        method = f"{GRADIENT_X_INPUT} (baseline: {introspect.BASELINE})"
        return Attribution(
            method,
            contrast,
            pieces.margin,
            words.assign(attribution=values),
            forward_passes=len(present),
            completeness={"margin": pieces.margin},
        )
    total = float(values.sum())
    completeness = {
        "margin": pieces.margin,
        "baseline_margin": pieces.baseline_margin,
        "sum": total,
        "gap": total - (pieces.margin - pieces.baseline_margin),
        "steps": steps,
        "baseline": introspect.BASELINE,
    }
    method = f"integrated gradients ({steps} steps; baseline: {introspect.BASELINE})"
    return Attribution(
        method,
        contrast,
        pieces.margin,
        words.assign(attribution=values),
        forward_passes=steps * len(present),
        completeness=completeness,
    )


# ---------------------------------------------------------------- rendering
SHADE_STYLE = (
    "<style>.nv-att{border-radius:3px;padding:0 1px}"
    f".{CUE_CLASS}{{text-decoration:underline 2px rgb(20,20,20);text-underline-offset:3px;font-weight:600}}"
    ".nv-text{line-height:1.7;white-space:pre-wrap;margin:0 0 .6rem 0}</style>"
)
_TOWARDS_RIGHT, _TOWARDS_WRONG = "33,102,172", "214,96,77"  # blue / red (ColorBrewer RdBu ends)


def shaded_html(att: Attribution) -> str:
    """The contrast's texts as HTML, each word shaded by its attribution (blue: towards the right
    document, red: towards the wrong one; opacity relative to the largest |attribution| of the
    item) and the cue underlined. Every piece of text is html.escape'd; each word's value is in
    its tooltip."""
    scale = float(att.tokens["attribution"].abs().max() or 0.0) or 1.0
    blocks = [SHADE_STYLE]
    for role in ROLES:
        text = att.contrast.texts.get(role)
        if text is None:
            continue
        words = att.tokens[att.tokens["role"] == role]
        out, at = [], 0
        for w in words.itertuples():
            out.append(html.escape(text[at : w.start]))
            alpha = min(abs(w.attribution) / scale, 1.0) * 0.85
            rgb = _TOWARDS_RIGHT if w.attribution >= 0 else _TOWARDS_WRONG
            classes = "nv-att" + (f" {CUE_CLASS}" if w.is_cue else "")
            out.append(
                f'<span class="{classes}" style="background:rgba({rgb},{alpha:.3f})" '
                f'title="{w.attribution:+.5f}">{html.escape(text[w.start : w.end])}</span>'
            )
            at = w.end
        out.append(html.escape(text[at:]))
        blocks.append(text_block(f"{att.contrast.columns[role]} ({role})", "".join(out)))
    legend = (
        '<p class="nv-text" style="opacity:.75;font-size:.85em">'
        f'<span class="nv-att" style="background:rgba({_TOWARDS_RIGHT},.6)">towards the right document</span> · '
        f'<span class="nv-att" style="background:rgba({_TOWARDS_WRONG},.6)">towards the wrong document</span> · '
        f'<span class="{CUE_CLASS}">negation cue</span></p>'
    )
    return "".join(blocks) + legend


# ---------------------------------------------------------------- summaries
def top_words(att: Attribution, n: int = 8) -> pd.DataFrame:
    """The n words with the largest absolute attribution, largest first."""
    t = att.tokens
    return t.loc[
        t["attribution"].abs().sort_values(ascending=False).index[:n], ["column", "token", "attribution", "is_cue"]
    ].reset_index(drop=True)
