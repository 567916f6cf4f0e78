"""The Error-preference page: which document a model preferred when it failed, and the lexical confound.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/errors.py."""

from __future__ import annotations

from negviz.core.kinds import VERDICT_KINDS
from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/errors.py",
    "errors",
    "Error preference",
    ":material/stacked_bar_chart:",
    "Results",
    VERDICT_KINDS,
    ("edits", "facet", "seg_category", "seg_model", "types", "lex_lean", "lex_model"),
)
