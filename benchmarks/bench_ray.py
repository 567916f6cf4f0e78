"""MiniLM on all of NevIR (1,383 pairs) through a local Ray cluster against the same run in-process
(issue 48: overhead at most 1.3x on this machine).

In-process: ``run_eval`` in a fresh process, as ``negviz eval`` runs it. Ray: a fresh driver process
running the fill plan (``--shards`` shards) on a local Ray cluster of this machine's cores (started
before the clock, as a cluster a group already has; its workers start cold: imports and model load
are timed). Both sides start with an empty score cache and store; the sides alternate, each
``--repeat`` times, and the best of each counts. The load average is printed before and after:
this machine is shared, so only the ratio of one run means something.

    python benchmarks/bench_ray.py [--repeat 1] [--shards N (default: the cores)] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IN_PROCESS = r"""
import json, sys, time
t0 = time.perf_counter()
from negviz.core.schema import DatasetSpec
from negviz.evaluation.runner import run_eval
from negviz.store import Store
limit = int(sys.argv[1]) or None
r = run_eval("all-MiniLM-L6-v2", DatasetSpec.make("nevir", limit=limit), store=Store())
print(json.dumps({"seconds": time.perf_counter() - t0, "n": r.record.n,
                  "paired_accuracy": r.summary["paired_accuracy"]}))
"""

ON_RAY = r"""
import json, sys, time
t0 = time.perf_counter()
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill.executor import run_plan
from negviz.evaluation.fill.planning import make_plan
from negviz.store import Store
limit, shards, cache = int(sys.argv[1]) or None, int(sys.argv[2]), sys.argv[3]
store = Store()
plan = make_plan(store, [("all-MiniLM-L6-v2", DatasetSpec.make("nevir", limit=limit), "NevIR")], shards=shards)
report = run_plan(plan, store, on="ray", cache_dir=cache)
(run,) = [c.record for c in report.stored]
print(json.dumps({"seconds": time.perf_counter() - t0, "n": run.n, "paired_accuracy": run.summary["paired_accuracy"]}))
"""


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def timed(code: str, args: list[str], env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stdout[-2000:] + out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from tests.support.ray_cluster import local_cluster

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--shards", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--limit", type=int, default=0, help="the first N pairs only (0: all 1,383)")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    results: dict[str, list[dict]] = {"in_process": [], "ray": []}
    before = load_average()
    with local_cluster(head_cpus=cores, worker_cpus=0) as cluster:
        for _ in range(args.repeat):
            for side in ("in_process", "ray"):
                with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
                    env = {
                        **os.environ,
                        "PYTHONPATH": str(ROOT),
                        "HF_HUB_OFFLINE": "1",
                        "NEGVIZ_CACHE_DIR": f"{tmp}/cache",
                        "NEGVIZ_DB_URL": f"sqlite:///{tmp}/results.sqlite",
                        "NEGVIZ_NO_SHIPPED_RUNS": "1",
                        "RAY_ADDRESS": cluster.address,
                    }
                    if side == "in_process":
                        results[side].append(timed(IN_PROCESS, [str(args.limit)], env))
                    else:
                        results[side].append(
                            timed(ON_RAY, [str(args.limit), str(args.shards), f"{tmp}/ray-cache"], env)
                        )
                print(side, results[side][-1], "load", load_average(), file=sys.stderr, flush=True)
    best = {k: min(r["seconds"] for r in v) for k, v in results.items()}
    same = {round(r["paired_accuracy"], 6) for v in results.values() for r in v}
    print(
        json.dumps(
            {
                "machine": f"{platform.machine()}, {cores} cores, {platform.python_version()}",
                "pairs": results["ray"][0]["n"],
                "shards": args.shards,
                "ray_cpus": cores,
                "best_seconds": {k: round(v, 2) for k, v in best.items()},
                "ray_over_in_process": round(best["ray"] / best["in_process"], 3),
                "paired_accuracy_same": len(same) == 1,
                "load_average_before": before,
                "load_average_after": load_average(),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
