"""negviz.evaluation.retrieval.plan: what a corpus run encodes, counted as the texts the real (tiny)
bi-encoder is handed. An exact run encodes each corpus text once and its queries, in one bar of
what is left, a second run nothing; what the Search page encoded is not encoded again; a limited
run (the default plan, auto) or one asking for the cheapest plan encodes its queries' candidates (a
code file of this model and corpus) instead of the corpus, under its own run key, while a run over
all its dataset's queries, or over a cached corpus, stays exact; the exact numbers equal a
brute-force ranking of the same vectors. MiniLM over the whole offline corpus: benchmarks/bench_corpus_plan.py."""

import json

import numpy as np
import pandas as pd
import pytest

from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.evaluation.retrieval import codes as cc
from negviz.evaluation.retrieval.corpus import load_corpus, offline_corpus
from negviz.evaluation.retrieval.evaluate import query_doc_ids, run_corpus_eval
from negviz.evaluation.retrieval.index import CodesRetriever, DenseRetriever
from negviz.evaluation.retrieval.plan import EncodingPlan, plan_corpus_run
from negviz.evaluation.retrieval.rank_metrics import METRICS, retrieval_summary, top_k_indices

QUERIES = 20
EXCLUIR = pd.read_parquet(cc.DATA_DIR / "excluir" / "sample.parquet").head(QUERIES)
TOP_K = 10


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The first 20 ExcluIR queries' d+ and d− + 200 CANNOT sentences + one text twice (two ids)."""
    full = offline_corpus().frame
    ids = set(map(str, EXCLUIR["pos_corpus_index"])) | set(map(str, EXCLUIR["neg_corpus_index"]))
    cannot = full[full["doc_id"].str.startswith("cannot-")].head(200)
    twin = cannot.head(1).assign(doc_id="twin-of-the-first-cannot-sentence")
    part = pd.concat([full[full["doc_id"].isin(ids)], cannot, twin])
    path = tmp_path_factory.mktemp("corpus") / "slice.parquet"
    part.to_parquet(path, index=False)
    return load_corpus(str(path))


@pytest.fixture
def counted(tiny_model_dir, tmp_path):
    """A fresh tiny bi-encoder on a fresh cache, and the list of texts its encoder is handed."""
    spec = ModelSpec.make(str(tiny_model_dir("bi-encoder")), family="bi-encoder")

    def make(cache: ScoreCache):
        scorer = load_scorer(spec, device="cpu", cache=cache, batch_size=16)
        seen: list[str] = []
        embed = scorer._embed

        def counting(texts, progress):
            seen.extend(texts)
            return embed(texts, progress)

        scorer._embed = counting
        return scorer, seen

    return make


def dataset(limit: int = QUERIES) -> DatasetSpec:
    return DatasetSpec.make("excluir", "test", limit)


def brute_force(scorer, corpus, limit: int):
    """The unplanned computation: every corpus vector, every query vector, the exact top k."""
    frame = EXCLUIR.head(limit)
    docs, queries = scorer.embed(corpus.texts), scorer.embed(frame["query"].tolist(), "query")
    rows = top_k_indices(queries.astype(np.float64) @ docs.astype(np.float64).T, TOP_K)
    pos_ids, neg_ids = query_doc_ids(frame, corpus)
    rank = [[int(np.flatnonzero(r == corpus.row_of[d])[0]) + 1 if corpus.row_of[d] in r else 0
             for r, d in zip(rows, ids)] for ids in (pos_ids, neg_ids)]  # fmt: skip
    return rows, retrieval_summary(rank[0], rank[1], TOP_K)


