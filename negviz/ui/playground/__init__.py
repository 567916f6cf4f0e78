"""The Playground page: typed queries and documents scored by several models at once.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/playground.py."""

from __future__ import annotations

from negviz.core.kinds import QUERY_KINDS
from negviz.ui.navigation.entry import COUNTERFACTUAL_KEYS, PageEntry

ENTRY = PageEntry(
    "pages/playground.py",
    "playground",
    "Playground",
    ":material/science:",
    "Explore",
    QUERY_KINDS,  # for the sidebar dataset's presets; typed text works with any dataset
    ("pm", "pq", "pq2", "pd1", "pd2", "pd3") + COUNTERFACTUAL_KEYS,
    typed_texts=True,
)
