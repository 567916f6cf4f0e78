"""The Across-benchmarks page: every model on every benchmark, what a fix repaired and broke.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/board.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/board.py",
    "board",
    "Across benchmarks",
    ":material/table_chart:",
    "Results",
    None,  # every dataset at once, whatever the sidebar holds
    ("bx", "by", "fix_change", "fix_ds", "fix_model", "published", "sort"),
)
