"""Per-item outcomes of a stored run: did the model get the item right, how it failed, by what margin.

The one place verdicts are computed. Every page (heatmap cell lists, error preference, the pair
inspector, presets), ``negviz compare`` and the report read them from here, always under the
tie rule the run was stored with, so one item has one verdict wherever it is shown:

    rule = tie_rule(record.options)                          # "strict" unless the run says "mteb"
    out = item_outcomes(kind, store.scores_wide(run_id), rule)
    out[["item_id", "correct", "category", "margin1", "margin2", "margin"]]

``margin`` is the one number to sort and filter on: for NevIR pairs the smaller of the two query
margins (the pair is right iff it is > 0, or >= 0 on q2 under the MTEB rule), else
s(q, pos) - s(q, neg) or s(ref, candidate) - s(ref, perturbed). CANNOT-style sentence pairs are a
similarity with no verdict: ``correct`` is NA there.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from negviz import metrics
from negviz.schema import EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS

CORRECT = metrics.CORRECT
TIE = metrics.TIE
WRONG = "wrong"  # ExcluIR: the excluded document ranked first; DEMETR: the perturbed one scored higher
# Outcome categories per dataset kind, success first (NevIR Fig. 4 for pairs).
CATEGORIES: dict[str, tuple[str, ...]] = {
    PAIRS: (CORRECT, metrics.PREFERS_ORIGINAL, metrics.PREFERS_EDITED, metrics.REVERSED, TIE),
    EXCLUSION: (CORRECT, WRONG, TIE),
    PERTURBATION: (CORRECT, WRONG, TIE),
    SENTENCE_PAIRS: (),
}
# The slots each margin subtracts, (should win, should lose), in MARGINS' order; CANNOT-style
# pairs have one similarity and nothing to lose against.
MARGIN_SLOTS: dict[str, tuple[tuple[str, str | None], ...]] = {
    PAIRS: (("q1_d1", "q1_d2"), ("q2_d2", "q2_d1")),
    EXCLUSION: (("pos", "neg"),),
    PERTURBATION: (("candidate", "perturbed"),),
    SENTENCE_PAIRS: (("sim", None),),
}
# What each margin is, per kind (margin2 exists only for pairs).
MARGINS = {
    PAIRS: ("s(q1,d1) - s(q1,d2)", "s(q2,d2) - s(q2,d1)"),
    EXCLUSION: ("s(q,pos) - s(q,neg)", None),
    PERTURBATION: ("s(ref,candidate) - s(ref,perturbed)", None),
    SENTENCE_PAIRS: (None, None),
}
COLUMNS = ("item_id", "correct", "category", "margin1", "margin2", "margin")
QUERY_VERDICTS = ("c1", "c2")  # a pair's two queries, each judged under the run's tie rule


def has_verdicts(kind: str) -> bool:
    """Whether items of this kind are right or wrong (sentence pairs are only a similarity)."""
    return bool(CATEGORIES.get(kind))


def failure_categories(kind: str) -> tuple[str, ...]:
    return CATEGORIES[kind][1:]


def tie_rule(options: Mapping[str, Any] | None) -> str:
    """The tie rule a run was stored with (the NevIR code's strict rule unless it says otherwise)."""
    return (options or {}).get("tie_rule") or metrics.STRICT


def item_outcomes(kind: str, wide: pd.DataFrame, rule: str = metrics.STRICT) -> pd.DataFrame:
    """One row per item of one run (``wide``: Store.scores_wide, items as index, slots as columns)."""
    ids = wide.index.astype(str)
    if kind == PAIRS:
        v = metrics.pair_verdicts(wide["q1_d1"], wide["q1_d2"], wide["q2_d1"], wide["q2_d2"], rule)
        m1, m2 = v["margin1"].to_numpy(), v["margin2"].to_numpy()
        return pd.DataFrame(
            {
                "item_id": ids,
                "correct": v["correct"].to_numpy(),
                "category": v["category"].to_numpy(),
                "margin1": m1,
                "margin2": m2,
                "margin": np.minimum(m1, m2),
                "c1": v["c1"].to_numpy(),
                "c2": v["c2"].to_numpy(),
            }
        )  # each query's own verdict
    if kind in (EXCLUSION, PERTURBATION):
        ((good, bad),) = MARGIN_SLOTS[kind]
        margin = (wide[good] - wide[bad]).to_numpy(dtype=np.float64)
        category = np.where(margin > 0, CORRECT, np.where(margin == 0, TIE, WRONG))
        return pd.DataFrame(
            {
                "item_id": ids,
                "correct": margin > 0,
                "category": category,
                "margin1": margin,
                "margin2": np.nan,
                "margin": margin,
            }
        )
    if kind == SENTENCE_PAIRS:
        return pd.DataFrame(
            {
                "item_id": ids,
                "correct": pd.array([pd.NA] * len(ids), dtype="boolean"),
                "category": "",
                "margin1": np.nan,
                "margin2": np.nan,
                "margin": np.nan,
            }
        )
    raise ValueError(f"unknown dataset kind {kind!r}")


def run_outcomes(kind: str, runs: Mapping[str, tuple[str, pd.DataFrame, str]]) -> pd.DataFrame:
    """Outcomes of several runs, long, with ``model`` and ``run_id``: model -> (run_id, wide, tie
    rule); for pairs also each query's own verdict under its run's tie rule (c1, c2)."""
    parts = [
        item_outcomes(kind, wide, rule).assign(model=model, run_id=run_id)
        for model, (run_id, wide, rule) in runs.items()
    ]
    columns = ["model", "run_id", *COLUMNS, *(QUERY_VERDICTS if kind == PAIRS else ())]
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]
