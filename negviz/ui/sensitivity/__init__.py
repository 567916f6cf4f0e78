"""The Perturbation-sensitivity page: DEMETR's ratios, CANNOT's pairs, a user's own sentence.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/sensitivity.py."""

from __future__ import annotations

from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/sensitivity.py",
    "sensitivity",
    "Perturbation sensitivity",
    ":material/tune:",
    "Results",
    None,  # draws DEMETR and CANNOT whatever the sidebar holds
    ("checked", "published", "sens_model", "sens_pert", "sens_show", "value", "view", "cannot_pairs")
    + ("own_cand", "own_models", "own_ref"),
)
