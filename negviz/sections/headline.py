"""The headline results as a section: the leaderboard's rows of the chosen runs (headline value, 95%
CI, n, ties), the papers' comparable rows, the model beside its own published rows, and the bars
the Overview page draws (negviz.analyses.leaderboard, negviz.charts.leaderboard).

    s = section(view, chosen)          # chosen: one run per model, in the report's order
    s.data["headline"][0]["value"], s.figures[f"headline-{view.name}"], s.caption.text()
    fig, note = bars(board, "nevir", "paired_accuracy", reference)     # the Overview's bars
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from negviz.analyses.beside_published import beside_published, published_overlay
from negviz.analyses.leaderboard import comparable_published, leaderboard
from negviz.charts.leaderboard import leaderboard_bars
from negviz.core import metric_text, metrics
from negviz.core.json_values import plain
from negviz.sections.base import Caption, Section

COLUMNS = ["model", "metric", "value", "ci_low", "ci_high", "n", "ties", "tie_rule", "run_id"]
SUMMARY_KEYS = ("per_query_accuracy", "spearman_paraphrase", "failures", "half_correct")


def bars_title(name: str, metric: str) -> str:
    return f"{metrics.metric(metric).label} on {name}"


def bars(board: pd.DataFrame, name: str, metric: str, reference: pd.DataFrame | None, overlay: bool = True):
    """The bars of ``board``'s rows of ``metric`` on dataset ``name`` with their CIs and chance
    level, the papers' numbers of the same metric and protocol as hollow bars (``overlay``), and a
    line saying why none are overlaid (or None)."""
    pub, missing = published_overlay(reference, name, metric) if overlay and reference is not None else (None, "")
    m = metrics.metric(metric)
    fig = leaderboard_bars(
        board, metric, m.chance, bars_title(name, metric), pub if pub is not None and len(pub) else None
    )
    return fig, (missing or None)


def caption(name: str, split: str | None, metric: str, n_items: int, overlay: bool = True) -> Caption:
    """The words under the bars: dataset, split, metric (its unit and chance level, as the metric
    model declares them), the dataset's n, how the CIs are made."""
    m = metrics.metric(metric)
    unit = f" in {m.unit}" if m.unit else ""
    chance = f" (random {metric_text.value(m, m.chance)})" if m.chance is not None else ""
    return Caption(
        "{name}" + (" {split}" if split else "") + f" · {m.label}{unit}{chance} · n = {n_items:,} items · "
        f"95% CI: {metrics.BOOTSTRAP_NOTE}." + (" Hollow grey bars: published numbers." if overlay else ""),
        {"name": name, "split": split or ""},
    )


def section(view, chosen: pd.DataFrame, catalog: pd.DataFrame | None = None, reference=None) -> Section:
    """The headline of ``chosen`` (DatasetView.chosen, one run per model, rows in the order shown):
    the leaderboard's rows with a few summary numbers, the comparable published rows, and the
    first model beside its own published rows."""
    from negviz.evaluation.catalog import load_catalog
    from negviz.evaluation.published import load_reference

    catalog = load_catalog() if catalog is None else catalog
    reference = load_reference() if reference is None else reference
    name = view.name
    order = list(chosen["model_name"])
    board = leaderboard(chosen, catalog).set_index("model").loc[order].reset_index()
    data: dict[str, Any] = {"headline": plain(board[COLUMNS])}
    records = chosen.to_dict("records")
    extra = {
        r["model_name"]: {k: v for k, v in (r["summary"] or {}).items() if k in SUMMARY_KEYS} | {"split": r["split"]}
        for r in records
    }
    for row in data["headline"]:
        row.update(plain(extra.get(row["model"], {})))
    metric = board["metric"].iloc[0]
    data["published"] = plain(comparable_published(reference, name, metric))
    mine = chosen[chosen["model_name"] == order[0]]  # its published rows, whatever their protocol
    data["beside"] = plain(beside_published(mine, reference).drop(columns=["model", "dataset"]))
    figures, captions = {}, {}
    data["headline_figure"] = None
    if not board["value"].isna().all():
        fig_id = f"headline-{name}"
        figures[fig_id], _ = bars(board, name, metric, reference)
        captions[fig_id] = caption(name, view.dataset.spec.split, metric, len(view.dataset.frame))
        data["headline_figure"] = fig_id
    return Section("headline", data, figures, captions, {"board": board})
