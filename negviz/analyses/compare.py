"""Compare two stored runs on the items they share (McNemar's test on per-item correctness).

Each run's items are judged by negviz.core.outcomes under that run's own tie rule, so the verdicts
compared here are the ones every page shows for the two runs.
"""

from __future__ import annotations

import pandas as pd

from negviz.core import metrics, outcomes
from negviz.core.kinds import DatasetKind, kind_of


def item_correctness(kind: DatasetKind, wide: pd.DataFrame, tie_rule: str = metrics.STRICT) -> pd.Series:
    """Per-item success of one run (item id -> bool), as every page shows it."""
    if not kind.has_verdicts:
        raise ValueError(f"McNemar needs a right/wrong outcome per item; {kind.name!r} runs have none")
    out = outcomes.item_outcomes(kind, wide, tie_rule)
    return pd.Series(out["correct"].to_numpy(dtype=bool), index=out["item_id"])


def compare(a, wide_a: pd.DataFrame, b, wide_b: pd.DataFrame) -> dict:
    """McNemar's test between two stored runs (RunRecords ``a``, ``b`` with Store.scores_wide of
    each) on the items both scored; each run judged under its own tie rule."""
    if a.dataset_kind != b.dataset_kind or a.dataset_name != b.dataset_name:
        raise ValueError(f"runs are on different datasets ({a.dataset_name} vs {b.dataset_name})")
    rule_a, rule_b = outcomes.tie_rule(a.options), outcomes.tie_rule(b.options)
    kind = kind_of(a.dataset_kind)  # the stored record names its kind
    ca = item_correctness(kind, wide_a, rule_a)
    cb = item_correctness(kind, wide_b, rule_b)
    shared = ca.index.intersection(cb.index)
    if shared.empty:
        raise ValueError("the two runs share no items")
    test = metrics.mcnemar(ca.loc[shared], cb.loc[shared])
    return {
        "run_a": a.run_id,
        "run_b": b.run_id,
        "model_a": a.model_name,
        "model_b": b.model_name,
        "dataset": a.dataset_name,
        "n_shared": len(shared),
        "accuracy_a": float(ca.loc[shared].mean()),
        "accuracy_b": float(cb.loc[shared].mean()),
        "tie_rule_a": rule_a,
        "tie_rule_b": rule_b,
        **test,
    }


def verdict_disagreements(outs: pd.DataFrame, model: str, other: str, per_side: int) -> pd.DataFrame:
    """Items where ``model`` and ``other`` disagree (outcomes frames of both), most first: each run's
    margin as a percentile of its own margins (the models' score scales differ), ranked by the
    difference of the two; ``per_side`` items where the model is right and the other wrong, then
    the reverse, with ``side`` naming which."""
    a = outs[outs["model"] == model].set_index("item_id")
    b = outs[outs["model"] == other].set_index("item_id")
    shared = a.index.intersection(b.index)
    a, b = a.loc[shared], b.loc[shared]
    pa, pb = a["margin"].rank(pct=True), b["margin"].rank(pct=True)
    table = pd.DataFrame(
        {
            "item_id": shared,
            "model_correct": a["correct"].astype(bool).to_numpy(),
            "other_correct": b["correct"].astype(bool).to_numpy(),
            "model_margin": a["margin"].to_numpy(),
            "other_margin": b["margin"].to_numpy(),
            "percentile_difference": (pa - pb).to_numpy(),
        }
    )
    wins = table[table["model_correct"] & ~table["other_correct"]].nlargest(per_side, "percentile_difference")
    losses = table[~table["model_correct"] & table["other_correct"]].nsmallest(per_side, "percentile_difference")
    return pd.concat(
        [wins.assign(side=f"{model} right, {other} wrong"), losses.assign(side=f"{model} wrong, {other} right")],
        ignore_index=True,
    )
