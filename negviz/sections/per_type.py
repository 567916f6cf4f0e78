"""The per-type heatmap as a section: a metric per model and negation type (or cue word, edit
type), or a model's difference to a reference model on the same items; drawn by the Per-type
heatmap page and the report (negviz.analyses.per_type, negviz.charts.per_type).

    s = section(view, outcomes, ["all-MiniLM-L6-v2", "bm25"])            # the report's defaults
    s.data["cells"], s.figures[f"per_type-{view.name}"], s.caption.text()
    section(view, outcomes, models, axis="cue", reference="bm25", differences=False)   # the page
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from negviz.analyses import per_type as at
from negviz.charts.per_type import accuracy_heatmap
from negviz.core import metric_text
from negviz.core.json_values import plain
from negviz.sections.base import Caption, Section


def title(view, axis_label: str, reference: str | None = None) -> str:
    """The heatmap's title: metric, columns, dataset and split, and its chance level (accuracy) or
    the reference model (difference)."""
    f, split = view.facts, view.dataset.spec.split
    head = f"{f.item_metric_label} by {axis_label} · {view.name} {split}"
    if reference is not None:
        return head + f" · Δ to {reference}"
    return head + f" · ▾ below random ({f.random_baseline:.0%})"


def caption(view, min_n: int, reference: str | None = None) -> Caption:
    """The words under the heatmap: what a cell holds, in the metric's unit (negviz.core.metrics),
    its n, the chance level or the reference, and the grey cells' rule."""
    f = view.facts
    unit = metric_text.unit_word(f.item_metric)  # a verdict rate: %
    middle = (
        "Difference mode: percentage points to {reference} on the same items; "
        "a superscript ns marks a difference whose 95% CI spans 0. "
        if reference is not None
        else f"▾ below random ({f.random_baseline:.0%}). "
    )
    template = (
        f"Cells: {f.item_metric_label}{f' in {unit}' if unit else ''}, n = items in the cell; hover for the 95% CI. "
        + middle
        + f"Grey: fewer than {int(min_n)} items, only n shown."
    )
    return Caption(template, {"reference": reference} if reference is not None else {})


def heatmap(view, pt: at.PerTypeCells, rows: list[str], columns: list[str] | None = None, where: str = ""):
    """The heatmap of ``pt``'s cells in ``columns`` (default all), models in ``rows`` order, with
    its title (``where`` appended: a part of the columns) and the n warning of those cells."""
    cells = pt.cells if columns is None else pt.cells[pt.cells["column"].isin(columns)]
    columns = pt.columns if columns is None else columns
    f = view.facts
    return accuracy_heatmap(
        cells,
        rows,
        columns,
        metric=f.item_metric_label,
        baseline=f.random_baseline,
        title=title(view, pt.axis_label, pt.reference) + where,
        column_labels=pt.column_labels,
        min_n=int(pt.min_n),
        reference=pt.reference,
        n_warning=at.n_warning(cells, rows, pt.column_labels, columns=columns),
    )


def section(
    view,
    outcomes: pd.DataFrame,
    models: list[str],
    *,
    axis: str | None = None,
    top_k: int = 10,
    min_n: int = at.MIN_N,
    reference: str | None = None,
    column_sort: str = "natural",
    rows: list[str] | None = None,
    differences: bool = True,
) -> Section:
    """The heatmap of ``outcomes`` (DatasetView.outcomes of the chosen runs) on ``axis`` (default:
    the dataset's first), as accuracy or as the difference to ``reference``; rows in ``rows``
    order (default ``models``). With ``differences`` (the report), also ``models[0]``'s difference
    to each other model, one figure each (``per_type-<name>-diff-<k>``)."""
    name, kind = view.name, view.kind
    meta = view.item_meta()
    pt = at.per_type_cells(outcomes, meta, kind, axis, top_k, min_n, reference, column_sort)
    rows = list(models) if rows is None else rows
    fig_id = f"per_type-{name}"
    figures = {fig_id: heatmap(view, pt, rows)}
    warning = at.n_warning(pt.cells, rows, pt.column_labels, columns=pt.columns)  # said above it too
    captions = {fig_id: caption(view, pt.min_n, reference)}
    data: dict[str, Any] = {
        "axis": pt.axis,
        "axis_label": pt.axis_label,
        "min_n": pt.min_n,
        "columns": pt.columns,
        "column_labels": pt.column_labels,
        "cells": plain(pt.cells),
        "figure": fig_id,
        "differences": [],
    }
    if differences:
        model = models[0]
        for k, ref in enumerate(models[1:], start=1):
            diff = at.per_type_cells(outcomes, meta, kind, pt.axis, top_k, min_n, ref, column_sort)
            diff.cells = diff.cells[diff.cells["model"] == model]
            diff_id = f"{fig_id}-diff-{k}"
            figures[diff_id] = heatmap(view, diff, [model])
            captions[diff_id] = caption(view, pt.min_n, ref)
            data["differences"].append({"reference": ref, "cells": plain(diff.cells), "figure": diff_id})
    return Section("per_type", data, figures, captions, {"cells": pt, "rows": rows, "n_warning": warning})
