"""Eight processes draining one annotation project's queue at once (SQLite and PostgreSQL)."""

from __future__ import annotations

import multiprocessing
from collections import Counter

from negviz import projects as P
from negviz.results import annotations as ann
from negviz.store import Store
from negviz.store import projects as rows
from tests.support.projects import NEVIR, take_and_label


def test_concurrent_queues_give_no_pair_more_than_its_overlap(store_url):
    """Eight processes drain one queue (overlap 2, 12 pairs) at once: every pair ends with exactly two
    labels from two different annotators, and no label is lost."""
    with Store(store_url) as store:
        P.create(store, "race", NEVIR, "owner", overlap=2, sample=12)
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=take_and_label, args=(store_url, f"a{i}", barrier, out), daemon=True) for i in range(8)]
    for p in procs:
        p.start()
    got = dict(out.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(timeout=300)  # a generous limit: a process exits slowly on a loaded machine
    assert [p.exitcode for p in procs] == [0] * 8
    per_pair = Counter(item for items in got.values() for item in items)
    with Store(store_url) as store:
        project = P.get(store, "race")
        labels = ann.latest(store, "nevir")
        claims = rows.claims(store.engine, "race")
    assert sorted(per_pair.values()) == [2] * 12 and set(per_pair) == set(project.items)
    assert labels.groupby("item_id")["annotator"].nunique().tolist() == [2] * 12
    assert len(labels) == 24 and len(claims) == 24 and not claims.duplicated(["item_id", "annotator"]).any()
