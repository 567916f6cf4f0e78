"""The Fine-tuning drift page: cosine similarity of pairs across epochs, and fine-tuning jobs.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/drift.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/drift.py",
    "drift",
    "Fine-tuning drift",
    ":material/trending_down:",
    "Results",
    None,  # fine-tuning runs of every dataset
    ("card_run", "epoch", "pair", "runs", "shape"),
)
