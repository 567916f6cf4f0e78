"""Shipped corpus codes with the real models over the offline corpus: two-stage search equals exact
search, the first search encodes only the query and its candidates, and the shipped codes match."""

import numpy as np
import pytest

from negviz.evaluation.retrieval import codes as cc
from negviz.evaluation.retrieval.corpus import offline_corpus
from tests.evaluation.test_codes import (
    MODEL,
    QUERIES,
    SHIPPED_MODELS,
    subset,  # noqa: F401  (fixtures)
)


def test_two_stage_search_equals_exact_search(subset, tmp_path):
    from negviz.core.cache import ScoreCache
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import CodesRetriever, DenseRetriever, matrix_top_k

    exact_scorer = load_scorer(MODEL, cache=ScoreCache(tmp_path / "exact.sqlite"))
    exact = DenseRetriever(exact_scorer, subset)
    rows, scores = exact.search(QUERIES, 10)
    depth = 60  # of 240 documents
    codes = cc.build_codes(np.asarray(exact.matrix), exact_scorer, subset, bits=2, candidates=depth)
    cc.save_codes(codes, cc.code_path(subset.name, MODEL, tmp_path))
    # A fresh cache, as a fresh install: the code file read back from disk.
    fresh = load_scorer(MODEL, cache=ScoreCache(tmp_path / "fresh.sqlite"))
    found = cc.shipped_codes(fresh, subset, folder=tmp_path)
    assert found is not None and found.candidates == depth
    two_stage = CodesRetriever(fresh, subset, codes=found)
    got_rows, got_scores = two_stage.search(QUERIES, 10)
    assert fresh.encoded <= len(QUERIES) * (depth + 1) and fresh.encoded < subset.size
    assert two_stage.describe() == {"retrieval": "codes", "candidates": depth}
    # Where exact search's top 10 lies among a query's candidates by the codes (all queries but
    # at most one here), the re-scored top 10 is exact search's, in order, with its scores.
    candidates, _ = matrix_top_k(exact.query_vectors(QUERIES), found.decode(), depth)
    inside = [set(r) <= set(c) for r, c in zip(rows.tolist(), candidates.tolist())]
    assert sum(inside) >= len(QUERIES) - 1
    for n in np.flatnonzero(inside):
        assert got_rows[n].tolist() == rows[n].tolist(), QUERIES[n]
        np.testing.assert_allclose(got_scores[n], scores[n], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("model", SHIPPED_MODELS)
def test_first_search_over_the_offline_corpus_encodes_only_query_and_candidates(
    model, score_cache, tmp_path, monkeypatch
):
    from negviz.analyses.search import DEFAULT_QUERY
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import CodesRetriever, DenseRetriever, retriever_for, search_retriever

    corpus = offline_corpus()
    scorer = load_scorer(model, cache=score_cache)  # empty: nothing of the corpus cached
    # What is encoded does not depend on what the codes say: codes of stand-in vectors, tied to
    # this corpus and model as the shipped file is (that file's own test is below).
    vectors = np.random.default_rng(2).standard_normal((corpus.size, 384)).astype(np.float32)
    monkeypatch.setattr(cc, "CODES_DIR", tmp_path)
    cc.save_codes(cc.build_codes(vectors, scorer, corpus, candidates=50), cc.code_path("offline", model))
    retriever = search_retriever(scorer, corpus)
    assert isinstance(retriever, CodesRetriever)
    retriever.build()
    assert scorer.encoded == 0 and not scorer.loaded  # reading the codes loads no model
    rows, scores = retriever.search([DEFAULT_QUERY], 10)
    assert 1 < scorer.encoded <= 1 + 50  # the query and its 50 candidates, of 42,871 documents
    assert len(set(rows[0].tolist())) == 10 and (np.diff(scores[0]) <= 0).all()
    # Evaluations stay exact: the family's retriever, not the codes.
    assert type(retriever_for(scorer, corpus)) is DenseRetriever


@pytest.mark.parametrize("model", SHIPPED_MODELS)
def test_the_shipped_codes_match_the_corpus_and_find_the_positive(model, score_cache):
    from negviz.analyses.search import DEFAULT_QUERY
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import CodesRetriever, search_retriever

    corpus = offline_corpus()
    scorer = load_scorer(model, cache=score_cache)
    retriever = search_retriever(scorer, corpus)  # None of the stale-file warnings: it matches
    bits, candidates = cc.SHIPPED[model]
    assert isinstance(retriever, CodesRetriever) and retriever.codes.bits == bits
    assert retriever.options["candidates"] == candidates
    rows, _ = retriever.search([DEFAULT_QUERY], 10)
    assert scorer.encoded <= 1 + candidates  # the query and its candidates, of 42,871 documents
    assert "2013" in [corpus.ids[i] for i in rows[0]]  # d+ of excluir_2538: Selena Gomez's paragraph