def test_an_exact_run_encodes_each_corpus_text_once_then_nothing(corpus, counted, tmp_path):
    scorer, seen = counted(ScoreCache(tmp_path / "cache.sqlite"))
    told: list[EncodingPlan] = []
    reports: list[tuple[int, int, str]] = []
    first = run_corpus_eval(scorer, dataset(), corpus, top_k=TOP_K, on_plan=told.append,
                            progress=lambda d, t, s: reports.append((d, t, s)))  # fmt: skip
    unique = set(corpus.texts)
    assert len(unique) == corpus.size - 1  # the twin
    queries = EXCLUIR["query"].tolist()
    assert sorted(seen) == sorted(unique | set(queries))  # each text once, the twin's text once
    (plan,) = told
    assert (plan.route, plan.encode_corpus, plan.encode_queries, plan.exact) == ("corpus", len(unique), QUERIES, True)
    assert first.summary["encoding_plan"] == plan.describe() and first.summary["encoded_texts"] == len(seen)
    # one bar for the corpus: done only grows, up to the texts that were left (not the corpus size)
    bar = [(d, t) for d, t, s in reports if s == "encoding corpus"]
    assert {t for _, t in bar} == {len(unique)} and bar[-1][0] == len(unique)
    assert [d for d, _ in bar] == sorted(d for d, _ in bar)

    rows, expected = brute_force(scorer, corpus, QUERIES)  # every vector cached: nothing encoded
    assert len(seen) == len(unique) + QUERIES
    hits = first.scores[first.scores["slot"].str.startswith("hit:")]
    assert hits.groupby("item_id", sort=False).size().eq(TOP_K).all()
    got = [[corpus.row_of[s.split(":", 2)[2]] for s in g["slot"]] for _, g in hits.groupby("item_id", sort=False)]
    assert got == rows.tolist()
    for name in METRICS:
        assert first.summary[name] == expected[name], name

    again, seen_again = counted(ScoreCache(tmp_path / "cache.sqlite"))
    told.clear()
    second = run_corpus_eval(again, dataset(), corpus, top_k=TOP_K, on_plan=told.append)
    assert seen_again == [] and second.summary["encoded_texts"] == 0
    assert (told[0].encode_corpus, told[0].encode_queries) == (0, 0)
    assert {k: second.summary[k] for k in METRICS} == {k: first.summary[k] for k in METRICS}


def test_what_the_search_page_encoded_is_not_encoded_again(corpus, counted, tmp_path):
    """The Search page's two-stage search leaves its candidates' vectors in the same ScoreCache."""
    cache = ScoreCache(tmp_path / "cache.sqlite")
    scorer, seen = counted(cache)
    searched = corpus.texts[:50]
    scorer.embed(searched)
    seen.clear()
    reports: list[tuple[int, int, str]] = []
    DenseRetriever(scorer, corpus).build(lambda d, t, s: reports.append((d, t, s)))
    left = set(corpus.texts) - set(searched)
    assert sorted(seen) == sorted(left)
    # the bar counts what is left to encode (its rate is over real items), then the cached read
    assert {t for _, t, s in reports if s == "encoding corpus"} == {len(left)}
    assert reports[-1] == (len(searched), len(searched), "reading cached corpus vectors")


@pytest.fixture
def code_file(corpus, counted, tmp_path):
    """A code file of the tiny model over the slice (20 candidates a query), built from exact
    vectors in a cache of its own: the run under test starts from nothing."""
    scorer, _ = counted(ScoreCache(tmp_path / "codes-cache.sqlite"))
    codes = cc.build_codes(scorer.embed(corpus.texts), scorer, corpus, bits=2, candidates=20)
    return cc.read_codes(cc.save_codes(codes, tmp_path / "slice.npz"))


def test_a_limited_cheapest_run_encodes_its_candidates_not_the_corpus(corpus, counted, code_file, tmp_path):
    limit = 5
    scorer, seen = counted(ScoreCache(tmp_path / "cache.sqlite"))
    told: list[EncodingPlan] = []
    result = run_corpus_eval(scorer, dataset(limit), corpus, top_k=TOP_K, plan="cheapest", codes=code_file,
                             on_plan=told.append)  # fmt: skip
    two_stage = CodesRetriever(scorer, corpus, codes=code_file)
    candidates = np.unique(two_stage.candidates(two_stage.query_vectors(EXCLUIR["query"].head(limit).tolist()), TOP_K))
    wanted = {corpus.texts[r] for r in candidates} | set(EXCLUIR["query"].head(limit))
    assert sorted(seen) == sorted(wanted) and len(candidates) < corpus.size  # each once, no corpus pass
    (plan,) = told
    assert (plan.route, plan.candidate_texts, plan.exact) == ("candidates", len(candidates), False)
    assert result.record.options["retrieval"] == "codes" and result.record.options["candidates"] == 20
    assert "two-stage" in plan.text() and f"{len(candidates):,} candidate texts" in plan.text()


