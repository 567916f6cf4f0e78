"""The Error preference page's lexical-confound section (negviz.analyses.lexical): how often each
model is wrong when BM25 leans towards the right document and when towards the wrong one, how often
it follows BM25, and the comparisons of a (model, lean) one click away."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import lexical as X
from negviz.charts.lexical import confound_bars
from negviz.language.text.words import counted
from negviz.ui import chart_items, lexical_data
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download, safe_md


def show(ctx, outcomes: pd.DataFrame, order: list[str], scope: str) -> None:
    """``outcomes``: the page's filtered verdicts (negviz.core.outcomes); ``order``: its model order."""
    st.subheader("The lexical confound: does a model follow word overlap?")
    view = dataset_view(ctx.name)
    source = lexical_data.margins(ctx.name)[1]
    items = outcomes["item_id"].unique()  # the page's filter
    st.caption(
        f"Each comparison (NevIR: each query's choice between d1 and d2) leans lexically towards the document "
        f"BM25 scores higher for the query: {safe_md(X.MEASURE)}; here {safe_md(source)}. A model that follows "
        "word overlap whatever the negation is wrong far more often when BM25 leans towards the wrong document "
        f"({scope})."
    )
    table, follows = view.lexical_confound(ctx.runs, items)  # bootstrap CIs: kept per runs and items
    lfig = confound_bars(table, f"Wrong or tied, by BM25's lean · {ctx.name} {ctx.split} · {scope}", order)
    rank = {m: k for k, m in enumerate(order)}  # the table in the figures' order too
    follows = follows.sort_values("model", key=lambda s: s.map(rank), kind="stable")
    chart_items.apply_click(
        "lex_chart", {"lex_model": 0, "lex_lean": 1}, {"lex_model": order, "lex_lean": list(X.LEANS)}
    )
    st.plotly_chart(lfig, key="lex_chart", on_select="rerun", selection_mode="points")
    st.dataframe(
        follows,
        hide_index=True,
        key="lex_follows",
        column_config={
            "follows BM25": st.column_config.NumberColumn(
                format="percent",
                help="among comparisons where BM25 is not tied: how often the model picks BM25's document",
            ),
            "ci_low": st.column_config.NumberColumn("95% CI low", format="percent"),
            "ci_high": st.column_config.NumberColumn("95% CI high", format="percent"),
            "share_right_is_lexical": st.column_config.NumberColumn(
                "BM25 right", format="percent", help="how often BM25's document is the right one (gold)"
            ),
        },
    )
    csv_download(
        table.assign(dataset=ctx.name, split=ctx.split, filter=scope, measure=X.MEASURE),
        f"negviz-lexical-{ctx.name}.csv",
        label="Download the lexical table (CSV)",
        key="dl-lex",
    )
    c1, c2 = st.columns(2)
    lex_model = c1.selectbox(
        "Model", order, index=None, key="lex_model", bind="query-params", placeholder="pick a model"
    )
    lex_lean = c2.selectbox(
        "BM25 leans", list(X.LEANS), index=None, key="lex_lean", bind="query-params", placeholder="pick a lean"
    )
    if lex_model and lex_lean:
        comps = view.lexical_comparisons(ctx.runs[ctx.runs["model_name"] == lex_model], items)
        part = comps[(comps["model"] == lex_model) & (comps["lean"] == lex_lean)]
        part = part[["item_id", "comparison", "choice", "model_margin", "lexical_margin"]]
        chart_items.mark_answer("lex_model")
        st.markdown(
            f"**{safe_md(lex_model)}** · BM25 leans {lex_lean}: {counted(len(part), 'comparison')}, "
            f"{(part['choice'] != 'right').mean():.1%} wrong or tied"
        )
        chart_items.items_table(part, ctx.name, "lex_items", f"negviz-lexical-{ctx.name}-{lex_model}")
