"""Shipped corpus codes (negviz.evaluation.retrieval.codes): the first bi-encoder search over the offline
corpus encodes only the query and its candidates, the two-stage result equals exact search,
and a code file of another corpus or model is ignored with a message. Real offline MiniLM and
bge-small (INT8 ONNX), the two bi-encoders whose code files are shipped.
The real-model searches: tests/models/test_corpus_codes.py."""

import dataclasses
import logging

import numpy as np
import pandas as pd
import pytest

from negviz.evaluation.retrieval import codes as cc
from negviz.evaluation.retrieval.corpus import load_corpus, offline_corpus

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


def test_a_code_file_of_another_corpus_or_model_is_ignored_with_a_message(subset, tmp_path, caplog, monkeypatch):
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.index import DenseRetriever, search_retriever

    scorer = load_scorer(MODEL)  # not loaded: codes are checked by name, revision and corpus hash
    vectors = np.random.default_rng(1).standard_normal((subset.size, 384)).astype(np.float32)
    codes = cc.build_codes(vectors, scorer, subset)
    # Saved under the offline corpus's name: a stale file (another corpus hash).
    monkeypatch.setattr(cc, "CODES_DIR", tmp_path)
    cc.save_codes(codes, cc.code_path("offline", MODEL))
    corpus = offline_corpus()
    with caplog.at_level(logging.WARNING, logger="negviz.evaluation.retrieval.codes"):
        retriever = search_retriever(scorer, corpus)
    assert type(retriever) is DenseRetriever and not retriever.built  # falls back to exact search
    assert f"built for corpus hash {subset.hash}, this corpus is {corpus.hash}" in caplog.text
    assert "ignoring" in caplog.text and "offline__all-MiniLM-L6-v2.npz" in caplog.text
    # The right corpus, another model: ignored too.
    caplog.clear()
    bge = load_scorer("bge-small-en-v1.5-int8")
    cc.save_codes(codes, cc.code_path(subset.name, bge.name))
    with caplog.at_level(logging.WARNING, logger="negviz.evaluation.retrieval.codes"):
        assert cc.shipped_codes(bge, subset) is None
    assert f"built for {MODEL} revision {scorer.revision_id}" in caplog.text
    # This model at another revision (its embedding namespace differs): ignored.
    old = dataclasses.replace(codes, meta={**codes.meta, "revision": "0.0.9", "embedding_namespace": "0" * 16})
    cc.save_codes(old, cc.code_path(subset.name, MODEL))
    assert cc.shipped_codes(scorer, subset) is None
    # And the file of this model, revision and corpus is used.
    cc.save_codes(codes, cc.code_path(subset.name, MODEL))
    assert cc.shipped_codes(scorer, subset) is not None
