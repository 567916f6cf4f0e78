"""negviz.scorers.base: what every family inherits. Work cut into checkpoints, a chunk's progress
reported against the whole call, row-wise similarity by hand, and Scorer.score on a
smallest-possible family (each unique pair once, longest first, written to the cache per chunk)."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.options import Option
from negviz.core.schema import ModelSpec
from negviz.scorers.base import Scorer, checkpoints, chunk_progress, pair_similarity


class LengthScorer(Scorer):
    """A family whose 'model' is len(): a score the test can compute by hand."""

    family = "length-test"
    declared_options = (Option("scale", float, 1.0, "multiplies the score"), Option("note", str, "", "no effect"))
    scoring_options = ("scale",)
    checkpoint_every = 2

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls: list[list[str]] = []

    def _load(self):
        return len

    def _score_pairs(self, queries, docs, progress):
        self.calls.append(list(queries))
        return np.array([self.options["scale"] * self.model(q + d) for q, d in zip(queries, docs)])


def make(cache=None, **options) -> LengthScorer:
    return LengthScorer(ModelSpec.make("length", "length-test", **options), device="cpu", cache=cache, batch_size=1)


def test_checkpoints_cut_consecutive_chunks():
    assert checkpoints([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert checkpoints([1, 2, 3], None) == [[1, 2, 3]]  # None: all at once
    assert checkpoints([1, 2, 3], 3) == [[1, 2, 3]]


def test_chunk_progress_counts_items_of_the_whole_call():
    seen = []
    # The second chunk of 4 items, after 6 done, of 10: its 1/2 done is 8 of 10.
    report = chunk_progress(lambda done, total, desc: seen.append((done, total, desc)), 6, 4, 10)
    report(1, 2, "scoring")
    report(2, 2, "scoring")
    report(0, 0, "scoring")  # a chunk that reports no total counts as finished
    assert seen == [(8, 10, "scoring"), (10, 10, "scoring"), (10, 10, "scoring")]


def test_pair_similarity_dot_and_cosine_by_hand():
    q = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 0.0]], dtype=np.float32)
    d = np.array([[6.0, 8.0], [0.0, 2.0], [1.0, 1.0]], dtype=np.float32)
    dot = pair_similarity(q, d, "dot")
    assert dot.dtype == np.float64 and dot.tolist() == [50.0, 0.0, 0.0]
    # parallel, orthogonal, and a zero vector (no division by zero: 0)
    np.testing.assert_allclose(pair_similarity(q, d, "cosine"), [1.0, 0.0, 0.0], atol=1e-12)
    with pytest.raises(ValueError, match="unknown similarity"):
        pair_similarity(q, d, "l2")


def test_score_computes_each_unique_pair_once_longest_first():
    scorer = make()
    scores = scorer.score(["a", "bbb", "a", "cc"], ["x", "y", "x", "zz"])
    assert scores.dtype == np.float64 and scores.tolist() == [2.0, 4.0, 2.0, 4.0]
    assert scorer.calls == [["bbb", "cc", "a"]]  # no cache: one chunk, the duplicate pair once
    assert scorer.encoded == 3


def test_score_writes_the_cache_per_chunk_and_reads_it_back(score_cache):
    scorer = make(cache=score_cache)
    scorer.score(["a", "bbb", "cc"], ["x", "y", "zz"])
    assert scorer.calls == [["bbb", "cc"], ["a"]]  # checkpoint_every=2 at batch size 1
    again = make(cache=score_cache)
    assert again.score(["cc", "a"], ["zz", "x"]).tolist() == [4.0, 2.0]
    assert again.calls == [] and not again.loaded  # every score came from the cache
    # Only the scoring options key the cache: "note" shares it, "scale" does not.
    assert make(note="n").score_namespace == make().score_namespace != make(scale=2.0).score_namespace
    assert make(cache=score_cache, scale=2.0).score(["a"], ["x"]).tolist() == [4.0]


def test_score_refuses_misaligned_lists_and_an_unknown_option():
    with pytest.raises(ValueError, match="aligned"):
        make().score(["a", "b"], ["x"])
    assert make().score([], []).shape == (0,)
    with pytest.raises(ValueError, match="colour"):
        make(colour="red")


def test_lexical_families_run_on_the_cpu_without_importing_torch(tmp_path):
    """TF-IDF and BM25 run no tensors: their device is the CPU without asking CUDA, so an
    evaluation of them (`negviz eval --model bm25`) never pays torch's import."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from negviz.evaluation.runner import run_eval\n"
        "from negviz.core.cache import ScoreCache\n"
        "from negviz.core.schema import DatasetSpec\n"
        f"cache = ScoreCache({str(tmp_path / 'c.sqlite')!r})\n"
        "for model in ('tfidf', 'bm25'):\n"
        "    run = run_eval(model, DatasetSpec.make('nevir', limit=3), cache=cache)\n"
        "    print(model, run.record.device)\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["tfidf", "cpu", "bm25", "cpu", "False"]
