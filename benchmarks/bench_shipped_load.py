"""The shipped runs (data/runs/) in a fresh store: what a first start waits for. Prints JSON.

    python benchmarks/bench_shipped_load.py [--repeat 3]

Each repeat opens a new SQLite store with open_store (the shipped runs' records, from the Parquet
footers), then times, wall and process CPU (the machine is shared: CPU time is what an idle core
would take):

- **open**: open_store on the new store;
- **read in place**: every shipped run's scores read by the fresh store (Store.scores_many), from
  the run files, nothing copied yet: what a page reading them waits for now;
- **copy**: Store.load_pending(), the copy of the ~2 million score rows into the store: what a
  page reading the runs waited for before (a run's first read copied it in), and what the app's
  background thread still does;
- **read copied**: the same reads once everything is copied in (the plain baseline).

Ratios: read in place / read copied (the reads a fresh store serves against those of a full one),
and (open + read in place) / (open + copy + read copied), the first start's wait after against before.
Best of ``--repeat`` by wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def once() -> dict:
    from negviz.store import open_store

    with tempfile.TemporaryDirectory(prefix="negviz-bench-shipped-") as tmp:
        store, open_s, open_cpu = timed(
            lambda: open_store(f"sqlite:///{Path(tmp) / 'results.sqlite'}", shipped_runs=True)
        )
        with store:
            ids = store.pending_runs()
            in_place, read_s, read_cpu = timed(lambda: store.scores_many(ids))
            _, copy_s, copy_cpu = timed(store.load_pending)
            copied, stored_s, stored_cpu = timed(lambda: store.scores_many(ids))
        same = all(in_place[r].equals(copied[r]) for r in ids)
    return {
        "runs": len(ids),
        "score_rows": sum(len(f) for f in copied.values()),
        "same_frames": same,
        "open_s": round(open_s, 3),
        "read_in_place_s": round(read_s, 3),
        "copy_s": round(copy_s, 3),
        "read_copied_s": round(stored_s, 3),
        "cpu_s": {
            "open": round(open_cpu, 3),
            "read_in_place": round(read_cpu, 3),
            "copy": round(copy_cpu, 3),
            "read_copied": round(stored_cpu, 3),
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load_before = round(os.getloadavg()[0], 2)
    best = min((once() for _ in range(args.repeat)), key=lambda r: r["open_s"] + r["read_in_place_s"])
    before = best["open_s"] + best["copy_s"] + best["read_copied_s"]
    after = best["open_s"] + best["read_in_place_s"]
    print(
        json.dumps(
            {
                **best,
                "first_start_after_s": round(after, 3),
                "first_start_before_s": round(before, 3),
                "ratio_first_start_after_over_before": round(after / before, 3),
                "ratio_read_in_place_over_read_copied": round(best["read_in_place_s"] / best["read_copied_s"], 3),
                "load_before": load_before,
                "load_after": round(os.getloadavg()[0], 2),
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
