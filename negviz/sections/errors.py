"""Error preference and margins as a section: how each model fails (NevIR Fig. 4: which document it
ranks first when wrong) and by how much (each model's margins); drawn by the Error preference page
and the report (negviz.analyses.per_type, negviz.charts.per_type).

    s = section(view, outcomes, ["all-MiniLM-L6-v2", "bm25"])        # the report: all items
    s.data["preference"], s.figures[f"errors-{view.name}"], s.captions[f"margins-{view.name}"].text()
"""

from __future__ import annotations

import pandas as pd

from negviz.analyses import per_type as at
from negviz.charts.per_type import category_label, margin_distributions, preference_bars
from negviz.core.json_values import plain
from negviz.sections.base import Caption, Section

ALL_ITEMS = "all items"


def verdict_caption(view) -> Caption:
    """What the error figure counts: the dataset, its split and the verdicts every item gets."""
    ds = view.dataset
    note = ds.kind.category_note
    verdicts = ", ".join(category_label(c) for c in ds.kind.categories)
    return Caption(
        "{title} · split {split} · every item gets one verdict: " + verdicts + (f" ({note})." if note else "."),
        {"title": ds.title, "split": ds.spec.split},
    )


def margin_caption(view) -> Caption:
    """What the margins figure shows: each margin's name, the tie line, each model's own scale."""
    names = view.kind.margin_labels
    return Caption(
        f"Margins {' and '.join(n for n in names if n)} per model; left of the dashed tie line the model "
        "ranks the wrong document first. Each model keeps its own score scale."
    )


def section(
    view,
    outcomes: pd.DataFrame,
    models: list[str],
    *,
    facets: pd.Series | None = None,
    scope: str = ALL_ITEMS,
) -> Section:
    """The error preference of ``outcomes`` (DatasetView.outcomes, filtered to the page's items:
    ``scope`` says which) per model in ``models`` order (per facet when ``facets`` maps items to
    one), and each model's margins."""
    name, ds = view.name, view.dataset
    kind, split = ds.kind, ds.spec.split
    categories = kind.categories
    prefs = at.ordered_preference(outcomes, kind, models, facets)
    n_note = at.preference_n_note(prefs, facets is not None)  # never one n for runs of different n
    errors_id, margins_id = f"errors-{name}", f"margins-{name}"
    figures = {
        errors_id: preference_bars(
            prefs, categories, f"Error preference · {name} {split} · {scope} ({n_note})", faceted=facets is not None
        ),
        margins_id: margin_distributions(outcomes, kind.margin_labels, f"Margins · {name} {split} · {scope}", models),
    }
    captions = {errors_id: verdict_caption(view), margins_id: margin_caption(view)}
    margins = at.margin_table(outcomes, kind)
    data = {
        "categories": list(categories),
        "category_labels": {c: category_label(c) for c in categories},
        "preference": plain(prefs.drop(columns=["facet"])),
        "margins": plain(margins),
        "margin_definitions": [m for m in kind.margin_labels if m],
        "figures": [errors_id, margins_id],
    }
    tables = {"preference": prefs, "margins": margins, "warning": at.preference_n_warning(prefs, models)}
    return Section("errors", data, figures, captions, tables)
