"""The endpoint back end against a real local HTTP server that misbehaves (tests/support/llm_server.py's
modes), through the real path (negviz.evaluation.runner.run_eval, a SQLite store, the score cache): an
answer that is not a chat completion stops the run with one line that names the server and says
what to do; nothing is stored, no placeholder score reaches the cache, and the API key (from the
environment, echoed back by the server, or written into base_url) is in no message, log line,
store or cache. A hanging server fails after the bound its message states (timeout x attempts)."""

from __future__ import annotations

import logging
import secrets
import sqlite3
from pathlib import Path

import pytest

from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec
from negviz.evaluation.runner import run_eval
from negviz.scorers.llm.endpoint import RESPONSES_NS, EndpointError
from negviz.store import Store
from tests.support.llm_server import TinyChatServer

KEY_ENV = "NEGVIZ_TEST_HARDENING_KEY"
DATASET = DatasetSpec.make("nevir", limit=2)  # 2 items, 8 (query, document) pairs


@pytest.fixture
def key(monkeypatch) -> str:
    value = "sk-test-" + secrets.token_hex(12)
    monkeypatch.setenv(KEY_ENV, value)
    return value


@pytest.fixture
def server(key):
    with TinyChatServer(key=key) as running:  # canned answers: no model needed
        yield running


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path}/s.sqlite") as opened:
        yield opened


@pytest.fixture
def cache(tmp_path):
    opened = ScoreCache(tmp_path / "scores.sqlite")
    yield opened
    opened.close()


def spec(base_url: str, **extra) -> str:
    options = ",".join(f"{k}={v}" for k, v in extra.items())
    return (
        f"m[family=llm-pointwise,backend=endpoint,base_url={base_url},api_key_env={KEY_ENV}"
        + (f",{options}" if options else "")
        + "]"
    )


def host_port(server: TinyChatServer) -> str:
    return f"127.0.0.1:{server.httpd.server_address[1]}"


def fails(server, store, cache, caplog, **extra) -> str:
    """The message of the error the run stops with (one line), once the run has stored nothing."""
    caplog.set_level(logging.DEBUG)
    with pytest.raises(EndpointError) as err:
        run_eval(spec(server.base_url, **extra), DATASET, store=store, cache=cache)
    message = str(err.value)
    assert "\n" not in message and host_port(server) in message
    assert store.runs(kind="eval").empty, "a run was stored from answers that are not results"
    assert stored_scores(cache) == 0, "a score from an invalid answer reached the score cache"
    return message


def stored_scores(cache: ScoreCache) -> int:
    with sqlite3.connect(cache.path) as conn:
        return conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0]


def cached_answers(cache: ScoreCache) -> list[str]:
    with sqlite3.connect(cache.path) as conn:
        return [row[0] for row in conn.execute("SELECT text FROM texts WHERE ns = ?", (RESPONSES_NS,))]


def everywhere(tmp_path: Path, message: str, caplog, capsys) -> dict[str, bytes]:
    """Every place a secret must not reach: the message, log lines, printed output, and every byte
    of the store's and the score cache's files (WAL files included)."""
    files = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    logs = "\n".join(r.getMessage() for r in caplog.records) + "".join(capsys.readouterr())
    return {"message": message.encode(), "logs": logs.encode(), "store and cache files": files}


def assert_nowhere(secret: str, places: dict[str, bytes]) -> None:
    for place, data in places.items():
        assert secret.encode() not in data, f"the secret leaked into the {place}"


def test_a_200_error_answer_stores_no_run_and_the_next_run_asks_again(
    server, key, store, cache, caplog, capsys, tmp_path
):
    server.mode = "error"
    message = fails(server, store, cache, caplog, concurrency=1)
    assert "does not exist" in message and "no run was stored" in message and "api_model" in message
    assert server.requests == 1  # the first error stops the run: the other 7 requests are not sent
    assert not any("error" in answer for answer in cached_answers(cache))
    assert_nowhere(key, everywhere(tmp_path, message, caplog, capsys))

    server.mode = "ok"  # the server is fixed: the next run is computed, not an error run reused
    run = run_eval(spec(server.base_url), DATASET, store=store, cache=cache)
    assert not run.reused and server.requests == 1 + 8
    assert run.scores["score"].round(4).eq(-0.2231).all()  # log P(yes) = log 0.8, no placeholder


def test_good_answers_before_an_error_are_kept_and_only_the_rest_asked_again(server, store, cache, caplog):
    server.mode, server.good_first = "error", 3
    fails(server, store, cache, caplog, concurrency=1)
    assert server.requests == 4 and len(cached_answers(cache)) == 3  # the three good answers only
    server.mode = "ok"
    run_eval(spec(server.base_url), DATASET, store=store, cache=cache)
    assert server.requests == 4 + 5
    assert len(store.runs(kind="eval")) == 1


def test_an_error_answer_cached_by_an_older_version_is_asked_again(server, store, cache, tmp_path):
    first = run_eval(spec(server.base_url), DATASET, cache=cache)
    with sqlite3.connect(cache.path) as conn:  # what the old client cached from a 200 + {"error": ...}
        conn.execute("DELETE FROM scores")
        conn.execute("UPDATE texts SET text = ? WHERE ns = ?", ('{"error": {"message": "overloaded"}}', RESPONSES_NS))
    again = run_eval(spec(server.base_url), DATASET, store=store, cache=cache)
    assert server.requests == 16 and list(again.scores["score"]) == list(first.scores["score"])


