"""Build a big store for the scale benchmarks: the shipped runs (data/runs/) plus jittered copies,
through the project's own import path (run files written by negviz.store.portable, loaded by
Store.import_runs). Prints JSON: runs, item scores, size, seconds.

    python benchmarks/build_big_store.py --db sqlite:////tmp/scale/big.sqlite --runs 300
    python benchmarks/build_big_store.py --db postgresql://... --runs 300

The mix follows the shipped runs: NevIR, ExcluIR, DEMETR (35,000 items, 105,000 scores a run),
CANNOT and the fine-tuning run (with its epochs in the summary), cycled until --runs runs exist.
A copy gets a new run id, a model name "<model>~<k>", a created_at a minute later per copy and
its scores jittered (seeded), so pages see distinct models that behave like the real ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from negviz.core.paths import DATA_DIR  # noqa: E402
from negviz.store import (  # noqa: E402
    Store,
    db,  # noqa: E402
    portable,
)
from negviz.store import tables as t  # noqa: E402


def jittered_files(n_runs: int, out: Path, seed: int = 0) -> int:
    """Write n_runs run files into out: the shipped ones, then jittered copies. Returns the count."""
    shipped = portable.run_files(DATA_DIR / "runs")
    rng = np.random.default_rng(seed)
    written = 0
    copy = 0
    while written < n_runs:
        for file in shipped:
            if written >= n_runs:
                break
            record = portable.read_record(file)
            scores = portable.read_scores(file)
            if copy:
                scores["score"] = scores["score"] + rng.normal(0, 0.02, len(scores))
                record = dataclasses.replace(
                    record,
                    run_id=uuid.UUID(int=int(rng.integers(0, 2**63)) << 64 | copy).hex,
                    spec_key=f"{record.spec_key}~{copy}",
                    model_name=f"{record.model_name}~{copy}",
                    created_at=record.created_at + timedelta(minutes=copy) if record.created_at else None,
                )
            portable.write(out / f"{copy:03d}__{file.name}", record, scores)
            written += 1
        copy += 1
    return written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="store URL (SQLite path/URL or postgresql://...)")
    ap.add_argument("--runs", type=int, default=300, help="how many runs in all (default 300)")
    ap.add_argument("--files", default=None, help="directory for the run files (reused when it holds enough)")
    args = ap.parse_args()

    start = time.perf_counter()
    files = Path(args.files) if args.files else Path(tempfile.mkdtemp(prefix="negviz-big-"))
    files.mkdir(parents=True, exist_ok=True)
    if len(portable.run_files(files)) != args.runs:
        for old in portable.run_files(files):
            old.unlink()
        jittered_files(args.runs, files)
    made = time.perf_counter() - start

    store = Store(args.db)
    t0 = time.perf_counter()
    imported = store.import_runs(files)
    imported_s = time.perf_counter() - t0
    with db.read(store.engine) as conn:
        n_runs = conn.execute(sa_count(t.runs)).scalar()
        n_scores = conn.execute(sa_count(t.item_scores)).scalar()
        if store.dialect == "postgresql":
            size = conn.exec_driver_sql("SELECT pg_database_size(current_database())").scalar()
        else:
            size = os.path.getsize(store.engine.url.database)
    print(
        json.dumps(
            {
                "db": store.url,
                "dialect": store.dialect,
                "runs": n_runs,
                "imported": len(imported),
                "item_scores": n_scores,
                "size_mb": round(size / 2**20, 1),
                "files_seconds": round(made, 1),
                "import_seconds": round(imported_s, 1),
            }
        )
    )
    return 0


def sa_count(table):
    import sqlalchemy as sa

    return sa.select(sa.func.count()).select_from(table)


if __name__ == "__main__":
    sys.exit(main())
