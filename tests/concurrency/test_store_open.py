"""Several processes opening one new SQLite store at the same moment (as the annotators' test,
replicas starting together, or CI's concurrent writers do): each must open it, none may see
"database is locked" from the switch to WAL mode (SQLite answers that one without waiting)."""

from __future__ import annotations

import multiprocessing
import traceback

ROUNDS, PROCS = 10, 6


def _open_and_write(paths: list[str], barrier, results) -> None:
    """Each round: wait for the others, then open that round's new store and write to it. The
    processes start once and meet at the barrier every round (a process start costs a second of
    imports; the collision is the opening, not the start)."""
    from negviz.store import Store

    for round_, path in enumerate(paths):
        try:
            barrier.wait(timeout=300)  # start together, to collide on the new file
            with Store(path) as store:
                store.add_annotation("nevir", "1-1", "someone", {"valid": True})
            results.put((round_, ""))
        except Exception:  # reported to the parent, which fails the test with the traceback
            results.put((round_, traceback.format_exc()))


def test_processes_open_a_new_sqlite_store_at_once(tmp_path):
    from negviz.store import Store

    ctx = multiprocessing.get_context("spawn")
    paths = [str(tmp_path / f"new{round_}.sqlite") for round_ in range(ROUNDS)]
    barrier, results = ctx.Barrier(PROCS), ctx.Queue()
    # daemons: a child that outlives the test must not keep pytest from exiting
    procs = [ctx.Process(target=_open_and_write, args=(paths, barrier, results), daemon=True) for _ in range(PROCS)]
    for p in procs:
        p.start()
    reports = [results.get(timeout=300) for _ in range(ROUNDS * PROCS)]
    for p in procs:
        p.join(timeout=20)  # its work is done: exiting takes well under a second
    for p in procs:  # one child reported, then hung in its exit once (1 run in ~30): end it
        if p.is_alive():
            p.kill()
    errors = [f"round {round_}: {error}" for round_, error in reports if error]
    assert not errors, errors[0]
    assert sorted(round_ for round_, _ in reports) == sorted(list(range(ROUNDS)) * PROCS)
    for path in paths:
        with Store(path) as store, store.engine.connect() as conn:
            assert len(store.annotations(latest=False)) == PROCS
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
