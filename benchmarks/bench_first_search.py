"""The first Search-page search over the offline corpus with the shipped codes, against exact
search. Prints JSON.

    PYTHONPATH=. python benchmarks/bench_first_search.py --cache EXACT.sqlite \
        [--models all-MiniLM-L6-v2 bge-small-en-v1.5-int8] [--first-queries 3]

- recall: ExcluIR's 1,000 sample queries over the 42,871 documents. Exact top 10 (DenseRetriever,
  every corpus vector read from ``--cache``, a ScoreCache holding them: build it with
  scripts/build_corpus_codes.py --cache EXACT.sqlite, minutes per model) against the two-stage
  search (CodesRetriever: the shipped code file, its candidates' vectors read from the same
  cache): mean top-10 overlap and the share of queries whose top 10 is identical (ids in order).
  The same for other code widths and candidate counts, quantising the exact vectors here
  (``quantise``, as the build script does), to show why the shipped width and count were chosen.
- first search: a new process with an empty ScoreCache (a fresh install): seconds from the start
  of the work (imports included) to the first query's top 10, and the texts it encoded
  (scorer.encoded); then the next queries. Its plain baseline, in the same run: another new
  process that only loads the model and encodes the texts the first search encoded (the query and
  its candidates), through the same scorer with nothing of the corpus, codes or search: the floor a
  first search cannot go under. Exact search's first search on an empty cache encodes
  the whole corpus: its seconds are the build time, measured by scripts/build_corpus_codes.py (or
  ``--exact-cold``, which encodes the corpus again in a fresh cache: minutes).
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST = """
import json, sys, time
t0 = time.perf_counter()
from negviz.core.cache import ScoreCache
from negviz.evaluation.catalog import load_scorer
from negviz.datasets import load
from negviz.evaluation.retrieval.corpus import load_corpus
from negviz.evaluation.retrieval.index import search_retriever
model, n, texts_out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
queries = load("excluir").frame["query"].tolist()[:n]
scorer = load_scorer(model, device="cpu", cache=ScoreCache())
retriever = search_retriever(scorer, load_corpus("offline"))
times, encoded = [], []
for q in queries:
    before = scorer.encoded
    retriever.search([q], 10)
    times.append(time.perf_counter() - t0)
    encoded.append(scorer.encoded - before)
    t0 = time.perf_counter()
# The first query's encoded texts (query, then its candidates), for the plain baseline.
from negviz.evaluation.retrieval.index import matrix_top_k
cand, _ = matrix_top_k(retriever.query_vectors(queries[:1]), retriever.approx, retriever.options["candidates"])
docs = retriever.corpus.frame["text"].to_numpy()[cand[0]].tolist()
json.dump([queries[0], *docs], open(texts_out, "w"))
print(json.dumps({"method": retriever.method, "seconds": times, "encoded": encoded}))
"""

PLAIN = """
import json, sys, time
t0 = time.perf_counter()
from negviz.core.cache import ScoreCache
from negviz.evaluation.catalog import load_scorer
model, texts_in = sys.argv[1], sys.argv[2]
texts = json.load(open(texts_in))
scorer = load_scorer(model, device="cpu", cache=ScoreCache())
scorer.embed(texts[:1], "query")
scorer.embed(texts[1:], "document")
print(json.dumps({"seconds": time.perf_counter() - t0, "encoded": scorer.encoded}))
"""


def overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean share of b's top 10 in a's, and the share of rows identical in order."""
    shared = [len(set(x) & set(y)) / len(y) for x, y in zip(a.tolist(), b.tolist())]
    same = [x == y for x, y in zip(a.tolist(), b.tolist())]
    return float(np.mean(shared)), float(np.mean(same))


def rescored(q: np.ndarray, matrix: np.ndarray, approx: np.ndarray, depth: int) -> np.ndarray:
    """Top 10 of exact scores among each query's ``depth`` best by the approximate vectors."""
    from negviz.evaluation.retrieval.index import matrix_top_k

    cand, _ = matrix_top_k(q, approx, depth)
    out = np.empty((len(q), 10), dtype=np.int64)
    for n in range(len(q)):
        exact = matrix[cand[n]] @ q[n]
        out[n] = cand[n][np.lexsort((cand[n], -exact))[:10]]
    return out


