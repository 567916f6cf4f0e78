"""negviz.store.store: opening the results store (creating, migrating an older layout, refusing a
newer one), saving in one bulk write; on a real SQLite
file and a real PostgreSQL server (see tests/support/pg.py). Runs and scores:
test_run_table.py; epochs: test_epoch_table.py; annotations: test_label_table.py; run files:
test_run_import.py; the engine: test_db.py; a spec stored once when writers race:
test_store_once.py. Several processes writing at once: tests/concurrency/test_store_writers.py."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa

from negviz.core.paths import DATA_DIR
from negviz.store import Store, StoreError, db, open_store
from negviz.store import tables as t
from tests.store.test_run_table import make_record, make_scores, table_count
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


# ---------------------------------------------------------------- the store every entry point opens
def shipped_run_ids() -> set[str]:
    from negviz.core.paths import DATA_DIR
    from negviz.store import portable

    return {portable.read_record(f).run_id for f in portable.run_files(DATA_DIR / "runs")}


def test_open_store_holds_the_shipped_runs_from_its_first_open(store_url, monkeypatch):
    """open_store (what the CLI, negviz.evaluate, the app and the report open) gives a new store
    every shipped run at once: the records, the scores still pending in data/runs/ (a fast first
    open); opening it again imports nothing twice; a run the user saved stays beside them."""
    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    shipped = shipped_run_ids()
    with open_store(store_url) as s:
        assert set(s.runs(status=None)["run_id"]) == shipped
        assert len(shipped) == len(list((DATA_DIR / "runs").glob("*.parquet")))
        assert set(s.pending_runs()) == shipped and table_count(s, t.item_scores) == 0  # scores read in place
        mine = s.save_run(make_record("mine"), make_scores(5))
    with open_store(store_url) as again:
        assert set(again.runs(status=None)["run_id"]) == shipped | {mine}


def test_a_fresh_store_reads_the_shipped_scores_as_the_copied_store_does(shipped_store, tmp_path, monkeypatch):
    """Shipped runs read in place from data/runs/ by a fresh store (nothing copied yet) give the
    frame, and the texts, that the store with every score copied in gives: the same numbers before
    and after the background copy. Every run of one dataset in four (one per dataset and kind at
    least) and the run that keeps reasoning texts: reading all 2 million rows twice would cost this
    fast tier seconds for the same check."""
    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    listed = shipped_store.runs(status=None).sort_values("run_id")
    chosen = set(listed.groupby(["dataset_name", "kind"])["run_id"].first()) | set(listed["run_id"].iloc[::4])
    with open_store(tmp_path / "fresh.sqlite") as fresh:
        assert sorted(fresh.pending_runs()) == sorted(shipped_run_ids()) == listed["run_id"].tolist()
        with_texts = [r for r in listed["run_id"] if not shipped_store.item_texts(r).empty]
        assert len(with_texts) == 1
        chosen = sorted(chosen | set(with_texts))
        in_place = fresh.scores_many(chosen)
        assert table_count(fresh, t.item_scores) == 0  # read, not copied
        copied = shipped_store.scores_many(chosen)
        assert shipped_store.pending_runs() == [] and sum(map(len, copied.values())) > 100_000
        for run_id in chosen:
            pd.testing.assert_frame_equal(in_place[run_id], copied[run_id], obj=run_id)
        for run_id in with_texts:
            pd.testing.assert_frame_equal(fresh.item_texts(run_id), shipped_store.item_texts(run_id), obj=run_id)


def test_a_store_stays_empty_when_asked(store_url, monkeypatch):
    """The shipped runs stay out by choice: shipped_runs=False (the CLI's --no-shipped-runs), or
    $NEGVIZ_NO_SHIPPED_RUNS=1; Store() itself never imports them."""
    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    with open_store(store_url, shipped_runs=False) as s:
        assert s.runs(status=None).empty
    with Store(store_url) as s:
        assert s.runs(status=None).empty
    monkeypatch.setenv("NEGVIZ_NO_SHIPPED_RUNS", "1")
    with open_store(store_url) as s:
        assert s.runs(status=None).empty
    monkeypatch.setenv("NEGVIZ_NO_SHIPPED_RUNS", "0")
    with open_store(store_url) as s:
        assert set(s.runs(status=None)["run_id"]) == shipped_run_ids()


def test_a_store_its_user_may_only_read_opens_as_it_is(pg_url, monkeypatch, caplog):
    """A PostgreSQL user with SELECT rights only (an analyst on the team's store): open_store
    cannot record the shipped runs there, says so in a warning, and reads the store as it is
    (every CLI command failed on the refused import)."""
    import uuid

    from negviz.store.db import resolve_url
    from tests.support.pg import fresh_schema

    monkeypatch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
    role, password = f"reader_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    admin = sa.create_engine(resolve_url(pg_url))
    try:
        with fresh_schema(pg_url) as url:
            with Store(url) as owner:  # the owner made the tables and stored a run
                mine = owner.save_run(make_record("mine"), make_scores(5))
            schema = resolve_url(url).query["options"].split("search_path=")[1]
            with admin.begin() as conn:
                conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
                conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
                conn.exec_driver_sql(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
            reader = resolve_url(url).set(username=role, password=password).render_as_string(hide_password=False)
            with caplog.at_level("WARNING", logger="negviz.store.store"), open_store(reader) as s:
                assert s.runs(status=None)["run_id"].tolist() == [mine]
            assert "the shipped runs are not recorded in" in caplog.text and "permission denied" in caplog.text
            with admin.begin() as conn:
                conn.exec_driver_sql(f"DROP OWNED BY {role}")
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP ROLE IF EXISTS {role}")
        admin.dispose()
