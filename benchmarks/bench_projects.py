"""A queue step of an annotation project (negviz.projects.next_pair) with 10,000 labels in the store.

    python benchmarks/bench_projects.py [--db URL] [--labels 10000] [--steps 30]

Builds a project over all NevIR pairs with overlap 8 and fills the first 1,250 pairs with 8 labels
each (10,000), so every step reads all labels and claims and scans past the full pairs. Each step
is a new annotator taking their first pair (a read of who holds what, then a claim: one write).
Baseline in the same run: the plain read a step cannot avoid, ``SELECT DISTINCT item_id,
annotator`` of the dataset's labels. Prints JSON: median and p95 ms per step, the baseline's, their
ratio, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from negviz import projects as P  # noqa: E402
from negviz.datasets import load  # noqa: E402
from negviz.store import Store  # noqa: E402
from negviz.store import projects as rows  # noqa: E402
from negviz.store.label_rows import insert_versions  # noqa: E402
from negviz.store.tables import now  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", help="store URL (default: a new SQLite file)")
    ap.add_argument("--labels", type=int, default=10_000)
    ap.add_argument("--steps", type=int, default=30)
    args = ap.parse_args()
    load_before = os.getloadavg()
    url = args.db or f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite"
    with Store(url) as store:
        project = P.create(store, f"bench-{int(time.time())}", load("nevir"), "bench", overlap=8)
        people = [f"a{i}" for i in range(8)]
        full = project.items[: args.labels // len(people)]
        stamp = now()
        insert_versions(
            store.engine,
            [
                {
                    "dataset": "nevir",
                    "item_id": item,
                    "annotator": who,
                    "version": 1,
                    "note": "",
                    "created_at": stamp,
                    "labels": {"negation_type": "affixal", "validity": "valid", "query_ambiguous": False},
                }
                for item in full
                for who in people
            ],
        )
        steps, plain = [], []
        for n in range(args.steps):
            start = time.perf_counter()
            rows.labellers(store.engine, "nevir")
            plain.append(time.perf_counter() - start)
            start = time.perf_counter()
            item = P.next_pair(store, project, f"bench-annotator-{n}")
            steps.append(time.perf_counter() - start)
            assert item == project.items[len(full) + n // 8], item  # 8 claims fill a pair
        labels = len(store.annotations("nevir"))
    ms = lambda xs: round(1000 * statistics.median(xs), 1)  # noqa: E731
    print(
        json.dumps(
            {
                "store": url.split(":")[0],
                "labels": labels,
                "pairs": len(project.items),
                "steps": args.steps,
                "step_ms_median": ms(steps),
                "step_ms_p95": round(1000 * sorted(steps)[int(0.95 * len(steps))], 1),
                "plain_read_ms_median": ms(plain),
                "ratio_to_plain_read": round(statistics.median(steps) / statistics.median(plain), 2),
                "load_before": [round(x, 2) for x in load_before],
                "load_after": [round(x, 2) for x in os.getloadavg()],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
