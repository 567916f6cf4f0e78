"""The pair inspector's data, read through the dataset's view (negviz.ui.dataset_cache), so a P/N
step only redraws one pair: the automatic types and the item table are kept while the dataset's
content is the same, every shown run's verdicts by run id and tie rule (a stored run never
changes); only the annotations, which other annotators may be writing, are read on each step.
"""

from __future__ import annotations

import pandas as pd

from negviz.analyses import inspector as F
from negviz.ui.dataset_cache import dataset_view


def automatic_types(name: str) -> pd.DataFrame:
    """The taxonomy's type of every item (DatasetView.automatic_types)."""
    return dataset_view(name).automatic_types()


def items(name: str, annotations: pd.DataFrame, annotator: str) -> pd.DataFrame:
    """The inspector's item table (DatasetView.inspector_items), with the annotation columns of now."""
    return F.with_annotations(dataset_view(name).inspector_items(), annotations, annotator)


def verdicts(name: str, runs: pd.DataFrame) -> pd.DataFrame:
    """Every shown run's verdicts (negviz.core.outcomes under its tie rule), stacked with ``model``."""
    return dataset_view(name).stacked_verdicts(runs)
