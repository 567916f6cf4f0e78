"""negviz.projects.queue on SQLite and PostgreSQL: who gets which pair under an overlap, claims
that are released or go stale, queue orders and filters, and a queue step's statement count.
Several processes on one queue: tests/concurrency/test_project_queues.py."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz import projects as P
from negviz.projects import queue as Q
from negviz.results import annotations as ann
from negviz.store import Store
from negviz.store import projects as rows
from tests.support.counting import statements
from tests.support.projects import label, new
from tests.support.waiting import wait_for


def test_overlap_two_never_hands_a_pair_to_a_third_annotator(store):
    project = new(store, overlap=2, size=3)
    a, b, c = "ana", "ben", "cy"
    first = P.next_pair(store, project, a)
    assert P.next_pair(store, project, a) == first  # her open claim comes back until she labels it
    assert P.next_pair(store, project, b) == first  # the pair's second slot
    assert P.next_pair(store, project, c) != first  # two holders: not for a third
    label(store, first, a)
    label(store, first, b)
    # every annotator labels until the queue is empty; count the labels per pair
    for who in (a, b, c):
        while (item := P.next_pair(store, project, who)) is not None:
            label(store, item, who)
    counts = ann.latest(store, "nevir").groupby("item_id")["annotator"].nunique()
    assert counts.reindex(list(project.items)).tolist() == [2, 2, 2]
    progress = P.progress(store, project).set_index("annotator")
    assert progress["labelled"].sum() == 6 and progress["open"].sum() == 0
    assert Q.project_progress(store, project)["complete_pairs"] == 3


def test_labels_given_outside_the_project_count_and_extra_labels_need_asking(store):
    project = new(store, overlap=1, size=2)
    first, second = project.items
    label(store, first, "ana")  # in the inspector, before the project's queue
    assert P.next_pair(store, project, "ben") == second
    assert P.next_pair(store, project, "cy") is None  # both pairs have their one label or claim
    P.claim_extra(store, project, first, "cy")
    assert P.next_pair(store, project, "cy") == first  # asked for: a second label on a full pair
    assert sorted(rows.claims(store.engine, "p", first)["annotator"]) == ["cy"]


def test_skipping_releases_and_a_stale_claim_is_taken_over(store):
    project = new(store, overlap=1, size=2, claim_hours=1e-6)  # claims go stale after 3.6 ms
    first, second = project.items
    assert P.next_pair(store, project, "ana") == first
    wait_for(lambda: Q._stale(project, Q.holders(store, project).claims[first], set()), "ana's claim to go stale")
    assert P.next_pair(store, project, "ben") == first  # ana never labelled it: ben takes it over
    assert list(rows.claims(store.engine, "p", first)["annotator"]) == ["ben"]
    assert P.release(store, project, first, "ben")
    assert P.next_pair(store, project, "ben", skip=[first]) == second


def test_queue_orders_and_filters(store):
    project = new(store, overlap=1, size=6)
    ordered = list(reversed(project.items))
    assert P.next_pair(store, project, "ana", ordered) == ordered[0]
    assert P.next_pair(store, project, "ben", only=[project.items[3]]) == project.items[3]
    with pytest.raises(P.ProjectError, match="Unknown queue order"):
        P.next_pair(store, project, "cy", "random")


def _queue_step_statements(path, labels: int) -> tuple[str, str, list[str]]:
    """A project over all 1,383 NevIR pairs with overlap 8 whose first ``labels // 8`` pairs are
    full (8 labels each): (the pair a new annotator is given, the pair expected, the SQL
    statements of that step). A step by another new annotator comes first, to warm the caches."""
    with Store(path) as store:
        project = new(store, name="big", overlap=8, size=None)
        full = labels // 8
        stamp = pd.Timestamp.now(tz="UTC").to_pydatetime()
        from negviz.store.label_rows import insert_versions

        insert_versions(
            store.engine,
            [
                {
                    "dataset": "nevir",
                    "item_id": item,
                    "annotator": f"a{i}",
                    "version": 1,
                    "labels": {"negation_type": "affixal", "validity": "valid", "query_ambiguous": False},
                    "note": "",
                    "created_at": stamp,
                }
                for item in project.items[:full]
                for i in range(8)
            ],
        )
        assert len(store.annotations("nevir")) == labels
        P.next_pair(store, project, "new")
        with statements(store.engine) as sent:
            item = P.next_pair(store, project, "newer")
        return item, project.items[full], sent


def test_a_queue_step_sends_as_many_statements_with_10000_labels_as_with_96(tmp_path):
    """A step reads who holds what in one go and scans past the full pairs in memory: 10,000
    labels in the store add no statement to it (a read per pair would add 1,238). Its time (the
    issue's target: under 300 ms) is benchmarks/bench_projects.py's."""
    item, expected, few = _queue_step_statements(tmp_path / "few.sqlite", 96)
    assert item == expected
    item, expected, many = _queue_step_statements(tmp_path / "many.sqlite", 10_000)
    assert item == expected
    assert 0 < len(many) == len(few) and many == few, "\n".join(many)
