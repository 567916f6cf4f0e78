"""Aggregate metrics of a scored dataset, per dataset kind (what runs store and show)."""

from __future__ import annotations

import pandas as pd

from negviz.core import metrics
from negviz.core.kinds import kind_of
from negviz.core.schema import PAIRS
from negviz.evaluation.item_scoring import wide_scores


def summarize(
    kind: str, frame: pd.DataFrame, scores: pd.DataFrame, tie_rule: str = metrics.STRICT, checked_only: bool = False
) -> dict:
    """Summary dict of a run; rates are fractions, every aggregate carries n and a CI."""
    return kind_of(kind).summarize(frame, wide_scores(kind, frame, scores), tie_rule, checked_only)


def headline(summary: dict) -> tuple[str, float | None]:
    """The one number a leaderboard shows for a run, with its metric name."""
    metric = summary.get("metric", "")
    if metric == "sensitivity_ratio":
        neg = [p for p in summary.get("perturbations", []) if p["perturbation"] == "critical_id8_negation"]
        return ("sensitivity_ratio (negation)", neg[0]["sensitivity_ratio"] if neg else None)
    return (metric, summary.get(metric))


def pair_verdict_table(frame: pd.DataFrame, scores: pd.DataFrame, tie_rule: str = metrics.STRICT) -> pd.DataFrame:
    """Per-pair table: metadata, the four scores, verdicts, margins and error category."""
    wide = wide_scores(PAIRS, frame, scores)
    v = metrics.pair_verdicts(wide["q1_d1"], wide["q1_d2"], wide["q2_d1"], wide["q2_d2"], tie_rule)
    meta = frame.drop(columns=["q1", "d1", "q2", "d2"]).reset_index(drop=True)
    return pd.concat([meta, wide.drop(columns=["item_id"]), v], axis=1)
