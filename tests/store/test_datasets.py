"""negviz.store.datasets: added datasets kept in the results store: the same content recognised,
a name never reused for other content, the items read back, removal counting the runs made on it.
On SQLite and PostgreSQL (see tests/support/pg.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import pandas as pd
import pytest

from negviz.store import StoreError, db
from negviz.store import datasets as added
from tests.store.test_run_table import make_record, make_scores
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

FRAME = pd.DataFrame(
    {"pair_id": ["a", "b"], "q1": ["x", "y"], "d1": ["x", "y"], "q2": ["z", "w"], "d2": ["z", "w"], "note": [1, "two"]}
)
AT = datetime(2025, 3, 1, tzinfo=timezone.utc)


def record(name: str = "mine", sha256: str = "f" * 64) -> added.AddedDataset:
    return added.AddedDataset(
        name=name,
        kind="pairs",
        n=0,  # counted from the frame on add
        columns="q1=q1",
        source_file="pairs.csv",
        size=120,
        sha256=sha256,
        added_by="ana",
        added_at=AT,
        description="two pairs",
        licence="CC0",
    )


def test_add_stores_the_items_and_recognises_the_same_content(store):
    stored, created = added.add(store, record(), FRAME)
    assert created and stored.n == 2
    assert added.get(store, "mine") == stored and added.get(store, "other") is None
    items = added.items(store, "mine")
    assert items["pair_id"].tolist() == ["a", "b"] and items["note"].tolist() == ["1", "two"]  # mixed column as text
    assert added.add(store, record(), FRAME) == (stored, False)  # the same file again: recognised
    listing = added.listing(store)
    assert listing["name"].tolist() == ["mine"] and listing.loc[0, "added_at"] == pd.Timestamp(AT)
    with pytest.raises(StoreError, match="already added as 'mine' by ana on 2025-03-01; use that name"):
        added.add(store, record("copy"), FRAME)
    with pytest.raises(StoreError, match="a dataset named 'mine' is already added .* with other content"):
        added.add(store, record(sha256="0" * 64), FRAME)


def test_remove_counts_the_runs_and_deletes_them_only_when_asked(store):
    added.add(store, record(), FRAME)
    store.save_run(make_record(dataset="mine"), make_scores(2))
    assert added.runs_using(store, "mine") == 1
    assert added.remove(store, "mine") == 1 and len(store.runs()) == 1  # the run is kept
    with pytest.raises(StoreError, match="no added dataset named 'mine'"):
        added.items(store, "mine")
    added.add(store, record(), FRAME)
    assert added.remove(store, "mine", delete_runs=True) == 1 and store.runs().empty
    with pytest.raises(StoreError, match="no added dataset named 'mine'"):
        added.remove(store, "mine")


def test_hold_refuses_a_run_on_a_dataset_removed_or_changed_meanwhile(store):
    added.add(store, record(), FRAME)
    with db.write(store.engine) as conn:
        added.hold(conn, "mine", "f" * 64)  # still there with this content
    with pytest.raises(StoreError, match="was removed and added again with other content"):
        with db.write(store.engine) as conn:
            added.hold(conn, "mine", "0" * 64)
    with pytest.raises(StoreError, match="was removed from the store while this run was computed"):
        with db.write(store.engine) as conn:
            added.hold(conn, "gone", "f" * 64)
