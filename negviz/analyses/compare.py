"""Compare two stored runs on the items they share (McNemar's test on per-item correctness)."""

from __future__ import annotations

import pandas as pd

from negviz import metrics
from negviz.schema import EXCLUSION, PAIRS


def item_correctness(kind: str, wide: pd.DataFrame, tie_rule: str = metrics.STRICT) -> pd.Series:
    """Per-item success (pair verdict for NevIR-style pairs, pos > neg for ExcluIR)."""
    if kind == PAIRS:
        v = metrics.pair_verdicts(wide["q1_d1"], wide["q1_d2"], wide["q2_d1"], wide["q2_d2"], tie_rule)
        return pd.Series(v["correct"].to_numpy(), index=wide.index)
    if kind == EXCLUSION:
        return wide["pos"] > wide["neg"]
    raise ValueError(f"McNemar needs a binary outcome per item; {kind!r} runs have none")


def compare_runs(store, run_a: str, run_b: str) -> dict:
    a, b = store.get_run(run_a), store.get_run(run_b)
    if a.dataset_kind != b.dataset_kind or a.dataset_name != b.dataset_name:
        raise ValueError(f"runs are on different datasets ({a.dataset_name} vs {b.dataset_name})")
    rule = (a.options or {}).get("tie_rule", metrics.STRICT)
    ca = item_correctness(a.dataset_kind, store.scores_wide(run_a), rule)
    cb = item_correctness(b.dataset_kind, store.scores_wide(run_b), rule)
    shared = ca.index.intersection(cb.index)
    if shared.empty:
        raise ValueError("the two runs share no items")
    test = metrics.mcnemar(ca.loc[shared], cb.loc[shared])
    return {
        "model_a": a.model_name,
        "model_b": b.model_name,
        "dataset": a.dataset_name,
        "n_shared": len(shared),
        "accuracy_a": float(ca.loc[shared].mean()),
        "accuracy_b": float(cb.loc[shared].mean()),
        "tie_rule": rule,
        **test,
    }
