"""Aggregate metrics of a scored dataset, per dataset kind (what runs store and show)."""

from __future__ import annotations

import pandas as pd

from negviz import metrics
from negviz.item_scoring import wide_scores
from negviz.schema import EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS, SEVERITIES


def summarize(
    kind: str, frame: pd.DataFrame, scores: pd.DataFrame, tie_rule: str = metrics.STRICT, checked_only: bool = False
) -> dict:
    """Summary dict of a run; rates are fractions, every aggregate carries n and a CI."""
    wide = wide_scores(kind, frame, scores)
    if kind == PAIRS:
        return metrics.pairs_summary(wide["q1_d1"], wide["q1_d2"], wide["q2_d1"], wide["q2_d2"], tie_rule)
    if kind == EXCLUSION:
        return metrics.right_rank_summary(wide["pos"], wide["neg"])
    if kind == PERTURBATION:
        return perturbation_summary(frame, wide, checked_only)
    if kind == SENTENCE_PAIRS:
        return sentence_pairs_summary(frame, wide)
    raise ValueError(f"unknown dataset kind {kind!r}")


def perturbation_summary(frame: pd.DataFrame, wide: pd.DataFrame, checked_only: bool) -> dict:
    rows = []
    # The frame's text columns share the slot names, so the scores join under other names.
    slot_scores = wide[["candidate", "perturbed", "empty"]].add_prefix("score_")
    joined = frame.reset_index(drop=True).join(slot_scores)
    for name, part in joined.groupby("perturbation", sort=False):
        s = metrics.demetr_summary(
            part["score_candidate"], part["score_perturbed"], part["score_empty"], part["checked"], checked_only
        )
        rows.append({"perturbation": name, "severity": part["severity"].iloc[0], **s})
    order = {sev: i for i, sev in enumerate(SEVERITIES)}
    rows.sort(key=lambda r: (order.get(r["severity"], 9), r["perturbation"]))
    return {"metric": "sensitivity_ratio", "n": len(frame), "checked_only": checked_only, "perturbations": rows}


def sentence_pairs_summary(frame: pd.DataFrame, wide: pd.DataFrame) -> dict:
    joined = frame.reset_index(drop=True).join(wide[["sim"]])
    overall = metrics.sentence_pairs_summary(joined["sim"], joined["label"])
    per_source = [
        {"source": src, **metrics.sentence_pairs_summary(part["sim"], part["label"])}
        for src, part in joined.groupby("source", sort=True)
    ]
    return {**overall, "sources": per_source}


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
