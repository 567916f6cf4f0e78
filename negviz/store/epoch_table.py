"""The store's fine-tuning epochs: per-epoch metrics and per-item measurements (a mixin of
negviz.store.Store)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import sqlalchemy as sa

from negviz.store import db
from negviz.store import tables as t
from negviz.store.frames import epoch_item_rows, long_frame
from negviz.store.record import StoreError


class EpochTable:
    def add_epoch(self, run_id: str, epoch: int, metrics: dict[str, Any], items: pd.DataFrame | None = None) -> None:
        """Store one epoch's metrics and, optionally, per-item measurements (item_id, name, value)."""
        if not isinstance(metrics, dict):
            raise StoreError(f"epoch metrics must be a dict, got {type(metrics).__name__}")
        reserved = {"epoch", "created_at"} & set(metrics)
        if reserved:
            raise StoreError(f"epoch metrics may not be called {sorted(reserved)}: those are epochs() columns")
        epoch = int(epoch)
        rows = epoch_item_rows(run_id, epoch, items) if items is not None else []
        try:
            with db.write(self._engine) as conn:
                self._check_exists(conn, run_id)
                conn.execute(t.epochs.insert().values(run_id=run_id, epoch=epoch, metrics=metrics, created_at=t.now()))
                db.bulk_insert(conn, t.epoch_items, rows)
        except sa.exc.IntegrityError as exc:
            raise StoreError(f"epoch {epoch} of run {run_id} is already stored") from exc

    def epochs(self, run_id: str) -> pd.DataFrame:
        """One row per epoch: epoch, created_at, then a column per metric, sorted (nested keys joined by '.')."""
        c = t.epochs.c
        with db.read(self._engine) as conn:
            query = sa.select(c.epoch, c.created_at, c.metrics).where(c.run_id == run_id).order_by(c.epoch)
            rows = conn.execute(query).all()
            if not rows:
                self._check_exists(conn, run_id)
        head = pd.DataFrame({"epoch": [r.epoch for r in rows], "created_at": [r.created_at for r in rows]})
        head["epoch"] = head["epoch"].astype(int)
        head["created_at"] = pd.to_datetime(head["created_at"], utc=True)
        metrics = pd.json_normalize([r.metrics or {} for r in rows]) if rows else pd.DataFrame()
        # Sorted: JSONB does not keep key order, and both backends must give the same frame.
        return pd.concat([head, metrics[sorted(metrics.columns)]], axis=1)

    def epoch_items(self, run_id: str, epoch: int | None = None) -> pd.DataFrame:
        """Per-item measurements (epoch, item_id, name, value), for one epoch or all."""
        c = t.epoch_items.c
        query = sa.select(c.epoch, c.item_id, c.name, c.value).where(c.run_id == run_id)
        if epoch is not None:
            query = query.where(c.epoch == int(epoch))
        with db.read(self._engine) as conn:
            rows = conn.execute(query.order_by(c.epoch, c.item_id, c.name)).all()
            if not rows:
                self._check_exists(conn, run_id)
        return long_frame(rows, ("epoch", "item_id", "name", "value"))
