"""negviz.store.store: opening the results store (creating, migrating an older layout, refusing a
newer one), saving in one bulk write; on a real SQLite
file and a real PostgreSQL server (see tests/support/pg.py). Runs and scores:
test_run_table.py; epochs: test_epoch_table.py; annotations: test_label_table.py; run files:
test_run_import.py; the engine: test_db.py; a spec stored once when writers race:
test_store_once.py. Several processes writing at once: tests/concurrency/test_store_writers.py."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from negviz.store import Store, StoreError, db
from negviz.store import tables as t
from tests.store.test_run_table import make_record, make_scores
from tests.support.counting import statements
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


# ---------------------------------------------------------------- opening and migrating
def test_store_made_by_older_layout_opens_and_gains_indexes(store_url):
    """A store made before the pending_scores table and the listing index (main's layout) opens,
    gets them added, and reads its runs as before."""
    with Store(store_url) as s:
        run_id = s.save_run(make_record(), make_scores(5))
        with db.write(s.engine) as conn:
            conn.exec_driver_sql("DROP INDEX ix_runs_listing")
            conn.exec_driver_sql("DROP TABLE pending_scores")
    with Store(store_url) as s:
        with db.read(s.engine) as conn:
            inspector = sa.inspect(conn)
            assert "pending_scores" in inspector.get_table_names()
            assert "ix_runs_listing" in {ix["name"] for ix in inspector.get_indexes("runs")}
        assert len(s.scores(run_id)) == 10 and s.pending_runs() == []


def test_reopen_and_refuse_newer_schema(store_url):
    Store(store_url).close()
    with Store(store_url) as again:  # second open: tables exist, nothing to do
        assert again.runs().empty
        with db.write(again.engine) as conn:
            conn.execute(t.meta.update().values(value="99"))
    with pytest.raises(StoreError, match="newer"):
        Store(store_url)


def test_a_large_run_is_saved_with_as_many_statements_as_a_small_one(store):
    """105,000 scores reach the store in one bulk write (one executemany on SQLite, a COPY on
    PostgreSQL), not a statement per score: saving them sends the same statements as saving 300.
    Their time against a plain executemany of the same rows is measured by
    benchmarks/bench_store.py --save-run."""
    slots = ("candidate", "perturbed", "empty")
    with statements(store.engine) as few:
        store.save_run(make_record("small"), make_scores(100, slots=slots))
    with statements(store.engine) as many:
        run_id = store.save_run(make_record("large"), make_scores(35_000, slots=slots))
    assert len(store.scores(run_id)) == 105_000
    assert 0 < len(many) == len(few) and many == few, "\n".join(many)
