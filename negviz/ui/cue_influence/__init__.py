"""The Cue-influence page: how much of a score the negation cue carries, by verdict, type and layer.

Its registry entry (negviz.ui.navigation.page_registry collects it) and, in this package, its
helpers; the page itself is pages/cue_influence.py."""

from __future__ import annotations

from negviz.core.kinds import VERDICT_KINDS
from negviz.ui.navigation.entry import PageEntry

ENTRY = PageEntry(
    "pages/cue_influence.py",
    "cue-influence",
    "Cue influence",
    ":material/troubleshoot:",
    "Results",
    VERDICT_KINDS,
    ("axis", "bin_group", "bin_run", "layer_runs", "layer_type", "runs"),
)
