"""Several processes reviewing one annotation project at once: no decision lost or duplicated."""

from __future__ import annotations

import multiprocessing

from negviz import projects as P
from negviz.store import Store
from negviz.store import projects as rows
from tests.support.projects import NEVIR, decide


def test_concurrent_reviewers_lose_and_duplicate_no_decision(store_url):
    """Four reviewers deciding one pair at once, five times each: 20 versions, 1..20, every note kept."""
    with Store(store_url) as store:
        project = P.create(store, "review-race", NEVIR, "owner", overlap=2, sample=2)
    item = project.items[0]
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=decide, args=(store_url, f"r{i}", item, barrier, 5), daemon=True) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * 4
    with Store(store_url) as store:
        history = rows.adjudication_rows(store.engine, project="review-race", latest=False)
    assert sorted(history["version"]) == list(range(1, 21))
    assert sorted(history["note"]) == sorted(f"r{i} {n}" for i in range(4) for n in range(5))
