"""negviz.store.epoch_table: a fine-tuning run's epochs (metrics flattened into columns) and their
per-item values, on SQLite and PostgreSQL (see tests/support/pg.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.store import RunNotFoundError, StoreError
from tests.store.test_run_table import make_record
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_epochs(store):
    run_id = store.start_run(make_record(kind="finetune"))
    assert store.epochs(run_id).empty
    for epoch in range(3):
        items = pd.DataFrame(
            {
                "item_id": ["p1", "p1", "p2", "p2"],
                "name": ["cos_d1_d2", "margin"] * 2,
                "value": [1.0 - 0.1 * epoch, 0.1 * epoch, 0.99 - 0.2 * epoch, 0.0],
            }
        )
        store.add_epoch(run_id, epoch, {"paired_accuracy": 0.2 + 0.1 * epoch, "cos": {"mean": 0.9, "std": 0.01}}, items)
    frame = store.epochs(run_id)
    assert list(frame.columns) == ["epoch", "created_at", "cos.mean", "cos.std", "paired_accuracy"]
    assert frame["epoch"].tolist() == [0, 1, 2]
    assert frame["paired_accuracy"].tolist() == pytest.approx([0.2, 0.3, 0.4])
    items = store.epoch_items(run_id)
    assert list(items.columns) == ["epoch", "item_id", "name", "value"] and len(items) == 12
    one = store.epoch_items(run_id, epoch=2)
    assert one.query("item_id == 'p2' and name == 'cos_d1_d2'")["value"].item() == pytest.approx(0.59)
    with pytest.raises(StoreError, match="already stored"):
        store.add_epoch(run_id, 1, {})
    with pytest.raises(StoreError, match="may not be called"):
        store.add_epoch(run_id, 5, {"epoch": 5})
    with pytest.raises(RunNotFoundError):
        store.add_epoch("nope", 0, {})
    assert len(store.epochs(run_id)) == 3  # the failed adds wrote nothing
