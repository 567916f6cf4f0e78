"""What every page needs to know about a dataset, declared once: kind, id column, the metric its
runs report, the per-item success rate the heatmap and error pages draw, and its chance level.

Shipped datasets carry these in their registry entry (``kind_facts`` fills them from the kind);
a user file gets them from its kind. Metric labels, chance levels and directions are the metric
objects' (``metrics.METRICS``); what a kind is measured by is the kind's (``negviz.core.kinds``).
"""

from __future__ import annotations

from dataclasses import dataclass

from negviz.core import metrics
from negviz.core.kinds import DatasetKind, as_kind


def metric_label(metric: str) -> str:
    return metrics.metric(metric).label


def metric_baseline(metric: str) -> float | None:
    """Chance level of a metric, or None where a random ranker has no single value."""
    return metrics.metric(metric).chance


def lower_is_better(metric: str) -> bool:
    return not metrics.metric(metric).higher_is_better


def kind_facts(kind: DatasetKind | str) -> dict:
    """The registry fields a dataset of this kind declares (used in DATASETS.register, whose
    table names kinds): plain values, the kind by its name."""
    k = as_kind(kind)
    return {
        "kind": k.name,
        "id_column": k.id_column,
        "metric": k.metric,
        "item_metric": k.item_metric,
        "random_baseline": metric_baseline(k.item_metric) if k.item_metric else None,
    }


@dataclass(frozen=True)
class DatasetFacts:
    name: str
    kind: DatasetKind
    title: str
    id_column: str
    metric: str  # the headline metric its runs report (summaries.headline)
    item_metric: str | None  # the per-item success rate (None: the kind has no verdicts)
    random_baseline: float | None  # chance level of item_metric

    @property
    def item_metric_label(self) -> str:
        return metric_label(self.item_metric) if self.item_metric else ""

    @property
    def metric_label(self) -> str:
        return metric_label(self.metric)
