"""The MaxSim explorer page: a late-interaction model's token alignments, and a counterfactual editor.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/maxsim.py."""

from __future__ import annotations

from negviz.core.kinds import QUERY_KINDS
from negviz.ui.navigation.entry import COUNTERFACTUAL_KEYS, PageEntry

ENTRY = PageEntry(
    "pages/maxsim.py",
    "maxsim",
    "MaxSim explorer",
    ":material/grid_on:",
    "Explore",
    QUERY_KINDS,  # for a stored pair; typed text works with any dataset
    ("after", "masks", "merge", "model", "pair", "punct", "q", "sim", "special", "src")
    + ("tq", "tq2", "td1", "td2")
    + COUNTERFACTUAL_KEYS,
    typed_texts=True,
)
