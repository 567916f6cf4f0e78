"""What every page needs to know about a dataset, declared once: kind, id column, the metric its
runs report, the per-item success rate the heatmap and error pages draw, and its chance level.

Shipped datasets carry these in their registry entry (``kind_facts`` fills them from the kind);
a user file gets them from its kind. Chance levels come from ``metrics.RANDOM_BASELINE``.
"""

from __future__ import annotations

from dataclasses import dataclass

from negviz import metrics
from negviz.schema import EXCLUSION, ID_COLUMN, PAIRS, PERTURBATION, SENTENCE_PAIRS

# kind -> (headline metric of a run, per-item success rate or None)
_KIND_METRICS = {
    PAIRS: ("paired_accuracy", "paired_accuracy"),
    EXCLUSION: ("right_rank", "right_rank"),
    PERTURBATION: ("sensitivity_ratio", "detection_accuracy"),
    SENTENCE_PAIRS: ("mean_similarity", None),
}
METRIC_LABELS = {
    "paired_accuracy": "paired accuracy",
    "right_rank": "Right Rank",
    "detection_accuracy": "detection accuracy",
    "sensitivity_ratio": "sensitivity ratio",
    "mean_similarity": "mean similarity",
    "delta_r1": "ΔR@1",  # ExcluIR over a corpus: metric(d+) - metric(d-) on the top-10 list
    "delta_mrr10": "ΔMRR@10",
}


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


LOWER_IS_BETTER = {"mean_similarity"}  # CANNOT: a negation-aware model scores negated pairs low


def metric_baseline(metric: str) -> float | None:
    """Chance level of a metric, or None where a random ranker has no single value."""
    return metrics.RANDOM_BASELINE.get(metric)


def kind_facts(kind: str) -> dict:
    """The registry fields a dataset of this kind declares (used in DATASETS.register)."""
    metric, item_metric = _KIND_METRICS[kind]
    return {
        "kind": kind,
        "id_column": ID_COLUMN[kind],
        "metric": metric,
        "item_metric": item_metric,
        "random_baseline": metric_baseline(item_metric) if item_metric else None,
    }


@dataclass(frozen=True)
class DatasetFacts:
    name: str
    kind: str
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
