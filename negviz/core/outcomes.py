"""Per-item outcomes of a stored run: did the model get the item right, how it failed, by what margin.

The one place verdicts are computed. Every page (heatmap cell lists, error preference, the pair
inspector, presets), ``negviz compare`` and the report read them from here, always under the
tie rule the run was stored with, so one item has one verdict wherever it is shown:

    rule = tie_rule(record.options)                          # "strict" unless the run says "mteb"
    out = item_outcomes(ds.kind, store.scores_wide(run_id), rule)  # ds.kind: the kind object
    out[["item_id", "correct", "category", "margin1", "margin2", "margin"]]

``margin`` is the one number to sort and filter on: for NevIR pairs the smaller of the two query
margins (the pair is right iff it is > 0, or >= 0 on q2 under the MTEB rule), else
s(q, pos) - s(q, neg) or s(ref, candidate) - s(ref, perturbed). CANNOT-style sentence pairs are a
similarity with no verdict: ``correct`` is NA there.
"""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from negviz.core import metrics
from negviz.core.kinds import OUTCOME_COLUMNS, PAIRS_KIND, DatasetKind, KindTable

CORRECT = metrics.CORRECT
TIE = metrics.TIE
# The registry's per-kind facts by kind name (negviz.core.kinds), for tables keyed by name; code
# that holds a kind reads its own fields (kind.categories, kind.margin_labels, kind.has_verdicts).
# A kind that is not scored (a corpus) is in none of them.
CATEGORIES = KindTable(lambda k: k.categories if k.summary_of else None)  # success first (NevIR Fig. 4)
COLUMNS = OUTCOME_COLUMNS
QUERY_VERDICTS = PAIRS_KIND.query_verdicts  # a pair's two queries, each judged under the run's tie rule


def tie_rule(options: Mapping[str, Any] | None) -> str:
    """The tie rule a run was stored with (the NevIR code's strict rule unless it says otherwise)."""
    return (options or {}).get("tie_rule") or metrics.STRICT


def item_outcomes(kind: DatasetKind, wide: pd.DataFrame, rule: str = metrics.STRICT) -> pd.DataFrame:
    """One row per item of one run (``wide``: Store.scores_wide, items as index, slots as columns)."""
    return kind.outcomes(wide, rule)


def run_outcomes(kind: DatasetKind, runs: Mapping[str, tuple[str, pd.DataFrame, str]]) -> pd.DataFrame:
    """Outcomes of several runs, long, with ``model`` and ``run_id``: model -> (run_id, wide, tie
    rule); for pairs also each query's own verdict under its run's tie rule (c1, c2)."""
    parts = [
        item_outcomes(kind, wide, rule).assign(model=model, run_id=run_id)
        for model, (run_id, wide, rule) in runs.items()
    ]
    columns = ["model", "run_id", *COLUMNS, *kind.query_verdicts]
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]
