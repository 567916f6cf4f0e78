"""The one-click counterfactual editor shared by the MaxSim explorer and the playground.

Its widget keys (cf, cf_on, cf_old, cf_new, cf_text) are URL query parameters, so a link
reproduces the edit; the original text stays pinned above the edited one.
"""

from __future__ import annotations

import streamlit as st

from negviz.language.text import counterfactual as cf
from negviz.language.text.worddiff import STYLE, Span, render_html, text_block
from negviz.ui.chart_items import expect_answer

ANSWER = "cf"  # mark_answer's name for an edit's verdicts
OPS = ["none"] + [cf.OP_LABELS[op] for op in cf.OPS]  # bound widgets hold readable values


def counterfactual_editor(texts: dict[str, str], label: str = "Edit", limit: int = 5000):
    """Widgets to edit one of ``texts`` (name -> text); returns (target name, Edit or None)."""
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    answer = dict(on_change=expect_answer, args=(ANSWER,))  # the verdicts, far below, scrolled to
    op_label = c1.radio(label, OPS, key="cf", bind="query-params", horizontal=True, **answer)
    target = c2.selectbox("Text", list(texts), key="cf_on", bind="query-params", **answer)
    old = c3.text_input("swap", "not", key="cf_old", bind="query-params", **answer)
    new = c4.text_input("for", "never", key="cf_new", bind="query-params", **answer)
    if op_label == cf.OP_LABELS["free"]:
        st.button(
            "Start from the current text",
            key="cf_copy",
            on_click=lambda: st.session_state.update(cf_text=texts[target]),
        )
        st.text_area("Edited text", key="cf_text", bind="query-params", max_chars=limit)
    op = next((k for k, v in cf.OP_LABELS.items() if v == op_label), None)
    edit = cf.apply_edit(texts[target], op, old, new, st.session_state.get("cf_text") or "") if op else None
    if op and edit is None:
        st.warning(
            f"No rule fits “{op_label}” for {target}; see `negviz.language.text.counterfactual` for what the rules cover."
        )
    if edit:
        # typed words are shown as code, never as markup
        st.markdown(f"**{target}** · `{edit.rule.replace('`', chr(39))}`", help="Original above, edited below.")
        st.html(
            STYLE
            + text_block("original", render_html(edit.original, [Span(*edit.span)]))
            + text_block("edited", render_html(edit.edited, [Span(*edit.new_span)]))
        )
    return target, edit
