"""The uncertainty order of a project's pairs, from the runs stored on its dataset (one per model,
negviz.run_choice; verdicts from negviz.outcomes; the rule in negviz.analyses.uncertainty)."""

from __future__ import annotations

import pandas as pd

from negviz import outcomes, run_choice
from negviz.analyses.uncertainty import uncertainty_order


def project_outcomes(store, dataset: str) -> pd.DataFrame:
    """Outcomes of the run that stands for each model on ``dataset`` (empty without runs)."""
    chosen = run_choice.choose_runs(store.runs(dataset=dataset))
    if chosen.empty:
        return pd.DataFrame(columns=["model", "run_id", *outcomes.COLUMNS])
    wide = store.scores_wide_many(list(chosen["run_id"]))
    kind = str(chosen["dataset_kind"].iloc[0])
    runs = {r.model_name: (r.run_id, wide[r.run_id], outcomes.tie_rule(r.options)) for r in chosen.itertuples()}
    return outcomes.run_outcomes(kind, runs)


def uncertainty_table(store, project) -> pd.DataFrame:
    return uncertainty_order(project_outcomes(store, project.dataset), list(project.items))


def uncertainty_ids(store, project) -> list[str]:
    return uncertainty_table(store, project)["item_id"].tolist()
