"""negviz.store.heartbeats: the heartbeat of a running run (Store.beat, last_beats, claim_run,
discard_run): only a run silent since the cut-off is taken over or discarded. On SQLite and
PostgreSQL (see tests/support/pg.py). The rule that picks the cut-off: tests/evaluation/test_jobs.py."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta, timezone

import pytest

from negviz.store import RunNotFoundError
from negviz.store.heartbeats import owner
from tests.store.test_run_table import make_record
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_a_running_run_beats_and_only_a_silent_one_is_claimed_or_discarded(store):
    run_id = store.start_run(make_record(kind="finetune"), owner="host:1")
    who, at = store.last_beats([run_id])[run_id]
    assert who == "host:1" and at.tzinfo is not None
    assert store.beat(run_id, owner="host:1") and not store.beat(run_id, owner="host:2")  # not its run
    assert store.last_beats(["nope"]) == {}
    # A cut-off before the last beat: the run is alive, no one takes it over or discards it.
    assert not store.claim_run(run_id, at - timedelta(seconds=1), owner="host:2")
    assert not store.discard_run(run_id, at - timedelta(seconds=1))
    assert store.claim_run(run_id, at + timedelta(hours=1), owner="host:2")
    assert store.last_beats([run_id])[run_id][0] == "host:2"
    assert store.discard_run(run_id, datetime.now(timezone.utc) + timedelta(hours=1))
    with pytest.raises(RunNotFoundError):
        store.get_run(run_id)


def test_a_claim_deletes_the_stored_epochs_of_the_run_taken_over(store):
    run_id = store.start_run(make_record(kind="finetune"))
    store.add_epoch(run_id, 0, {"acc": 0.5})
    assert store.last_beats([run_id])[run_id][0] == owner() == f"{socket.gethostname()}:{os.getpid()}"
    assert store.claim_run(run_id, datetime.now(timezone.utc) + timedelta(hours=1), owner="other:2")
    assert store.epochs(run_id).empty  # trained again under its id
    assert not store.beat(run_id)  # this process no longer owns it
