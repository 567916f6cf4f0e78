"""The Pair-inspector page: one item's texts, every model's verdict, the label form and the Why panel.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/inspector.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/inspector.py",
    "inspector",
    "Pair inspector",
    ":material/compare:",
    "Explore",
    None,
    ("annotated", "cue", "edit", "lean", "margin_max", "margin_min", "model", "pair", "queue", "sample")
    + ("seed", "sort", "type", "verdict", "why_contrast", "why_method", "why_model", "why_on"),
)
