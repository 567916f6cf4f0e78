"""The store's finished shards (pending_shards), on SQLite and a real PostgreSQL: each kept once,
read back exactly (scores in their order, texts, record), listed per cut, dropped per spec, a bad
frame refused before anything is written, and the table added to a store made before it."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.store import Store
from negviz.store import tables as t
from tests.store.test_run_table import make_scores
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

RECORD = {"device": "cpu", "wall_seconds": 1.5, "host": "worker-1", "summary": {"model_format": "safetensors"}}


def test_a_shard_is_kept_once_and_read_back_exactly(store):
    scores = make_scores(5, seed=1).iloc[::-1].reset_index(drop=True)  # an order of its own, kept
    texts = pd.DataFrame({"item_id": ["1000-2"], "slot": ["q1_d1"], "name": ["reasoning"], "text": ["because"]})
    assert store.save_shard("k", 3, 1, (10, 15), RECORD, scores, texts) is True
    assert store.save_shard("k", 3, 1, (10, 15), RECORD, make_scores(5, seed=2)) is False  # the first copy stays
    (row,) = store.read_shards("k", 3)
    assert (row.index, row.count, row.start, row.stop, row.record) == (1, 3, 10, 15, RECORD)
    pd.testing.assert_frame_equal(row.scores, scores, check_exact=True, check_dtype=False)
    pd.testing.assert_frame_equal(row.texts, texts, check_dtype=False)


def test_shards_are_listed_per_cut_and_dropped_per_spec(store):
    for index in (2, 0):
        store.save_shard("k", 3, index, (index * 5, index * 5 + 5), RECORD, make_scores(5, seed=index))
    store.save_shard("k", 2, 0, (0, 8), RECORD, make_scores(8))  # the same spec cut another way
    store.save_shard("other", 3, 0, (0, 5), RECORD, make_scores(5))
    assert store.kept_shards("k", 3) == [0, 2] and store.kept_shards("k", 2) == [0]
    assert [r.index for r in store.read_shards("k", 3)] == [0, 2] and store.read_shards("k", 3)[1].texts is None
    assert store.drop_shards("k") == 3
    assert store.kept_shards("k", 3) == [] and store.kept_shards("other", 3) == [0]


def test_a_bad_frame_is_refused_before_anything_is_written(store):
    bad = make_scores(3).assign(score=[1.0, float("nan"), 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(DataValidationError, match="not a finite number"):
        store.save_shard("k", 2, 0, (0, 3), RECORD, bad)
    assert store.kept_shards("k", 2) == []


def test_a_store_made_before_the_table_gets_it_on_opening(store_url):
    with Store(store_url) as first:
        first.save_shard("k", 1, 0, (0, 2), RECORD, make_scores(2))
        with first.engine.begin() as conn:
            t.pending_shards.drop(conn)
    with Store(store_url) as again:
        assert again.kept_shards("k", 1) == []
        assert again.save_shard("k", 1, 0, (0, 2), RECORD, make_scores(2)) is True
