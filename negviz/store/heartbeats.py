"""Heartbeats of running runs (tables.run_heartbeats): the SQL behind Store.beat, claim_run and
discard_run. Whether a heartbeat is too old is the caller's rule (negviz.evaluation.jobs.is_alive); these
functions take its cut-off time, so every check and its write happen in one transaction.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime

import sqlalchemy as sa

from negviz.store import tables as t
from negviz.store.record import RUNNING

hb, runs = t.run_heartbeats.c, t.runs.c


def owner() -> str:
    """This process, as a heartbeat's owner."""
    return f"{socket.gethostname()}:{os.getpid()}"


def insert(conn: sa.Connection, run_id: str, who: str, at: datetime) -> None:
    conn.execute(t.run_heartbeats.insert().values(run_id=run_id, owner=who, beat_at=at))


def beat(conn: sa.Connection, run_id: str, who: str) -> bool:
    """One small UPDATE; False when ``who`` no longer owns the run (discarded, or claimed)."""
    query = t.run_heartbeats.update().where(hb.run_id == run_id, hb.owner == who).values(beat_at=t.now())
    return conn.execute(query).rowcount == 1


def last_beats(conn: sa.Connection, run_ids: list[str]) -> dict[str, tuple[str, datetime]]:
    if not run_ids:
        return {}
    query = sa.select(hb.run_id, hb.owner, hb.beat_at).where(hb.run_id.in_(run_ids))
    return {row.run_id: (row.owner, row.beat_at) for row in conn.execute(query)}


def stale(run_id: str, before: datetime) -> sa.ColumnElement[bool]:
    """The run is running and has given no sign of life since ``before``: its heartbeat is older,
    or it never beat (a run of an older negviz) and was created before."""
    beat_at = sa.select(hb.beat_at).where(hb.run_id == run_id).scalar_subquery()
    return sa.and_(runs.run_id == run_id, runs.status == RUNNING, sa.func.coalesce(beat_at, runs.created_at) < before)


def claim(conn: sa.Connection, run_id: str, who: str, before: datetime) -> bool:
    """Make ``who`` the owner of a stale run, its stored epochs deleted (it is trained again)."""
    if conn.execute(sa.select(runs.run_id).where(stale(run_id, before))).first() is None:
        return False
    # Compare-and-set: of two processes claiming at once, one updates the row, the other none.
    taken = conn.execute(
        t.run_heartbeats.update().where(hb.run_id == run_id, hb.beat_at < before).values(owner=who, beat_at=t.now())
    ).rowcount
    if not taken:
        if conn.execute(sa.select(hb.run_id).where(hb.run_id == run_id)).first() is not None:
            return False  # it beat meanwhile
        insert(conn, run_id, who, t.now())  # a run that never beat; a second inserter fails on the key
    conn.execute(t.epochs.delete().where(t.epochs.c.run_id == run_id))
    return True


def discard(conn: sa.Connection, run_id: str, before: datetime) -> bool:
    """Delete a stale run (its epochs, scores and heartbeat go with it)."""
    return conn.execute(t.runs.delete().where(stale(run_id, before))).rowcount == 1