def test_a_limited_run_takes_the_candidates_by_default(corpus, counted, code_file, tmp_path):
    """The default plan (auto): 5 of ExcluIR's 1,000 queries encode their candidates, not the corpus."""
    limit = 5
    scorer, seen = counted(ScoreCache(tmp_path / "cache.sqlite"))
    told: list[EncodingPlan] = []
    result = run_corpus_eval(scorer, dataset(limit), corpus, top_k=TOP_K, codes=code_file, on_plan=told.append)
    two_stage = CodesRetriever(scorer, corpus, codes=code_file)
    candidates = np.unique(two_stage.candidates(two_stage.query_vectors(EXCLUIR["query"].head(limit).tolist()), TOP_K))
    assert sorted(seen) == sorted({corpus.texts[r] for r in candidates} | set(EXCLUIR["query"].head(limit)))
    (plan,) = told
    assert (plan.route, plan.asked, plan.queries, plan.dataset_queries) == ("candidates", "auto", limit, 1000)
    assert plan.encode_corpus == len(set(corpus.texts)) and plan.candidate_texts == len(candidates)
    assert result.summary["encoded_texts"] == len(candidates) + limit < plan.encode_corpus
    assert result.record.options["retrieval"] == "codes" and not plan.exact
    assert "ranks exact among them only" in plan.text() and "5 of 1,000; --plan exact for exact ranks" in plan.text()


def whole_file(tmp_path, queries: int) -> DatasetSpec:
    """A dataset file of ExcluIR's first ``queries`` queries: a run over it without a limit is
    over all its queries."""
    path = tmp_path / f"excluir-{queries}.parquet"
    EXCLUIR.head(queries).to_parquet(path, index=False)
    return DatasetSpec.make(str(path), "test", None, kind="exclusion")


def test_a_run_over_all_queries_stays_exact_then_a_cached_corpus_keeps_limited_runs_exact(
    corpus, counted, code_file, tmp_path
):
    """All 20 queries of a dataset: the corpus route (each text once), though the candidates
    would be fewer; a limit that the dataset does not exceed is not part of it; once the corpus is
    cached, a limited run is exact too and encodes nothing."""
    scorer, seen = counted(ScoreCache(tmp_path / "cache.sqlite"))
    told: list[EncodingPlan] = []
    full = run_corpus_eval(scorer, whole_file(tmp_path, QUERIES), corpus, top_k=TOP_K, codes=code_file,
                           on_plan=told.append)  # fmt: skip
    (plan,) = told
    unique = set(corpus.texts)
    assert (plan.route, plan.asked, plan.queries, plan.dataset_queries) == ("corpus", "auto", QUERIES, QUERIES)
    assert 0 < plan.candidate_texts < plan.encode_corpus == len(unique)  # cheaper, yet not taken
    assert sorted(seen) == sorted(unique | set(EXCLUIR["query"]))  # each text once: corpus + queries
    assert full.summary["encoded_texts"] == len(unique) + QUERIES and full.record.options["retrieval"] == "dense"
    assert "all the dataset's queries, so exact" in plan.text()

    whole, _ = plan_corpus_run(scorer, corpus, EXCLUIR["query"].tolist(), DenseRetriever(scorer, corpus), TOP_K,
                               codes=code_file, dataset_queries=QUERIES)  # fmt: skip
    assert whole.route == "corpus" and not whole.partial  # 20 queries of 20 are all of them

    seen.clear()
    told.clear()
    limited = run_corpus_eval(scorer, dataset(5), corpus, top_k=TOP_K, codes=code_file, on_plan=told.append)
    assert seen == [] and limited.summary["encoded_texts"] == 0  # the cached corpus costs nothing
    assert (told[0].route, told[0].encode_corpus, told[0].partial) == ("corpus", 0, True)
    assert limited.record.options["retrieval"] == "dense"


