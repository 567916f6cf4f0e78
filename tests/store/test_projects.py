"""negviz.store.projects: annotation projects in the store: the project rows, claims of a pair's
slots (one winner per slot, compare-and-set take-over), reviewers' adjudications, and a whole
imported project written in one transaction. On SQLite and PostgreSQL (see tests/support/pg.py).
The rules over them (queues, reviews): tests/projects/."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from negviz.store import projects as sp
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def project(name: str = "p") -> dict:
    return {
        "name": name,
        "dataset": "nevir",
        "items": ["1", "2"],
        "overlap": 2,
        "label_schema": {"types": ["sentential"], "multi_type": False},
        "guidelines": "",
        "claim_hours": 24.0,
        "owner": "ana",
        "created_at": T0,
    }


def test_a_project_name_is_taken_once_and_its_guidelines_change(store):
    sp.insert_project(store.engine, project())
    with pytest.raises(sp.ProjectExistsError, match="a project named 'p' exists already"):
        sp.insert_project(store.engine, project())
    sp.update_guidelines(store.engine, "p", "Label the cue.")
    [row] = sp.project_rows(store.engine, "p")
    assert row["guidelines"] == "Label the cue." and row["items"] == ["1", "2"] and row["created_at"] == T0
    assert sp.project_rows(store.engine, "other") == []


def test_a_slot_is_claimed_once_and_a_stale_claim_taken_over_once(store):
    sp.insert_project(store.engine, project())  # a claim belongs to a stored project
    assert sp.try_claim(store.engine, "p", "1", 1, "ana")
    assert not sp.try_claim(store.engine, "p", "1", 1, "bo")  # the slot is taken
    assert sp.try_claim(store.engine, "p", "1", 2, "bo")
    held = sp.claims(store.engine, "p", "1")
    assert held[["slot", "annotator"]].values.tolist() == [[1, "ana"], [2, "bo"]]
    ana_at = held.loc[0, "claimed_at"].to_pydatetime()
    assert not sp.take_over(store.engine, "p", "1", 1, "ana", ana_at - timedelta(seconds=1), "cy")  # not that claim
    assert sp.take_over(store.engine, "p", "1", 1, "ana", ana_at, "cy")
    assert not sp.take_over(store.engine, "p", "1", 1, "ana", ana_at, "dee")  # already moved
    assert sp.release(store.engine, "p", "1", "cy") == 1 and sp.release(store.engine, "p", "1", "cy") == 0
    assert sp.claims(store.engine, "p")["annotator"].tolist() == ["bo"]


def test_adjudications_are_versioned_and_the_newest_decision_per_pair_wins(store):
    assert sp.add_adjudication(store.engine, "p", "nevir", "1", "rev", {"type": "a"}, created_at=T0) == 1
    assert sp.add_adjudication(store.engine, "p", "nevir", "1", "rev", {"type": "b"}, created_at=T0 + timedelta(1)) == 2
    # Another project decides the same pair later: across projects, the newest decision wins.
    sp.add_adjudication(store.engine, "q", "nevir", "1", "rev2", {"type": "c"}, created_at=T0 + timedelta(2))
    latest = sp.adjudication_rows(store.engine, project="p")
    assert latest["version"].tolist() == [2] and latest.loc[0, "labels"] == {"type": "b"}
    assert len(sp.adjudication_rows(store.engine, dataset="nevir", latest=False)) == 3
    decided = sp.newest_decisions(store.engine, "nevir")
    assert decided["item_id"].tolist() == ["1"] and decided.loc[0, "labels"] == {"type": "c"}


def test_an_import_is_written_whole_or_not_at_all(store):
    claim = {"project": "p", "item_id": "1", "slot": 1, "annotator": "ana", "claimed_at": T0}
    decision = {
        "project": "p",
        "dataset": "nevir",
        "item_id": "1",
        "version": 1,
        "reviewer": "rev",
        "labels": {},
        "note": "",
        "created_at": T0,
    }
    sp.write_imported(store.engine, project(), [claim], [], [decision])
    assert len(sp.claims(store.engine, "p")) == 1 and len(sp.adjudication_rows(store.engine, project="p")) == 1
    with pytest.raises(sp.ProjectExistsError, match="nothing was imported"):
        sp.write_imported(store.engine, project(), [], [], [])
    # Project "q" is new, but its decision clashes with a stored one: nothing of q is written.
    with pytest.raises(sp.ImportClashError, match="nothing was imported: import it again"):
        sp.write_imported(store.engine, project("q"), [], [], [{**decision, "project": "p"}])
    assert sp.project_rows(store.engine, "q") == []
