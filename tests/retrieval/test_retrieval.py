"""Corpus retrieval: hand-computed metrics, the offline corpus, the indexes, runs and the CLI.
The SPLADE index with real weights: tests/models/test_splade_index.py."""

import json

import numpy as np
import pandas as pd
import pytest

from negviz.errors import DatasetUnavailableError, DataValidationError
from negviz.retrieval import rank_metrics as rm
from negviz.retrieval.corpus import load_corpus, offline_corpus


# ---------------------------------------------------------------- metrics by hand
def test_top_k_breaks_ties_by_corpus_position():
    scores = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    assert rm.top_k_indices(scores, 2).tolist() == [1, 2]  # three docs tie at 3.0: the first two
    assert rm.top_k_indices(scores, 4).tolist() == [1, 2, 4, 3]
    assert rm.top_k_indices(scores, 9).tolist() == [1, 2, 4, 3, 0]
    two = rm.top_k_indices(np.array([[0.0, 0.0, 1.0], [5.0, 5.0, 5.0]]), 2)
    assert two.tolist() == [[2, 0], [0, 1]]


def test_rank_in_list():
    assert rm.rank_in(["a", "b", "c"], "b") == 2
    assert rm.rank_in(["a", "b", "c"], "z") == 0


# q1: d+ 1st, d- 2nd. q2: d+ 3rd, d- outside the top k. q3: both absent. q4: d+ 12th, d- 4th.
# q5: d+ 11th (in the top k = 100, outside the top 10), d- absent.
POS, NEG = [1, 3, 0, 12, 11], [2, 0, 0, 4, 0]


def test_every_metric_by_hand():
    s = rm.retrieval_summary(POS, NEG, top_k=100)
    assert s["n"] == 5 and s["top_k"] == 100
    expected = {
        "r1_pos": 1 / 5, "r5_pos": 2 / 5, "r10_pos": 2 / 5, "mrr10_pos": (1 + 1 / 3) / 5,
        "r1_neg": 0.0, "r5_neg": 2 / 5, "r10_neg": 2 / 5, "mrr10_neg": (1 / 2 + 1 / 4) / 5,
        "delta_r1": 1 / 5, "delta_mrr10": (1 + 1 / 3 - 1 / 2 - 1 / 4) / 5,
        # Top 10: q1 (both, d+ above), q2 (only d+) right; q3 (neither), q4 (only d-), q5 (neither) wrong.
        "right_rank": 2 / 5,
        # Whole list: q5 now has only d+ in it (right); q4 has both, d- above (wrong).
        "right_rank_at_k": 3 / 5,
    }  # fmt: skip
    for name, value in expected.items():
        assert s[name] == pytest.approx(value), name
        lo, hi = s["ci95"][name]
        assert lo <= s[name] + 1e-12 and s[name] <= hi + 1e-12, name
    assert set(rm.METRICS) == set(expected)
    assert s["pos_in_top_k"] == 4 and s["neg_in_top_k"] == 2 and s["both_absent_top10"] == 2  # q3 and q5


def test_both_absent_counts_as_wrong_in_the_denominator():
    assert rm.right_rank_items([0], [0]).tolist() == [False]
    s = rm.retrieval_summary([0, 1], [0, 0], top_k=10)
    assert s["right_rank"] == 0.5  # not 1.0: the query that found neither is not dropped


def _published_rule(result: list, neg: str, pos: str) -> bool:
    """ExcluIR's compute_right_rank for one query, written from its description."""
    if pos in result and neg in result:
        return result.index(pos) < result.index(neg)
    return pos in result


def test_right_rank_matches_the_list_rule_on_random_lists():
    rng = np.random.default_rng(0)
    pos, neg, want = [], [], []
    for _ in range(300):
        result = [str(x) for x in rng.permutation(30)[:10]]
        p, n = "1", "2"
        pos.append(rm.rank_in(result, p))
        neg.append(rm.rank_in(result, n))
        want.append(_published_rule(result, n, p))
    assert rm.right_rank_items(pos, neg).tolist() == want


