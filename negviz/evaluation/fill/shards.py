"""A spec's items cut into shards, and one shard scored: the unit of work a local loop or a Ray
task runs. Scoring a shard is pure (no store writes): the driver writes what comes back.

A shard is plain data (picklable, JSON-able), so it travels to a worker as it is; the worker loads
the scorer exactly as ``run_eval`` does (runner.eval_inputs: same device rules, fp32 unless asked,
the same ScoreCache keys) and refuses a shard whose run key its own model files or dataset do not
give, so a worker with other weights never passes its scores off as the spec's.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from negviz.core.cache import ScoreCache, default_cache_dir
from negviz.core.errors import NegvizError
from negviz.core.metrics import STRICT
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.item_scoring import score_dataset
from negviz.evaluation.runner import eval_inputs, eval_options, kept_texts, run_key, scored_record
from negviz.scorers.base import Progress, no_progress

if TYPE_CHECKING:
    from negviz.store.record import RunRecord


@dataclass(frozen=True)
class Shard:
    """Items ``start:stop`` (positions in the dataset frame, in its order) of the run ``key``:
    shard ``index`` of ``count``."""

    key: str  # the run key of the spec (runner.run_key)
    model: dict[str, Any]  # ModelSpec.to_dict() of the resolved spec (metric similarity applied)
    dataset: dict[str, Any]  # DatasetSpec.to_dict() of the loaded dataset
    options: dict[str, Any]  # the evaluation options of the key (runner.eval_options)
    index: int
    count: int
    start: int
    stop: int

    @property
    def items(self) -> int:
        return self.stop - self.start

    @property
    def cost_key(self) -> str:
        """What the shard's computing cost is kept under in the cache (runner.computing_cost)."""
        return f"{self.key}/shard-{self.index}-of-{self.count}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ShardScores:
    """What scoring a shard gives back to the driver: its scores (item_id, slot, score, in
    item_scoring.score_dataset's order), the text a generative scorer kept (or None), and the
    record a run of these items alone would have (its provenance: device, precision, cost, host)."""

    shard: Shard
    scores: pd.DataFrame
    texts: pd.DataFrame | None
    record: RunRecord


def bounds(n: int, count: int) -> list[tuple[int, int]]:
    """``n`` items in ``count`` contiguous parts as even as can be (never an empty one)."""
    count = max(1, min(int(count), n)) if n else 1
    size, extra = divmod(n, count)
    edges = [0]
    for i in range(count):
        edges.append(edges[-1] + size + (1 if i < extra else 0))
    return list(zip(edges[:-1], edges[1:]))


def cut(
    model: ModelSpec | str,
    dataset: DatasetSpec | str,
    count: int,
    *,
    tie_rule: str = STRICT,
    checked_only: bool = False,
    cache: ScoreCache | None = None,
    datasets_from=None,
) -> list[Shard]:
    """The spec ``model`` × ``dataset`` cut into ``count`` shards (fewer when it has fewer items; one
    for a family whose scores depend on the whole call, as BM25's collection). Locates the model
    files (for the revision of the key), loads no weights."""
    if int(count) < 1:
        raise NegvizError(f"shards must be 1 or more, not {count}")
    scorer, ds = eval_inputs(model, dataset, cache=cache, checked_only=checked_only, datasets_from=datasets_from)
    options = eval_options(scorer, tie_rule, checked_only)
    key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
    parts = bounds(len(ds.frame), 1 if scorer.whole_call else count)  # BM25: its collection is the whole run
    return [
        Shard(key, scorer.spec.to_dict(), ds.spec.to_dict(), options, i, len(parts), start, stop)
        for i, (start, stop) in enumerate(parts)
    ]


@functools.lru_cache(maxsize=2)
def _inputs(model_json: str, dataset_json: str, checked_only: bool, device: str | None, cache_path: str):
    """A worker process scores many shards of one spec: the scorer (weights loaded once) and the
    dataset are kept for the next shard."""
    return eval_inputs(
        ModelSpec.from_dict(json.loads(model_json)),
        DatasetSpec.from_dict(json.loads(dataset_json)),
        cache=ScoreCache(cache_path),
        device=device,
        checked_only=checked_only,
    )


def compute_shard(
    shard: Shard, device: str | None = None, cache_dir: str | None = None, progress: Progress = no_progress
) -> ShardScores:
    """Score the shard's items as ``run_eval`` scores a whole run (no store writes). ``cache_dir``:
    the folder of the score cache (default: negviz's). Raises NegvizError when this machine's model
    files or dataset give another run key than the shard's."""
    start = time.perf_counter()
    cache_path = str((default_cache_dir() if cache_dir is None else Path(cache_dir).expanduser()) / "scores.sqlite")
    scorer, ds = _inputs(
        json.dumps(shard.model, sort_keys=True),
        json.dumps(shard.dataset, sort_keys=True),
        bool(shard.options.get("checked_only", False)),
        device,
        cache_path,
    )
    options = eval_options(scorer, shard.options.get("tie_rule", STRICT), bool(shard.options.get("checked_only")))
    key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
    if key != shard.key:
        raise NegvizError(
            f"this machine's copy of {scorer.spec.name} or {ds.spec.name} differs from the driver's "
            f"(model revision {scorer.revision_id}): its scores would belong to another run; "
            "install the same model files and datasets on every worker"
        )
    if len(ds.frame) < shard.stop:
        raise NegvizError(f"{ds.spec.name} has {len(ds.frame)} items here, fewer than the shard's end ({shard.stop})")
    frame = ds.frame.iloc[shard.start : shard.stop]
    scorer.encoded = 0  # this shard's computing, not the previous shard's (runner.computing_cost)
    scores = score_dataset(ds.kind, frame, scorer, progress)
    texts = kept_texts(ds.kind, frame, scorer)
    record = scored_record("eval", key, scorer, ds, ds.spec.name, options, {}, start, cost_key=shard.cost_key)
    record.n = len(frame)
    return ShardScores(shard, scores, texts, record)


def resources(shard: Shard, *, gpu: bool = False, cpus: int = 1) -> dict[str, int]:
    """What a shard's task asks of a cluster: ``cpus`` CPUs, and one GPU when ``gpu`` (the cluster
    has them) and the model's family runs on one (bm25/tfidf never do)."""
    from negviz.scorers import FAMILIES

    family = FAMILIES.get(shard.model.get("family") or "")
    return {"num_cpus": max(1, int(cpus)), "num_gpus": 1 if gpu and not family.cpu_only else 0}


def joined(parts: list[ShardScores]) -> pd.DataFrame:
    """The scores of a spec's shards as one run's: every shard present once, rows in
    item_scoring.score_dataset's order over the whole frame (slot by slot, items in frame order)."""
    parts = sorted(parts, key=lambda p: p.shard.index)
    indexes = [p.shard.index for p in parts]
    count = parts[0].shard.count if parts else 0
    if indexes != list(range(count)) or any(p.shard.key != parts[0].shard.key for p in parts):
        raise NegvizError(f"a run needs each of its {count} shards once, got shards {indexes}")
    slots = list(dict.fromkeys(parts[0].scores["slot"]))
    rows = [p.scores[p.scores["slot"] == slot] for slot in slots for p in parts]
    return pd.concat(rows, ignore_index=True)
