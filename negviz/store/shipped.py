"""A read-only stand-in for the results store while its database is away.

    stand_in = ShippedStore("the results database at db:5432 is not reachable")
    stand_in.runs()                    # the shipped runs (data/runs/), read as from any store
    stand_in.add_annotation(...)       # StoreUnavailableError: nothing can be saved now

A real Store (a SQLite file in a temporary folder) holding the shipped runs, imported lazily as
the app's store imports them; every other write is refused with the outage's message, so nothing
is saved where it would be lost when the database comes back.
"""

from __future__ import annotations

import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from negviz.store.record import StoreUnavailableError
from negviz.store.store import Store


class ShippedStore(Store):
    def __init__(self, refusal: str, host: str = "", runs_dir: str | Path | None = None):
        self.refusal, self.host = refusal, host
        self._own_writes = threading.local()
        self._folder = tempfile.TemporaryDirectory(prefix="negviz-shipped-")  # removed with this object
        with self._writing():
            super().__init__(Path(self._folder.name) / "shipped.sqlite")
            # inserted first: refuse before SQLite's BEGIN IMMEDIATE is even sent
            sa.event.listen(self._engine, "begin", self._refuse, insert=True)
            self.ensure_bundled(runs_dir, lazy=True)

    def load_pending(self, run_id: str | None = None) -> int:
        with self._writing():  # copying a shipped run's scores in is reading, for the pages
            return super().load_pending(run_id)

    @contextmanager
    def _writing(self):
        self._own_writes.on = True
        try:
            yield
        finally:
            self._own_writes.on = False

    def _refuse(self, conn: sa.Connection) -> None:
        if conn.get_execution_options().get("negviz_write") and not getattr(self._own_writes, "on", False):
            raise StoreUnavailableError(f"{self.refusal}; nothing can be saved until it is back", self.host)
