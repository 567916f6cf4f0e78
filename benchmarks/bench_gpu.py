"""The GPU path against the CPU: the same models score all of NevIR test on the CPU (fp32), on
CUDA in fp32 (negviz's default on CUDA) and in half precision ($NEGVIZ_PRECISION=fp16), each with
a fresh cache; the scores are compared item by item (largest difference, pairs whose verdict
changes) and timed, and a batch-size sweep times the bi-encoder's encoding on CUDA.

    python benchmarks/bench_gpu.py --out gpu.json [--models all-MiniLM-L6-v2,maxsim-all-MiniLM-L6-v2]

Without CUDA it runs the CPU side only (a dry run of the script). Prints and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time

import numpy as np
import pandas as pd

from negviz.core import metrics
from negviz.core.cache import ScoreCache
from negviz.core.schema import PAIRS, SLOTS, DatasetSpec, ModelSpec
from negviz.datasets import load as load_dataset
from negviz.evaluation.catalog import load_scorer, resolve_model
from negviz.evaluation.item_scoring import score_dataset, wide_scores

PAIR_SLOTS = tuple(SLOTS[PAIRS])  # q1_d1, q1_d2, q2_d1, q2_d2


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def score_once(model: str, ds, device: str, precision: str, batch_size: int | None = None) -> dict:
    """One model over the dataset on one device and precision, from a fresh cache: scores, the
    pair verdicts and the seconds (load, then scoring)."""
    os.environ["NEGVIZ_PRECISION"] = precision
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        scorer = load_scorer(
            resolve_model(ModelSpec.parse(model)),
            device=device,
            cache=ScoreCache(f"{tmp}/c.sqlite"),
            batch_size=batch_size,
        )
        _ = scorer.model
        _sync()
        t1 = time.perf_counter()
        scores = score_dataset(ds.kind, ds.frame, scorer, lambda *a: None)
        _sync()
        t2 = time.perf_counter()
        dtype = (
            str(next(iter(_torch_module(scorer).parameters())).dtype) if _torch_module(scorer) is not None else "n/a"
        )
        scorer.close()
    wide = wide_scores(ds.kind, ds.frame, scores)
    s = [wide[slot].to_numpy(dtype=np.float64) for slot in PAIR_SLOTS]
    verdicts = metrics.pair_verdicts(*s)
    return {
        "scores": np.concatenate(s),
        "correct": verdicts["correct"].to_numpy(),
        "paired_accuracy": metrics.pairs_summary(*s)["paired_accuracy"],
        "load_s": t1 - t0,
        "score_s": t2 - t1,
        "dtype": dtype,
    }


def _torch_module(scorer):
    import torch

    model = scorer.model
    for candidate in (model, *(model if isinstance(model, tuple) else ())):
        if isinstance(candidate, torch.nn.Module):
            return candidate
    return None


def compare(model: str, ds, cuda: bool) -> dict:
    runs = {"cpu-fp32": score_once(model, ds, "cpu", "fp32")}
    if cuda:
        score_once(model, ds, "cuda", "fp16")  # warm-up: CUDA context and kernels, not timed
        runs["cuda-fp32"] = score_once(model, ds, "cuda", "fp32")
        runs["cuda-fp16"] = score_once(model, ds, "cuda", "fp16")
    ref = runs["cpu-fp32"]
    out = {"model": model, "n_pairs": len(ds.frame), "n_scores": int(len(ref["scores"]))}
    for name, r in runs.items():
        row = {
            "paired_accuracy": r["paired_accuracy"],
            "load_s": round(r["load_s"], 3),
            "score_s": round(r["score_s"], 3),
            "dtype": r["dtype"],
            "speedup_vs_cpu": round(ref["score_s"] / r["score_s"], 2) if r["score_s"] else None,
        }
        if name != "cpu-fp32":
            diff = np.abs(r["scores"] - ref["scores"])
            row.update(
                max_abs_diff=float(diff.max()),
                mean_abs_diff=float(diff.mean()),
                spearman=float(pd.Series(r["scores"]).corr(pd.Series(ref["scores"]), method="spearman")),
                pairs_verdict_changed=int((r["correct"] != ref["correct"]).sum()),
            )
        out[name] = row
    return out


def batch_sweep(model: str, texts: list[str], sizes: list[int]) -> list[dict]:
    """Texts per second of the bi-encoder on CUDA (fp16) by batch size, each from a fresh cache."""
    os.environ["NEGVIZ_PRECISION"] = "fp16"
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            scorer = load_scorer(
                resolve_model(ModelSpec.parse(model)),
                device="cuda",
                cache=ScoreCache(f"{tmp}/c.sqlite"),
                batch_size=size,
            )
            scorer.embed(texts[:256])  # warm-up
            _sync()
            t = time.perf_counter()
            scorer.embed(texts[256:])
            _sync()
            seconds = time.perf_counter() - t
            rows.append(
                {
                    "batch_size": size,
                    "texts": len(texts) - 256,
                    "seconds": round(seconds, 3),
                    "texts_per_s": round((len(texts) - 256) / seconds, 1),
                }
            )
            scorer.close()
    return rows


def main() -> None:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None)
    parser.add_argument("--models", default="all-MiniLM-L6-v2,maxsim-all-MiniLM-L6-v2")
    parser.add_argument("--limit", type=int, default=None, help="first N NevIR pairs (a dry run)")
    args = parser.parse_args()
    cuda = torch.cuda.is_available()
    ds = load_dataset(DatasetSpec.make("nevir", limit=args.limit))
    result = {
        "dataset": f"NevIR test, {len(ds.frame)} pairs (4 scores each)",
        "torch": torch.__version__,
        "cuda": torch.cuda.get_device_name(0) if cuda else None,
        "cpu_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "comparisons": [],
    }
    for model in args.models.split(","):
        result["comparisons"].append(compare(model, ds, cuda))
        print(json.dumps(result["comparisons"][-1]), flush=True)
    if cuda:
        texts = sorted(set(ds.frame["d1"]) | set(ds.frame["d2"]) | set(ds.frame["q1"]) | set(ds.frame["q2"]))
        result["batch_sweep"] = batch_sweep("all-MiniLM-L6-v2", texts, [32, 64, 128, 256, 512, 1024])
        print(json.dumps(result["batch_sweep"]), flush=True)
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