# ---------------------------------------------------------------- corpora
def test_offline_corpus_is_built_from_shipped_data_and_stable():
    import importlib.util

    from negviz.paths import ROOT

    corpus = offline_corpus()
    assert 40_000 < corpus.size < 50_000
    assert corpus.frame["doc_id"].is_unique
    ex = pd.read_parquet(ROOT / "data/excluir/sample.parquet")
    row = ex.iloc[0]
    assert corpus.texts[corpus.row_of[str(row["pos_corpus_index"])]] == row["pos_doc"]
    spec = importlib.util.spec_from_file_location("build_corpus", ROOT / "scripts/build_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rebuilt = module.build()
    assert rebuilt["doc_id"].tolist() == corpus.ids and rebuilt["text"].tolist() == corpus.texts


def test_corpus_file_with_mapping_and_validation(tmp_path):
    f = tmp_path / "c.csv"
    pd.DataFrame({"id": ["a", "b"], "body": ["first doc", "second doc"]}).to_csv(f, index=False)
    c = load_corpus(str(f), columns="doc_id=id,text=body")
    assert c.ids == ["a", "b"] and c.frame["title"].tolist() == ["", ""] and len(c.hash) == 16
    bad = tmp_path / "dup.jsonl"
    bad.write_text('{"doc_id": "a", "text": "x"}\n{"doc_id": "a", "text": "y"}\n')
    with pytest.raises(DataValidationError, match="duplicate id 'a'"):
        load_corpus(str(bad))
    with pytest.raises(DataValidationError, match="missing column"):
        load_corpus(str(f))


def test_hub_corpora_offline_say_what_to_do(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("NEGVIZ_EXCLUIR_CORPUS_HUB", raising=False)
    with pytest.raises(DatasetUnavailableError, match="Google Drive"):
        load_corpus("excluir")
    with pytest.raises(DatasetUnavailableError, match="HF_HUB_OFFLINE"):
        load_corpus("hf:someone/corpus")


# ---------------------------------------------------------------- indexes with real models
@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    """The first 40 ExcluIR queries' documents (ids = corpus index) + 300 CANNOT distractors."""
    full = offline_corpus().frame
    ex = pd.read_parquet(offline_corpus.__globals__["DATA_DIR"] / "excluir/sample.parquet").head(40)
    ids = set(map(str, ex["pos_corpus_index"])) | set(map(str, ex["neg_corpus_index"]))
    part = pd.concat([full[full["doc_id"].isin(ids)], full[full["doc_id"].str.startswith("cannot-")].head(300)])
    path = tmp_path_factory.mktemp("corpus") / "small.parquet"
    part.to_parquet(path, index=False)
    return load_corpus(str(path))


def test_dense_exact_search_is_chunk_invariant_and_cached(small_corpus, score_cache, monkeypatch):
    from negviz.catalog import load_scorer
    from negviz.retrieval import index as ix

    queries = ["films not directed by Steven Spielberg", "a band, excluding its founder's career"]
    scorer = load_scorer("all-MiniLM-L6-v2", cache=score_cache)
    whole = ix.DenseRetriever(scorer, small_corpus)
    rows, scores = whole.search(queries, 15)
    brute = (scorer.embed(queries, "query") @ whole.matrix.T).astype(np.float64)
    assert rows.tolist() == rm.top_k_indices(brute, 15).tolist()
    monkeypatch.setattr(ix, "CORPUS_CHUNK", 37)  # many corpus chunks, two query chunks
    monkeypatch.setattr(ix, "QUERY_CHUNK", 1)
    chunked_rows, chunked_scores = ix.DenseRetriever(scorer, small_corpus).search(queries, 15)
    assert chunked_rows.tolist() == rows.tolist()
    np.testing.assert_allclose(chunked_scores, scores, rtol=1e-6)
    # Scores are the scorer's own pair scores (dot product) for the retrieved documents.
    pair = scorer.score([queries[0]] * 15, [small_corpus.texts[i] for i in rows[0]])
    np.testing.assert_allclose(scores[0], pair, rtol=1e-5)
    # Every corpus vector is in the ScoreCache: a fresh scorer builds the index without a model.
    again = load_scorer("all-MiniLM-L6-v2", cache=score_cache)
    ix.DenseRetriever(again, small_corpus).build()
    assert not again.loaded


def test_faiss_equals_exact_search(small_corpus, score_cache):
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import retriever_for

    pytest.importorskip("faiss")
    scorer = load_scorer("all-MiniLM-L6-v2", cache=score_cache)
    queries = pd.read_parquet(offline_corpus.__globals__["DATA_DIR"] / "excluir/sample.parquet")["query"][:40]
    exact_rows, exact_scores = retriever_for(scorer, small_corpus).search(queries, 20)
    faiss_rows, faiss_scores = retriever_for(scorer, small_corpus, method="faiss").search(queries, 20)
    np.testing.assert_allclose(faiss_scores, exact_scores, rtol=1e-5, atol=1e-6)
    assert (faiss_rows == exact_rows).mean() > 0.99  # only float-noise near-ties may swap


def test_lexical_indexes_find_a_document_by_its_own_words(small_corpus):
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import retriever_for

    target = 5
    text = small_corpus.texts[target]
    for name in ("bm25", "tfidf"):
        rows, scores = retriever_for(load_scorer(name), small_corpus).search([text], 3)
        assert rows[0][0] == target, name
        assert scores[0][0] > scores[0][1], name


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


def test_maxsim_reranks_the_bm25_first_stage(small_corpus, score_cache):
    from negviz.catalog import load_scorer
    from negviz.retrieval.index import BM25Retriever, retriever_for

    q = ["What is aTelecine's role in the entertainment industry, excluding Sasha Grey's career?"]
    scorer = load_scorer("maxsim-all-MiniLM-L6-v2", cache=score_cache)
    rr = retriever_for(scorer, small_corpus, depth=10)
    rows, scores = rr.search(q, 5)
    first, _ = BM25Retriever(load_scorer("bm25"), small_corpus).search(q, 10)
    assert set(rows[0]) <= set(first[0])  # re-ranked candidates come from the first stage
    assert list(scores[0]) == sorted(scores[0], reverse=True)
    np.testing.assert_allclose(scores[0], scorer.score(q * 5, [small_corpus.texts[i] for i in rows[0]]))


# ---------------------------------------------------------------- CLI
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
