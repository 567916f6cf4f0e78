"""DEMETR's perturbation sensitivity as a section: per model and perturbation the sensitivity ratio
(or detection accuracy) of the chosen runs, beside the NegBLEURT paper's published columns; drawn
by the Perturbation sensitivity page and the report (negviz.analyses.sensitivity,
negviz.charts.sensitivity).

    s = section(DatasetView(store, "demetr"), runs)           # the report: ratio, all items, published
    s.data["cells"], s.figures["sensitivity-demetr"], s.caption.text()
    section(view, runs, value=sv.ACCURACY, checked_only=True)  # the page's other settings
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pandas as pd

from negviz.analyses import sensitivity as sv
from negviz.charts.sensitivity import sensitivity_heatmap
from negviz.core import metric_text, metrics
from negviz.core.json_values import plain
from negviz.language.text.words import counted
from negviz.sections.base import Caption, Section

FIGURE = "sensitivity-demetr"
CELL_COLUMNS = [
    "model",
    "perturbation",
    "severity",
    "published",
    "sensitivity_ratio",
    "ci_low",
    "ci_high",
    "detection_accuracy",
    "n",
    "checked",
    "tiny_denominators",
    "source",
]


def title(value: str, runs: int, checked_only: bool, published: bool) -> str:
    return (
        f"DEMETR {sv.VALUES[value]} · {counted(runs, 'stored run')} · "
        f"{'pert_check items only' if checked_only else 'all items'}"
        + ("<br><sup>right of the dotted line: published (NegBLEURT Fig. 4), not run here</sup>" if published else "")
    )


def caption(view, value: str, checked_only: bool, published: bool) -> Caption:
    """The words under the heatmap: dataset, split, the value as the metric model declares it
    (negviz.core.metrics: its label, what it measures, its chance level), the items used, where the
    published columns come from, and how the paper's figure groups "shuffled"."""
    m = metrics.metric(value)
    chance = f" (random {metric_text.value(m, m.chance)})" if m.chance is not None else ""
    items = "the pert_check items" if checked_only else f"all {len(view.dataset.frame):,} items"
    return Caption(
        "{name} {split}"
        f" · {m.label}{chance} per model and perturbation over {items}: {m.measures}. "
        + (f"Published columns: {sv.PUBLISHED_SOURCE}, not run here. " if published else "")
        + "The paper's figure counts “shuffled” (DEMETR's perturbation 20) as a base perturbation; DEMETR's "
        "own severity (critical) groups it here. Published cells list no items.",
        {"name": view.name, "split": view.dataset.spec.split},
    )


def section(
    view,
    runs: pd.DataFrame | Iterable[Mapping[str, Any]],
    reference: pd.DataFrame | None = None,
    *,
    value: str = sv.RATIO,
    checked_only: bool = False,
    published: bool = True,
    models: list[str] | None = None,
) -> Section:
    """The model x perturbation matrix of ``runs`` (one per model: Store.runs rows) on DEMETR
    (``view``), each run's table by negviz.analyses.sensitivity.run_table's rule, with the paper's
    published ratios when ``published`` (ratios only). Run columns in ``models`` order (default:
    by name), the published ones after them."""
    from negviz.evaluation.published import load_reference

    records = runs.to_dict("records") if isinstance(runs, pd.DataFrame) else list(runs)
    tables = {r["model_name"]: view.perturbation_table(r, checked_only) for r in records}
    pub = sv.published_columns(load_reference() if reference is None else reference) if published else None
    matrix = sv.model_matrix(tables, pub, value)
    rows, cols = sv.matrix_axes(matrix)
    if models is not None:
        cols = [(m, False) for m in models if m in tables] + [c for c in cols if c[1]]
    fig = sensitivity_heatmap(
        matrix, rows, cols, value=value, title=title(value, len(tables), checked_only, pub is not None)
    )
    data = {
        "value": value,
        "checked_only": checked_only,
        "perturbations": rows,
        "published_source": sv.PUBLISHED_SOURCE,
        "published_models": [m for m, p in cols if p],
        "cells": plain(matrix[CELL_COLUMNS]),
        "figure": FIGURE,
    }
    tables_ = {"matrix": matrix, "runs": tables, "rows": rows, "columns": cols}
    return Section(
        "sensitivity", data, {FIGURE: fig}, {FIGURE: caption(view, value, checked_only, pub is not None)}, tables_
    )
