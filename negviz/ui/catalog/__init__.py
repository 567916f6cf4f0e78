"""The Models & data page: the catalog of models and datasets.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/catalog.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry("pages/catalog.py", "catalog", "Models & data", ":material/database:", "Run")
