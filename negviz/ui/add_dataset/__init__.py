"""The Add-a-dataset page: a user's file mapped onto a dataset kind and stored.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/add_dataset.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry("pages/add_dataset.py", "add-dataset", "Add a dataset", ":material/upload_file:", "Run")
