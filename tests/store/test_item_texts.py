"""negviz.store.item_texts: the text a run kept per item and slot (a generative reranker's
reasoning), saved beside the run and carried in its run file. On SQLite and PostgreSQL."""

from __future__ import annotations

import pandas as pd

from tests.store.test_run_table import make_record, make_scores
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_item_texts_are_saved_beside_the_run_and_travel_in_its_file(store, tmp_path):
    run_id = store.save_run(make_record(), make_scores(2))
    texts = pd.DataFrame(
        {"item_id": ["1000-2", "1001-2"], "slot": ["q1_d1", "q1_d2"], "name": "reasoning", "text": ["yes, d1", "no"]}
    )
    assert store.save_item_texts(run_id, None) == 0 and store.item_texts(run_id).empty
    blank = pd.DataFrame({"item_id": ["1002-2"], "slot": ["q1_d1"], "name": ["reasoning"], "text": ["  "]})
    assert store.save_item_texts(run_id, pd.concat([texts, blank])) == 2  # an empty text is not kept
    pd.testing.assert_frame_equal(store.item_texts(run_id), texts)
    path = store.export_run(run_id, tmp_path)
    store.delete_run(run_id)  # the texts go with the run
    assert store.item_texts(run_id).empty
    assert store.import_runs(path) == [run_id]
    pd.testing.assert_frame_equal(store.item_texts(run_id), texts)
    store.delete_run(run_id)
    assert store.import_runs(path, lazy=True) == [run_id] and store.pending_runs() == [run_id]
    pd.testing.assert_frame_equal(store.item_texts(run_id), texts)  # read in place from the file
    assert store.load_pending(run_id) == 1
    pd.testing.assert_frame_equal(store.item_texts(run_id), texts)  # copied in
