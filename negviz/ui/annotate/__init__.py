"""The Annotations page: annotators' labels and their agreement.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/annotate.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/annotate.py",
    "annotations",
    "Annotations",
    ":material/rate_review:",
    "Explore",
    None,
    ("annotators", "alpha_by_type"),
)
