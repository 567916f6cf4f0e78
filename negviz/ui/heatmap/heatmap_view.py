"""The per-type heatmap page's figures: the heatmap of its cells, drawn in parts of PAGE_COLUMNS
columns whose clicks pick the pair list's model and column, and the dataset's negation types beside
Petcu et al.'s (negviz.analyses.per_type, negviz.charts.per_type), with the types' downloads."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from negviz.analyses import per_type as at
from negviz.charts.per_type import distribution_bars
from negviz.language.taxonomy import type_distribution
from negviz.sections import per_type
from negviz.sections.base import Section
from negviz.ui import chart_items, resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.types_data import TypesContext
from negviz.ui.widgets import csv_download, figure_downloads, safe_md

# On the page the figure is sized to its content (cells fit their labels), at full width; more
# columns than fit a narrow window are drawn as parts of PAGE_COLUMNS columns, one under another.
PAGE_COLUMNS = 5


def column_parts(columns: list[str]) -> list[list[str]]:
    """``columns`` in runs of PAGE_COLUMNS, one chart each; one empty part when there are none."""
    return [columns[k : k + PAGE_COLUMNS] for k in range(0, len(columns), PAGE_COLUMNS)] or [[]]


def heatmap_charts(ctx: TypesContext, rows: list[str], **options) -> Section:
    """Draw the heatmap section (negviz.sections.per_type: the report's, with the page's
    ``options``: axis, top_k, min_n, reference, column_sort) of the shown runs, models in ``rows``
    order, with its n warning and its caption, in parts of PAGE_COLUMNS columns; a click on a cell
    picks the pair list's model and column (cell_model, cell_column). Returns the section: its
    figure (the whole heatmap, sized to its content) is the download."""
    view = dataset_view(ctx.name)
    section = per_type.section(
        view, ctx.outcomes, list(ctx.runs["model_name"]), rows=rows, differences=False, **options
    )
    pt = section.tables["cells"]
    columns = pt.columns
    if section.tables["n_warning"]:
        st.warning(section.tables["n_warning"], icon=":material/warning:")
    parts = column_parts(columns)
    for k, cols in enumerate(parts):
        key = "heatmap_chart" if k == 0 else f"heatmap_chart_{k + 1}"
        chart_items.apply_click(key, {"cell_model": 0, "cell_column": 1}, {"cell_model": rows, "cell_column": columns})
        if len(parts) == 1:
            part = section.figure
        else:
            where = f" · columns {k * PAGE_COLUMNS + 1}-{k * PAGE_COLUMNS + len(cols)} of {len(columns)}"
            part = per_type.heatmap(view, pt, rows, cols, where)
        st.plotly_chart(part, key=key, on_select="rerun", selection_mode="points", width="content")
    st.caption(section.caption.text(safe_md))
    return section


@dataclass
class TypeShares:
    """The dataset's negation types (taxonomy.type_distribution), their shares beside Petcu et al.'s
    (empty when the paper reports none for the dataset) and the bars drawn of them (None then)."""

    distribution: pd.DataFrame
    comparison: pd.DataFrame
    figure: object | None


def type_distribution_section(ctx: TypesContext) -> TypeShares | None:
    """Draw the dataset's negation types beside Petcu et al.'s (a table when the paper has no
    distribution for it); None, said in a caption, when the dataset's items carry no types."""
    if "type" not in ctx.meta:
        st.caption(
            f"No negation types for {ctx.name} here (typing 35k perturbations takes a while); "
            f"`negviz taxonomy --dataset {ctx.name}` prints them."
        )
        return None
    dist = type_distribution(ctx.meta.dropna(subset=["type"])[["type", "label_source"]])
    comparison = at.distribution_vs_petcu(
        dist, resources.reference(), ctx.name, f"{ctx.name} {ctx.split} (n={len(ctx.meta):,})"
    )
    if comparison.empty:
        st.caption("Petcu et al. report no type distribution for this dataset.")
        st.dataframe(dist, hide_index=True, key="dist_table")
        return TypeShares(dist, comparison, None)
    fig = distribution_bars(comparison, f"Negation types · {ctx.name} vs Petcu et al.")
    st.plotly_chart(fig, key="dist_chart")
    st.caption(
        "Types of this dataset from its label source, grouped into the paper's categories; the paper's "
        "shares come from its GPT-4o-mini classifier on other splits (Sec. 6.2-6.3)."
    )
    return TypeShares(dist, comparison, fig)


def type_distribution_downloads(name: str, shares: TypeShares | None) -> None:
    """The type distribution's figure (when drawn) and counts as downloads; nothing without types."""
    if shares is None:
        return
    st.caption("**Type distribution**: figure and counts")
    if shares.figure is not None:
        figure_downloads(shares.figure, f"negviz-types-{name}", key="dist")
    csv_download(
        shares.distribution, f"negviz-types-{name}.csv", label="Download type distribution (CSV)", key="dl-dist"
    )
