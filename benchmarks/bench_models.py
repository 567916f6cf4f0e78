"""negviz's scoring path against a plain baseline on the same texts, in the same process.

    python benchmarks/bench_models.py --model all-mpnet-base-v2 --dataset nevir --texts 300
    python benchmarks/bench_models.py --model ms-marco-MiniLM-L-12-v2-int8 --dataset nevir --texts 300

Bi-encoders (sentence-transformers or ONNX): the dataset's first N unique texts embedded by
``scorer.embed`` (cold: empty cache; warm: the same call again) against a plain
``SentenceTransformer.encode`` (or a plain onnxruntime session, one text per call, and batched for
reference) over the same texts. Cross-encoders: the first N (query, document) pairs of the dataset's
slots. Rounds alternate negviz and plain so load on a shared machine falls on both; the JSON gives
the medians, their ratio and the load average.
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from negviz.core.cache import ScoreCache  # noqa: E402
from negviz.datasets import load  # noqa: E402
from negviz.evaluation.catalog import load_scorer  # noqa: E402
from negviz.evaluation.item_scoring import scoring_inputs  # noqa: E402


def texts_and_pairs(dataset: str, n: int) -> tuple[list[str], list[str], list[str]]:
    ds = load(dataset)
    queries, docs, _, _ = scoring_inputs(ds.kind, ds.frame)
    pairs = list(dict.fromkeys(zip(queries, docs)))[:n]
    unique = list(dict.fromkeys(queries + docs))[:n]
    return unique, [p[0] for p in pairs], [p[1] for p in pairs]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--dataset", default="nevir")
    ap.add_argument("--texts", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    texts, queries, docs = texts_and_pairs(args.dataset, args.texts)
    probe = load_scorer(args.model, device="cpu")
    onnx = probe.weight_format.startswith("INT8 ONNX")
    pairwise = not hasattr(probe, "embed")
    model = probe.model  # loaded once, outside the timings
    graph = model[0] if isinstance(model, tuple) else model  # cross-encoders hold (model, label, activation)
    results: dict[str, list[float]] = {"negviz_cold": [], "negviz_warm": [], "plain": [], "plain_batched": []}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            cache = ScoreCache(Path(tmp) / "scores.sqlite")
            scorer = load_scorer(args.model, device="cpu", cache=cache)
            scorer._model = model  # the same loaded model: the timings compare scoring paths only
            run = (lambda: scorer.score(queries, docs)) if pairwise else (lambda: scorer.embed(texts))
            results["negviz_cold"].append(timed(run))
            results["negviz_warm"].append(timed(run))
            cache.close()
        if onnx:
            feed_names = graph.inputs
            tok = graph.tokenizer

            def plain_one():
                for i in range(len(queries if pairwise else texts)):
                    enc = tok(queries[i], docs[i]) if pairwise else tok(texts[i])
                    graph.session.run(None, {k: np.asarray([enc[k]], dtype=np.int64) for k in feed_names})

            def plain_batched(step=32):
                for s in range(0, len(queries if pairwise else texts), step):
                    enc = (
                        tok(
                            queries[s : s + step],
                            docs[s : s + step],
                            padding=True,
                            truncation=True,
                            return_tensors="np",
                        )
                        if pairwise
                        else tok(texts[s : s + step], padding=True, truncation=True, return_tensors="np")
                    )
                    graph.session.run(None, {k: enc[k].astype(np.int64) for k in feed_names})

            results["plain"].append(timed(plain_one))
            results["plain_batched"].append(timed(plain_batched))
        elif pairwise:
            results["plain"].append(timed(lambda: graph.predict(list(zip(queries, docs)), batch_size=probe.batch_size)))
        else:
            results["plain"].append(timed(lambda: model.encode(texts, batch_size=probe.batch_size)))
    med = {k: statistics.median(v) for k, v in results.items() if v}
    out = {
        "model": args.model,
        "format": probe.weight_format,
        "dataset": args.dataset,
        "items": len(queries) if pairwise else len(texts),
        "unit": "pairs" if pairwise else "unique texts",
        "rounds": args.rounds,
        "seconds_median": med,
        "ratio_cold_to_plain": med["negviz_cold"] / med["plain"],
        "ratio_batched_plain_to_plain": (med["plain_batched"] / med["plain"]) if "plain_batched" in med else None,
        "threads": os.environ.get("OMP_NUM_THREADS") or "default",
        "loadavg": os.getloadavg(),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
