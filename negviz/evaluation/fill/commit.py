"""The store side of a sharded run: the driver keeps each finished shard once as it comes back,
and commits the spec's run once, when its last shard is in.

Finished shards live in the store (Store.save_shard), not in the driver's memory, so a driver
killed half-way loses only the shards still computing: the next ``--fill`` reads which are kept
and submits the others. The run is built as ``run_eval`` builds it (the shards' scores joined in
its order, summaries.summarize, the provenance scored_record gave each shard) and stored through
runner.store_once, so two drivers filling one spec at once store one run: the second reuses the
first's. Only then are the spec's kept shards dropped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from negviz.core.errors import NegvizError
from negviz.core.metrics import STRICT
from negviz.core.schema import DatasetSpec
from negviz.datasets import load as load_dataset
from negviz.datasets.added import content_hash
from negviz.evaluation.fill.shards import Shard, ShardScores, joined
from negviz.evaluation.runner import store_once
from negviz.evaluation.summaries import summarize
from negviz.store.record import RunRecord


@dataclass
class Committed:
    record: RunRecord  # the spec's stored run (this driver's, or the one another stored first)
    reused: bool  # True: another evaluation had stored the spec; this one's shards were not stored
    note: str | None = None


def keep(store, result: ShardScores) -> bool:
    """Keep a finished shard (once: False when it was already kept, by an earlier try or another driver)."""
    shard = result.shard
    record = {k: v for k, v in result.record.to_dict().items() if k not in ("created_at", "finished_at")}
    return store.save_shard(
        shard.key, shard.count, shard.index, (shard.start, shard.stop), record, result.scores, result.texts
    )


def kept(store, shard: Shard) -> set[int]:
    """Indexes of the kept shards of ``shard``'s spec, as it is cut."""
    return set(store.kept_shards(shard.key, shard.count))


def commit(store, shard: Shard) -> Committed | None:
    """Store the run of ``shard``'s spec when all its shards are kept (None while some are not);
    a spec the store already holds is reused. Either way its kept shards are then dropped."""
    stored = store.find_run(shard.key)
    if stored is not None:
        store.drop_shards(shard.key)
        return Committed(stored, reused=True)
    rows = store.read_shards(shard.key, shard.count)
    if len(rows) < shard.count:
        # another driver may have committed the spec (and dropped its shards) since the look above
        stored = store.find_run(shard.key)
        return Committed(stored, reused=True) if stored is not None else None
    parts = [
        ShardScores(
            dataclasses.replace(shard, index=r.index, start=r.start, stop=r.stop),
            r.scores,
            r.texts,
            RunRecord.from_dict(r.record),
        )
        for r in rows
    ]
    ds = load_dataset(DatasetSpec.from_dict(shard.dataset), store=store)
    if len(ds.frame) != parts[-1].shard.stop:
        raise NegvizError(
            f"the kept shards of {ds.spec.name} cover {parts[-1].shard.stop} items, the dataset has "
            f"{len(ds.frame)} here; run the fill again (the shards are computed anew)"
        )
    scores = joined(parts)
    options = shard.options
    summary = summarize(
        ds.kind, ds.frame, scores, tie_rule=options.get("tie_rule", STRICT), checked_only=options.get("checked_only")
    )
    record = whole_record([p.record for p in parts], summary, len(ds.frame))
    record, note = store_once(store, record, scores, added_sha256=content_hash(ds.spec))
    if note is None:
        texts = [p.texts for p in parts if p.texts is not None]
        if texts:
            store.save_item_texts(record.run_id, pd.concat(texts, ignore_index=True))
    store.drop_shards(shard.key)
    return Committed(record, reused=note is not None, note=note)


def whole_record(records: list[RunRecord], summary: dict, n: int) -> RunRecord:
    """The run's record from its shards' (runner.scored_record made each): the summary of all items
    with the shards' provenance (one value where they agree, their values where they differ: shards
    that ran on two kinds of CPU say so), computing cost summed, devices and hosts named once each."""
    provenance: dict = {}
    for key in dict.fromkeys(k for r in records for k in r.summary):
        values = [r.summary[key] for r in records if key in r.summary]
        distinct = [v for i, v in enumerate(values) if v not in values[:i]]
        provenance[key] = distinct[0] if len(distinct) == 1 else distinct
    return dataclasses.replace(
        records[0],
        run_id="",
        n=n,
        summary={**summary, **provenance},
        wall_seconds=sum(r.wall_seconds or 0.0 for r in records),
        device=_named_once(r.device for r in records),
        host=_named_once(r.host for r in records),
        created_at=None,
        finished_at=None,
    )


def _named_once(values) -> str | None:
    names = list(dict.fromkeys(v for v in values if v))
    return ", ".join(names) if names else None
