"""Re-create the shipped precomputed runs (data/runs/) with the `negviz` CLI, offline.

Each run is made by `negviz eval` into a scratch store, then written with `negviz export-run`,
so the shipped files are exactly what the CLI produces. Usage:
    python scripts/make_runs.py [--models ...] [--datasets ...]
    python scripts/make_runs.py --models bm25 --datasets excluir --corpus offline   # corpus retrieval
    python scripts/make_runs.py --models maxsim-all-MiniLM-L6-v2 --datasets excluir --corpus offline --top-k 10
    python scripts/make_runs.py --explain gradient-x-input --models all-MiniLM-L6-v2 negminilm --datasets nevir
    python scripts/make_runs.py --explain occlusion --limit 20 --models bge-small-en-v1.5-int8 --datasets nevir
    python scripts/make_runs.py --explained   # every shipped cue-influence run (EXPLAINED)

`--explain METHOD` makes cue-influence runs (`negviz explain`, run kind "attribution") instead,
named <dataset>-attribution-<method>[-first<N>]__<model>. The shipped ones (EXPLAINED) and the
models without one say why on the Cue influence page.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from negviz.evaluation.catalog import evaluation_split  # noqa: E402

OUT = ROOT / "data" / "runs"
MODELS = ["all-MiniLM-L6-v2", "maxsim-all-MiniLM-L6-v2", "tfidf", "bm25", "splade-tiny", "negminilm"]
DATASETS = ["nevir", "excluir", "demetr", "cannot"]
# The shipped cue-influence runs on NevIR: (method, first N items or None for all, models).
# MPNet-size models and occlusion (about 600 scorings per pair) are too slow for all 1,383 pairs
# on a 2-core CPU; the models left out say why (negviz.analyses.cue_influence.NOT_EXPLAINED).
EXPLAINED = [
    ("gradient-x-input", None, ["all-MiniLM-L6-v2", "negminilm"]),
    ("gradient-x-input", 20, ["all-mpnet-base-v2", "negmpnet-lora"]),
    ("occlusion", 5, ["splade-tiny"]),  # about 600 scorings per pair; no gradient method for SPLADE
    # No gradients through INT8 ONNX or MaxSim here: occlusion, about 300 texts encoded per pair.
    ("occlusion", 20, ["bge-small-en-v1.5-int8", "maxsim-all-MiniLM-L6-v2"]),
]


def negviz(*args: str, env: dict) -> str:
    out = subprocess.run([sys.executable, "-m", "negviz", *args], env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"negviz {' '.join(args)} failed:\n{out.stderr[-3000:]}")
    return out.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument(
        "--dataset-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="passed to `negviz eval` (e.g. perturbations=... on a slow CPU); name the subset with --tag",
    )
    ap.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a model option passed to `negviz eval` (e.g. template=rank1); name the variant with --tag",
    )
    ap.add_argument(
        "--batch-size",
        type=int,
        help="passed to `negviz eval`; 1 for a reasoning template on a CPU, where a batch generates "
        "as long as its longest reasoning",
    )
    ap.add_argument("--tag", help="added to the file name after the dataset, e.g. negation")
    ap.add_argument("--explain", metavar="METHOD", help="cue-influence runs (negviz explain --method METHOD)")
    ap.add_argument("--explained", action="store_true", help="re-create every shipped cue-influence run (EXPLAINED)")
    ap.add_argument("--limit", type=int, help="first N items only (a slow model on a CPU); named first<N> in the file")
    ap.add_argument("--corpus", help="retrieve over this corpus (negviz eval --corpus), e.g. offline")
    ap.add_argument(
        "--top-k",
        type=int,
        help="with --corpus: documents kept per query (a re-ranker re-scores "
        "BM25's top k; the MaxSim runs use 10 on a CPU)",
    )
    args = ap.parse_args()
    if args.explained:
        for method, limit, models in EXPLAINED:
            more = ["--limit", str(limit)] if limit else []
            cmd = [sys.executable, __file__, "--explain", method, "--datasets", "nevir", "--models", *models, *more]
            subprocess.run(cmd, check=True)
        return
    extra = [a for opt in args.dataset_option for a in ("--dataset-option", opt)]
    extra += [a for opt in args.option for a in ("--option", opt)]
    extra += ["--batch-size", str(args.batch_size)] if args.batch_size else []
    if args.limit:
        extra += ["--limit", str(args.limit)]
        args.tag = "-".join(filter(None, [f"first{args.limit}", args.tag]))
    if args.corpus:
        extra += ["--corpus", args.corpus, *(["--top-k", str(args.top_k)] if args.top_k else [])]
        args.tag = "-".join(filter(None, ["corpus", args.corpus, args.tag]))
    if args.explain:
        args.tag = "-".join(filter(None, ["attribution", args.explain, args.tag]))
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/runs.sqlite"
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        for dataset in args.datasets:
            for model in args.models:
                # A model trained on part of a dataset is run on its held-out split only (catalog.TRAINED_ON).
                split = evaluation_split(model, dataset)
                command = ["explain", "--method", args.explain] if args.explain else ["eval"]
                start = time.perf_counter()
                res = json.loads(
                    negviz(
                        "--db",
                        db,
                        *command,
                        "--model",
                        model,
                        "--dataset",
                        dataset,
                        "--json",
                        "--quiet",
                        "--force",
                        *(["--split", split] if split else []),
                        *extra,
                        env=env,
                    )
                )
                stem = f"{dataset}{'-' + split if split else ''}{'-' + args.tag if args.tag else ''}__{res['model']}"
                for old in OUT.glob(stem + ".*"):
                    old.unlink()
                negviz("--db", db, "export-run", res["run_id"], str(OUT / f"{stem}.parquet"), env=env)
                if args.explain:  # negviz explain's JSON holds the summary, not the time
                    res = {**res, **res["summary"], "wall_seconds": time.perf_counter() - start}
                metric = res.get("metric", "delta_r1")
                print(f"{stem}: n={res['n']} {metric}={res.get(metric, '')} {res['wall_seconds']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
