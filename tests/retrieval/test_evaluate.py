"""negviz.retrieval.evaluate: a corpus retrieval run stored with its provenance, its hits and the
ranks of d+ and d-, reused (or replaced with force), and `negviz eval --corpus` printing it as JSON
(negviz.retrieval.corpus_output)."""

import json

import numpy as np
import pandas as pd
import pytest

from negviz.errors import DataValidationError
from negviz.retrieval import rank_metrics as rm
from negviz.retrieval.corpus import load_corpus
from negviz.retrieval.evaluate import hit_slot, parse_hit, query_doc_ids, ranks_from_rows, score_frame
from negviz.retrieval.corpus import offline_corpus
from tests.retrieval.test_index import small_corpus  # noqa: F401  (fixtures)


def test_corpus_run_stored_with_provenance_and_reused(small_corpus, score_cache, tmp_path):
    from negviz.retrieval.evaluate import parse_hit, run_corpus_eval
    from negviz.schema import DatasetSpec
    from negviz.store import Store

    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    ds = DatasetSpec.make("excluir", limit=40)
    result = run_corpus_eval("all-MiniLM-L6-v2", ds, small_corpus, top_k=20, store=store, cache=score_cache)
    r = result.record
    assert r.kind == "retrieval" and r.dataset_name == "excluir@small.parquet" and r.n == 40
    assert r.options["corpus_size"] == small_corpus.size and r.options["corpus_hash"] == small_corpus.hash
    assert r.options["retrieval"] == "dense" and r.options["top_k"] == 20
    for name in rm.METRICS:
        assert 0 <= abs(result.summary[name]) <= 1
    assert store.runs(dataset="excluir", kind="eval").empty  # pages reading pair runs never see it
    wide = store.scores(r.run_id)
    one = wide[wide["item_id"] == "excluir_31"]
    hits = sorted(parse_hit(s) for s in one["slot"] if s.startswith("hit:"))
    assert [h[0] for h in hits] == list(range(1, 21))
    pos_rank = int(one.loc[one["slot"] == "pos_rank", "score"].iloc[0])
    if pos_rank:
        assert hits[pos_rank - 1][1] == "59341"  # excluir_31's d+ is paragraph 59341
    again = run_corpus_eval("all-MiniLM-L6-v2", ds, small_corpus, top_k=20, store=store, cache=score_cache)
    assert again.reused and again.record.run_id == r.run_id
    # --force replaces the stored run of the spec (issue 21: a spec is stored once).
    forced = run_corpus_eval("all-MiniLM-L6-v2", ds, small_corpus, top_k=20, store=store, cache=score_cache, force=True)
    assert not forced.reused and store.runs(kind="retrieval")["run_id"].tolist() == [forced.record.run_id]


def test_cli_eval_corpus_json(tmp_path, monkeypatch, capsys):
    from negviz.cli import main

    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    args = ["--db", db, "eval", "--model", "bm25", "--dataset", "excluir", "--limit", "30",
            "--corpus", "offline", "--top-k", "20", "--json", "--quiet"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corpus"] == "offline" and out["corpus_size"] == offline_corpus().size and out["n"] == 30
    assert out["retrieval"] == "bm25" and out["top_k"] == 20
    for name in rm.METRICS:
        assert name in out and len(out["ci95"][name]) == 2
    assert main(["--db", db, "eval", "--model", "bm25", "--dataset", "excluir", "--corpus", "nope"]) == 2
    assert "unknown corpus 'nope'" in capsys.readouterr().err


@pytest.fixture
def three_docs(tmp_path):
    path = tmp_path / "c.csv"
    pd.DataFrame({"doc_id": ["a", "b", "c"], "text": ["one", "two", "one"]}).to_csv(path, index=False)
    return load_corpus(str(path))


def test_a_hit_slot_sorts_by_rank_and_reads_back():
    assert hit_slot(7, "59341") == "hit:007:59341"
    assert parse_hit(hit_slot(12, "doc:with:colons")) == (12, "doc:with:colons")
    assert sorted([hit_slot(10, "x"), hit_slot(9, "y")]) == ["hit:009:y", "hit:010:x"]


def test_ranks_are_one_based_and_zero_when_not_retrieved():
    rows = np.array([[4, 2, 9], [1, 5, 6]])
    assert ranks_from_rows(rows, [9, 3]).tolist() == [3, 0]


def test_query_doc_ids_by_id_column_then_by_first_text(three_docs):
    by_id = pd.DataFrame({"query_id": ["q1"], "pos_doc_id": ["b"], "neg_corpus_index": ["c"], "neg_doc": ["one"]})
    assert query_doc_ids(by_id, three_docs) == (["b"], ["c"])
    by_text = pd.DataFrame({"query_id": ["q1"], "pos_doc": ["one"], "neg_doc": ["two"]})
    assert query_doc_ids(by_text, three_docs) == (["a"], ["b"])  # "one" is a and c: the first wins
    absent = pd.DataFrame({"query_id": ["q7"], "pos_doc": ["three"], "neg_doc": ["two"]})
    with pytest.raises(DataValidationError, match="query 'q7'"):
        query_doc_ids(absent, three_docs)


def test_score_frame_has_both_ranks_then_one_slot_per_hit(three_docs):
    frame = score_frame(["q1"], three_docs, np.array([[2, 0]]), np.array([[0.9, 0.4]]), [0], [2])
    assert frame.values.tolist() == [
        ["q1", "pos_rank", 0.0],
        ["q1", "neg_rank", 2.0],
        ["q1", "hit:001:c", 0.9],
        ["q1", "hit:002:a", 0.4],
    ]
