"""The board across benchmarks on a page: the board figure with its sort, downloads and empty
cells, and the transfer scatter of any two columns (negviz.analyses.board, negviz.charts.board)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses.board import (
    SHORT,
    board_json,
    column_keys,
    missing_cells,
    published_board,
    titles,
)
from negviz.charts.board import transfer_scatter
from negviz.core import metric_text
from negviz.sections import board as sections_board
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download, figure_downloads, safe_md


def board() -> pd.DataFrame:
    """The board of the configured store (DatasetView.board: kept a few seconds, a run may land meanwhile)."""
    return dataset_view().board(resources.catalog())


def board_section() -> None:
    """The board section (negviz.sections.board, the report's, with every model) sorted by the
    picked column, the published rows when asked, its CSV, empty cells and --json row count."""
    keys = column_keys()
    left, right = st.columns([2, 1])
    by = left.selectbox(
        "Sort by",
        ["model name", *(SHORT[k] for k in keys)],
        key="sort",
        bind="query-params",
        help="Best first in the chosen column (lower CANNOT similarity first); empty cells last.",
    )
    published = right.toggle(
        "Published (◇)",
        value=False,  # the papers' ~30 rows would double the table; one click shows them
        key="published",
        bind="query-params",
        help="The papers' numbers measured as negviz measures the column (NevIR Table 2, HedgeMPNet "
        "Table 1, NegBLEURT Fig. 4, and the best published NevIR results of Rank1's Table 2), "
        "as marked rows below the models; never ranked.",
    )
    key = {SHORT[k]: k for k in keys}.get(by)
    pub = published_board(resources.reference()) if published else None
    section = sections_board.section(dataset_view(), catalog=resources.catalog(), published=pub, sort=key)
    shown = section.tables["board"]  # the report's board: every model here
    sorted_by = f"sorted by {titles()[key]}, best first" if key else "sorted by model name"
    st.markdown(f"**Every model on every benchmark** · {len(shown)} models · {safe_md(sorted_by)}")
    st.html(section.cards.get(sections_board.CARD, ""))
    st.caption(
        "† under a model's name: the benchmarks it was trained on part of; its cells there (n · "
        "held-out†) are over the split it never saw (a NevIR-split checkpoint: the passage-disjoint "
        "held-out pairs its fine-tuning run measured), never over the data it trained on. "
        '"first N only": the model\'s run is a stated sample of that benchmark.'
    )
    csv_download(
        shown, "negviz-board.csv", "Download the board (CSV: values as fractions, CIs, n, run ids)", key="board-csv"
    )
    empty = missing_cells(shown)
    if len(empty):
        with st.expander(f"Empty cells ({len(empty)}) and the command that fills each"):
            st.dataframe(empty, hide_index=True, width="stretch")
    st.caption("The same board for scripts: `negviz board --json` (" + f"{len(board_json(shown))} rows).")


def transfer_section(frame: pd.DataFrame) -> None:
    keys = column_keys()
    st.subheader("Transfer: one benchmark against another")
    left, right = st.columns(2)
    names = [SHORT[k] for k in keys]
    key = {SHORT[k]: k for k in keys}
    x = key[left.selectbox("x axis", names, key="bx", bind="query-params")]
    y = key[right.selectbox("y axis", names, index=1, key="by", bind="query-params")]
    if x == y:
        st.info("Choose two different benchmarks.")
        return
    pub = published_board(resources.reference())
    fig = transfer_scatter(frame, x, y, pub, f"{titles()[x]} against {titles()[y]}")
    both = int(frame[[x, y]].notna().all(axis=1).sum())
    st.plotly_chart(fig, key="transfer", config={"displaylogo": False})
    st.caption(
        f"{both} models have both cells; whiskers are 95% CIs on both axes; hover a point for its "
        "name where labels would overlap. Hollow diamonds: published numbers of both measures."
    )
    figure_downloads(fig, f"negviz-transfer-{x}-{y}", key="transfer-fig")


FIX_DATASETS = {"nevir": "paired_accuracy", "excluir": "right_rank"}  # benchmark -> its verdict rate
LISTED = 60  # pairs linked on the page; the CSV has them all  # the benchmarks with a right or wrong verdict per item


def fixes_section() -> None:
    from negviz.analyses.fixes import BROKEN, REPAIRED, by_type
    from negviz.ui.navigation import links

    st.subheader("A fix against its base: pairs repaired and broken")
    dataset = st.radio("Benchmark", list(FIX_DATASETS), key="fix_ds", bind="query-params", horizontal=True)
    table, items = dataset_view(dataset).fixes(resources.catalog())
    if table.empty:
        st.info(f"No model with a catalog base has a stored run beside its base's on {dataset}.")
        return
    shown = pd.DataFrame(
        {
            "model": table["model"],
            "base": table["base"],
            "n": table["n"],
            "base accuracy (%)": table["base_accuracy"] * 100,
            "model accuracy (%)": table["model_accuracy"] * 100,
            "difference (pp)": (table["difference"] * 100).round(1) + 0.0,  # never "-0.0"
            "95% CI (pp)": [
                metric_text.difference_ci(FIX_DATASETS[dataset], lo, hi)
                for lo, hi in zip(table["difference_ci_low"], table["difference_ci_high"])
            ],
            "McNemar p": table["p_value"],
            "repaired": table[REPAIRED],
            "broken": table[BROKEN],
        }
    )
    st.dataframe(
        shown,
        hide_index=True,
        column_config={
            "base accuracy (%)": st.column_config.NumberColumn(format="%.1f"),
            "model accuracy (%)": st.column_config.NumberColumn(format="%.1f"),
            "difference (pp)": st.column_config.NumberColumn(format="%+.1f"),
            "McNemar p": st.column_config.NumberColumn(format="%.2g"),
        },
        key="fixes",
    )
    left, right = st.columns([2, 1])
    model = left.selectbox("List the pairs of", list(table["model"]), key="fix_model", bind="query-params")
    change = right.radio("that it", [REPAIRED, BROKEN], key="fix_change", bind="query-params", horizontal=True)
    listed = items[model][items[model]["change"] == change]
    base = table.set_index("model").at[model, "base"]
    st.caption(
        f"{len(listed):,} pairs that {model} {change} against {base} on {dataset} "
        f"({'its base was wrong, it is right' if change == REPAIRED else 'its base was right, it is wrong'}); "
        "each opens in the pair inspector with both models."
    )
    shown_ids = listed["item_id"].head(LISTED)
    st.markdown(
        " · ".join(f"[{safe_md(i)}]({links.inspector(dataset, i, models=[model, base])})" for i in shown_ids) or "none",
    )
    if len(listed) > LISTED:
        st.caption(f"The first {LISTED} of {len(listed):,}; the CSV lists every one.")
    frame = listed.assign(link=[links.inspector(dataset, i, models=[model, base]) for i in listed["item_id"]])
    csv_download(
        frame, f"negviz-{change}-{model}-vs-{base}-{dataset}.csv", f"Download the {change} pairs (CSV)", key="fix-csv"
    )
    types = by_type(items[model], dataset_view(dataset).labels())
    st.caption(
        "Where the repairs concentrate: each negation type's share of the repairs beside its share of the pairs."
    )
    st.dataframe(
        types,
        hide_index=True,
        column_config={
            "share_of_repairs": st.column_config.NumberColumn("share of repairs", format="percent"),
            "share_of_items": st.column_config.NumberColumn("share of pairs", format="percent"),
        },
        key="fix-types",
    )
