"""The uncertainty order of a project's pairs, from the runs stored on its dataset (one per model,
negviz.evaluation.run_choice; verdicts from negviz.core.outcomes; the rule in negviz.analyses.uncertainty)."""

from __future__ import annotations

import pandas as pd

from negviz.analyses.uncertainty import uncertainty_order
from negviz.core import outcomes


def project_outcomes(view) -> pd.DataFrame:
    """Outcomes of the run that stands for each model on the view's dataset (a
    negviz.results.dataset_view.DatasetView; empty without runs)."""
    chosen = view.chosen()
    if chosen.empty:
        return pd.DataFrame(columns=["model", "run_id", *outcomes.COLUMNS])
    return view.outcomes(chosen)


def uncertainty_table(view, project) -> pd.DataFrame:
    """The project's pairs, most uncertain first, from the runs on ``view`` (its dataset's view)."""
    return uncertainty_order(project_outcomes(view), list(project.items))


def uncertainty_ids(view, project) -> list[str]:
    return uncertainty_table(view, project)["item_id"].tolist()
