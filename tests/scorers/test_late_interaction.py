"""Late interaction: the MaxSim maths, ColBERT's encoding protocol, MaxSim over encoder tokens.

Tiny random checkpoints prove shapes, masks and plumbing; the bundled all-MiniLM-L6-v2
proves behaviour (a related document beats an unrelated one).
"""

from __future__ import annotations

import numpy as np
import pytest

from negviz.catalog import load_scorer
from negviz.errors import ModelUnavailableError
from negviz.schema import ModelSpec
from negviz.scorers.late_interaction import (
    KINDS,
    TokenEmbeddings,
    is_punct_token,
    maxsim,
    pair_matrix,
    similarity_matrix,
    token_kinds,
)
from tests.support.tiny.late import build_tiny_colbert, build_tiny_colbert_v1, build_tiny_encoder

QUERY = "who is not the king of the city?"
DOC = "The king, of the old city, was not a good king; he had no water."
OTHER_DOC = "a river, a war and a game."
LONG = " ".join(["the old king of the city was not good"] * 8)  # 72 words


@pytest.fixture(scope="module")
def colbert_dir(tmp_path_factory):
    return build_tiny_colbert(tmp_path_factory.mktemp("colbert") / "ckpt")


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    return build_tiny_encoder(tmp_path_factory.mktemp("encoder") / "ckpt")


def colbert(path, **options):
    return load_scorer(ModelSpec.make(str(path), **options), device="cpu")


def encoder_maxsim(path, **options):
    return load_scorer(ModelSpec.make(str(path), family="maxsim", **options), device="cpu")


def check_bookkeeping(emb: TokenEmbeddings) -> None:
    n = len(emb.tokens)
    assert emb.vectors.shape[0] == n == len(emb.mask) == len(emb.kinds)
    assert emb.vectors.dtype == np.float32 and emb.mask.dtype == bool
    assert set(emb.kinds) <= set(KINDS)


# ---------------------------------------------------------------- pure functions
def test_maxsim_by_hand():
    sim = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.95], [0.3, 0.3, 0.3]])
    score, argmax, row_max = maxsim(sim, np.array([True, True, False]), np.array([True, True, False]))
    # Row 1's 0.95 sits in a masked column; row 2 is outside the query mask.
    assert argmax.tolist() == [1, 0, -1]
    assert row_max.tolist() == [0.9, 0.7, 0.0]
    assert score == pytest.approx(1.6) and score == row_max.sum()


def test_maxsim_needs_a_document_token():
    with pytest.raises(ValueError, match="document mask is empty"):
        maxsim(np.zeros((2, 2)), np.ones(2, bool), np.zeros(2, bool))


