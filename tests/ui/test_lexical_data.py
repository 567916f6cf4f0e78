"""negviz.ui.lexical_data: BM25's margins for the lexical confound come from the stored BM25 run
(a copy of the shipped runs, app_env), equal to the library's margins of that run's scores."""

import numpy as np

from negviz.analyses import lexical as X
from negviz.ui import lexical_data
from negviz.ui.dataset_cache import dataset_view


def test_margins_come_from_the_stored_bm25_run(app_env):
    view = dataset_view("nevir")
    run_id = str(view.chosen([X.LEXICAL_MODEL]).iloc[0]["run_id"])
    margins, source = lexical_data.margins("nevir")
    assert source == "the stored BM25 run"  # no run id for a person to decode
    wide = view.scores(run_id)  # indexed by item id
    first = margins.set_index("item_id").loc["1230-2"]
    # NevIR's first query: BM25's score of d1 minus that of d2, by hand from the stored scores
    assert np.isclose(first["margin1"], wide.loc["1230-2", "q1_d1"] - wide.loc["1230-2", "q1_d2"])
    assert len(margins) == 1383
