"""BM25's margins for a dataset (negviz.analyses.lexical), read through the dataset's view:
DatasetView.lexical_margins' rule (the stored BM25 run the pages would show for it, else scored
now with negviz's BM25, seconds), kept while the content and that run are the same."""

from __future__ import annotations

import pandas as pd

from negviz.ui.dataset_cache import dataset_view


def margins(name: str) -> tuple[pd.DataFrame, str]:
    """(item_id, margin1[, margin2] of BM25, where they come from)."""
    margins, source, _run = dataset_view(name).lexical_margins()
    return margins, source
