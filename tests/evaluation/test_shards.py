"""Shards of a spec scored one by one give the whole run's scores (MiniLM on a NevIR slice)."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec
from negviz.datasets import load as load_dataset
from negviz.evaluation.fill.shards import Shard, bounds, compute_shard, cut, joined, resources
from negviz.evaluation.runner import run_eval
from negviz.evaluation.summaries import summarize

MINI = "all-MiniLM-L6-v2"
SLICE = DatasetSpec.make("nevir", limit=12)  # 48 texts: a whole run and shards pad them in other batches


def test_bounds_cover_every_item_once_in_even_parts():
    assert bounds(10, 4) == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert bounds(3, 8) == [(0, 1), (1, 2), (2, 3)]  # never an empty shard
    assert bounds(5, 1) == [(0, 5)]


def test_four_shards_give_run_evals_scores(tmp_path):
    """Same cache keys: shards that meet the local run's cache read its very scores; shards on a
    worker with a cache of its own compute them again, equal to fp32 rounding (a text's embedding
    is padded within another batch), with the same verdicts."""
    cache_dir = tmp_path / "cache"
    whole = run_eval(MINI, SLICE, cache=ScoreCache(cache_dir / "scores.sqlite"))
    shards = cut(MINI, SLICE, 4, cache=ScoreCache(tmp_path / "cut.sqlite"))
    assert [s.key for s in shards] == [whole.record.spec_key] * 4
    assert [(s.start, s.stop) for s in shards] == [(0, 3), (3, 6), (6, 9), (9, 12)]
    shared = [compute_shard(pickle.loads(pickle.dumps(s)), cache_dir=str(cache_dir)) for s in shards]
    assert [p.record.n for p in shared] == [3, 3, 3, 3]
    pd.testing.assert_frame_equal(joined(shared), whole.scores, check_exact=True)

    apart = [compute_shard(s, cache_dir=str(tmp_path / "worker")) for s in reversed(shards)]
    assert all(p.record.device == "cpu" and p.record.wall_seconds > 0 for p in apart)
    fresh = joined(apart)
    pd.testing.assert_frame_equal(fresh, whole.scores, check_exact=False, rtol=0, atol=1e-5)
    ds = load_dataset(SLICE)
    again = summarize(ds.kind, ds.frame, fresh)
    verdicts = ("n", "paired_accuracy", "error_counts", "failures")
    assert {k: again[k] for k in verdicts} == {k: whole.summary[k] for k in verdicts}
    with pytest.raises(NegvizError, match="each of its 4 shards once"):
        joined(apart[:3])


def test_a_shard_whose_key_this_machine_does_not_give_is_refused(tmp_path):
    shard = cut(MINI, SLICE, 2, cache=ScoreCache(tmp_path / "c.sqlite"))[0]
    other = Shard(**{**shard.to_dict(), "key": "0" * 16})
    with pytest.raises(NegvizError, match="differs from the driver's"):
        compute_shard(other, cache_dir=str(tmp_path))


def test_resources_ask_for_a_gpu_only_where_the_family_runs_on_one(tmp_path):
    mini = cut(MINI, SLICE, 1, cache=ScoreCache(tmp_path / "c.sqlite"))[0]
    bm25 = cut("bm25", SLICE, 1, cache=ScoreCache(tmp_path / "c.sqlite"))[0]
    assert resources(mini) == {"num_cpus": 1, "num_gpus": 0}
    assert resources(mini, gpu=True, cpus=4) == {"num_cpus": 4, "num_gpus": 1}
    assert resources(bm25, gpu=True) == {"num_cpus": 1, "num_gpus": 0}
