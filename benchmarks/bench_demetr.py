"""Full DEMETR evaluation (35 files x 1,000 items = 35,000 items, 105,000 scored pairs) of
all-MiniLM-L6-v2 with negviz, cold and warm cache, counting the texts the model really encodes.

Each measurement runs in its own process with a fresh store; "cold" also has a fresh score
cache, so every text is encoded; "warm" reuses that cache. The texts the encoder sees are
counted by wrapping BiEncoder._embed, and compared with the unique texts of the dataset
(references repeat across the 35 files, the "." baseline is one text): each unique text must
be encoded exactly once. Usage:

    python benchmarks/bench_demetr.py [--limit N] [--device cpu] [--threads N] [--json]

--limit N takes the first N items of every file (a quick check); the default is all 35,000.
The report gives wall and process CPU seconds (on a shared CPU the wall time depends on the
other jobs; the 1-minute load average before and after is printed with it).
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

NEGVIZ = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from negviz.evaluation.runner import run_eval
from negviz.core.schema import DatasetSpec
from negviz.scorers.bi_encoder import BiEncoder
from negviz.store import Store

encoded = []
original = BiEncoder._embed
def counting(self, texts, progress):
    encoded.extend(texts)
    return original(self, texts, progress)
BiEncoder._embed = counting

limit = None if sys.argv[2] == "none" else int(sys.argv[2])
r = run_eval("all-MiniLM-L6-v2", DatasetSpec.make("demetr", limit=limit), store=Store(), device=sys.argv[1],
             force=True)
perts = {p["perturbation"]: p for p in r.summary["perturbations"]}
print(json.dumps({
    "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0, "n": r.record.n,
    "encoded_texts": len(encoded), "distinct_encoded": len(set(encoded)), "perturbations": len(perts),
    "model_spec": r.record.model_spec, "device": r.record.device,
    "negation": {k: perts["critical_id8_negation"][k] for k in ("detection_accuracy", "sensitivity_ratio", "n")},
    "antonym": {k: perts["critical_id7_antonym"][k] for k in ("detection_accuracy", "sensitivity_ratio", "n")},
}))
"""

UNIQUE = r"""
import json, sys
from negviz.datasets import load
from negviz.core.schema import DatasetSpec, EMPTY_CANDIDATE
limit = None if sys.argv[1] == "none" else int(sys.argv[1])
f = load(DatasetSpec.make("demetr", limit=limit)).frame
texts = set(f["reference"]) | set(f["candidate"]) | set(f["perturbed"]) | {EMPTY_CANDIDATE}
print(json.dumps({"items": len(f), "pairs": 3 * len(f), "text_slots": 6 * len(f), "unique_texts": len(texts)}))
"""


def run(code: str, env: dict, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None, help="items per perturbation file (default: all 1,000)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS / torch threads (default: torch's)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    limit = "none" if args.limit is None else str(args.limit)
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "NEGVIZ_CACHE_DIR": f"{tmp}/cache",
            "NEGVIZ_DB_URL": f"sqlite:///{tmp}/cold.sqlite",
        }
        if args.threads:
            env["OMP_NUM_THREADS"] = str(args.threads)
        data = run(UNIQUE, env, limit)
        load_before = os.getloadavg()[0]
        cold = run(NEGVIZ, env, args.device, limit)
        load_after = os.getloadavg()[0]
        warm = run(NEGVIZ, {**env, "NEGVIZ_DB_URL": f"sqlite:///{tmp}/warm.sqlite"}, args.device, limit)
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "device": cold["device"],
        "threads": args.threads or "torch default",
        "load_average_1min": [round(load_before, 1), round(load_after, 1)],
        "dataset": data,
        "cold": {k: cold[k] for k in ("seconds", "cpu_seconds", "encoded_texts", "distinct_encoded")},
        "warm": {k: warm[k] for k in ("seconds", "cpu_seconds", "encoded_texts")},
        "each_unique_text_encoded_once": cold["encoded_texts"] == cold["distinct_encoded"] == data["unique_texts"],
        "texts_per_second_cold": round(cold["encoded_texts"] / cold["seconds"], 1),
        "perturbations": cold["perturbations"],
        "model_spec": cold["model_spec"],
        "negation": cold["negation"],
        "antonym": cold["antonym"],
    }
    for part in ("cold", "warm"):
        for k in ("seconds", "cpu_seconds"):
            report[part][k] = round(report[part][k], 2)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{report['machine']}, {report['device']}, threads {report['threads']}, "
        f"load {report['load_average_1min'][0]} -> {report['load_average_1min'][1]}"
    )
    print(
        f"DEMETR: {data['items']:,} items, {data['pairs']:,} pairs, {data['text_slots']:,} text slots, "
        f"{data['unique_texts']:,} unique texts"
    )
    print(
        f"cold: {report['cold']['seconds']:.1f} s wall, {report['cold']['cpu_seconds']:.1f} s CPU, "
        f"{cold['encoded_texts']:,} texts encoded ({cold['distinct_encoded']:,} distinct), "
        f"{report['texts_per_second_cold']} texts/s"
    )
    print(f"warm: {report['warm']['seconds']:.1f} s wall, {warm['encoded_texts']} texts encoded")
    print(f"each unique text encoded once: {report['each_unique_text_encoded_once']}")
    print(f"negation: {cold['negation']}; antonym: {cold['antonym']}")


if __name__ == "__main__":
    main()
