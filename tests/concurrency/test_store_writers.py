"""Several processes write one new results store at once (negviz.store): they race to create its
tables, annotate the same items as the same annotator (versions interleave, none lost) and save
runs; on a real SQLite file and a real PostgreSQL server. The store alone: tests/store/test_store.py."""

from __future__ import annotations

import multiprocessing

from negviz.store import Store
from negviz.store import tables as t
from tests.store.test_run_table import make_record, make_scores, table_count
from tests.support.pg import pg_url, store_url  # noqa: F401  (fixtures)

N_PROCS, N_ANNOTATIONS, N_RUNS, SHARED_ITEMS = 4, 50, 2, 10


def _writer(url: str, proc: int, barrier) -> None:
    store = Store(url)
    barrier.wait()  # all writers start together, to collide
    for i in range(N_ANNOTATIONS):
        # Every process annotates the same items as the same annotator: versions must interleave.
        store.add_annotation("nevir", f"item{i % SHARED_ITEMS}", "shared", {"proc": proc, "i": i})
        if i % (N_ANNOTATIONS // N_RUNS) == 0:
            store.save_run(make_record(f"proc{proc}-{i}"), make_scores(500, seed=proc))
    store.close()


def test_concurrent_writers(store_url):
    # No Store opened first: the writers also race to create the tables of a new database.
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(N_PROCS)
    procs = [ctx.Process(target=_writer, args=(store_url, p, barrier), daemon=True) for p in range(N_PROCS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * N_PROCS

    with Store(store_url) as store:
        history = store.annotations("nevir", latest=False)
        assert len(history) == N_PROCS * N_ANNOTATIONS
        per_item = N_PROCS * N_ANNOTATIONS // SHARED_ITEMS
        for _, versions in history.groupby("item_id")["version"]:
            assert sorted(versions) == list(range(1, per_item + 1))
        latest = store.annotations("nevir")
        assert len(latest) == SHARED_ITEMS and set(latest["version"]) == {per_item}
        runs = store.runs()
        assert len(runs) == N_PROCS * N_RUNS and set(runs["n"]) == {500}
        assert table_count(store, t.item_scores) == N_PROCS * N_RUNS * 1000


def _first_open(url: str, barrier) -> None:
    import os

    from negviz.store import open_store

    os.environ.pop("NEGVIZ_NO_SHIPPED_RUNS", None)  # as a user's entry points open it
    barrier.wait()  # all open the new store together, to collide on the shipped runs' import
    open_store(url).close()


def test_concurrent_first_opens_record_each_shipped_run_once(store_url):
    """Entry points started together on a new store (a CLI command, a notebook, the app): the
    shipped runs are recorded once each, whichever process gets there first, and none fails."""
    from negviz.core.paths import DATA_DIR
    from negviz.store import portable

    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(N_PROCS)
    procs = [ctx.Process(target=_first_open, args=(store_url, barrier), daemon=True) for _ in range(N_PROCS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * N_PROCS
    shipped = sorted(portable.read_record(f).run_id for f in portable.run_files(DATA_DIR / "runs"))
    with Store(store_url) as store:
        assert sorted(store.runs(status=None)["run_id"]) == shipped  # each once
        assert sorted(store.pending_runs()) == shipped
