"""negviz.scorers.bi_encoder: dot product or cosine of sentence-transformers embeddings, role
prefixes, normalisation and progress, against the same tiny checkpoint encoded directly."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer

PAIRS_Q = ["who won the war?", "the king", "is the city not old?"]
PAIRS_D = ["The king won the war.", "No river flows through the old city at all.", "city"]


@pytest.fixture(scope="module")
def st_model(tiny_model_dir):
    from sentence_transformers import SentenceTransformer

    path = tiny_model_dir("bi-encoder")
    return path, SentenceTransformer(str(path), device="cpu")


def bi_encoder(path, **options):
    return load_scorer(ModelSpec.make(str(path), family="bi-encoder", **options), device="cpu")


def test_bi_encoder_dot_by_default_and_cosine_as_option(st_model):
    path, st = st_model
    q, d = st.encode(PAIRS_Q).astype(np.float64), st.encode(PAIRS_D).astype(np.float64)
    dot = (q * d).sum(1)
    cos = dot / (np.linalg.norm(q, axis=1) * np.linalg.norm(d, axis=1))
    np.testing.assert_allclose(bi_encoder(path).score(PAIRS_Q, PAIRS_D), dot, rtol=1e-5)
    np.testing.assert_allclose(bi_encoder(path, similarity="cosine").score(PAIRS_Q, PAIRS_D), cos, rtol=1e-5)


def test_bi_encoder_role_prefixes_and_normalize(st_model):
    path, st = st_model
    scorer = bi_encoder(path, query_prefix="query: ", doc_prefix="passage: ", normalize=True)
    q = st.encode([f"query: {t}" for t in PAIRS_Q], normalize_embeddings=True)
    d = st.encode([f"passage: {t}" for t in PAIRS_D], normalize_embeddings=True)
    np.testing.assert_allclose(scorer.score(PAIRS_Q, PAIRS_D), (q * d).sum(1), rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(scorer.embed(PAIRS_D), axis=1), 1.0, rtol=1e-5)


def test_bi_encoder_reports_progress_per_batch(tiny_model_dir):
    calls = []
    scorer = load_scorer(
        ModelSpec.make(str(tiny_model_dir("bi-encoder")), family="bi-encoder"), device="cpu", batch_size=2
    )
    vectors = scorer.embed(PAIRS_D + PAIRS_Q, progress=lambda done, total, desc: calls.append((done, total, desc)))
    assert vectors.shape[0] == 6 and vectors.dtype == np.float32
    assert calls == [(2, 6, "encoding"), (4, 6, "encoding"), (6, 6, "encoding")]


def test_bi_encoder_pooling_option_is_for_onnx_exports_only(tiny_model_dir):
    # A sentence-transformers folder pools as its own config says: pooling=cls would be ignored.
    scorer = bi_encoder(tiny_model_dir("bi-encoder"), pooling="cls")
    with pytest.raises(ModelUnavailableError, match="ONNX exports only"):
        scorer.score(["q"], ["d"])
