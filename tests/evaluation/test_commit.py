"""The store side of a sharded run, on SQLite and a real PostgreSQL: finished shards kept once,
the run committed once when the last one is in (equal to run_eval's), shards a killed driver
left reused, two drivers at once storing one run (the table itself: tests/store/test_shard_table.py)."""

from __future__ import annotations

import threading

import pandas as pd
import pytest
import sqlalchemy as sa

from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill.commit import commit, keep, kept
from negviz.evaluation.fill.shards import compute_shard, cut
from negviz.evaluation.runner import run_eval
from negviz.store import Store
from negviz.store import tables as t
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

SLICE = DatasetSpec.make("nevir", limit=40)
MODEL = "tfidf"  # no weights: the store side is what is tested here


@pytest.fixture
def computed(tmp_path):
    """The 3 shards of tfidf on NevIR[:40], scored, and the same run computed whole."""
    shards = cut(MODEL, SLICE, 3, cache=ScoreCache(tmp_path / "c.sqlite"))
    results = [compute_shard(s, cache_dir=str(tmp_path / "worker")) for s in shards]
    whole = run_eval(MODEL, SLICE, cache=ScoreCache(tmp_path / "whole.sqlite"))
    return shards, results, whole


def _runs_of(store, key: str) -> int:
    with store.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).where(t.runs.c.spec_key == key)).scalar()


def _kept_rows(store) -> int:
    with store.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(t.pending_shards)).scalar()


def test_a_shard_is_kept_once_and_read_back_exactly(store, computed):
    shards, results, _ = computed
    assert keep(store, results[1]) is True
    assert keep(store, results[1]) is False  # a retried task's second copy is refused
    assert kept(store, shards[0]) == {1}
    (row,) = store.read_shards(shards[0].key, 3)
    pd.testing.assert_frame_equal(row.scores, results[1].scores, check_exact=True)
    assert (row.start, row.stop, row.record["n"]) == (shards[1].start, shards[1].stop, shards[1].items)
    assert store.kept_shards(shards[0].key, 4) == []  # another cut of the spec is another set


def test_the_run_is_committed_when_the_last_shard_is_in(store, computed):
    shards, results, whole = computed
    for r in results[:2]:
        keep(store, r)
    assert commit(store, shards[0]) is None  # not whole yet: nothing stored
    assert store.find_run(shards[0].key) is None
    keep(store, results[2])
    done = commit(store, shards[0])
    assert not done.reused and done.record.spec_key == whole.record.spec_key
    pd.testing.assert_frame_equal(store.scores(done.record.run_id), store_order(whole.scores), check_exact=True)
    stored = store.get_run(done.record.run_id)
    assert stored.n == 40 and stored.summary["paired_accuracy"] == whole.summary["paired_accuracy"]
    assert stored.summary["error_counts"] == whole.summary["error_counts"]
    assert stored.wall_seconds == pytest.approx(sum(r.record.wall_seconds for r in results))
    assert _kept_rows(store) == 0  # the spec's shards go once its run is stored
    again = commit(store, shards[0])  # a late driver finds the run
    assert again.reused and again.record.run_id == done.record.run_id


def test_shards_a_killed_driver_kept_are_reused(store, computed, tmp_path):
    shards, results, _ = computed
    keep(store, results[0])  # the first driver finished one shard, then died
    # the second driver submits only what is not kept
    todo = [s for s in shards if s.index not in kept(store, s)]
    assert [s.index for s in todo] == [1, 2]
    for s in todo:
        keep(store, compute_shard(s, cache_dir=str(tmp_path / "second")))
    assert commit(store, shards[0]) is not None
    assert _runs_of(store, shards[0].key) == 1


def test_two_drivers_at_once_store_one_run(store_url, computed):
    shards, results, _ = computed
    stores = [Store(store_url), Store(store_url)]
    barrier = threading.Barrier(2)
    out: list = [None, None]

    def drive(i: int) -> None:
        for r in results:
            keep(stores[i], r)
        barrier.wait()
        out[i] = commit(stores[i], shards[0])

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert sorted(o.reused for o in out) == [False, True]
    assert out[0].record.run_id == out[1].record.run_id
    assert _runs_of(stores[0], shards[0].key) == 1 and _kept_rows(stores[0]) == 0
    for s in stores:
        s.close()


def store_order(scores: pd.DataFrame) -> pd.DataFrame:
    """A run's scores as the store reads them back (by item and slot)."""
    return scores.sort_values(["item_id", "slot"]).reset_index(drop=True)
