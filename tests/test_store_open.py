"""Several processes opening one new SQLite store at the same moment (as the annotators' test,
replicas starting together, or CI's concurrent writers do): each must open it, none may see
"database is locked" from the switch to WAL mode (SQLite answers that one without waiting)."""

from __future__ import annotations

import multiprocessing
import traceback

ROUNDS, PROCS = 10, 6


def _open_and_write(path: str, barrier, results) -> None:
    try:
        from negviz.store import Store

        barrier.wait()  # start together, to collide on the new file
        with Store(path) as store:
            store.add_annotation("nevir", "1-1", "someone", {"valid": True})
        results.put("")
    except Exception:  # reported to the parent, which fails the test with the traceback
        results.put(traceback.format_exc())


def test_processes_open_a_new_sqlite_store_at_once(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    for round_ in range(ROUNDS):
        path = str(tmp_path / f"new{round_}.sqlite")
        barrier, results = ctx.Barrier(PROCS), ctx.Queue()
        # daemons: a child that outlives its round must not keep pytest from exiting
        procs = [ctx.Process(target=_open_and_write, args=(path, barrier, results), daemon=True) for _ in range(PROCS)]
        for p in procs:
            p.start()
        errors = [e for e in (results.get(timeout=120) for _ in procs) if e]
        for p in procs:
            p.join(timeout=20)  # its work is done: exiting takes well under a second
        for p in procs:  # one child reported, then hung in its exit once (1 run in ~30): end it
            if p.is_alive():
                p.kill()
        assert not errors, f"round {round_}: {errors[0]}"
        from negviz.store import Store

        with Store(path) as store, store.engine.connect() as conn:
            assert len(store.annotations(latest=False)) == PROCS
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
