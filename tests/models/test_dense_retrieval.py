"""Dense retrieval with MiniLM's real weights over a small corpus (the first 40 ExcluIR queries'
documents and 300 distractors): exact search chunk-invariant and cached (negviz.evaluation.retrieval.index),
FAISS equal to it, and a corpus run stored with its provenance and reused
(negviz.evaluation.retrieval.evaluate). The indexes on offline stand-ins: tests/evaluation/."""

import numpy as np
import pandas as pd
import pytest

from negviz.evaluation.retrieval import rank_metrics as rm
from negviz.evaluation.retrieval.corpus import offline_corpus
from tests.evaluation.test_index import small_corpus  # noqa: F401  (a fixture)


@pytest.fixture(scope="module")
def score_cache(tmp_path_factory):
    """One ScoreCache for the module: the corpus is encoded by MiniLM once, not once per test
    (each test still searches and stores for itself; the first checks what the cache holds)."""
    from negviz.core.cache import ScoreCache

    cache = ScoreCache(tmp_path_factory.mktemp("minilm-cache") / "scores.sqlite")
    yield cache
    cache.close()


def test_dense_exact_search_is_chunk_invariant_and_cached(small_corpus, score_cache, monkeypatch):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval import index as ix

    queries = ["films not directed by Steven Spielberg", "a band, excluding its founder's career"]
    scorer = load_scorer("all-MiniLM-L6-v2", cache=score_cache)
    whole = ix.DenseRetriever(scorer, small_corpus)
    rows, scores = whole.search(queries, 15)
    brute = (scorer.embed(queries, "query") @ whole.matrix.T).astype(np.float64)
    assert rows.tolist() == rm.top_k_indices(brute, 15).tolist()
    monkeypatch.setattr(ix, "CORPUS_CHUNK", 37)  # many corpus chunks, two query chunks
    monkeypatch.setattr(ix, "QUERY_CHUNK", 1)
    chunked_rows, chunked_scores = ix.DenseRetriever(scorer, small_corpus).search(queries, 15)
    assert chunked_rows.tolist() == rows.tolist()
    np.testing.assert_allclose(chunked_scores, scores, rtol=1e-6)
    # Scores are the scorer's own pair scores (dot product) for the retrieved documents.
    pair = scorer.score([queries[0]] * 15, [small_corpus.texts[i] for i in rows[0]])
    np.testing.assert_allclose(scores[0], pair, rtol=1e-5)
    # Every corpus vector is in the ScoreCache: a fresh scorer builds the index without a model.
    again = load_scorer("all-MiniLM-L6-v2", cache=score_cache)
    ix.DenseRetriever(again, small_corpus).build()
    assert not again.loaded


def test_faiss_equals_exact_search(small_corpus, score_cache):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import retriever_for

    pytest.importorskip("faiss")
    scorer = load_scorer("all-MiniLM-L6-v2", cache=score_cache)
    queries = pd.read_parquet(offline_corpus.__globals__["DATA_DIR"] / "excluir/sample.parquet")["query"][:40]
    exact_rows, exact_scores = retriever_for(scorer, small_corpus).search(queries, 20)
    faiss_rows, faiss_scores = retriever_for(scorer, small_corpus, method="faiss").search(queries, 20)
    np.testing.assert_allclose(faiss_scores, exact_scores, rtol=1e-5, atol=1e-6)
    assert (faiss_rows == exact_rows).mean() > 0.99  # only float-noise near-ties may swap


def test_corpus_run_stored_with_provenance_and_reused(small_corpus, score_cache, tmp_path):
    from negviz.core.schema import DatasetSpec
    from negviz.evaluation.retrieval.evaluate import parse_hit, run_corpus_eval
    from negviz.store import Store

    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    ds = DatasetSpec.make("excluir", limit=40)
    result = run_corpus_eval("all-MiniLM-L6-v2", ds, small_corpus, top_k=20, store=store, cache=score_cache)
    r = result.record
    assert r.kind == "retrieval" and r.dataset_name == "excluir@small.parquet" and r.n == 40
    assert r.options["corpus_size"] == small_corpus.size and r.options["corpus_hash"] == small_corpus.hash
    assert r.options["retrieval"] == "dense" and r.options["top_k"] == 20
    for name in rm.METRICS:
        assert 0 <= abs(result.summary[name]) <= 1
    assert store.runs(dataset="excluir", kind="eval").empty  # pages reading pair runs never see it
    wide = store.scores(r.run_id)
    one = wide[wide["item_id"] == "excluir_31"]
    hits = sorted(parse_hit(s) for s in one["slot"] if s.startswith("hit:"))
    assert [h[0] for h in hits] == list(range(1, 21))
    pos_rank = int(one.loc[one["slot"] == "pos_rank", "score"].iloc[0])
    if pos_rank:
        assert hits[pos_rank - 1][1] == "59341"  # excluir_31's d+ is paragraph 59341
    again = run_corpus_eval("all-MiniLM-L6-v2", ds, small_corpus, top_k=20, store=store, cache=score_cache)
    assert again.reused and again.record.run_id == r.run_id
    # --force replaces the stored run of the spec (issue 21: a spec is stored once).
    forced = run_corpus_eval("all-MiniLM-L6-v2", ds, small_corpus, top_k=20, store=store, cache=score_cache, force=True)
    assert not forced.reused and store.runs(kind="retrieval")["run_id"].tolist() == [forced.record.run_id]
