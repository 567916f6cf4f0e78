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
