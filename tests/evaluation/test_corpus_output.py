"""negviz.evaluation.retrieval.corpus_output: what `negviz eval --corpus` prints, the JSON payload of a stored
retrieval run and its short table, on a run over a three-document corpus with BM25."""

import pandas as pd
import pytest

from negviz.core.schema import DatasetSpec
from negviz.evaluation.retrieval import rank_metrics as rm
from negviz.evaluation.retrieval.corpus import load_corpus
from negviz.evaluation.retrieval.corpus_output import corpus_payload, format_corpus
from negviz.evaluation.retrieval.evaluate import run_corpus_eval


@pytest.fixture
def result(tmp_path, store, score_cache):
    """Two ExcluIR-style queries over three documents: q1 finds its d+ first, q2 its d- first."""
    corpus_path = tmp_path / "corpus.csv"
    texts = ["the red river runs north", "the blue lake is still", "a red lake runs dry"]
    pd.DataFrame({"doc_id": ["d1", "d2", "d3"], "text": texts}).to_csv(corpus_path, index=False)
    queries = tmp_path / "queries.csv"
    pd.DataFrame(
        {
            "query_id": ["q1", "q2"],
            "query": ["red river north", "blue lake still"],
            "pos_doc": [texts[0], texts[2]],
            "neg_doc": [texts[2], texts[1]],
        }
    ).to_csv(queries, index=False)
    dataset = DatasetSpec.make(str(queries), kind="exclusion")
    return run_corpus_eval("bm25", dataset, load_corpus(str(corpus_path)), top_k=3, store=store, cache=score_cache)


def test_the_payload_carries_the_run_provenance_and_every_metric(result):
    out = corpus_payload(result)
    assert out["model"] == "bm25" and out["corpus_size"] == 3 and out["retrieval"] == "bm25"
    assert out["run_id"] == result.record.run_id and out["reused_stored_run"] is False
    assert out["n"] == 2 and out["top_k"] == 3
    assert out["r1_pos"] == pytest.approx(0.5) and out["r1_neg"] == pytest.approx(0.5)  # one of each, by hand
    assert set(rm.METRICS) <= set(out)


def test_the_table_has_a_header_and_one_line_per_metric(result):
    text = format_corpus(corpus_payload(result))
    lines = text.splitlines()
    assert lines[0].startswith("bm25 (bm25, bm25) on ") and "(3 docs, hash " in lines[0] and "n=2" in lines[0]
    assert len(lines) == 1 + len(rm.METRICS) + 2
    r1 = next(line for line in lines if line.strip().startswith("R@1 (d+) "))  # the metric's label, not its key
    assert "50.0%" in r1 and "[95% CI" in r1  # a rate, in percent (negviz.core.metrics)
    delta = next(line for line in lines if line.strip().startswith("ΔR@1 "))
    assert not any("_" in line.split("  ")[1] for line in lines[1:-2])  # no metric key (r1_pos) reaches a person
    assert delta.split()[1:3] == ["0.0", "pp"]  # a difference of rates: points, and no "-0.0"
    assert lines[-2].strip().startswith("d+ in top 3: 2, d− in top 3: 2")
    # the run's encoding plan (negviz.evaluation.retrieval.plan): BM25 encodes nothing
    assert lines[-1].strip() == "plan: bm25 index over the corpus, no model encoding; 2 queries; 0 texts encoded"


def test_a_pairs_run_and_a_corpus_run_print_one_head(result, store, score_cache):
    """`negviz eval --json` begins alike over pairs and over a corpus (negviz.evaluation.runner.run_head):
    the model and dataset, what differs (n, or the corpus searched), then where it ran and which run."""
    from negviz.cli.eval_command import eval_payload
    from negviz.evaluation.runner import run_eval

    pairs = eval_payload(run_eval("bm25", DatasetSpec.make("nevir", limit=2), store=store, cache=score_cache))
    first = ["model", "model_spec", "family", "revision", "dataset", "split"]
    then = ["wall_seconds", "device", "run_id", "reused_stored_run", "code_version"]
    for out, between in (
        (pairs, ["n"]),
        (corpus_payload(result), ["corpus", "corpus_size", "corpus_hash", "retrieval"]),
    ):
        keys = list(out)
        assert keys[: len(first) + len(between)] == first + between
        assert keys[keys.index("wall_seconds") :][: len(then)] == then
    assert pairs["dataset"] == "nevir" and pairs["n"] == 2 and pairs["model"] == "bm25"
