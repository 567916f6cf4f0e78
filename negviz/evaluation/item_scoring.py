"""Score every slot of every item of a dataset with one scorer call.

All (query, document) pairs of all slots go to the scorer at once, so each unique text or
pair is computed once (DEMETR's references repeat across 35 perturbation files).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from negviz.core.kinds import DatasetKind
from negviz.scorers.base import Progress, Scorer, no_progress


def scoring_inputs(kind: DatasetKind, frame: pd.DataFrame) -> tuple[list[str], list[str], list[str], list[str]]:
    """Aligned lists of queries, documents, item ids and slots for a dataset frame."""
    ids = kind.item_ids(frame).tolist()
    queries: list[str] = []
    docs: list[str] = []
    items: list[str] = []
    slots: list[str] = []
    for slot, (qcol, dcol) in kind.slots.items():
        queries += frame[qcol].tolist()
        docs += [dcol[1:]] * len(frame) if dcol.startswith("=") else frame[dcol].tolist()
        items += ids
        slots += [slot] * len(frame)
    return queries, docs, items, slots


def score_dataset(
    kind: DatasetKind, frame: pd.DataFrame, scorer: Scorer, progress: Progress = no_progress
) -> pd.DataFrame:
    """Long score frame (item_id, slot, score) for every item and slot."""
    queries, docs, items, slots = scoring_inputs(kind, frame)
    scores = scorer.score(queries, docs, progress)
    if not np.all(np.isfinite(scores)):
        bad = [f"{i}/{s}" for i, s, v in zip(items, slots, scores) if not np.isfinite(v)][:5]
        raise ValueError(f"{scorer.name} produced non-finite scores for {bad}")
    return pd.DataFrame({"item_id": items, "slot": slots, "score": scores})


def wide_scores(kind: DatasetKind, frame: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Scores pivoted to one column per slot, rows in the dataset frame's order."""
    wide = scores.pivot(index="item_id", columns="slot", values="score")
    ids = kind.item_ids(frame)
    missing = set(ids) - set(wide.index)
    if missing:
        raise ValueError(f"scores lack {len(missing)} items of the dataset, e.g. {sorted(missing)[:3]}")
    return wide.loc[ids.tolist(), list(kind.slots)].reset_index()
