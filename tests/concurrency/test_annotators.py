"""Several processes labelling at once (SQLite and PostgreSQL): no label lost."""

from __future__ import annotations

import multiprocessing

from negviz.results import annotations as ann
from negviz.store import Store
from tests.results.test_annotations import N_LABELS, N_PROCS, SHARED, _annotate


def test_concurrent_annotators(store_url):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(N_PROCS)
    procs = [ctx.Process(target=_annotate, args=(store_url, p, barrier), daemon=True) for p in range(N_PROCS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * N_PROCS
    with Store(store_url) as store:
        history = ann.flatten(store.annotations("nevir", latest=False))
        assert sorted(history["note"]) == sorted(f"p{p} i{i}" for p in range(N_PROCS) for i in range(N_LABELS))
        per_key = 2 * N_LABELS // SHARED  # two processes per annotator name
        for _, versions in history.groupby(["item_id", "annotator"])["version"]:
            assert sorted(versions) == list(range(1, per_key + 1))
        assert len(ann.latest(store, "nevir")) == SHARED * 2
