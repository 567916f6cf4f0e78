"""Shards computed on a Ray cluster: each shard one Ray task that asks for what its model needs
(shards.resources: a GPU where the model runs on one and the cluster has GPUs, a CPU otherwise),
retried by Ray when its worker dies (``max_retries``), cancelled with ``ray.cancel`` on stop.
Results come back to the driver as they finish (``ray.wait``); the driver writes them (the
executor, through the store side), so a worker needs no store at all.

Ray is the scheduler: no queue, protocol or bookkeeping of negviz's own. What runs where is Ray's
dashboard and state API (``ray list tasks``): each task is named after its shard. Ray is imported
here only, inside functions, so negviz imports without it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from negviz.core.errors import NegvizError
from negviz.core.heavy import heavy_import
from negviz.evaluation.fill.shards import Shard, ShardScores, compute_shard, resources

LOCAL = "ray"  # the local Ray: RAY_ADDRESS, a cluster started on this machine, else a new one
# A worker killed mid-shard (node lost, out of memory, preempted) costs that shard one retry;
# an exception the shard raises (missing model files, another revision) is not retried: it would
# fail again the same way.
MAX_RETRIES = 3
WAIT_SECONDS = 1.0  # how often a waiting driver looks at should_stop
# The driver's offline setting holds on its workers too: a worker never reaches for the Hub when
# the driver was told not to. Other settings (cache folder, device) belong to each node.
FORWARDED_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
CLIENT = "ray://"  # a Ray Client address: the cluster's client server starts a server for each driver
# That server is forked from a busy gRPC process, and now and then dies as it starts (a gRPC fork
# race, ray-project/ray#63202, open in ray 2.60; 6 of 22 connections here beside six busy loops):
# Ray answers "Initialization failure from server", and a new connection gets a new server.
CLIENT_ATTEMPTS = 3
_connected: list[str | None] = []  # the address this process's Ray connection was made with


@dataclass(frozen=True)
class Failed:
    """A shard that failed for good: its own error (not retried), or its worker lost more than
    MAX_RETRIES times."""

    shard: Shard
    error: str


def task_name(shard: Shard) -> str:
    """What the dashboard and ``ray list tasks`` show for a shard's task."""
    dataset = shard.dataset.get("name", "?")
    split = shard.dataset.get("split")
    where = f"{dataset}:{split}" if split else dataset
    return f"shard {shard.index + 1}/{shard.count} of {shard.model.get('name', '?')} on {where}"


def connect(address: str | None) -> Any:
    """The ``ray`` module, connected to ``address`` (executor.ray_address: "ray" or None for the
    local Ray, "ray://HOST:PORT"); a connection to another cluster is closed first."""
    address = None if address == LOCAL else address
    try:
        ray = heavy_import("ray")
    except ImportError as missing:
        raise NegvizError(
            "running on Ray needs the ray package: pip install 'ray[default]' (requirements.txt)"
        ) from missing
    if ray.is_initialized() and _connected == [address]:
        return ray
    if ray.is_initialized():
        ray.shutdown()
    env = {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}
    attempts = CLIENT_ATTEMPTS if (address or "").startswith(CLIENT) else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(
                address=address,
                runtime_env={"env_vars": env} if env else None,
                log_to_driver=False,  # workers' output stays in Ray's logs: the CLI's stdout is its answer
                logging_level="WARNING",
            )
            break
        except ConnectionAbortedError as failed:  # the client server lost this driver's server
            ray.shutdown()
            if attempt == attempts:
                raise NegvizError(connection_problem(address, failed, attempts)) from failed
        except (ConnectionError, RuntimeError, ValueError) as failed:
            raise NegvizError(connection_problem(address, failed)) from failed
    _connected[:] = [address]
    return ray


