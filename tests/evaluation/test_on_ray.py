"""negviz.evaluation.fill.on_ray without a cluster: what a shard's task is called, and no Ray
connection for no work. The shards run on a real local Ray cluster in
tests/concurrency/test_fill_on_ray.py."""

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
