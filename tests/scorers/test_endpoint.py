"""The endpoint back end against a real local HTTP server (tests/support/llm_server.py) serving a real
tiny causal LM: scores come back, a second run sends no request (score cache, then the response
cache alone), the API key never reaches the store, the cache, a run file or a log line; budget,
dry run, retries and a refused key behave as documented."""

from __future__ import annotations

import logging
import secrets
import sqlite3
from pathlib import Path

import pytest

from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.runner import run_eval
from negviz.scorers.llm.endpoint import BudgetReached, DryRun, EndpointError
from tests.support.llm_server import TinyChatServer

KEY_ENV = "NEGVIZ_TEST_LLM_KEY"
DATASET = DatasetSpec.make("nevir", limit=2)  # 2 items, 8 (query, document) pairs


@pytest.fixture(scope="module")
def tiny_lm(tiny_model_dir):
    return tiny_model_dir("llm-pointwise")


@pytest.fixture
def key(monkeypatch) -> str:
    value = "sk-test-" + secrets.token_hex(12)
    monkeypatch.setenv(KEY_ENV, value)
    return value


@pytest.fixture
def server(tiny_lm, key):
    with TinyChatServer(tiny_lm, key=key) as running:
        yield running


def spec(server, **extra) -> ModelSpec:
    return ModelSpec.make(
        "tiny-chat",
        "llm-pointwise",
        backend="endpoint",
        base_url=server.base_url,
        api_model="tiny",
        api_key_env=KEY_ENV,
        **extra,
    )


def test_scores_then_a_second_run_sends_nothing_and_the_key_is_nowhere(server, key, store, tmp_path, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    cache = ScoreCache(tmp_path / "scores.sqlite")
    first = run_eval(spec(server), DATASET, store=store, cache=cache)
    assert server.requests == 8 and first.scores["score"].notna().all()
    usage = first.record.summary["generation"]["endpoint"]
    assert usage["requests"] == 8 and usage["cache_hits"] == 0 and usage["tokens_in"] > 0
    assert usage["tokens_out"] == 8 and usage["wall_seconds"] > 0

    again = run_eval(spec(server), DATASET, store=store, cache=cache, force=True)
    assert server.requests == 8  # the score cache answered
    assert again.record.summary["generation"]["pairs_from_score_cache"] == 8
    with sqlite3.connect(cache.path) as conn:  # without scores, the cached responses answer
        conn.execute("DELETE FROM scores")
    third = run_eval(spec(server), DATASET, store=store, cache=cache, force=True)
    assert server.requests == 8 and third.record.summary["generation"]["endpoint"]["cache_hit_rate"] == 1.0
    assert list(third.scores["score"]) == list(first.scores["score"])

    exported = store.export_run(third.record.run_id, tmp_path / "run.parquet")
    runs = store.runs(kind="eval")
    places = {
        "cache": cache.path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("scores.sqlite-*")),
        "run file": exported.read_bytes(),
        "store": (runs.to_json() + str(store.get_run(third.record.run_id).to_dict())).encode(),
        "logs": ("\n".join(r.getMessage() for r in caplog.records) + "".join(capsys.readouterr())).encode(),
    }
    if store.dialect == "sqlite":  # every byte of the database file, not only what the API returns
        places["store"] += Path(store.engine.url.database).read_bytes()
    assert any(key in line for line in server.log)  # the server did see it (in the header)
    for place, data in places.items():
        assert key.encode() not in data, f"the API key leaked into the {place}"
    cache.close()


def test_a_refused_key_says_which_variable_to_set(server, monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, "wrong")
    with pytest.raises(EndpointError, match=KEY_ENV) as err:
        run_eval(spec(server), DATASET, cache=ScoreCache(tmp_path / "c.sqlite"))
    assert "wrong" not in str(err.value)


def test_budget_stops_before_n_calls_and_a_rerun_goes_on(server, tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    with pytest.raises(BudgetReached, match="max_calls"):
        run_eval(spec(server, max_calls=3, concurrency=2), DATASET, cache=cache)
    assert server.requests == 3
    run_eval(spec(server, max_calls=100), DATASET, cache=cache)
    assert server.requests == 8  # the three answered ones came from the cache


def test_dry_run_counts_the_requests_without_sending_one(server, tmp_path):
    with pytest.raises(DryRun, match="would send 8 requests"):
        run_eval(spec(server, dry_run=True), DATASET, cache=ScoreCache(tmp_path / "c.sqlite"))
    assert server.requests == 0


def test_a_busy_server_is_retried(server, tmp_path):
    server.fail_next = 2
    result = run_eval(spec(server, concurrency=1), DATASET, cache=ScoreCache(tmp_path / "c.sqlite"))
    assert server.requests == 8 and server.fail_next == 0 and len(result.scores) == 8


def test_listwise_asks_once_per_query_and_keeps_each_answer(server, tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    listwise = ModelSpec.make(
        "tiny-chat", "llm-listwise", backend="endpoint", base_url=server.base_url, api_model="tiny", api_key_env=KEY_ENV
    )
    first = run_eval(listwise, DATASET, cache=cache)
    assert server.requests == 4  # 2 NevIR items: 4 queries, each ranking its two documents at once
    assert first.record.summary["generation"]["endpoint"]["requests"] == 4
    run_eval(listwise, DATASET, cache=cache, force=True)
    assert server.requests == 4


def test_listwise_reranks_bm25s_top_k_over_a_corpus(server, tmp_path):
    """ExcluIR over a corpus: BM25's top 5 of each query re-ranked by RankGPT through the real
    server, one request per query (one window), stored as a retrieval run with the endpoint's
    figures; a second run is answered from the response cache."""
    import pandas as pd

    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.evaluate import run_corpus_eval
    from negviz.store import Store

    ds = DatasetSpec.make("excluir", limit=3)
    from negviz.datasets import load

    frame = load(ds).frame  # the corpus: the three queries' six documents, ids as the dataset names them
    # Each cut to its first 100 characters: the test server recomputes the whole prompt for every
    # generated token (no KV cache), and five full paragraphs in a byte-level tiny vocabulary made
    # one answer take minutes on a loaded machine (then the client's timeout and retries piled up).
    docs = pd.DataFrame(
        {
            "doc_id": pd.concat([frame["pos_corpus_index"], frame["neg_corpus_index"]]).astype(str),
            "text": pd.concat([frame["pos_doc"], frame["neg_doc"]]).str[:100],
        }
    ).drop_duplicates("doc_id")
    path = tmp_path / "corpus.csv"
    docs.to_csv(path, index=False)
    corpus = load_corpus(str(path))
    # A loaded machine can keep the test server past the default timeout; a retry would count twice.
    listwise = ModelSpec.make(
        "tiny-chat",
        "llm-listwise",
        backend="endpoint",
        base_url=server.base_url,
        api_model="tiny",
        api_key_env=KEY_ENV,
        timeout=1800,
    )
    store = Store(f"sqlite:///{tmp_path}/s.sqlite")
    cache = ScoreCache(tmp_path / "c.sqlite")
    first = run_corpus_eval(listwise, ds, corpus, top_k=5, store=store, cache=cache)
    assert server.requests == 3 and first.record.options["retrieval"] == "rerank"
    assert first.record.summary["generation"]["endpoint"]["requests"] == 3
    assert first.record.summary["generation"]["pairs"] == 3 * 5  # every candidate ranked, none from the pair cache
    run_corpus_eval(listwise, ds, corpus, top_k=5, store=store, cache=cache, force=True)
    assert server.requests == 3  # every response came from the cache
