"""Which pairs are worth a person's time first: where the stored models disagree, then where their
margins are smallest (uncertainty sampling, as active-learning annotation tools order their queues).

    order = uncertainty_order(outcomes)      # negviz.core.outcomes.run_outcomes of the chosen runs
    order["item_id"].tolist()                # most uncertain first

The rule (RULE) in three keys, each breaking the previous one's ties:
1. disagreement = min(r, m - r) / m over the m models with a verdict on the pair, r of them right:
   0 when all agree, 0.5 when they split evenly (vote entropy's order, without its logarithm);
2. closeness = the mean over models of the pair's |margin| as a percentile within that model's
   own |margins| (0 = that model's closest call): scores are not comparable across models, their
   ranks are;
3. the pair's position in the dataset, so the order is stable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

RULE = (
    "models that disagree first (min(right, wrong) / models), then the smallest margins (mean over "
    "models of |margin|'s percentile within the model), then dataset order"
)
COLUMNS = ("item_id", "models", "right", "disagreement", "closeness")


def uncertainty_order(outcomes: pd.DataFrame, item_order: list[str] | None = None) -> pd.DataFrame:
    """Items of ``outcomes`` (model, item_id, correct, margin, ...) most uncertain first; items of
    ``item_order`` that no model scored come last, in their order."""
    known = outcomes.dropna(subset=["correct"]).copy()
    if known.empty:
        out = pd.DataFrame(columns=list(COLUMNS))
    else:
        known["right"] = known["correct"].astype(bool).astype(int)
        known["closeness"] = known["margin"].abs().groupby(known["model"]).rank(pct=True)
        per = (
            known.groupby("item_id")
            .agg(models=("model", "nunique"), right=("right", "sum"), closeness=("closeness", "mean"))
            .reset_index()
        )
        per["disagreement"] = np.minimum(per["right"], per["models"] - per["right"]) / per["models"]
        out = per[list(COLUMNS)]
    order = [str(i) for i in (item_order if item_order is not None else out["item_id"])]
    position = {item: n for n, item in enumerate(order)}
    out = out.assign(item_id=out["item_id"].astype(str))
    out = out[out["item_id"].isin(position)] if item_order is not None else out
    out = out.assign(_pos=out["item_id"].map(position))
    out = out.sort_values(["disagreement", "closeness", "_pos"], ascending=[False, True, True]).drop(columns="_pos")
    missing = [i for i in order if i not in set(out["item_id"])]
    rest = pd.DataFrame(
        {"item_id": missing, "models": 0, "right": 0, "disagreement": float("nan"), "closeness": float("nan")}
    )
    return pd.concat([out, rest], ignore_index=True) if missing else out.reset_index(drop=True)
