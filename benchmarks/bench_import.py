"""Importing a TREC run of 1,000 queries x 100 documents (ExcluIR over the offline corpus).

The file is BM25's shipped corpus run written by `negviz export-run --format trec`. Timed, in one
process and one store, best of --repeat:

- plain: reading the file with pandas (``read_csv(sep=" ")``), the least any importer must do;
- negviz import: ``import_scores`` end to end: the file's sha256, every line checked (known query,
  known document, finite score, no duplicate), ranks recomputed with trec_eval's tie rule, ExcluIR's
  metrics with bootstrap CIs, and the run written in one transaction (a fresh store each time).

    python benchmarks/bench_import.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import pandas as pd

from negviz.core.paths import DATA_DIR
from negviz.results.external.exporting import export_run
from negviz.results.external.importing import import_scores
from negviz.store import Store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="negviz-bench-import-"))
    source = Store(f"sqlite:///{tmp / 'source.sqlite'}")
    run_id = source.import_runs(DATA_DIR / "runs" / "excluir-corpus-offline__bm25.parquet")[0]
    trec = export_run(source, run_id, tmp / "bm25.trec", "trec")[0]
    from negviz.evaluation.retrieval.corpus import load_corpus

    load_corpus("offline")  # read once before timing, as a server holds it
    plain, negviz = [], []
    for i in range(args.repeat):
        start = time.perf_counter()
        frame = pd.read_csv(trec, sep=" ", header=None, names=["qid", "q0", "doc", "rank", "score", "tag"], dtype=str)
        plain.append(time.perf_counter() - start)
        store = Store(f"sqlite:///{tmp / f'import-{i}.sqlite'}")
        start = time.perf_counter()
        with open(trec, "rb") as fh:
            result = import_scores(fh, "bm25.trec", "excluir", "bm25-elsewhere", store=store)
        negviz.append(time.perf_counter() - start)
        store.close()
    summary = result.record.summary
    print(
        json.dumps(
            {
                "lines": len(frame),
                "plain_read_s": round(min(plain), 3),
                "negviz_import_s": round(min(negviz), 3),
                "ratio": round(min(negviz) / min(plain), 1),
                "right_rank": summary["right_rank"],
                "delta_r1": summary["delta_r1"],
                "delta_mrr10": summary["delta_mrr10"],
                "load_average": os.getloadavg(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
