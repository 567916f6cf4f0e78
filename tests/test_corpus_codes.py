"""Shipped corpus codes (negviz.retrieval.codes): the first bi-encoder search over the offline
corpus encodes only the query and its candidates, the two-stage result equals exact search,
and a code file of another corpus or model is ignored with a message. Real offline MiniLM and
bge-small (INT8 ONNX), the two bi-encoders whose code files are shipped."""

import dataclasses
import logging

import numpy as np
import pandas as pd
import pytest

from negviz.retrieval import codes as cc
from negviz.retrieval.corpus import load_corpus, offline_corpus

MODEL = "all-MiniLM-L6-v2"
SHIPPED_MODELS = tuple(cc.SHIPPED)  # MiniLM and bge-small: their files are in data/corpus/vectors
EXCLUIR = pd.read_parquet(cc.DATA_DIR / "excluir" / "sample.parquet").head(20)
QUERIES = EXCLUIR["query"].head(4).tolist() + [
    "films not directed by Steven Spielberg",
    "a band, excluding its founder's career",
]


@pytest.fixture(scope="module")
def subset(tmp_path_factory):
    """The first 20 ExcluIR queries' documents + 200 CANNOT sentences, as a user corpus."""
    full = offline_corpus().frame
    ids = set(map(str, EXCLUIR["pos_corpus_index"])) | set(map(str, EXCLUIR["neg_corpus_index"]))
    part = pd.concat([full[full["doc_id"].isin(ids)], full[full["doc_id"].str.startswith("cannot-")].head(200)])
    path = tmp_path_factory.mktemp("corpus") / "subset.parquet"
    part.to_parquet(path, index=False)
    return load_corpus(str(path))


def test_codes_pack_and_decode_round_trip():
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((500, 24)).astype(np.float32)
    errors = []
    for bits in (1, 2, 4):
        packed, centers = cc.quantise(vectors, bits)
        assert packed.shape == (500, 24 * bits // 8) and centers.shape == (24, 2**bits)
        codes = cc.CorpusCodes(packed, centers, {"bits": bits})
        levels = codes.levels()
        # Equal-population bins: each level holds a 1/L share of each dimension's values.
        counts = np.stack([np.bincount(levels[:, j], minlength=2**bits) for j in range(24)])
        assert counts.min() >= 500 // 2**bits - 1 and counts.max() <= 500 // 2**bits + 1
        # Each value decodes to its bin's mean, so finer bins approximate better.
        decoded = codes.decode()
        for j in range(3):
            for level in range(2**bits):
                assert decoded[levels[:, j] == level, j] == pytest.approx(vectors[levels[:, j] == level, j].mean())
        errors.append(np.linalg.norm(decoded - vectors) / np.linalg.norm(vectors))
    assert errors[0] == pytest.approx(np.sqrt(1 - 2 / np.pi), abs=0.03)  # sign x E|x|, for a normal
    assert errors[0] > errors[1] > errors[2]
    # 1 bit: the sign around each dimension's median.
    packed, centers = cc.quantise(vectors, 1)
    levels = cc.CorpusCodes(packed, centers, {"bits": 1}).levels()
    assert (levels == (vectors > np.median(vectors, axis=0))).all()


def test_two_stage_search_equals_exact_search(subset, tmp_path):
    from negviz.cache import ScoreCache
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import CodesRetriever, DenseRetriever, matrix_top_k

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
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import CodesRetriever, DenseRetriever, retriever_for, search_retriever

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
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import CodesRetriever, search_retriever

    corpus = offline_corpus()
    scorer = load_scorer(model, cache=score_cache)
    retriever = search_retriever(scorer, corpus)  # None of the stale-file warnings: it matches
    bits, candidates = cc.SHIPPED[model]
    assert isinstance(retriever, CodesRetriever) and retriever.codes.bits == bits
    assert retriever.options["candidates"] == candidates
    rows, _ = retriever.search([DEFAULT_QUERY], 10)
    assert scorer.encoded <= 1 + candidates  # the query and its candidates, of 42,871 documents
    assert "2013" in [corpus.ids[i] for i in rows[0]]  # d+ of excluir_2538: Selena Gomez's paragraph


def test_a_code_file_of_another_corpus_or_model_is_ignored_with_a_message(subset, tmp_path, caplog, monkeypatch):
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import DenseRetriever, search_retriever

    scorer = load_scorer(MODEL)  # not loaded: codes are checked by name, revision and corpus hash
    vectors = np.random.default_rng(1).standard_normal((subset.size, 384)).astype(np.float32)
    codes = cc.build_codes(vectors, scorer, subset)
    # Saved under the offline corpus's name: a stale file (another corpus hash).
    monkeypatch.setattr(cc, "CODES_DIR", tmp_path)
    cc.save_codes(codes, cc.code_path("offline", MODEL))
    corpus = offline_corpus()
    with caplog.at_level(logging.WARNING, logger="negviz.retrieval.codes"):
        retriever = search_retriever(scorer, corpus)
    assert type(retriever) is DenseRetriever and not retriever.built  # falls back to exact search
    assert f"built for corpus hash {subset.hash}, this corpus is {corpus.hash}" in caplog.text
    assert "ignoring" in caplog.text and "offline__all-MiniLM-L6-v2.npz" in caplog.text
    # The right corpus, another model: ignored too.
    caplog.clear()
    bge = load_scorer("bge-small-en-v1.5-int8")
    cc.save_codes(codes, cc.code_path(subset.name, bge.name))
    with caplog.at_level(logging.WARNING, logger="negviz.retrieval.codes"):
        assert cc.shipped_codes(bge, subset) is None
    assert f"built for {MODEL} revision {scorer.revision_id}" in caplog.text
    # This model at another revision (its embedding namespace differs): ignored.
    old = dataclasses.replace(codes, meta={**codes.meta, "revision": "0.0.9", "embedding_namespace": "0" * 16})
    cc.save_codes(old, cc.code_path(subset.name, MODEL))
    assert cc.shipped_codes(scorer, subset) is None
    # And the file of this model, revision and corpus is used.
    cc.save_codes(codes, cc.code_path(subset.name, MODEL))
    assert cc.shipped_codes(scorer, subset) is not None
