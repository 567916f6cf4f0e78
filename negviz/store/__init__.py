"""The results database: runs with their per-item scores, fine-tuning epochs, annotations.

    from negviz.store import Store, RunRecord
    store = Store()                       # $NEGVIZ_DB_URL, else a per-user SQLite file
    store = open_store()                  # the same, holding the shipped runs (what the CLI, the API and the app open)
    run_id = store.save_run(record, scores)
    store.find_run(spec_key)              # newest complete run for a spec, or None

Any SQLAlchemy URL works: a SQLite file, or PostgreSQL (postgresql://... uses psycopg 3).
"""

from negviz.store.record import (
    CANCELLED,
    COMPLETE,
    EVAL,
    FAILED,
    FINETUNE,
    RUN_KINDS,
    RUNNING,
    STATUSES,
    DuplicateRunError,
    RunNotFoundError,
    RunRecord,
    StoreAccessError,
    StoreError,
    StoreUnavailableError,
)
from negviz.store.store import Store, open_store

__all__ = [
    "Store",
    "open_store",
    "RunRecord",
    "RunNotFoundError",
    "DuplicateRunError",
    "StoreError",
    "StoreAccessError",
    "StoreUnavailableError",
    "STATUSES",
    "RUN_KINDS",
    "RUNNING",
    "COMPLETE",
    "FAILED",
    "CANCELLED",
    "EVAL",
    "FINETUNE",
]
