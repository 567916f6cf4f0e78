"""The Search page: a query against a corpus, with the shipped codes' candidates.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/search.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/search.py",
    "search",
    "Search",
    ":material/search:",
    "Explore",
    None,  # its own corpus picker
    ("corpus", "model", "q", "qid"),
)