def measure_model(name: str, args, corpus, queries) -> dict:
    from negviz.core.cache import ScoreCache
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.codes import CorpusCodes, code_path, quantise, shipped_codes
    from negviz.evaluation.retrieval.index import CodesRetriever, DenseRetriever

    scorer = load_scorer(name, device="cpu", cache=ScoreCache(args.cache))
    exact = DenseRetriever(scorer, corpus).build()
    matrix = np.asarray(exact.matrix)
    t = time.perf_counter()
    exact_rows, _ = exact.search(queries, 10)
    exact_search_s = time.perf_counter() - t
    codes = shipped_codes(scorer, corpus)
    out: dict = {"model": name, "corpus_encoded_here": scorer.encoded, "exact_search_1000_s": round(exact_search_s, 2)}
    if codes is not None:
        fast = CodesRetriever(scorer, corpus, codes=codes)
        t = time.perf_counter()
        rows, _ = fast.search(queries, 10)
        mean, same = overlap(rows, exact_rows)
        out["shipped"] = {"bits": codes.bits, "candidates": fast.options["candidates"],
                          "bytes": code_path(corpus.name, name).stat().st_size,
                          "top10_overlap": round(mean, 4), "identical_top10": round(same, 4),
                          "search_1000_s": round(time.perf_counter() - t, 2)}  # fmt: skip
    q = exact.query_vectors(queries)
    grid = {}
    for bits in args.bits:
        packed, centers = quantise(matrix, bits)
        approx = CorpusCodes(packed, centers, {"bits": bits}).decode()
        for depth in args.candidates:
            mean, same = overlap(rescored(q, matrix, approx, depth), exact_rows)
            grid[f"{bits} bit, C={depth}"] = {"top10_overlap": round(mean, 4), "identical_top10": round(same, 4),
                                              "mb": round(packed.nbytes / 2**20, 2)}  # fmt: skip
    out["grid"] = grid
    return out


def fresh_process(script: str, *argv: str) -> dict:
    """``script`` in a new process with an empty ScoreCache (a fresh install); its JSON line."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NEGVIZ_CACHE_DIR": tmp, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", script, *argv], env=env, capture_output=True,
                              text=True, check=True, cwd=ROOT)  # fmt: skip
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["process_s"] = round(time.perf_counter() - t, 2)
        return result


def first_search(name: str, n: int) -> dict:
    """The first ``n`` queries' search, then the plain baseline of the first one (same texts)."""
    with tempfile.TemporaryDirectory() as tmp:
        texts = f"{tmp}/texts.json"
        result = fresh_process(FIRST, name, str(n), texts)
        result["seconds"] = [round(s, 2) for s in result["seconds"]]
        plain = fresh_process(PLAIN, name, texts)
        result["plain_first"] = {"seconds": round(plain["seconds"], 2), "encoded": plain["encoded"]}
        result["first_over_plain"] = round(result["seconds"][0] / plain["seconds"], 2)
        result["load"] = os.getloadavg()
        return result


def exact_cold(name: str, corpus) -> float:
    from negviz.core.cache import ScoreCache
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import DenseRetriever

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        scorer = load_scorer(name, device="cpu", cache=ScoreCache(f"{tmp}/s.sqlite"))
        DenseRetriever(scorer, corpus).build()
        return round(time.perf_counter() - t, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["all-MiniLM-L6-v2", "bge-small-en-v1.5-int8"])
    ap.add_argument("--cache", required=True, help="a ScoreCache file holding the corpus's exact vectors")
    ap.add_argument("--bits", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--candidates", type=int, nargs="+", default=[50, 100, 200, 500, 1000])
    ap.add_argument("--first-queries", type=int, default=3)
    ap.add_argument("--exact-cold", action="store_true", help="also encode the corpus in a fresh cache (minutes)")
    args = ap.parse_args()

    from negviz.datasets import load
    from negviz.evaluation.retrieval.corpus import load_corpus

    corpus = load_corpus("offline")
    queries = load("excluir").frame["query"].tolist()
    report = {"corpus_size": corpus.size, "queries": len(queries), "loadavg_start": os.getloadavg()}
    for name in args.models:
        entry = measure_model(name, args, corpus, queries)
        if args.first_queries:
            entry["first_search"] = first_search(name, args.first_queries)
        if args.exact_cold:
            entry["exact_cold_build_s"] = exact_cold(name, corpus)
        report[name] = entry
        print(json.dumps(entry), file=sys.stderr, flush=True)
    report["loadavg_end"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
