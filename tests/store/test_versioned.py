"""negviz.store.versioned: append-only rows, each save the next version of its key, and reads of
the newest version per key. On SQLite and PostgreSQL (see tests/support/pg.py)."""

from __future__ import annotations

import sqlalchemy as sa

from negviz.store import db, versioned
from negviz.store import tables as t
from negviz.store.tables import now
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_append_numbers_versions_per_key_and_newest_keeps_the_last(store):
    table = t.annotations
    key_a = {"dataset": "nevir", "item_id": "1", "annotator": "ana"}
    key_b = {"dataset": "nevir", "item_id": "1", "annotator": "bo"}
    values = {"labels": {"type": "x"}, "note": "", "created_at": now()}
    assert [versioned.append(store.engine, table, key_a, values) for _ in range(3)] == [1, 2, 3]
    assert versioned.append(store.engine, table, key_b, values) == 1
    filters = [table.c.dataset == "nevir"]
    query = versioned.newest(
        sa.select(table.c.annotator, table.c.version).where(*filters),
        table,
        ("dataset", "item_id", "annotator"),
        filters,
    )
    with db.read(store.engine) as conn:
        assert sorted(tuple(r) for r in conn.execute(query)) == [("ana", 3), ("bo", 1)]
