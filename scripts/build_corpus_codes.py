"""Write data/corpus/vectors/<corpus>__<model>.npz: a corpus's document vectors, quantised, so
the Search page's first search with that bi-encoder encodes only the query and a few hundred
candidates instead of the corpus (negviz.evaluation.retrieval.codes; data/SOURCES.md).

    python scripts/build_corpus_codes.py [--models all-MiniLM-L6-v2 bge-small-en-v1.5-int8]
        [--corpus offline] [--bits N] [--candidates C] [--cache PATH] [--out FOLDER]

Bits and candidates default to the shipped file's (negviz.evaluation.retrieval.codes.SHIPPED), else 2 and 100.

The vectors are the exact search's own (negviz.evaluation.retrieval.index.DenseRetriever: the scorer's
``embed`` through the ScoreCache), so a run that finds them cached encodes nothing; ``--cache``
names another ScoreCache file. Encoding the offline corpus (42,871 texts) takes minutes per model
on a CPU. The same model revision and corpus give the same file (quantile bins, no randomness).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from negviz.evaluation.retrieval.codes import (  # noqa: E402
    DEFAULT_BITS,
    DEFAULT_CANDIDATES,
    SHIPPED,
    build_codes,
    code_path,
    save_codes,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=list(SHIPPED))
    ap.add_argument("--corpus", default="offline")
    ap.add_argument("--bits", type=int, help="bits per dimension (1, 2, 4 or 8)")
    ap.add_argument("--candidates", type=int, help="documents re-scored exactly per query")
    ap.add_argument("--cache", help="ScoreCache file (default: $NEGVIZ_CACHE_DIR/scores.sqlite)")
    ap.add_argument("--out", type=Path, default=None, help="folder (default: data/corpus/vectors)")
    args = ap.parse_args()

    from negviz.core.cache import ScoreCache
    from negviz.core.progress import TqdmProgress
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.index import DenseRetriever

    corpus = load_corpus(args.corpus)
    for name in args.models:
        scorer = load_scorer(name, device="cpu", cache=ScoreCache(args.cache))
        progress = TqdmProgress()
        retriever = DenseRetriever(scorer, corpus).build(progress)
        progress.close()
        bits, candidates = SHIPPED.get(name, (DEFAULT_BITS, DEFAULT_CANDIDATES))
        bits, candidates = args.bits or bits, args.candidates or candidates
        codes = build_codes(np.asarray(retriever.matrix), scorer, corpus, bits, candidates)
        path = save_codes(codes, code_path(corpus.name, scorer.name, args.out))
        print(f"{path}: {corpus.size:,} x {codes.meta['dim']} at {bits} bit, C = {candidates}, "
              f"{path.stat().st_size:,} bytes, {scorer.encoded:,} texts encoded")  # fmt: skip


if __name__ == "__main__":
    main()
