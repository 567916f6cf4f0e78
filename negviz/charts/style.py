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


# Width in px of the narrowest plot area a page draws a horizontal legend under: a main-column
# figure with model names beside it, in a 1,000 px window (the narrowest the layout tests check).
NARROWEST_PLOT = 340


def legend_rows(names: list[str], width: int = 500) -> int:
    """Rows a horizontal legend of ``names`` takes under a plot ``width`` px wide, so the figure
    leaves room for it: one row when every entry fits (about 8 px a character at FONT's size, 45
    px for the symbol and gap), else plotly's grid of columns as wide as the widest entry."""
    widths = [8 * len(name) + 45 for name in names]
    if sum(widths) <= width:
        return 1
    per_row = max(1, width // max(widths))
    return -(-len(widths) // per_row)


def legend_below(names: list[str], plot_h: int, below_axis: int = 62) -> tuple[dict, int]:
    """A horizontal legend ``below_axis`` px under a plot ``plot_h`` px tall (under its tick labels
    and axis title), and the bottom margin that holds it under the narrowest plot a page draws.
    A margin that always holds it is never pushed by it: plotly keeps a pushed margin when the
    window is widened again, and the legend then covers the axis."""
    legend = dict(orientation="h", x=0, yanchor="top", y=-below_axis / plot_h)
    return legend, below_axis + 32 * legend_rows(names, NARROWEST_PLOT) + 10
