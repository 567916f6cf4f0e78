"""The Import-scores page: a user's score file checked and stored as a run.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/import_scores.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry("pages/import_scores.py", "import-scores", "Import scores", ":material/input:", "Run")
