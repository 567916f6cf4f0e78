"""negviz.evaluation.retrieval.index: the Search page's corpus warm-up (per-batch progress with the time left,
corpus vectors built once and shared across processes, concurrent builders taking turns, a
default query the offline corpus answers; the tiny bi-encoder over a few hundred texts), and the
indexes over a small corpus: BM25 and TF-IDF finding a document by its own words, MaxSim
re-ranking BM25's first stage. Dense exact search and FAISS with MiniLM's weights:
tests/models/test_dense_retrieval.py.
Processes sharing the vectors: tests/concurrency/test_corpus_vectors.py; the whole-corpus build:
tests/models/test_index_build.py; the SPLADE index with real weights: tests/models/test_splade_index.py."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from negviz.evaluation.retrieval.corpus import load_corpus, offline_corpus
from tests.support.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
N_TEXTS = 300


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory) -> Path:
    """The first N_TEXTS documents of the offline corpus, as a user corpus file."""
    from negviz.evaluation.retrieval.corpus import offline_corpus

    path = tmp_path_factory.mktemp("corpus") / "small.parquet"
    offline_corpus().frame.head(N_TEXTS).to_parquet(path, index=False)
    return path


# ---------------------------------------------------------------- (b) built once, shared
BUILD = """
import json, sys
from pathlib import Path
from negviz.core.cache import ScoreCache
from negviz.evaluation.catalog import load_scorer
from negviz.evaluation.retrieval import index as ix
from negviz.evaluation.retrieval.corpus import load_corpus
from negviz.core.schema import ModelSpec

model, corpus_file, barrier, me = sys.argv[1:5]
ix.ENCODE_CHUNK = 64  # several chunks, so concurrent builders interleave
scorer = load_scorer(ModelSpec.make(model, family="bi-encoder"), device="cpu", cache=ScoreCache(),
                     batch_size=8)
corpus = load_corpus(corpus_file)
scorer.model  # loaded before the barrier: both processes then start encoding together
Path(barrier, me).touch()
sys.stdin.readline()  # the parent says go once every builder is here
retriever = ix.DenseRetriever(scorer, corpus).build()
print(json.dumps({"encoded": scorer.encoded, "rows": retriever.matrix.shape[0],
                  "first": retriever.matrix[0].tolist()}))
"""


def build_in_processes(n, model, corpus_file, cache_dir, barrier):
    env = {**os.environ, "NEGVIZ_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    barrier.mkdir(exist_ok=True)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                BUILD,
                str(model),
                str(corpus_file),
                str(barrier),
                f"{barrier.name}-{i}",
            ],
            env=env,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(n)
    ]

    def arrived() -> bool:  # every builder has loaded its model (or one ended: reported below)
        return len(list(barrier.iterdir())) == n or any(p.poll() is not None for p in procs)

    wait_for(arrived, f"{n} builders with their model loaded", timeout=300)
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=500)
        assert p.returncode == 0, stderr[-3000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


# ---------------------------------------------------------------- (c) the default query
def test_default_query_is_answered_by_the_offline_corpus():
    from negviz.analyses import search as sa
    from negviz.datasets import load
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import offline_corpus
    from negviz.evaluation.retrieval.index import retriever_for

    sample = load("excluir").frame
    (row,) = sample[sample["query"] == sa.DEFAULT_QUERY].itertuples()  # an ExcluIR query
    corpus = offline_corpus()
    rows, _ = retriever_for(load_scorer("bm25"), corpus).search([sa.DEFAULT_QUERY], 10)
    top10 = [corpus.ids[i] for i in rows[0]]
    assert str(row.pos_corpus_index) in top10
    assert "sa.DEFAULT_QUERY" in (ROOT / "pages" / "search.py").read_text()  # the page's default


# ---------------------------------------------------------------- (d) no warm-up with shipped codes
@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "bge-small-en-v1.5-int8"])  # codes.SHIPPED
def test_a_shipped_code_file_leaves_nothing_to_warm_up(model, score_cache):
    """The Search page's index for the two bi-encoders with a code file is built by reading it:
    no model loaded and no text encoded until a query comes (negviz.ui.search.corpus_index)."""
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import offline_corpus
    from negviz.evaluation.retrieval.index import CodesRetriever, search_retriever

    scorer = load_scorer(model, cache=score_cache)
    retriever = search_retriever(scorer, offline_corpus()).build()
    assert isinstance(retriever, CodesRetriever) and retriever.approx.shape[0] == 42_871
    assert scorer.encoded == 0 and not scorer.loaded


# ---------------------------------------------------------------- indexes with real models


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    """The first 40 ExcluIR queries' documents (ids = corpus index) + 300 CANNOT distractors."""
    full = offline_corpus().frame
    ex = pd.read_parquet(offline_corpus.__globals__["DATA_DIR"] / "excluir/sample.parquet").head(40)
    ids = set(map(str, ex["pos_corpus_index"])) | set(map(str, ex["neg_corpus_index"]))
    part = pd.concat([full[full["doc_id"].isin(ids)], full[full["doc_id"].str.startswith("cannot-")].head(300)])
    path = tmp_path_factory.mktemp("corpus") / "small.parquet"
    part.to_parquet(path, index=False)
    return load_corpus(str(path))


def test_lexical_indexes_find_a_document_by_its_own_words(small_corpus):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import retriever_for

    target = 5
    text = small_corpus.texts[target]
    for name in ("bm25", "tfidf"):
        rows, scores = retriever_for(load_scorer(name), small_corpus).search([text], 3)
        assert rows[0][0] == target, name
        assert scores[0][0] > scores[0][1], name


def test_maxsim_reranks_the_bm25_first_stage(small_corpus, score_cache):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import BM25Retriever, retriever_for

    q = ["What is aTelecine's role in the entertainment industry, excluding Sasha Grey's career?"]
    scorer = load_scorer("maxsim-all-MiniLM-L6-v2", cache=score_cache)
    rr = retriever_for(scorer, small_corpus, depth=10)
    rows, scores = rr.search(q, 5)
    first, _ = BM25Retriever(load_scorer("bm25"), small_corpus).search(q, 10)
    assert set(rows[0]) <= set(first[0])  # re-ranked candidates come from the first stage
    assert list(scores[0]) == sorted(scores[0], reverse=True)
    np.testing.assert_allclose(scores[0], scorer.score(q * 5, [small_corpus.texts[i] for i in rows[0]]))
