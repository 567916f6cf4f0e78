"""Append-only annotations: every save is a new row with the next version for its
(dataset, item_id, annotator); nothing is updated or deleted, so the history is the table."""

from __future__ import annotations

from typing import Any

import pandas as pd
import sqlalchemy as sa

from negviz.store import db, versioned
from negviz.store.record import StoreError
from negviz.store.tables import annotations as table
from negviz.store.tables import now

COLUMNS = ("id", "dataset", "item_id", "annotator", "version", "labels", "note", "created_at")


def add(engine: sa.Engine, dataset: str, item_id: str, annotator: str, labels: dict[str, Any], note: str = "") -> int:
    """Append one annotation and return its version (1 for the first of its key)."""
    for name, value in (("dataset", dataset), ("item_id", item_id), ("annotator", annotator)):
        if value is None or str(value) == "":
            raise StoreError(f"an annotation needs a non-empty {name}")
    if not isinstance(labels, dict):
        raise StoreError(f"annotation labels must be a dict, got {type(labels).__name__}")
    key = {"dataset": str(dataset), "item_id": str(item_id), "annotator": str(annotator)}
    return versioned.append(engine, table, key, {"labels": labels, "note": note or "", "created_at": now()})


def select(
    dataset: str | None = None, item_id: str | None = None, annotator: str | None = None, latest: bool = True
) -> sa.Select:
    filters = [
        table.c[name] == str(value)
        for name, value in (("dataset", dataset), ("item_id", item_id), ("annotator", annotator))
        if value is not None
    ]
    query = sa.select(*(table.c[c] for c in COLUMNS)).where(*filters)
    if latest:
        query = versioned.newest(query, table, ("dataset", "item_id", "annotator"), filters)
    return query.order_by(table.c.dataset, table.c.item_id, table.c.annotator, table.c.version)


def frame(rows: list) -> pd.DataFrame:
    out = pd.DataFrame([tuple(r) for r in rows], columns=list(COLUMNS))
    out["id"] = out["id"].astype(int)
    out["version"] = out["version"].astype(int)
    out["created_at"] = pd.to_datetime(out["created_at"], utc=True)
    return out


def insert_versions(engine: sa.Engine, rows: list[dict[str, Any]]) -> None:
    """Insert whole label histories as they are (versions and times kept: a project import);
    one transaction, so a clash with a stored version leaves nothing half-written."""
    if rows:
        with db.write(engine) as conn:
            conn.execute(table.insert(), rows)
