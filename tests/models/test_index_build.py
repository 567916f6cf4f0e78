"""A dense index build over the offline corpus reports every batch with the time left."""

from tests.evaluation.test_index import (
    N_TEXTS,
    corpus_file,  # noqa: F401  (fixtures)
)


def test_dense_build_reports_every_batch(tiny_model_dir, corpus_file, score_cache):
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.index import DenseRetriever

    spec = ModelSpec.make(str(tiny_model_dir("bi-encoder")), family="bi-encoder")
    scorer = load_scorer(spec, device="cpu", cache=score_cache, batch_size=8)
    corpus = load_corpus(str(corpus_file))
    seen = []
    DenseRetriever(scorer, corpus).build(lambda done, total, desc: seen.append((done, total)))
    assert scorer.encoded == N_TEXTS
    counts = [done for done, _ in seen]
    assert {total for _, total in seen} == {N_TEXTS} and counts[-1] == N_TEXTS
    assert counts == sorted(counts)
    steps = [b - a for a, b in zip([0] + counts, counts)]
    assert max(steps) <= 8  # one report per batch of 8, not one jump to the end
    assert len(set(counts)) >= N_TEXTS // 8