def connection_problem(address: str | None, failed: BaseException, attempts: int = 1) -> str:
    """Why negviz could not join the cluster, and what to do: a cluster that asks for Ray's token
    (token authentication) is joined with RAY_AUTH_MODE=token and its token; else start one.
    A server's failure comes with its traceback: its last line says what failed."""
    where = address or "this machine"
    causes = [failed, failed.__cause__, failed.__context__]
    if any(c is not None and "AuthenticationError" in type(c).__name__ for c in causes) or "InvalidAuthToken" in str(
        failed
    ):
        return (
            f"the Ray cluster at {where} asks for its authentication token: set RAY_AUTH_MODE=token, with "
            "the cluster's token in RAY_AUTH_TOKEN or ~/.ray/auth_token (`ray get-auth-token` on the head "
            "prints it), then run this again"
        )
    lines = [line.strip() for line in str(failed).splitlines() if line.strip()] or [type(failed).__name__]
    tried = f" ({attempts} attempts)" if attempts > 1 else ""
    if isinstance(failed, ConnectionAbortedError):  # the cluster answered: its server failed
        reason = lines[0] if len(lines) == 1 else f"{lines[0]} {lines[-1]}"
        return (
            f"cannot connect to the Ray cluster at {where}{tried}: {reason}; the head node's Ray logs "
            "(session_latest/logs under its Ray temp folder, /tmp/ray by default) say why, then run this again"
        )
    return (
        f"cannot connect to the Ray cluster at {where}{tried}: {lines[0]}; start one with `ray start --head` "
        "(README, Running on a Ray cluster)"
    )


def has_gpus(ray) -> bool:
    return ray.cluster_resources().get("GPU", 0) >= 1


def computed(
    shards: Sequence[Shard],
    *,
    address: str | None,
    should_stop: Callable[[], bool] = lambda: False,
    device: str | None = None,
    cache_dir: str | None = None,
) -> Iterator[ShardScores | Failed]:
    """Each shard's scores, computed by a Ray task on the cluster at ``address``, yielded as each
    task finishes (in any order); a shard that fails for good is yielded as Failed and the other
    shards of its spec are cancelled (its run cannot be whole). When ``should_stop()`` turns true,
    or the caller stops reading, the tasks not finished are cancelled (their workers ended) and
    nothing more is yielded."""
    if not shards:
        return
    ray = connect(address)
    gpu = has_gpus(ray)
    task = ray.remote(compute_shard)
    pending: dict[Any, Shard] = {}
    for shard in shards:
        options = {"name": task_name(shard), "max_retries": MAX_RETRIES, "retry_exceptions": False}
        ref = task.options(**options, **resources(shard, gpu=gpu)).remote(shard, device, cache_dir)
        pending[ref] = shard
    try:
        while pending:
            if should_stop():
                return
            done, _ = ray.wait(list(pending), num_returns=1, timeout=WAIT_SECONDS)
            for ref in done:
                shard = pending.pop(ref)
                outcome = _outcome(ray, ref, shard)
                if isinstance(outcome, Failed):
                    for other in [r for r, s in pending.items() if s.key == shard.key]:
                        ray.cancel(other, force=True)
                        del pending[other]
                yield outcome
    finally:
        for ref in pending:  # stopped, or the caller went away: nothing left running
            ray.cancel(ref, force=True)


def _outcome(ray, ref, shard: Shard) -> ShardScores | Failed:
    try:
        return ray.get(ref)
    except NegvizError as failed:  # raised by the shard itself (Ray's error is also a NegvizError)
        return Failed(shard, _cause(failed))
    except ray.exceptions.RayError as failed:
        return Failed(
            shard,
            f"its Ray task failed ({_cause(failed)}); see `ray list tasks` or Ray's dashboard for its log",
        )


def _cause(failed: Exception) -> str:
    """The shard's own message, not Ray's traceback around it."""
    cause = getattr(failed, "cause", None)
    lines = str(cause if cause is not None else failed).strip().splitlines()
    return lines[-1] if lines else type(failed).__name__
