"""Corpus retrieval speed: corpus encoding through negviz against a plain sentence-transformers
``encode`` of the same texts, and one query against 50,000 cached embeddings. Prints JSON.

    PYTHONPATH=. python benchmarks/bench_corpus.py [--texts 1500] [--rounds 2]

- encode: the same N texts of the offline corpus (seeded sample) encoded by
  ``SentenceTransformer.encode(texts, batch_size=32)`` and by ``DenseRetriever.build`` with an
  empty ScoreCache (so it encodes, sorts, batches and writes every vector to the cache).
  Rounds alternate (plain, negviz, plain, negviz, ...); the best of each is compared.
- search: a 50,000 x 384 float32 matrix (the offline corpus's MiniLM vectors repeated when
  cached, else seeded random unit vectors: search time depends only on the shape) and one query;
  the exact top 10 by the chunked matrix product. Query encoding is timed apart.
- memory: the matrix's bytes, and the peak of Python allocations during one search (tracemalloc).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--n", type=int, default=50_000)
    args = ap.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    from negviz.core.cache import ScoreCache
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import Corpus, normalise, offline_corpus
    from negviz.evaluation.retrieval.index import DenseRetriever

    corpus = offline_corpus()
    rng = np.random.default_rng(0)
    sample = corpus.frame.iloc[np.sort(rng.choice(corpus.size, max(args.texts, 1), replace=False))]
    small = Corpus("bench", normalise(sample, "bench"), "bench", "")
    scorer = load_scorer("all-MiniLM-L6-v2", device="cpu")
    plain = SentenceTransformer(scorer.source, device="cpu")
    texts = small.texts
    plain_s, negviz_s = [float("nan")], [float("nan")]
    for _ in range(args.rounds if args.texts else 0):  # --texts 0: the search part only
        t = time.perf_counter()
        plain.encode(texts, batch_size=32, convert_to_numpy=True, show_progress_bar=False)
        plain_s.append(time.perf_counter() - t)
        plain_s = [x for x in plain_s if x == x]
        with tempfile.TemporaryDirectory() as tmp:
            fresh = load_scorer("all-MiniLM-L6-v2", device="cpu", cache=ScoreCache(f"{tmp}/s.sqlite"))
            fresh._model = plain  # the same loaded weights: the comparison is of the encode paths
            t = time.perf_counter()
            DenseRetriever(fresh, small).build()
            negviz_s.append(time.perf_counter() - t)
            negviz_s = [x for x in negviz_s if x == x]

    # -- one query against N cached embeddings
    retriever = DenseRetriever(scorer, corpus)
    retriever._built = True
    dim = plain.get_sentence_embedding_dimension()
    base = rng.standard_normal((args.n, dim)).astype(np.float32)
    retriever.matrix = base / np.linalg.norm(base, axis=1, keepdims=True)
    retriever.corpus = Corpus(
        "synthetic",
        corpus.frame.iloc[np.arange(args.n) % corpus.size]
        .assign(doc_id=[str(i) for i in range(args.n)])
        .reset_index(drop=True),
        "synthetic",
        "",
    )
    scorer._model = plain
    query = "What is aTelecine's role in the entertainment industry, excluding Sasha Grey's career?"
    retriever.search([query], 10)  # warm-up (the query vector is cached after this)
    times, cpu = [], []
    for _ in range(20):
        t, c = time.perf_counter(), time.process_time()
        retriever.search([query], 10)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)  # CPU time of this process: what a busy machine hides
    t = time.perf_counter()
    plain.encode([query + " (uncached)"], show_progress_bar=False)
    encode_ms = (time.perf_counter() - t) * 1000
    tracemalloc.start()
    retriever.search([query], 10)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out = {
        "torch_threads": torch.get_num_threads(),
        "encode": {"texts": len(texts), "plain_st_seconds": [round(x, 3) for x in plain_s],
                   "negviz_seconds": [round(x, 3) for x in negviz_s],
                   "ratio_best": round(min(negviz_s) / min(plain_s), 3)},
        "search": {"corpus": args.n, "dim": dim, "top_k": 10, "median_ms": round(1000 * float(np.median(times)), 2),
                   "median_cpu_ms": round(1000 * float(np.median(cpu)), 2),
                   "max_ms": round(1000 * max(times), 2), "query_encode_ms": round(encode_ms, 2),
                   "matrix_mb": round(retriever.matrix.nbytes / 2**20, 1),
                   "search_peak_alloc_mb": round(peak / 2**20, 2)},
    }  # fmt: skip
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
