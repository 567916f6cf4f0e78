"""A click on a chart picks a cell (or segment), and the items behind it are listed, each linking to
the pair inspector: shared by the heatmap, error preference, sensitivity, lexical and cue-influence
views."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.core.kinds import category_words
from negviz.language.taxonomy import TAXONOMY, source_words
from negviz.ui.navigation import links


def apply_click(chart_key: str, targets: dict[str, int], options: dict[str, list]) -> None:
    """Copy a new plotly click (customdata fields) into the cell pickers, before they are drawn.

    ``targets`` maps a picker key to the customdata index it takes; a value outside the picker's
    ``options`` is ignored. Each click is applied once, so the pickers stay usable."""
    state = st.session_state.get(chart_key)
    points = (state or {}).get("selection", {}).get("points", []) if state else []
    if not points:
        return
    custom = points[0].get("customdata")
    seen_key = f"_{chart_key}_seen"
    if not custom or st.session_state.get(seen_key) == custom:
        return
    st.session_state[seen_key] = custom
    for key, index in targets.items():
        if index < len(custom) and custom[index] in options.get(key, []):
            st.session_state[key] = custom[index]
            st.session_state[_ANSWER_PENDING] = tuple(targets)  # mark_answer scrolls to what it shows


_ANSWER_PENDING = "_chart_click_answer_pending"
ANSWER_ID = "negviz-answer"
# Our own constant markup and script (no user text): the mark, then the page scrolled to it; again
# after the list below it has painted, as the layout above may still move.
_ANSWER_HTML = f"""<div id="{ANSWER_ID}" data-testid="{ANSWER_ID}"
 style="border-top:3px solid #dc2626;padding-top:4px;color:#b91c1c;font-weight:600">
 ↓ What you clicked</div>
<script>(() => {{
  const go = () => document.getElementById("{ANSWER_ID}")?.scrollIntoView({{block: "start"}});
  go(); setTimeout(go, 400); setTimeout(go, 1500);
}})();</script>"""


def expect_answer(picker: str) -> None:
    """A widget's callback (a button, an edit): the rerun it causes marks where ``picker``'s answer
    is drawn and scrolls there (mark_answer), as a chart click does."""
    st.session_state[_ANSWER_PENDING] = (picker,)


def mark_answer(*pickers: str) -> None:
    """Where a click's answer starts (a cell's or a segment's items, thousands of pixels below the
    chart; the verdicts of an edit or a preset): marked and scrolled into view, on the rerun a click
    that set one of ``pickers`` caused only."""
    if set(pickers) & set(st.session_state.get(_ANSWER_PENDING, ())):
        del st.session_state[_ANSWER_PENDING]
        st.html(_ANSWER_HTML, unsafe_allow_javascript=True)


def items_table(items: pd.DataFrame, name: str, key: str, file_stem: str, model: str | None = None) -> None:
    """The items behind a cell or segment, each linking to the pair inspector (with ``model``: its
    verdict and its attributions turned on), with a CSV download."""
    from negviz.ui.widgets import csv_download, headed

    # the list's verdicts and the Why panel both of this model (the panel has its own URL key)
    extra = {"model": model, "why_model": model, "why_on": "true"} if model else {}
    shown = items.assign(link=[links.inspector(name, i, **extra) for i in items["item_id"]])
    shown = shown[["link"] + [c for c in shown.columns if c != "link"]]
    table = in_words(shown)  # the CSV keeps the keys
    st.dataframe(
        table,
        hide_index=True,
        key=key,
        column_config=headed(
            table,
            {
                "link": st.column_config.LinkColumn(
                    "pair", display_text=r"pair=([^&]+)", help="open in the pair inspector"
                ),
                "margin1": st.column_config.NumberColumn("margin 1", format="%.4f"),
                "margin2": st.column_config.NumberColumn("margin 2", format="%.4f"),
            },
        ),
    )
    csv_download(shown, f"{file_stem}.csv", label="Download these items (CSV)", key=f"dl-{key}")


def in_words(items: pd.DataFrame) -> pd.DataFrame:
    """``items`` as a person reads them: types by their titles (type_titles), verdict categories
    and label sources in words ("prefers edited (d2) for both", "the dataset's cue word")."""
    out = type_titles(items.copy())  # a copy: the CSV keeps the keys
    for column, words in (("verdict", category_words), ("category", category_words), ("label_source", source_words)):
        if column in out:
            out[column] = [words(v) if isinstance(v, str) else v for v in out[column]]
    return out


def type_titles(items: pd.DataFrame) -> pd.DataFrame:
    """``items`` with its negation types as a person reads them (the taxonomy's titles)."""
    return items.assign(type=items["type"].map(TAXONOMY.label, na_action="ignore")) if "type" in items else items
