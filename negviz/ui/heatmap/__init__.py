"""The Per-type heatmap page: accuracy per negation type, models by types, and a cell's items.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/heatmap.py."""

from __future__ import annotations

from negviz.core.kinds import VERDICT_KINDS
from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/heatmap.py",
    "heatmap",
    "Per-type heatmap",
    ":material/grid_view:",
    "Results",
    VERDICT_KINDS,
    ("axis", "cell_column", "cell_model", "cols", "min_n", "mode", "ref", "rows", "top_k"),
)
