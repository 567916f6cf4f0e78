"""NevIR-test evaluation of all-MiniLM-L6-v2: negviz (cold and warm cache) against a plain
batched sentence-transformers script that encodes the same 5,532 texts.

Each measurement runs in its own process (same imports, model load included in the timed
part for both). Usage: python benchmarks/bench_eval.py [--repeat 2] [--device cpu]
Targets (issue #2): cold <= 1.15x the plain script, warm < 1 s.
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

PLAIN = r"""
import json, sys, time
import numpy as np
from sentence_transformers import SentenceTransformer
from negviz.datasets import load
from negviz.scorers.loading import resolve_source
frame = load("nevir").frame
path = resolve_source("sentence-transformers/all-MiniLM-L6-v2").path
t0 = time.perf_counter()
model = SentenceTransformer(path, device=sys.argv[1])
texts = frame["q1"].tolist() + frame["d1"].tolist() + frame["q2"].tolist() + frame["d2"].tolist()
emb = model.encode(texts, batch_size=32, convert_to_numpy=True)
q1, d1, q2, d2 = np.split(emb, 4)
dot = lambda a, b: np.einsum("ij,ij->i", a, b)
acc = float(((dot(q1, d1) > dot(q1, d2)) & (dot(q2, d2) > dot(q2, d1))).mean())
print(json.dumps({"seconds": time.perf_counter() - t0, "texts": len(texts), "paired_accuracy": acc}))
"""

NEGVIZ = r"""
import json, sys, time
from negviz.evaluation.runner import run_eval
from negviz.store import Store
t0 = time.perf_counter()
r = run_eval("all-MiniLM-L6-v2", "nevir", store=Store(), device=sys.argv[1], force=True)
print(json.dumps({"seconds": time.perf_counter() - t0, "paired_accuracy": r.summary["paired_accuracy"],
                  "device": r.record.device}))
"""


def run(code: str, env: dict, device: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, device], env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    results = {"plain": [], "negviz_cold": [], "negviz_warm": []}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            env = {
                **os.environ,
                "HF_HUB_OFFLINE": "1",
                "NEGVIZ_CACHE_DIR": f"{tmp}/cache",
                "NEGVIZ_DB_URL": f"sqlite:///{tmp}/results.sqlite",
            }
            results["plain"].append(run(PLAIN, env, args.device))
            results["negviz_cold"].append(run(NEGVIZ, env, args.device))
            results["negviz_warm"].append(run(NEGVIZ, env, args.device))
    best = {k: min(r["seconds"] for r in v) for k, v in results.items()}
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
        "device": args.device,
        "best_seconds": {k: round(v, 3) for k, v in best.items()},
        "cold_over_plain": round(best["negviz_cold"] / best["plain"], 3),
        "warm_under_1s": best["negviz_warm"] < 1.0,
        "paired_accuracy": {k: v[0]["paired_accuracy"] for k, v in results.items()},
        "texts_plain": results["plain"][0]["texts"],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
