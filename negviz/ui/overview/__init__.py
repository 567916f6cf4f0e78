"""The Overview page: the leaderboard of the sidebar's dataset, two runs side by side, the report download.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/overview.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry("pages/overview.py", "overview", "Overview", ":material/leaderboard:", "Results")
