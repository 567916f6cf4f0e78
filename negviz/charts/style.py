"""One font and one palette for every figure negviz draws (pages, exports and reports)."""

FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=14)
NOTE_COLOR = "#52525b"
BASELINE_COLOR = "#71717a"
FAMILY_COLORS = {
    "bi-encoder": "#2563eb",
    "cross-encoder": "#16a34a",
    "monot5": "#15803d",
    "colbert": "#c2410c",
    "maxsim": "#ea580c",
    "splade": "#7c3aed",
    "tfidf": "#52525b",
    "bm25": "#a1a1aa",
}


def wrap_segments(html: str, width: int = 80, sep: str = " · ") -> str:
    """A one-line plotly label of ``sep``-joined parts broken into lines of at most ``width``
    visible characters, between parts (never inside a part's markup)."""
    import re

    lines, line, shown = [], [], 0
    for part in html.split(sep):
        visible = len(re.sub(r"<[^>]+>", "", part))
        if line and shown + len(sep) + visible > width:
            lines.append(sep.join(line))
            line, shown = [], 0
        shown += visible + (len(sep) if line else 0)
        line.append(part)
    return "<br>".join([*lines, sep.join(line)] if line else lines)