def test_a_json_list_answer_says_what_the_server_sent(server, key, store, cache, caplog, capsys, tmp_path):
    server.mode = "list"
    message = fails(server, store, cache, caplog)
    assert "a JSON list" in message and "base_url" in message
    assert_nowhere(key, everywhere(tmp_path, message, caplog, capsys))


def test_usage_as_a_string_is_not_an_answer(server, key, store, cache, caplog, capsys, tmp_path):
    server.mode = "usage-string"
    message = fails(server, store, cache, caplog)
    assert "usage as a string" in message and "base_url" in message
    assert cached_answers(cache) == []
    assert_nowhere(key, everywhere(tmp_path, message, caplog, capsys))


def test_a_body_that_is_not_json_names_the_server(server, key, store, cache, caplog, capsys, tmp_path):
    server.mode = "not-json"
    message = fails(server, store, cache, caplog)
    assert "not JSON" in message and "Welcome to nginx" in message and "/v1" in message
    assert "Expecting value" not in message
    assert_nowhere(key, everywhere(tmp_path, message, caplog, capsys))


def test_an_answer_without_logprobs_gives_no_placeholder_scores(server, store, cache, caplog):
    server.mode = "no-logprobs"
    message = fails(server, store, cache, caplog)
    assert "log-probabilities" in message and "llm-listwise" in message


def test_reasoning_that_never_reaches_a_verdict_gives_no_placeholder_scores(server, store, cache, caplog):
    server.mode = "no-verdict"
    message = fails(server, store, cache, caplog, template="rank1", max_reasoning_tokens=4)
    assert message.startswith("8 of 8 answers") and "max_reasoning_tokens" in message


def test_a_500_echoing_the_authorization_header_never_shows_the_key(
    server, key, store, cache, caplog, capsys, tmp_path
):
    server.mode = "echo-auth-500"
    message = fails(server, store, cache, caplog, retries=0)
    assert "HTTP 500" in message and "Bearer [redacted]" in message
    assert any(key in line for line in server.log)  # the server did see it, and sent it back
    assert_nowhere(key, everywhere(tmp_path, message, caplog, capsys))


def test_a_key_in_base_url_user_info_is_refused_and_never_shown(server, store, cache, caplog, capsys, tmp_path):
    caplog.set_level(logging.DEBUG)
    secret = "sk-userinfo-" + secrets.token_hex(8)
    url = server.base_url.replace("http://", f"http://alice:{secret}@")
    with pytest.raises(NegvizError) as err:
        run_eval(spec(url), DATASET, store=store, cache=cache)
    message = str(err.value)
    assert host_port(server) in message and KEY_ENV in message and "\n" not in message
    assert "alice" not in message and server.requests == 0 and store.runs(kind="eval").empty
    assert_nowhere(secret, everywhere(tmp_path, message, caplog, capsys))


def test_a_hanging_server_fails_after_the_bound_its_message_states(server, store, cache, caplog):
    server.mode = "hang"
    message = fails(server, store, cache, caplog, timeout=1, retries=1)  # the least the options allow
    assert "gave no answer within 1 s (2 of 2 attempts timed out)" in message
    assert "timeout x attempts = 1 s x 2 = 2 s" in message and "timeout=1, retries=1" in message
    assert server.hung <= 4 * 2  # concurrency 4, two attempts each; the other four were never sent


def test_a_server_that_sends_a_byte_at_a_time_fails_after_the_same_bound(server, store, cache, caplog):
    """No socket read waits a whole second (a byte every quarter second), so only a limit on the
    whole exchange ends an attempt; a per-read timeout let the drip run until the server gave up
    (and then said "cannot reach")."""
    server.mode = "drip"
    message = fails(server, store, cache, caplog, timeout=1, retries=1)
    assert "gave no answer within 1 s (2 of 2 attempts timed out)" in message
    assert "timeout x attempts = 1 s x 2 = 2 s" in message


def test_an_answer_larger_than_any_completion_is_refused_after_its_limit(server, store, cache, caplog, monkeypatch):
    """The body was read whole, however large (only its time is bounded by the timeout)."""
    from negviz.scorers.llm import endpoint

    monkeypatch.setattr(endpoint, "MAX_ANSWER_BYTES", 1 << 20)  # the server pads its answers with 3 MiB
    server.mode = "huge"
    message = fails(server, store, cache, caplog, retries=0)
    assert "answered more than 1,048,576 bytes, which no chat completion needs" in message


@pytest.mark.parametrize("options", [{"timeout": 0.5}, {"retries": -1}, {"retries": 11}, {"timeout": 7200}])
def test_timeout_and_retries_are_checked_against_their_ranges(options):
    from negviz.core.errors import OptionError

    name = next(iter(options))
    with pytest.raises(OptionError, match=f"option {name}"):
        run_eval(spec("http://127.0.0.1:9/v1", **options), DATASET)
