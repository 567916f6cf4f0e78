"""A plan run here, shard after shard, on SQLite and PostgreSQL: every cell's run stored once and
equal to run_eval's; a stop keeps the finished shards and stores no partial run; the next run
computes only the rest."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill import executor
from negviz.evaluation.fill.commit import keep
from negviz.evaluation.fill.executor import ray_address, run_plan
from negviz.evaluation.fill.planning import make_plan
from negviz.evaluation.fill.shards import compute_shard
from negviz.evaluation.runner import run_eval
from negviz.store import Store
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

SLICE = DatasetSpec.make("nevir", limit=40)
CELLS = [("tfidf", SLICE, "NevIR"), ("bm25", SLICE, "NevIR")]


def test_a_plan_run_here_stores_each_cell_once_as_run_eval_would(store, tmp_path):
    plan = make_plan(store, CELLS, shards=3, cache=ScoreCache(tmp_path / "c.sqlite"))
    seen = []
    report = run_plan(plan, store, progress=lambda d, t, desc: seen.append((d, t, desc)), cache_dir=str(tmp_path / "w"))
    assert not report.cancelled and not report.failed and len(report.stored) == 2
    for (model, dataset, _), run in zip(CELLS, report.stored):
        whole = run_eval(model, dataset, cache=ScoreCache(tmp_path / f"{model}.sqlite"))
        assert run.record.spec_key == whole.record.spec_key and not run.reused
        stored = store.scores(run.record.run_id)
        expected = whole.scores.sort_values(["item_id", "slot"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(stored, expected, check_exact=True)
    assert seen[0][:2] == (0, 80) and seen[-1][:2] == (80, 80)  # items of both cells
    assert seen[-1][2] == "shards 4/4 · bm25 on nevir (first 40 items) 1/1"  # shards in all and in the cell
    assert "2 of 2 cells stored" in report.text()


def test_a_stopped_plan_keeps_finished_shards_and_the_next_run_does_the_rest(store, tmp_path, monkeypatch):
    plan = make_plan(store, CELLS[:1], shards=4, cache=ScoreCache(tmp_path / "c.sqlite"))
    computed = []
    real = executor.compute_shard
    monkeypatch.setattr(
        executor, "compute_shard", lambda shard, *a, **k: computed.append(shard.index) or real(shard, *a, **k)
    )
    key = plan.cells[0].key
    report = run_plan(
        plan, store, should_stop=lambda: len(store.kept_shards(key, 4)) >= 2, cache_dir=str(tmp_path / "w")
    )
    assert report.cancelled and report.stored == []
    assert store.find_run(plan.cells[0].key) is None  # nothing partial stored as a run
    assert store.kept_shards(key, 4) == [0, 1] and computed == [0, 1]
    assert "Finished shards are kept" in report.text()

    again = make_plan(store, CELLS[:1], shards=4, cache=ScoreCache(tmp_path / "c.sqlite"))
    report = run_plan(again, store, cache_dir=str(tmp_path / "w"))
    assert computed == [0, 1, 2, 3]  # shards 0 and 1 were not computed again
    assert len(report.stored) == 1 and store.find_run(key).n == 40


def test_a_shard_another_fill_kept_meanwhile_is_not_computed_again(store, tmp_path, monkeypatch):
    plan = make_plan(store, CELLS[:1], shards=3, cache=ScoreCache(tmp_path / "c.sqlite"))
    keep(store, compute_shard(plan.cells[0].shards[1], cache_dir=str(tmp_path / "other")))  # after planning
    computed = []
    real = executor.compute_shard
    monkeypatch.setattr(
        executor, "compute_shard", lambda shard, *a, **k: computed.append(shard.index) or real(shard, *a, **k)
    )
    report = run_plan(plan, store, cache_dir=str(tmp_path / "w"))
    assert computed == [0, 2] and len(report.stored) == 1


def test_two_fills_at_once_store_one_run_per_spec(store_url, tmp_path):
    stores = [Store(store_url), Store(store_url)]
    plans = [make_plan(s, CELLS, shards=2, cache=ScoreCache(tmp_path / f"c{i}.sqlite")) for i, s in enumerate(stores)]
    reports: list = [None, None]
    barrier = threading.Barrier(2)

    def fill(i: int) -> None:
        barrier.wait()
        reports[i] = run_plan(plans[i], stores[i], cache_dir=str(tmp_path / f"w{i}"))

    threads = [threading.Thread(target=fill, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    runs = stores[0].runs()
    assert sorted(runs["model_name"]) == ["bm25", "tfidf"]  # one run per spec
    for i in range(2):  # each fill ends with each cell's run, its own or the other's
        assert sorted(r.record.run_id for r in reports[i].stored) == sorted(runs["run_id"])
    assert stores[0].kept_shards(plans[0].cells[0].key, 2) == []
    for s in stores:
        s.close()


def test_a_stop_within_a_shard_keeps_none_of_it(store, tmp_path):
    plan = make_plan(store, CELLS[:1], shards=2, cache=ScoreCache(tmp_path / "c.sqlite"))
    report = run_plan(plan, store, should_stop=_after_asked(1), cache_dir=str(tmp_path / "w"))
    assert report.cancelled and store.kept_shards(plan.cells[0].key, 2) == []


def _after_asked(times: int):
    """``should_stop`` that says stop once it was asked ``times`` times (between shards, then within one)."""
    asked = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) > times

    return should_stop


def test_where_a_plan_runs():
    assert ray_address(None) is None and ray_address("here") is None
    assert ray_address("ray") == "ray" and ray_address("ray://head:10001") == "ray://head:10001"
    assert ray_address("ray://10.0.0.7:10001") == "ray://10.0.0.7:10001" and ray_address("ray://[::1]:10001")
    for wrong in ("head:10001", "ray://head", "ray://head:0", "ray://head:70000", "ray://-x:1", "ray://a b:1"):
        with pytest.raises(NegvizError, match="ray://HOST:PORT"):
            ray_address(wrong)


def test_the_ray_address_may_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("NEGVIZ_RAY_ADDRESS", "ray://head:10001")
    assert ray_address(None) == "ray://head:10001" and ray_address("here") is None
    monkeypatch.setenv("NEGVIZ_RAY_ADDRESS", "nowhere")
    with pytest.raises(NegvizError, match=r"\$NEGVIZ_RAY_ADDRESS 'nowhere'"):
        ray_address(None)
