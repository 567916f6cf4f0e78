"""A fix against its base, item by item: which pairs a trained (or re-architected) model repaired
and which it broke, relative to the model it was made from.

Both runs are judged as every page judges them (negviz.analyses.compare.item_correctness, each
under its own tie rule) on the items both scored. Repaired: the base was wrong and the model is
right; broken: the reverse. The difference of accuracies carries a paired bootstrap 95% CI (the
same resamples for both, negviz.core.metrics.bootstrap_ci over per-item differences) and McNemar's
test (negviz.core.metrics.mcnemar: exact below 25 discordant items).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from negviz.analyses.compare import item_correctness
from negviz.core import metrics
from negviz.core.kinds import DatasetKind

REPAIRED, BROKEN = "repaired", "broken"


def repairs(kind: DatasetKind, model_wide: pd.DataFrame, model_rule: str, base_wide: pd.DataFrame, base_rule: str):
    """(per-item frame: item_id, base_correct, model_correct, change in {repaired, broken, ""}),
    on the items both runs scored, in the model run's item order."""
    model = item_correctness(kind, model_wide, model_rule)
    base = item_correctness(kind, base_wide, base_rule)
    shared = model.index.intersection(base.index, sort=False)
    frame = pd.DataFrame(
        {
            "item_id": shared.astype(str),
            "base_correct": base.loc[shared].to_numpy(dtype=bool),
            "model_correct": model.loc[shared].to_numpy(dtype=bool),
        }
    )
    frame["change"] = np.select(
        [frame["model_correct"] & ~frame["base_correct"], frame["base_correct"] & ~frame["model_correct"]],
        [REPAIRED, BROKEN],
        "",
    )
    return frame


def summary(items: pd.DataFrame) -> dict[str, Any]:
    """Accuracy of both, their difference with its paired 95% CI, McNemar's p, and the counts."""
    if items.empty:
        raise ValueError("the model's run and its base's share no items")
    delta = items["model_correct"].astype(float) - items["base_correct"].astype(float)
    lo, hi = metrics.bootstrap_ci(delta.to_numpy())
    test = metrics.mcnemar(items["base_correct"], items["model_correct"])
    return {
        "n": len(items),
        "base_accuracy": float(items["base_correct"].mean()),
        "model_accuracy": float(items["model_correct"].mean()),
        "difference": float(delta.mean()),
        "difference_ci_low": float(lo),
        "difference_ci_high": float(hi),
        "p_value": test["p_value"],
        "test": test["method"],
        REPAIRED: int((items["change"] == REPAIRED).sum()),
        BROKEN: int((items["change"] == BROKEN).sum()),
    }


def by_type(items: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Per negation type (labels: item_id, type): items, repaired, broken, and each type's share of
    all repairs beside its share of the items (where repairs concentrate), most repaired first."""
    typed = items.merge(labels[["item_id", "type"]].astype({"item_id": str}), on="item_id", how="left")
    typed["type"] = typed["type"].fillna("unlabelled")
    table = typed.groupby("type").agg(
        items=("item_id", "size"),
        repaired=("change", lambda c: int((c == REPAIRED).sum())),
        broken=("change", lambda c: int((c == BROKEN).sum())),
    )
    total_repaired = max(int(table["repaired"].sum()), 1)
    table["share_of_repairs"] = table["repaired"] / total_repaired
    table["share_of_items"] = table["items"] / len(typed)
    return table.sort_values(["repaired", "items"], ascending=False).reset_index()
