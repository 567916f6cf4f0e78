"""A corpus run's encoding plan (issue 45) against plain sentence-transformers. Prints JSON.

    PYTHONPATH=. python benchmarks/bench_corpus_plan.py [--queries 20] [--slice 0.1] [--skip-full]

Every measurement is a new process on a fresh ScoreCache and no store (a fresh install), with the
model load in the timed part of both sides, one torch thread each (OMP_NUM_THREADS=1):

- **limited**: ``run_corpus_eval("all-MiniLM-L6-v2", excluir limit N, "offline")`` with the default
  plan (auto): a limited run takes the shipped codes' two-stage search, which encodes the N queries
  and their candidates (the run fails if the plan chose otherwise). Plain: a
  process that loads ``SentenceTransformer`` and ``encode``s the same texts (the queries and the
  union of their candidates, written by the negviz process after its timed part), batch size 32.
  The exact plan's cost on a fresh cache is the corpus's: see **full**.
- **full**: the exact plan over all queries whose d+ and d− are in the corpus: negviz
  ``run_corpus_eval(..., plan="exact")`` against a plain ``encode`` of the corpus texts plus the
  queries. ``--slice F`` takes a proportional slice instead of the whole corpus (minutes): the
  first F of the 1,000 queries with their d+ and d−, and the first F of the other documents, so
  the mix of long paragraphs and short sentences is the corpus's.
The 1-minute load average is printed before and after each measurement. ``--together`` runs the
two full sides at once, one core each: a load that changes over an hour falls on both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NEGVIZ = """
import json, sys, time
t0 = time.perf_counter()
from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec
from negviz.evaluation.catalog import load_scorer
from negviz.evaluation.retrieval.corpus import load_corpus
from negviz.evaluation.retrieval.evaluate import run_corpus_eval
model, corpus_name, limit, plan, texts_out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
scorer = load_scorer(model, device="cpu", cache=ScoreCache())
corpus = load_corpus(corpus_name)
result = run_corpus_eval(scorer, DatasetSpec.make("excluir", "test", limit), corpus, top_k=100, plan=plan)
seconds = time.perf_counter() - t0
s = result.summary
if s["encoding_plan"]["route"] == "candidates":  # the texts it encoded, for the plain side
    from negviz.datasets import load
    from negviz.evaluation.retrieval.index import CodesRetriever
    import numpy as np
    queries = load(DatasetSpec.make("excluir", "test", limit)).frame["query"].tolist()
    two = CodesRetriever(scorer, corpus)
    rows = np.unique(two.candidates(two.query_vectors(queries), 100))
    json.dump(queries + [corpus.texts[r] for r in rows], open(texts_out, "w"))
print(json.dumps({"seconds": seconds, "encoded": s["encoded_texts"], "plan": s["encoding_plan"],
                  "right_rank": s["right_rank"], "delta_r1": s["delta_r1"], "n": s["n"]}))
"""

PLAIN = """
import json, sys, time
t0 = time.perf_counter()
from sentence_transformers import SentenceTransformer
path, texts_in = sys.argv[1], sys.argv[2]
texts = json.load(open(texts_in))
model = SentenceTransformer(path, device="cpu")
model.encode(texts, batch_size=32, convert_to_numpy=True, show_progress_bar=False)
print(json.dumps({"seconds": time.perf_counter() - t0, "encoded": len(texts)}))
"""


def load() -> float:
    return round(os.getloadavg()[0], 2)


def start(code: str, *args: str, cache: Path) -> tuple[subprocess.Popen, float]:
    env = {**os.environ, "NEGVIZ_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "OMP_NUM_THREADS": "1"}  # fmt: skip
    before = load()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, before


def result(started: tuple[subprocess.Popen, float]) -> dict:
    proc, before = started
    stdout, stderr = proc.communicate()
    if proc.returncode:
        raise SystemExit(stderr[-3000:])
    return {**json.loads(stdout.strip().splitlines()[-1]), "load_before": before, "load_after": load()}


def child(code: str, *args: str, cache: Path) -> dict:
    return result(start(code, *args, cache=cache))


def corpus_slice(fraction: float, folder: Path) -> tuple[str, int, list[str]]:
    """(corpus file, queries, corpus texts + queries) of a proportional slice (see the module doc)."""
    import pandas as pd

    from negviz.datasets import load as load_dataset
    from negviz.evaluation.retrieval.corpus import offline_corpus

    full = offline_corpus().frame
    queries = load_dataset("excluir").frame
    n = round(len(queries) * fraction)
    ids = set(map(str, queries["pos_corpus_index"].head(n))) | set(map(str, queries["neg_corpus_index"].head(n)))
    every = set(map(str, queries["pos_corpus_index"])) | set(map(str, queries["neg_corpus_index"]))
    others = full[~full["doc_id"].isin(every)]
    part = pd.concat([full[full["doc_id"].isin(ids)], others.head(round(len(others) * fraction))])
    path = folder / f"offline-slice-{fraction}.parquet"
    part.to_parquet(path, index=False)
    return str(path), n, part["text"].tolist() + queries["query"].head(n).tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--slice", type=float, default=1.0, help="share of the corpus and queries for 'full'")
    parser.add_argument("--skip-full", action="store_true")
    parser.add_argument("--skip-limited", action="store_true")
    parser.add_argument("--plain-first", action="store_true", help="for 'full': the plain side first")
    parser.add_argument(
        "--together",
        action="store_true",
        help="for 'full': both sides at once, one core each, so a changing load falls on both alike",
    )
    args = parser.parse_args()

    from negviz.evaluation.catalog import load_scorer

    path = load_scorer(args.model, device="cpu").source
    out: dict = {"model": args.model, "cpu_count": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        texts = tmp / "texts.json"
        if not args.skip_limited:
            limited = child(NEGVIZ, args.model, "offline", str(args.queries), "auto", str(texts), cache=tmp / "c1")
            if limited["plan"]["route"] != "candidates":
                raise SystemExit(f"the default plan of a limited run did not take the candidates: {limited['plan']}")
            plain = child(PLAIN, path, str(texts), cache=tmp / "c2")
            out["limited"] = {"queries": args.queries, "negviz_default_plan": limited, "plain_encode": plain,
                              "ratio": round(limited["seconds"] / plain["seconds"], 3)}  # fmt: skip
        if not args.skip_full:
            if args.slice < 1.0:
                corpus, n, all_texts = corpus_slice(args.slice, tmp)
            else:
                from negviz.datasets import load as load_dataset
                from negviz.evaluation.retrieval.corpus import offline_corpus

                corpus, n = "offline", 1000
                all_texts = offline_corpus().texts + load_dataset("excluir").frame["query"].tolist()
            texts.write_text(json.dumps(all_texts))
            negviz_args = (NEGVIZ, args.model, corpus, str(n), "exact", str(tmp / "unused.json"))
            if args.together:
                both = start(*negviz_args, cache=tmp / "c3"), start(PLAIN, path, str(texts), cache=tmp / "c4")
                full, plain = result(both[0]), result(both[1])
            else:
                if args.plain_first:
                    plain = child(PLAIN, path, str(texts), cache=tmp / "c4")
                full = child(*negviz_args, cache=tmp / "c3")
                if not args.plain_first:
                    plain = child(PLAIN, path, str(texts), cache=tmp / "c4")
            out["full"] = {"slice": args.slice, "queries": n, "texts": len(all_texts), "negviz_exact": full,
                           "plain_encode": plain, "ratio": round(full["seconds"] / plain["seconds"], 3)}  # fmt: skip
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
