"""Finished shards of runs not committed yet (tables.pending_shards; a mixin of negviz.store.Store).

Plain data only: which spec, which shard of how many, its item range, its record (JSON), its
scores and texts. What a shard is and when a run is whole is negviz.evaluation.fill's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import sqlalchemy as sa

from negviz.store import db
from negviz.store import tables as t
from negviz.store.datasets import from_parquet, to_parquet
from negviz.store.frames import score_rows

table = t.pending_shards
c = table.c


@dataclass
class StoredShard:
    index: int
    count: int
    start: int
    stop: int
    record: dict[str, Any]
    scores: pd.DataFrame
    texts: pd.DataFrame | None


class ShardTable:
    def save_shard(
        self,
        spec_key: str,
        count: int,
        index: int,
        span: tuple[int, int],
        record: dict[str, Any],
        scores: pd.DataFrame,
        texts: pd.DataFrame | None = None,
    ) -> bool:
        """Keep a finished shard once: True when written, False when this shard of this spec (cut
        into ``count``) was already kept (by this driver's earlier try, or by another driver)."""
        score_rows(spec_key, scores)  # a bad frame is refused before anything is written
        values = {
            "spec_key": spec_key,
            "shard_count": int(count),
            "shard_index": int(index),
            "start": int(span[0]),
            "stop": int(span[1]),
            "record": record,
            "scores": to_parquet(scores.reset_index(drop=True)),
            "texts": None if texts is None or texts.empty else to_parquet(texts.reset_index(drop=True)),
            "created_at": t.now(),
        }
        try:
            with db.write(self._engine) as conn:
                if conn.execute(sa.select(c.shard_index).where(*_of(spec_key, count), c.shard_index == index)).first():
                    return False
                conn.execute(table.insert().values(**values))
        except sa.exc.IntegrityError:  # another driver kept it between the look and the insert (PostgreSQL)
            return False
        return True

    def kept_shards(self, spec_key: str, count: int) -> list[int]:
        """Indexes of the kept shards of ``spec_key`` cut into ``count``, ascending."""
        with db.read(self._engine) as conn:
            rows = conn.execute(sa.select(c.shard_index).where(*_of(spec_key, count)).order_by(c.shard_index)).all()
        return [int(r[0]) for r in rows]

    def read_shards(self, spec_key: str, count: int) -> list[StoredShard]:
        """The kept shards of ``spec_key`` cut into ``count``, by index."""
        query = sa.select(table).where(*_of(spec_key, count)).order_by(c.shard_index)
        with db.read(self._engine) as conn:
            rows = conn.execute(query).mappings().all()
        return [
            StoredShard(
                int(r["shard_index"]),
                int(r["shard_count"]),
                int(r["start"]),
                int(r["stop"]),
                dict(r["record"] or {}),
                from_parquet(bytes(r["scores"])),
                from_parquet(bytes(r["texts"])) if r["texts"] is not None else None,
            )
            for r in rows
        ]

    def drop_shards(self, spec_key: str) -> int:
        """Delete every kept shard of ``spec_key`` (any cut); returns how many rows went."""
        with db.write(self._engine) as conn:
            return conn.execute(table.delete().where(c.spec_key == spec_key)).rowcount


def _of(spec_key: str, count: int) -> tuple[sa.ColumnElement[bool], ...]:
    return (c.spec_key == spec_key, c.shard_count == int(count))