def test_similarity_matrix_cosine_and_l2_by_hand():
    q = np.array([[3.0, 4.0]])
    d = np.array([[3.0, 4.0], [4.0, -3.0], [0.0, 0.0], [6.0, 8.0]])
    np.testing.assert_allclose(similarity_matrix(q, d, "cosine"), [[1.0, 0.0, 0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(similarity_matrix(q, d, "l2"), [[0.0, -50.0, -25.0, -25.0]], atol=1e-9)
    with pytest.raises(ValueError, match="unknown similarity"):
        similarity_matrix(q, d, "dot")


def test_pair_matrix_row_maxima_add_up_to_the_score():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(2, 3, 4)).astype(np.float32)
    q = TokenEmbeddings(["a", "b", "c"], vectors[0], np.array([1, 1, 0], bool), ["word"] * 3)
    d = TokenEmbeddings(["x", ",", "y"], vectors[1], np.array([1, 0, 1], bool), ["word", "punct", "word"])
    for similarity in ("cosine", "l2"):
        tm = pair_matrix(q, d, similarity)
        assert tm.sim.shape == (3, 3) and tm.sim.dtype == np.float64
        assert tm.row_max.sum() == tm.score
        assert 1 not in tm.argmax[:2] and tm.argmax[2] == -1


def test_token_kinds_and_punctuation():
    word_ids = [None, 0, 0, 1, 2, None]
    assert token_kinds(word_ids, [False, False, False, True, False, False]) == [
        "special",
        "word",
        "subword",
        "punct",
        "word",
        "special",
    ]
    assert all(map(is_punct_token, [",", ".", "##.", "Ġ(", "▁?", "..."]))
    assert not any(map(is_punct_token, ["not", "##n", "n't", "", "Ġ"]))


def test_token_embeddings_checks_lengths():
    with pytest.raises(ValueError, match="out of step"):
        TokenEmbeddings(["a", "b"], np.zeros((3, 2), np.float32), np.ones(2, bool), ["word"] * 2)


# ---------------------------------------------------------------- ColBERT
def test_colbert_options_come_from_artifact_metadata(tmp_path, colbert_dir):
    assert colbert(colbert_dir).options == {
        "similarity": "cosine",
        "query_maxlen": 32,
        "doc_maxlen": 180,
        "mask_punctuation": True,
        "attend_to_mask_tokens": False,
        "masked_doc_tokens": "exclude",
    }
    l2_dir = build_tiny_colbert(tmp_path / "l2", similarity="l2", doc_maxlen=64)
    assert colbert(l2_dir).options["similarity"] == "l2" and colbert(l2_dir).options["doc_maxlen"] == 64
    assert colbert(l2_dir, similarity="cosine").options["similarity"] == "cosine"  # the spec wins
    with pytest.raises(ValueError, match="similarity"):
        colbert(colbert_dir, similarity="dot")


def test_colbert_query_is_padded_with_mask_tokens_that_take_part(colbert_dir):
    scorer = colbert(colbert_dir)
    (q,) = scorer.token_embeddings([QUERY], "query")
    check_bookkeeping(q)
    n_words = len(scorer.model.tokenizer.tokenize(QUERY))
    assert len(q.tokens) == 32 and not q.truncated
    assert q.tokens[:2] == ["[CLS]", "[Q]"] and q.kinds[:2] == ["special", "marker"]
    assert q.tokens[n_words + 2] == "[SEP]"
    aug = [i for i, k in enumerate(q.kinds) if k == "mask_aug"]
    assert aug == list(range(n_words + 3, 32)) and {q.tokens[i] for i in aug} == {"[MASK]"}
    assert q.mask.all()  # [MASK]s, [CLS], [Q], [SEP] and query punctuation all take part
    np.testing.assert_allclose(np.linalg.norm(q.vectors, axis=1), 1.0, atol=1e-5)


def test_colbert_document_punctuation_is_masked_and_never_chosen(colbert_dir):
    scorer = colbert(colbert_dir)
    tm = scorer.token_matrix(QUERY + " , ; .", DOC)
    check_bookkeeping(tm.doc)
    assert tm.doc.tokens[:2] == ["[CLS]", "[D]"] and tm.doc.tokens[-1] == "[SEP]"
    punct = np.array([k == "punct" for k in tm.doc.kinds])
    assert punct.sum() == 4 and not tm.doc.mask[punct].any() and tm.doc.mask[~punct].all()
    assert not punct[tm.argmax].any()
    # The mask matters here: some row's unmasked maximum sits on a punctuation column.
    assert punct[tm.sim.argmax(axis=1)].any()
    np.testing.assert_array_equal(tm.row_max, tm.sim[:, ~punct].max(axis=1))


@pytest.mark.parametrize("masked", ["exclude", "zero"])
@pytest.mark.parametrize("similarity", ["cosine", "l2"])
def test_colbert_row_maxima_add_up_to_score(colbert_dir, similarity, masked):
    scorer = colbert(colbert_dir, similarity=similarity, masked_doc_tokens=masked)
    tm = scorer.token_matrix(QUERY, DOC)
    assert tm.sim.shape == (32, len(tm.doc.tokens)) and tm.similarity == similarity
    assert tm.row_max.sum() == tm.score
    assert tm.score == pytest.approx(scorer.score([QUERY], [DOC])[0], rel=1e-6)


def test_colbert_zero_mode_keeps_masked_tokens_as_zero_vectors(colbert_dir):
    """The ColBERT v0.2 code NevIR ran: D * mask, then a max over every column."""
    for similarity, floor in (("cosine", 0.0), ("l2", -1.0)):
        tm = colbert(colbert_dir, similarity=similarity, masked_doc_tokens="zero").token_matrix(QUERY, DOC)
        punct = np.array([k == "punct" for k in tm.doc.kinds])
        assert tm.doc.mask.all() and not tm.doc.vectors[punct].any()
        np.testing.assert_allclose(tm.sim[:, punct], floor, atol=1e-6)
        assert (tm.row_max >= floor - 1e-6).all()


def test_colbert_l2_is_affine_in_cosine_for_unit_vectors(colbert_dir):
    cos = colbert(colbert_dir, similarity="cosine").token_matrix(QUERY, DOC)
    l2 = colbert(colbert_dir, similarity="l2").token_matrix(QUERY, DOC)
    np.testing.assert_allclose(l2.sim, 2 * cos.sim - 2, atol=1e-5)
    np.testing.assert_array_equal(l2.argmax, cos.argmax)  # -||q-d||^2 = 2 cos - 2 is monotone


def test_colbert_truncation(colbert_dir):
    scorer = colbert(colbert_dir, doc_maxlen=12)
    (q,) = scorer.token_embeddings([LONG], "query")
    assert q.truncated and len(q.tokens) == 32 and "mask_aug" not in q.kinds and q.tokens[-1] == "[SEP]"
    long_doc, short_doc = scorer.token_embeddings([LONG, "the king"], "document")
    assert long_doc.truncated and len(long_doc.tokens) == 12 and long_doc.tokens[-1] == "[SEP]"
    assert not short_doc.truncated and short_doc.tokens == ["[CLS]", "[D]", "the", "king", "[SEP]"]
    exact = "the " * 9  # 9 words + [CLS] [D] [SEP] = 12 tokens: fits exactly
    assert not scorer.token_embeddings([exact.strip()], "document")[0].truncated


def test_colbert_vectors_match_an_independent_forward(tmp_path, colbert_dir):
    """Our tokenisation + loading against transformers' own loader and a hand-built input."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(colbert_dir)
    bert = AutoModel.from_pretrained(colbert_dir).eval()  # strips the "bert." prefix itself
    linear = load_file(str(colbert_dir / "model.safetensors"))["linear.weight"]
    words = tok.convert_tokens_to_ids(tok.tokenize(QUERY))
    ids = [tok.cls_token_id, tok.convert_tokens_to_ids("[unused0]"), *words, tok.sep_token_id]
    attention = [1] * len(ids) + [0] * (32 - len(ids))
    ids += [tok.mask_token_id] * (32 - len(ids))
    with torch.no_grad():
        hidden = bert(input_ids=torch.tensor([ids]), attention_mask=torch.tensor([attention])).last_hidden_state
        expected = torch.nn.functional.normalize(hidden[0] @ linear.T, dim=-1).numpy()
    (q,) = colbert(colbert_dir).token_embeddings([QUERY], "query")
    np.testing.assert_allclose(q.vectors, expected, atol=1e-5)
    # The same checkpoint saved as pytorch_model.bin loads to the same vectors.
    bin_dir = build_tiny_colbert(tmp_path / "bin", weights="bin")
    (q_bin,) = colbert(bin_dir).token_embeddings([QUERY], "query")
    np.testing.assert_allclose(q_bin.vectors, expected, atol=1e-5)


def test_colbert_v1_dnn_checkpoint_loads(tmp_path, colbert_dir):
    """ColBERTv1 as NevIR used it: one v0.2 .dnn file; config and tokenizer from its base BERT."""
    v1_dir = build_tiny_colbert_v1(tmp_path / "v1")  # the same seed, so the same weights
    v1 = colbert(v1_dir, family="colbert", similarity="l2")
    assert v1.options["query_maxlen"] == 32 and v1.options["similarity"] == "l2"
    expected = colbert(colbert_dir, similarity="l2").token_matrix(QUERY, DOC)
    got = v1.token_matrix(QUERY, DOC)
    assert got.doc.tokens == expected.doc.tokens
    np.testing.assert_allclose(got.sim, expected.sim, atol=1e-6)
    (v1_dir / "colbert-2.dnn").write_bytes(b"")
    with pytest.raises(ModelUnavailableError, match="2 .dnn files"):
        colbert(v1_dir, family="colbert").score([QUERY], [DOC])


def test_colbert_scores_each_text_once_and_in_any_batch(colbert_dir, score_cache):
    # A cache of its own: texts other tests encoded must not count as encoded here.
    scorer = load_scorer(ModelSpec.make(str(colbert_dir), similarity="l2"), device="cpu", cache=score_cache)
    queries, docs = [QUERY, QUERY, "the city"], [DOC, OTHER_DOC, DOC]
    calls, encoded = [], []
    encode = scorer.token_embeddings  # record what the real encoder is asked for

    def recording(texts, role="document", progress=None):
        encoded.extend((role, t) for t in texts)
        return encode(texts, role, progress) if progress else encode(texts, role)

    scorer.token_embeddings = recording
    together = scorer.score(queries, docs, progress=lambda done, total, desc: calls.append((done, total)))
    assert sorted(encoded) == sorted(
        [("query", QUERY), ("query", "the city"), ("document", DOC), ("document", OTHER_DOC)]
    )  # each unique text once per role
    assert calls[-1] == (3, 3)  # progress in unique pairs
    scorer.token_embeddings = encode
    alone = [scorer.score([q], [d])[0] for q, d in zip(queries, docs)]
    np.testing.assert_allclose(together, alone, rtol=1e-5)
    for text, role in ((DOC, "document"), ("", "query"), ("", "document")):
        check_bookkeeping(scorer.token_embeddings([text], role)[0])


# ---------------------------------------------------------------- MaxSim over encoder tokens
def test_encoder_maxsim_masks(encoder_dir):
    tm = encoder_maxsim(encoder_dir).token_matrix(QUERY, DOC)
    for emb in (tm.query, tm.doc):
        check_bookkeeping(emb)
        assert emb.tokens[0] == "[CLS]" and emb.tokens[-1] == "[SEP]"
        assert emb.kinds[0] == emb.kinds[-1] == "special" and not emb.mask[[0, -1]].any()
    q_punct = [i for i, k in enumerate(tm.query.kinds) if k == "punct"]
    d_punct = np.array([k == "punct" for k in tm.doc.kinds])
    assert q_punct and tm.query.mask[q_punct].all()  # punctuation is masked on the document side only
    assert d_punct.any() and not tm.doc.mask[d_punct].any() and not d_punct[tm.argmax[tm.argmax >= 0]].any()
    assert (tm.argmax[[0, -1]] == -1).all() and tm.row_max.sum() == tm.score

    keep_all = encoder_maxsim(encoder_dir, skip_special=False, mask_punctuation=False).token_matrix(QUERY, DOC)
    assert keep_all.query.mask.all() and keep_all.doc.mask.all()


@pytest.mark.parametrize("similarity", ["cosine", "l2"])
def test_encoder_maxsim_score_and_similarity(encoder_dir, similarity):
    scorer = encoder_maxsim(encoder_dir, similarity=similarity)
    tm = scorer.token_matrix(QUERY, DOC)
    assert tm.row_max.sum() == tm.score
    assert tm.score == pytest.approx(scorer.score([QUERY], [DOC])[0], rel=1e-6)
    q, d = tm.query.vectors.astype(np.float64), tm.doc.vectors.astype(np.float64)
    if similarity == "l2":  # raw hidden states, brute force
        expected = -((q[:, None, :] - d[None, :, :]) ** 2).sum(-1)
    else:
        expected = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (d / np.linalg.norm(d, axis=1, keepdims=True)).T
    np.testing.assert_allclose(tm.sim, expected, rtol=1e-6, atol=1e-6)


def test_encoder_maxsim_truncation_and_empty_fallback(encoder_dir):
    scorer = encoder_maxsim(encoder_dir, max_length=8)
    long, short = scorer.token_embeddings([LONG, "the city"], "document")
    assert long.truncated and len(long.tokens) == 8 and long.tokens[-1] == "[SEP]"
    assert not short.truncated and short.tokens == ["[CLS]", "the", "city", "[SEP]"]
    # DEMETR's empty candidate "." has no word token: all its tokens take part instead.
    tm = scorer.token_matrix(QUERY, ".")
    assert tm.doc.tokens == ["[CLS]", ".", "[SEP]"] and tm.doc.mask.all() and np.isfinite(tm.score)


def test_encoder_maxsim_reads_the_0_transformer_layout(tmp_path, encoder_dir):
    nested = build_tiny_encoder(tmp_path / "st", layout="0_Transformer")
    assert (nested / "0_Transformer" / "config.json").is_file() and not (nested / "config.json").exists()
    scores = [encoder_maxsim(p).score([QUERY], [DOC])[0] for p in (encoder_dir, nested)]
    assert scores[0] == pytest.approx(scores[1], rel=1e-6)


# ---------------------------------------------------------------- MiniLM (bundled, offline)
@pytest.fixture(scope="module")
def minilm():
    return load_scorer("maxsim-all-MiniLM-L6-v2", device="cpu")


def test_minilm_maxsim_prefers_the_related_document(minilm):
    query = "Which river flows through the city of Paris?"
    related = "The Seine is the river that flows through Paris, the capital city of France."
    unrelated = "The violin is a string instrument that is played with a bow."
    related_score, unrelated_score = minilm.score([query, query], [related, unrelated])
    assert related_score > unrelated_score + 1.0
    tm = minilm.token_matrix(query, related)
    chosen = {tm.query.tokens[i]: tm.doc.tokens[j] for i, j in enumerate(tm.argmax) if j >= 0}
    assert chosen["paris"] == "paris" and chosen["river"] == "river"


def test_minilm_token_matrix_is_one_forward_pass_per_text(minilm):
    """The explorer's matrix for a 150-word document is two forward passes of the real model (the
    query's and the document's, every token at once), not one per token or per word. Its time
    against a plain forward of the same texts is benchmarks/bench_maxsim.py's."""
    words = ("The river does not flow north, and the old city was never built on its banks. " * 12).split()[:150]
    doc, query = " ".join(words), "Which rivers flow through the city?"
    _, model = minilm.model
    passes: list[tuple[int, ...]] = []  # the input_ids shape of each forward pass

    def count(_module, _args, kwargs, _output) -> None:
        passes.append(tuple(kwargs["input_ids"].shape))

    hook = model.register_forward_hook(count, with_kwargs=True)
    try:
        tm = minilm.token_matrix(query, doc)
    finally:
        hook.remove()
    assert not tm.doc.truncated and len(tm.doc.tokens) > 150
    assert len(passes) == 2, passes
    query_pass, doc_pass = passes
    assert query_pass[0] == doc_pass[0] == 1  # one text a pass
    assert query_pass[1] >= len(tm.query.tokens) and doc_pass[1] >= len(tm.doc.tokens), passes
