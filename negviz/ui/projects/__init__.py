"""The Annotation-projects page: projects, assignments and progress.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/projects.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/projects.py",
    "projects",
    "Annotation projects",
    ":material/assignment_ind:",
    "Explore",
    None,
    ("tab", "order", "project"),
)
