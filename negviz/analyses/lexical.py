"""The lexical confound: does a model prefer the document that shares more words with the query,
whatever the negation says?

The measure is BM25's own margin on the same comparison: for NevIR's q1, BM25(q1, d1) -
BM25(q1, d2), for ExcluIR BM25(q, pos) - BM25(q, neg) (the kind's margin_slots), with negviz's
BM25 (Lucene variant, the dataset's documents as the collection, negation words kept; see
negviz.scorers.bm25). Lexical-overlap baselines of this kind are what the NevIR paper reports as
BM25's row; using BM25's margin as the overlap measure follows the "lexical bias" analyses of
dense retrievers (e.g. Ram et al., 2023, "What are you token about?", which relate a dense model's
preferences to BM25's). A comparison "leans lexically" towards the right document when BM25's
margin is > 0, towards the wrong one when < 0, and not at all on a tie.

    lex = lexical_margins(kind, frame, bm25_wide)            # item_id, margin1, margin2
    table = confound_table(comparisons(verdicts, lex))       # per model and lean: how often wrong
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from negviz.analyses.inspector import model_verdicts
from negviz.core import metrics, outcomes
from negviz.core.kinds import DatasetKind

LEXICAL_MODEL = "bm25"
RIGHT, WRONG, NEITHER = "towards the right document", "towards the wrong document", "neither (tie)"
LEANS = (RIGHT, WRONG, NEITHER)
SCORED_NOW = "BM25 scored now (no stored BM25 run on this dataset)"
MEASURE = (
    "BM25's own margin on the same comparison (negviz bm25: Lucene variant, the dataset's documents as "
    "collection, negation words kept)"
)


def lexical_margins(kind: DatasetKind, frame: pd.DataFrame, bm25_wide: pd.DataFrame) -> pd.DataFrame:
    """BM25's margins per item (item_id, margin1[, margin2]) from a BM25 run's wide scores."""
    verdicts = model_verdicts(kind, frame, bm25_wide)
    names = ["margin1", "margin2"][: len(kind.margin_slots)]
    return verdicts[["item_id", *names]].reset_index(drop=True)


def lean(margin: pd.Series | np.ndarray) -> np.ndarray:
    """Where a lexical margin leans: RIGHT (> 0), WRONG (< 0) or NEITHER (0)."""
    m = np.asarray(margin, dtype=np.float64)
    return np.where(m > 0, RIGHT, np.where(m < 0, WRONG, NEITHER))


def comparisons(verdicts: pd.DataFrame, lexical: pd.DataFrame) -> pd.DataFrame:
    """One row per model, item and comparison (a NevIR pair has two): the model's margin, BM25's
    margin and lean, and the model's choice (right / wrong / tie), right as the run's verdict
    says (negviz.core.outcomes: under MTEB's tie rule a tie on q2 is right)."""
    names = [c for c in ("margin1", "margin2") if c in lexical]
    model = verdicts.melt(
        id_vars=["model", "item_id"], value_vars=names, var_name="comparison", value_name="model_margin"
    )
    lex = lexical.melt(id_vars=["item_id"], value_vars=names, var_name="comparison", value_name="lexical_margin")
    out = model.merge(lex, on=["item_id", "comparison"], how="inner").dropna(subset=["model_margin"])
    out["lean"] = lean(out["lexical_margin"])
    m = out["model_margin"].to_numpy(dtype=np.float64)
    right = m > 0
    judged = dict(zip(("margin1", "margin2"), outcomes.QUERY_VERDICTS))
    if set(judged.values()) <= set(verdicts.columns):  # each query's verdict under the run's tie rule
        said = verdicts.melt(id_vars=["model", "item_id"], value_vars=list(judged.values()), value_name="right")
        said["comparison"] = said["variable"].map({v: k for k, v in judged.items()})
        keys = out[["model", "item_id", "comparison"]]
        right = keys.merge(said, on=["model", "item_id", "comparison"], how="left")["right"].fillna(False)
        right = right.to_numpy(dtype=bool)
    out["choice"] = np.where(right, "right", np.where(m == 0, "tie", "wrong"))
    return out


def confound_table(comps: pd.DataFrame) -> pd.DataFrame:
    """Per model and lexical lean: n comparisons, the share the model got wrong (ties count as
    wrong, as the strict NevIR rule does) with a bootstrap 95% CI, and the share it got right."""
    rows = []
    for (model, where), part in comps.groupby(["model", "lean"], sort=False):
        not_right = (part["choice"] != "right").to_numpy(dtype=np.float64)
        low, high = metrics.bootstrap_ci(not_right)
        rows.append(
            {
                "model": model,
                "lexical lean": where,
                "n": len(part),
                "wrong or tie": float(not_right.mean()),
                "ci_low": low,
                "ci_high": high,
                "right": float((part["choice"] == "right").mean()),
            }
        )
    out = pd.DataFrame(rows, columns=["model", "lexical lean", "n", "wrong or tie", "ci_low", "ci_high", "right"])
    order = {v: i for i, v in enumerate(LEANS)}
    return out.sort_values(
        ["model", "lexical lean"], key=lambda s: s.map(order) if s.name == "lexical lean" else s
    ).reset_index(drop=True)


def follows_lexicon(comps: pd.DataFrame) -> pd.DataFrame:
    """Per model: among comparisons where BM25 is not tied, how often the model picks the document
    BM25 prefers (1.0: it follows word overlap whatever the negation; the gold does so in
    ``share_right_is_lexical`` of them)."""
    part = comps[comps["lean"] != NEITHER]
    rows = []
    for model, g in part.groupby("model", sort=False):
        agree = ((g["lean"] == RIGHT) & (g["choice"] == "right")) | ((g["lean"] == WRONG) & (g["choice"] == "wrong"))
        low, high = metrics.bootstrap_ci(agree.to_numpy(dtype=np.float64))
        rows.append(
            {
                "model": model,
                "n": len(g),
                "follows BM25": float(agree.mean()),
                "ci_low": low,
                "ci_high": high,
                "share_right_is_lexical": float((g["lean"] == RIGHT).mean()),
            }
        )
    return pd.DataFrame(rows, columns=["model", "n", "follows BM25", "ci_low", "ci_high", "share_right_is_lexical"])


def item_lean(lexical: pd.DataFrame) -> pd.DataFrame:
    """Per item, for the inspector's filter: RIGHT when every comparison leans right, WRONG when
    any leans wrong, else NEITHER."""
    names = [c for c in ("margin1", "margin2") if c in lexical]
    leans = np.stack([lean(lexical[c]) for c in names], axis=1)
    out = np.where((leans == WRONG).any(1), WRONG, np.where((leans == RIGHT).all(1), RIGHT, NEITHER))
    return pd.DataFrame(
        {
            "item_id": lexical["item_id"].to_numpy(),
            "lexical_lean": out,
            "lexical_margin": lexical[names].min(axis=1).to_numpy(),
        }
    )
