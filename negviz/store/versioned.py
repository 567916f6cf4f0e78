"""Append-only, versioned rows (annotations, adjudications): every save is a new row with the next
version of its key, and a read takes the newest version per key. One rule for both tables."""

from __future__ import annotations

import random
import time
from typing import Any

import sqlalchemy as sa

from negviz.store import db
from negviz.store.record import StoreError

ATTEMPTS = 20


def append(engine: sa.Engine, table: sa.Table, key: dict[str, str], values: dict[str, Any]) -> int:
    """Insert ``key`` + ``values`` with version max + 1 for ``key``; returns the version."""
    where = [table.c[k] == v for k, v in key.items()]
    for attempt in range(ATTEMPTS):
        try:
            with db.write(engine) as conn:
                # Max + 1 inside the transaction; a concurrent writer that took the same number
                # makes the UNIQUE constraint fail, and we retry with a fresh read.
                last = conn.execute(sa.select(sa.func.max(table.c.version)).where(*where)).scalar()
                version = (last or 0) + 1
                conn.execute(table.insert().values(**key, **values, version=version))
            return version
        except sa.exc.IntegrityError:
            time.sleep(random.uniform(0, 0.01 * (attempt + 1)))  # jitter so retries do not collide again
    raise StoreError(f"could not save the {table.name} row of {key} after {ATTEMPTS} attempts (too many writers?)")


def newest(query: sa.Select, table: sa.Table, key: tuple[str, ...], filters: list) -> sa.Select:
    """``query`` (over ``table``) kept to the newest version of each ``key``."""
    group = [table.c[k] for k in key]
    top = sa.select(*group, sa.func.max(table.c.version).label("version")).where(*filters).group_by(*group)
    top = top.subquery()
    return query.join(top, sa.and_(*(table.c[k] == top.c[k] for k in key), table.c.version == top.c.version))
