"""The Add a dataset page's column mapping: for an uploaded file, which of its columns holds each
column a dataset kind needs (and the optional type label), one picker each, pre-filled by name."""

from __future__ import annotations

import streamlit as st

from negviz.core.kinds import kind_of
from negviz.datasets.userfile import guess_mapping

NONE = "(none)"  # the pick of an optional column left unmapped
LABEL = "negation_type"  # a column of type labels: the heatmap's columns when present


def column_mapping(present: list[str], kind: str) -> dict[str, str]:
    """One picker per column ``kind`` needs, then the type label, four to a row (keys
    ``map-KIND-COLUMN``); returns needed column -> the file's column, those left at (none) out.

    A column with a default, the type label and a column nothing was guessed for may stay
    (none); a guessed one may not (its picker lists the file's columns only)."""
    spec = kind_of(kind)  # the page's pick, a name
    guess = guess_mapping(present, spec)
    st.markdown("**Columns**: which of your columns holds each needed one (pre-filled by name).")
    defaults = spec.defaults
    mapping = {}
    cols = st.columns(4)
    for i, target in enumerate([*spec.columns, LABEL]):
        optional = target in defaults or target == LABEL
        options = ([NONE] if optional or guess.get(target) is None else []) + present
        fallback = target if target in present else None
        pick = guess.get(target) or fallback
        label = target + (f" (default {defaults[target]!r})" if target in defaults else "")
        label = "type label (optional)" if target == LABEL else label
        index = options.index(pick) if pick in options else 0
        chosen = cols[i % 4].selectbox(label, options, index=index, key=f"map-{kind}-{target}")
        if chosen != NONE:
            mapping[target] = chosen
    return mapping
