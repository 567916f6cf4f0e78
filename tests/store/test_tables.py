"""negviz.store.tables: times are timezone-aware UTC on both backends (SQLite has no time zones).
On SQLite and PostgreSQL (see tests/support/pg.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from negviz.store import db
from negviz.store import tables as t
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_times_come_back_as_utc_whatever_zone_they_went_in_with(store):
    paris = timezone(timedelta(hours=1))
    rows = {
        "aware": datetime(2025, 1, 1, 13, 0, tzinfo=paris),  # 12:00 UTC
        "naive": datetime(2025, 1, 1, 12, 0),  # naive is taken as UTC
    }
    with db.write(store.engine) as conn:
        for owner, at in rows.items():
            conn.execute(
                sa.insert(t.runs).values(
                    run_id=owner,
                    spec_key="k",
                    status="running",
                    kind="eval",
                    model_name="m",
                    dataset_name="d",
                    created_at=at,
                )
            )
    with db.read(store.engine) as conn:
        got = dict(conn.execute(sa.select(t.runs.c.run_id, t.runs.c.created_at)).all())
    expected = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc)
    assert got == {"aware": expected, "naive": expected}
    assert all(v.utcoffset() == timedelta(0) for v in got.values())
    assert t.now().tzinfo is timezone.utc
