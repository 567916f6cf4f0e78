"""Datasets a user added, kept in the results store so everyone on a shared store sees them.

The items are the validated frame as Parquet bytes (data only: read back with pyarrow, never
unpickled); the row also keeps the column mapping, the source file's name, size and sha256, who
added it and when, a description and a licence. The same content (sha256 + kind + mapping) is
recognised, a name is never reused for other content, and removing says how many runs use it.

    from negviz.store import Store, datasets as added
    added.add(store, "mypairs", frame, "pairs", sha256=..., ...)
    added.items(store, "mypairs")          # the frame
"""

from __future__ import annotations

import io
import weakref
from dataclasses import dataclass, fields
from datetime import datetime

import pandas as pd
import sqlalchemy as sa

from negviz.store import db
from negviz.store.record import StoreError
from negviz.store.tables import added_datasets as table
from negviz.store.tables import now

_READY: "weakref.WeakSet[sa.Engine]" = weakref.WeakSet()


@dataclass(frozen=True)
class AddedDataset:
    """One added dataset's record (without its items)."""

    name: str
    kind: str
    n: int
    columns: str
    source_file: str
    size: int
    sha256: str
    added_by: str
    added_at: datetime
    description: str
    licence: str


META = tuple(f.name for f in fields(AddedDataset))


def ensure_table(engine: sa.Engine) -> None:
    """Create the table in a store made before it existed (once per engine and process)."""
    if engine in _READY:
        return
    if not sa.inspect(engine).has_table(table.name):
        with db.schema_transaction(engine) as conn:
            table.create(conn, checkfirst=True)
    _READY.add(engine)


def _engine(store) -> sa.Engine:
    ensure_table(store.engine)
    return store.engine


def to_parquet(frame: pd.DataFrame) -> bytes:
    """The frame as Parquet bytes; metadata columns Arrow cannot type (mixed values) become text."""
    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer, index=False)
    except Exception:  # noqa: BLE001  pyarrow's ArrowTypeError/ArrowInvalid on mixed-type columns
        mixed = {
            c: frame[c].map(lambda v: None if v is None else str(v)) for c in frame.columns if frame[c].dtype == object
        }
        buffer = io.BytesIO()
        frame.assign(**mixed).to_parquet(buffer, index=False)
    return buffer.getvalue()


def from_parquet(data: bytes) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.read_table(pa.BufferReader(data)).to_pandas(ignore_metadata=True)


def get(store, name: str) -> AddedDataset | None:
    with db.read(_engine(store)) as conn:
        row = conn.execute(sa.select(*(table.c[c] for c in META)).where(table.c.name == name)).mappings().first()
    return AddedDataset(**row) if row else None


def listing(store) -> pd.DataFrame:
    """One row per added dataset (its record, no items), by name."""
    with db.read(_engine(store)) as conn:
        rows = conn.execute(sa.select(*(table.c[c] for c in META)).order_by(table.c.name)).all()
    out = pd.DataFrame([tuple(r) for r in rows], columns=list(META))
    out["added_at"] = pd.to_datetime(out["added_at"], utc=True)
    return out


def items(store, name: str) -> pd.DataFrame:
    with db.read(_engine(store)) as conn:
        data = conn.execute(sa.select(table.c["items"]).where(table.c.name == name)).scalar()
    if data is None:
        raise StoreError(f"no added dataset named {name!r} in this store")
    return from_parquet(bytes(data))


def find_same(store, sha256: str, kind: str, columns: str) -> AddedDataset | None:
    """The added dataset with this very content, kind and mapping, if any."""
    c = table.c
    query = sa.select(*(c[m] for m in META)).where(c.sha256 == sha256, c.kind == kind, c.columns == columns)
    with db.read(_engine(store)) as conn:
        row = conn.execute(query.order_by(c.added_at)).mappings().first()
    return AddedDataset(**row) if row else None


def add(store, record: AddedDataset, frame: pd.DataFrame) -> tuple[AddedDataset, bool]:
    """Store a validated frame under ``record.name``. Returns (the stored record, created):
    the same content, kind and mapping under the same name is recognised (created False); under
    another name, or another content under a taken name, it is refused with a StoreError."""
    same = find_same(store, record.sha256, record.kind, record.columns)
    if same is not None:
        if same.name == record.name:
            return same, False
        raise StoreError(
            f"this file (sha256 {record.sha256[:12]}, kind {record.kind}, same column mapping) is already "
            f"added as {same.name!r} by {same.added_by} on {same.added_at:%Y-%m-%d}; use that name"
        )
    record = AddedDataset(**{**record.__dict__, "n": len(frame), "added_at": record.added_at or now()})
    values = {**record.__dict__, "items": to_parquet(frame)}
    try:
        with db.write(_engine(store)) as conn:
            clash = conn.execute(sa.select(table.c.added_by, table.c.added_at).where(table.c.name == record.name))
            taken = clash.first()
            if taken is None:
                conn.execute(table.insert().values(**values))
    except sa.exc.IntegrityError:  # another process took the name meanwhile
        taken = get(store, record.name)
    if taken is not None:
        raise StoreError(
            f"a dataset named {record.name!r} is already added (by {taken.added_by} on {taken.added_at:%Y-%m-%d}) "
            "with other content; choose another name, or remove it first"
        )
    return record, True


def runs_using(store, name: str) -> int:
    """How many stored runs (any status) were made on the dataset."""
    from negviz.store.tables import runs

    with db.read(_engine(store)) as conn:
        return int(conn.execute(sa.select(sa.func.count()).where(runs.c.dataset_name == name)).scalar())


def hold(conn: sa.Connection, name: str, sha256: str) -> None:
    """Inside the write transaction that stores a run made on the added dataset ``name``: fail
    unless the store still holds it with this content, and keep it until the transaction ends
    (a shared row lock on PostgreSQL, so a concurrent remove waits and then counts the run;
    SQLite's write transaction already excludes every other writer)."""
    query = sa.select(table.c.sha256).where(table.c.name == name).with_for_update(read=True)
    held = conn.execute(query).scalar()
    if held != sha256:
        how = "removed from the store" if held is None else "removed and added again with other content"
        raise StoreError(
            f"the added dataset {name!r} was {how} while this run was computed, so the run was not stored; "
            f"add the dataset again (`negviz datasets add {name} FILE --kind KIND`) and evaluate again"
        )


def remove(store, name: str, delete_runs: bool = False) -> int:
    """Remove an added dataset (and, with ``delete_runs``, the runs made on it) in one transaction.
    Returns how many stored runs use it (deleted or kept)."""
    from negviz.store.tables import runs

    with db.write(_engine(store)) as conn:
        if conn.execute(table.delete().where(table.c.name == name)).rowcount == 0:
            raise StoreError(f"no added dataset named {name!r} in this store")
        count = int(conn.execute(sa.select(sa.func.count()).where(runs.c.dataset_name == name)).scalar())
        if delete_runs:
            conn.execute(runs.delete().where(runs.c.dataset_name == name))
    return count
