"""The Evaluate page: evaluation jobs, and filling the board's empty cells.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/evaluate.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry("pages/evaluate.py", "evaluate", "Evaluate", ":material/play_circle:", "Run")
