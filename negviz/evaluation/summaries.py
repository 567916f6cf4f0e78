"""Aggregate metrics of a scored dataset, per dataset kind (what runs store and show)."""

from __future__ import annotations

import functools
import json

import pandas as pd

from negviz.core import metrics
from negviz.core.kinds import NEGATION_PERTURBATION, PAIRS_KIND, DatasetKind, perturbation_row
from negviz.evaluation.item_scoring import wide_scores


def summarize(
    kind: DatasetKind,
    frame: pd.DataFrame,
    scores: pd.DataFrame,
    tie_rule: str = metrics.STRICT,
    checked_only: bool = False,
) -> dict:
    """Summary dict of a run; rates are fractions, every aggregate carries n and a CI."""
    return kind.summarize(frame, wide_scores(kind, frame, scores), tie_rule, checked_only)


RATIO = "sensitivity_ratio"  # a perturbation run's metric: one ratio per perturbation
HEADLINE_RATIO = "sensitivity_ratio (negation)"  # its headline: the negation perturbation's ratio


def _headline_row(summary: dict) -> dict | None:
    """A perturbation run's headline row (its negation perturbation's); None for other runs."""
    return perturbation_row(summary, NEGATION_PERTURBATION) if summary.get("metric") == RATIO else None


def headline(summary: dict) -> tuple[str, float | None]:
    """The one number a leaderboard shows for a run, with its metric name."""
    metric = summary.get("metric", "")
    if metric == RATIO:
        row = _headline_row(summary)
        return (HEADLINE_RATIO, row["sensitivity_ratio"] if row else None)
    return (metric, summary.get(metric))


def headline_ci(summary: dict) -> tuple[float | None, float | None]:
    """The 95% CI of the one number a run is shown by (headline)."""
    ci = summary.get("ci95")
    if isinstance(ci, dict):  # a corpus run: one CI per metric
        ci = ci.get(summary.get("metric"))
    if not ci and (row := _headline_row(summary)):
        ci = row.get("ratio_ci95")
    return (ci[0], ci[1]) if ci else (None, None)


def items_of(summary: dict | None, dataset_spec: dict | None) -> int | None:
    """The N of "n of N" for a run that scored part of its dataset, else None: an import's
    ``items_of``, or, for a run limited to its first items (``--limit``), the size of the whole
    dataset it was cut from (the runs shipped before ``items_of`` existed record only the limit)."""
    if of := (summary or {}).get("items_of"):
        return int(of)
    spec = dataset_spec if isinstance(dataset_spec, dict) else {}
    if not spec.get("limit"):
        return None
    from negviz.datasets.registered import DATASETS

    whole = json.dumps({**spec, "limit": None}, sort_keys=True, default=str)
    return _shipped_size(whole) if spec.get("name") in DATASETS else _whole_size(whole)


@functools.lru_cache(maxsize=64)
def _shipped_size(spec_json: str) -> int | None:
    """A shipped dataset's size per split and options: a fact of its files, read once."""
    return _whole_size(spec_json)


def _whole_size(spec_json: str) -> int | None:
    """Items of a dataset without its limit (its loader counts them as the runner does), or None
    when it cannot be loaded here (a file that moved, an added dataset of another store)."""
    from negviz.core.errors import NegvizError
    from negviz.core.registry import UnknownNameError
    from negviz.core.schema import DatasetSpec
    from negviz.datasets import load

    try:
        return len(load(DatasetSpec.from_dict(json.loads(spec_json))).frame)
    except (NegvizError, UnknownNameError, OSError, ValueError, KeyError):
        return None


def pair_verdict_table(frame: pd.DataFrame, scores: pd.DataFrame, tie_rule: str = metrics.STRICT) -> pd.DataFrame:
    """Per-pair table: metadata, the four scores, verdicts, margins and error category."""
    wide = wide_scores(PAIRS_KIND, frame, scores)
    v = metrics.pair_verdicts(wide["q1_d1"], wide["q1_d2"], wide["q2_d1"], wide["q2_d2"], tie_rule)
    meta = frame.drop(columns=["q1", "d1", "q2", "d2"]).reset_index(drop=True)
    return pd.concat([meta, wide.drop(columns=["item_id"]), v], axis=1)
