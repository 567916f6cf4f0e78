"""Word-level diff of two texts (NevIR pairs differ by a few words) and its HTML rendering.

    left, right = diff_words("Who had no love?", "Who did not have love?")
    html = render_html(text, left, cue_spans(text, "not"))   # every piece html.escape'd

A diff is a list of character spans per side, so the same spans serve an HTML card, a test
and any other renderer. Tokens are words (with inner apostrophes: "didn't") and single
punctuation marks; whitespace is never a token, so re-spacing does not count as a change.
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass

TOKEN_RE = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]")

# CSS classes of the rendering; the styles travel with the HTML (see STYLE).
CHANGED_CLASS = "nv-diff"
CUE_CLASS = "nv-cue"
STYLE = (
    "<style>"
    f".{CHANGED_CLASS}{{background:rgba(255,190,0,.38);border-radius:3px;padding:0 1px}}"
    f".{CUE_CLASS}{{text-decoration:underline 2px rgb(220,40,40);text-underline-offset:3px;font-weight:600}}"
    ".nv-text{line-height:1.6;white-space:pre-wrap;margin:0 0 .6rem 0}"
    "</style>"
)


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of a text."""

    start: int
    end: int


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in TOKEN_RE.finditer(text)]


def diff_words(a: str, b: str) -> tuple[list[Span], list[Span]]:
    """Spans of the tokens of ``a`` and of ``b`` that the other text lacks (difflib opcodes).

    Adjacent changed tokens are merged into one span, whitespace between them included."""
    ta, tb = tokenize(a), tokenize(b)
    # autojunk off: in a 150-word passage, frequent words ("the") must still align.
    matcher = difflib.SequenceMatcher(None, [t.text for t in ta], [t.text for t in tb], autojunk=False)
    left: list[Span] = []
    right: list[Span] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if i2 > i1:
            left.append(Span(ta[i1].start, ta[i2 - 1].end))
        if j2 > j1:
            right.append(Span(tb[j1].start, tb[j2 - 1].end))
    return left, right


def changed_words(a: str, b: str) -> tuple[list[str], list[str]]:
    """The changed stretches of text on each side, e.g. (["had no"], ["did not yet have"])."""
    left, right = diff_words(a, b)
    return [a[s.start : s.end] for s in left], [b[s.start : s.end] for s in right]


def cue_spans(text: str, cue: str | None) -> list[Span]:
    """Every whole-word, case-insensitive occurrence of a cue ("not", "no longer", "unlike").

    A contracted "n't" cue matches inside words ("didn't")."""
    cue = (cue or "").strip()
    if not cue:
        return []
    words = [re.escape(w) for w in cue.split()]
    body = r"\s+".join(words)
    pattern = body if cue.lower().startswith("n't") else rf"(?<!\w){body}(?!\w)"
    return [Span(m.start(), m.end()) for m in re.finditer(pattern, text, flags=re.IGNORECASE)]


def render_html(text: str, changed: list[Span] = (), cues: list[Span] = ()) -> str:
    """The text as HTML: changed stretches in a highlight, cue words underlined.

    Characters are grouped into runs with the same (changed, cue) flags, so overlapping spans
    nest correctly; every run is escaped, so pair text can never inject markup."""
    flags = [[False, False] for _ in text]
    for kind, spans in ((0, changed), (1, cues)):
        for span in spans:
            for i in range(max(span.start, 0), min(span.end, len(text))):
                flags[i][kind] = True
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and flags[j] == flags[i]:
            j += 1
        piece = html.escape(text[i:j])
        classes = [name for name, on in zip((CHANGED_CLASS, CUE_CLASS), flags[i]) if on]
        out.append(f'<span class="{" ".join(classes)}">{piece}</span>' if classes else piece)
        i = j
    return "".join(out)


def text_block(label: str, body_html: str) -> str:
    """One labelled paragraph of a card; ``body_html`` must already be escaped (render_html)."""
    return f'<p class="nv-text"><b>{html.escape(label)}</b> {body_html}</p>'