def test_the_exact_plan_states_what_the_candidates_would_cost(corpus, counted, code_file, tmp_path):
    scorer, seen = counted(ScoreCache(tmp_path / "cache.sqlite"))
    plan, retriever = plan_corpus_run(
        scorer, corpus, EXCLUIR["query"].head(3).tolist(), DenseRetriever(scorer, corpus), TOP_K, codes=code_file
    )
    assert isinstance(retriever, DenseRetriever) and not isinstance(retriever, CodesRetriever)
    assert plan.route == "corpus" and plan.exact and plan.encode_corpus == len(set(corpus.texts))
    assert 0 < plan.candidate_texts < plan.encode_corpus and "--plan cheapest" in plan.text()
    assert sorted(seen) == sorted(EXCLUIR["query"].head(3))  # counting the candidates encoded the queries only


def test_the_cli_says_the_plan_before_the_work_and_in_its_answer(corpus, tiny_model_dir, tmp_path, monkeypatch,
                                                                  capsys):  # fmt: skip
    from negviz.cli import main

    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    args = ["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "eval", "--model", str(tiny_model_dir("bi-encoder")),
            "--family", "bi-encoder", "--dataset", "excluir", "--limit", "5", "--corpus", corpus.source,
            "--top-k", str(TOP_K), "--json"]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    unique = len(set(corpus.texts))
    said = f"negviz: plan: exact dense search: encoding {unique:,} corpus texts not yet cached"
    assert said in captured.err
    out = json.loads(captured.out)
    assert out["encoding_plan"]["route"] == "corpus" and out["encoded_texts"] == unique + 5
    assert main([*args[:-1], "--force"]) == 0  # table output; every vector is cached now
    table = capsys.readouterr().out.splitlines()
    assert (
        table[-1] == "  plan: exact dense search: encoding 0 corpus texts not yet cached (each once, longest first) "
        "and 0 of 5 queries; 0 texts encoded"
    )


def test_a_limited_cli_run_on_a_fresh_cache_does_not_encode_the_corpus(
    corpus, counted, code_file, tiny_model_dir, tmp_path, monkeypatch, capsys
):
    """`negviz eval --limit 5 --corpus` with a code file for the (model, corpus) where the shipped
    ones lie: the default plan encodes the candidates, says so, and a second run reuses it."""
    from negviz.cli import main

    scorer, _ = counted(ScoreCache(tmp_path / "other.sqlite"))
    cc.save_codes(code_file, cc.code_path(corpus.name, scorer.name, tmp_path / "codes"))
    monkeypatch.setattr(cc, "CODES_DIR", tmp_path / "codes")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "fresh-cache"))
    args = ["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "eval", "--model", str(tiny_model_dir("bi-encoder")),
            "--family", "bi-encoder", "--dataset", "excluir", "--limit", "5", "--corpus", corpus.source,
            "--top-k", str(TOP_K)]  # fmt: skip
    assert main([*args, "--json"]) == 0
    captured = capsys.readouterr()
    assert "negviz: plan: two-stage search (shipped codes;" in captured.err
    out = json.loads(captured.out)
    unique = len(set(corpus.texts))
    assert out["encoding_plan"]["route"] == "candidates" and out["retrieval"] == "codes" and out["items_of"] == 1000
    assert out["encoded_texts"] == out["encoding_plan"]["candidate_texts"] + 5 < unique  # no corpus pass
    assert main(args) == 0  # the table: its run is stored under its own key and reused
    table = capsys.readouterr().out.splitlines()
    assert table[0].endswith("[stored run reused]") and ", n=5 of 1,000, top 10, " in table[0]
    assert table[1] == "  two-stage search by the shipped codes: ranks are exact among each query's 20 candidates " \
        "only, not over the whole corpus"  # fmt: skip
    assert table[-1].startswith("  plan: two-stage search") and "(part of the queries, 5 of 1,000;" in table[-1]


def test_an_unknown_plan_is_refused_before_any_work(corpus):
    from negviz.core.errors import NegvizError

    with pytest.raises(NegvizError, match="unknown plan 'fastest'; use one of auto, exact, cheapest"):
        run_corpus_eval("bm25", dataset(2), corpus, plan="fastest")
