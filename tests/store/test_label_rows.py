"""negviz.store.label_rows: append-only annotations (checked keys, versions, the newest per key)
and whole label histories inserted as they are. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
import sqlalchemy as sa

from negviz.store import StoreError, db, label_rows
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def read(store, **query):
    with db.read(store.engine) as conn:
        return label_rows.frame(conn.execute(label_rows.select(**query)).all())


def test_add_checks_the_key_and_the_labels(store):
    with pytest.raises(StoreError, match="needs a non-empty item_id"):
        label_rows.add(store.engine, "nevir", "", "ana", {})
    with pytest.raises(StoreError, match="labels must be a dict, got list"):
        label_rows.add(store.engine, "nevir", "1", "ana", ["sentential"])
    assert label_rows.add(store.engine, "nevir", 12, "ana", {"type": "affixal"}) == 1  # ids stored as text
    got = read(store)
    assert got[["item_id", "version"]].values.tolist() == [["12", 1]] and got.loc[0, "note"] == ""


def test_insert_versions_keeps_versions_and_times_and_select_reads_the_newest(store):
    rows = [
        {
            "dataset": "nevir",
            "item_id": "1",
            "annotator": "ana",
            "version": v,
            "labels": {"v": v},
            "note": "",
            "created_at": T0,
        }
        for v in (1, 2)
    ]
    label_rows.insert_versions(store.engine, rows)
    label_rows.insert_versions(store.engine, [])  # nothing to do
    latest = read(store, dataset="nevir")
    assert latest["version"].tolist() == [2] and latest.loc[0, "labels"] == {"v": 2}
    assert latest.loc[0, "created_at"] == T0  # the time kept, not the import's
    assert read(store, latest=False)["version"].tolist() == [1, 2]
    with pytest.raises(sa.exc.IntegrityError):  # a clash with a stored version: nothing half-written
        label_rows.insert_versions(store.engine, [{**rows[0], "version": 3}, rows[1]])
    assert read(store, latest=False)["version"].tolist() == [1, 2]
