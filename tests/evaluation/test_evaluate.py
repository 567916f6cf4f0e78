"""negviz.evaluation.retrieval.evaluate: a corpus run's hits and the ranks of d+ and d-, and `negviz eval
--corpus` printing it as JSON (negviz.evaluation.retrieval.corpus_output). A MiniLM corpus run stored with
its provenance and reused (or replaced with force): tests/models/test_dense_retrieval.py."""

import json

import numpy as np
import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.evaluation.retrieval import rank_metrics as rm
from negviz.evaluation.retrieval.corpus import load_corpus, offline_corpus
from negviz.evaluation.retrieval.evaluate import hit_slot, parse_hit, query_doc_ids, ranks_from_rows, score_frame


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
