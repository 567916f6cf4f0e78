"""negviz.evaluation.fill.on_ray without a cluster: what a shard's task is called, and no Ray
connection for no work. The shards run on a real local Ray cluster in
tests/concurrency/test_fill_on_ray.py."""

import pytest

from negviz.evaluation.fill import on_ray
from negviz.evaluation.fill.shards import Shard


def _shard(index: int, count: int, split: str | None = "test") -> Shard:
    model = {"name": "all-MiniLM-L6-v2", "family": "bi-encoder", "revision": None, "options": {}}
    dataset = {"name": "nevir", "split": split, "limit": None, "options": {}}
    return Shard("k", model, dataset, {"tie_rule": "strict", "checked_only": False}, index, count, 0, 10)


def test_a_task_is_named_after_its_shard():
    """What Ray's dashboard and `ray list tasks` show: which shard of which cell, counted from 1."""
    assert on_ray.task_name(_shard(1, 4)) == "shard 2/4 of all-MiniLM-L6-v2 on nevir:test"
    assert on_ray.task_name(_shard(0, 1, split=None)) == "shard 1/1 of all-MiniLM-L6-v2 on nevir"


def test_no_shards_need_no_cluster():
    """A plan with nothing left to compute connects to nothing: an address that would fail is never tried."""
    assert list(on_ray.computed([], address="ray://127.0.0.1:1")) == []


def test_a_cluster_that_asks_for_a_token_is_named_with_what_to_set():
    """Ray's own error when a driver joins a token-authenticated cluster without the token (an
    explicit address never turns token auth on by itself): negviz says which variables to set."""
    from ray.exceptions import AuthenticationError

    try:
        try:
            raise AuthenticationError("RPC error: InvalidAuthToken: Authentication token is missing")
        except AuthenticationError as cause:
            raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.5:6379") from cause
    except ConnectionError as failed:
        text = on_ray.connection_problem("10.0.0.5:6379", failed)
    assert "asks for its authentication token: set RAY_AUTH_MODE=token" in text and "10.0.0.5:6379" in text
    plain = on_ray.connection_problem(None, ConnectionError("Failed to connect\nlong trace"))
    assert plain == (
        "cannot connect to the Ray cluster at this machine: Failed to connect; start one with "
        "`ray start --head` (README, Running on a Ray cluster)"
    )


# What ray 2.60 raises when the Ray Client server's forked server for this driver died as it started
# (ray-project/ray#63202): the server's traceback follows the first line.
LOST_SERVER = (
    "Initialization failure from server:\nTraceback (most recent call last):\n"
    '  File ".../ray/util/client/server/proxier.py", line 772, in Datapath\n    raise RuntimeError(\n'
    "RuntimeError: Starting Ray client server failed. See ray_client_server_23000.err for detailed logs.\n"
)


def _ray_whose_init_fails(monkeypatch, failures: int) -> list[str]:
    """ray.init fails as Ray Client does when its server is lost, ``failures`` times, then returns;
    what was called, in order."""
    import ray

    calls: list[str] = []

    def init(**kwargs):
        calls.append(f"init {kwargs['address']}")
        if calls.count(f"init {kwargs['address']}") <= failures:
            raise ConnectionAbortedError(LOST_SERVER)

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(on_ray, "_connected", [])
    return calls


def test_a_ray_client_server_lost_at_start_is_connected_to_again(monkeypatch):
    """A Ray Client connection whose server died as it started is made again, after closing the
    failed one; the second one connects."""
    calls = _ray_whose_init_fails(monkeypatch, failures=1)
    on_ray.connect("ray://10.0.0.5:10001")
    assert calls == ["init ray://10.0.0.5:10001", "shutdown", "init ray://10.0.0.5:10001"]
    assert on_ray._connected == ["ray://10.0.0.5:10001"]


def test_a_ray_client_server_lost_every_time_says_what_the_server_said(monkeypatch):
    """After CLIENT_ATTEMPTS lost servers: one message with the server's own last line and where its
    logs are, not Ray's bare first line; nothing is recorded as connected."""
    from negviz.core.errors import NegvizError

    calls = _ray_whose_init_fails(monkeypatch, failures=on_ray.CLIENT_ATTEMPTS)
    with pytest.raises(NegvizError) as error:
        on_ray.connect("ray://10.0.0.5:10001")
    assert calls.count("init ray://10.0.0.5:10001") == on_ray.CLIENT_ATTEMPTS == 3
    assert str(error.value) == (
        "cannot connect to the Ray cluster at ray://10.0.0.5:10001 (3 attempts): Initialization failure from "
        "server: RuntimeError: Starting Ray client server failed. See ray_client_server_23000.err for detailed "
        "logs.; the head node's Ray logs (session_latest/logs under its Ray temp folder, /tmp/ray by default) "
        "say why, then run this again"
    )
    assert on_ray._connected == []
