"""A real local Ray cluster for the tests: a head node and one more worker node, 1 CPU each, on
this machine, each a ``ray start --block`` child of the test session, started once per module that
asks and stopped at its end by the process ids the session started (never ``ray stop``, which
stops every Ray on the machine, another session's too).

Two CPUs in all, as many as the 2-core machines the suite runs on: each task's worker process
imports torch and loads its model once (a job's workers are reused for its next tasks), and a
third CPU only added a third cold worker per job (imports and a model load) and three
single-thread tasks sharing two cores.

Its workers import negviz from this checkout (PYTHONPATH), stay offline (HF_HUB_OFFLINE=1) and keep
a score cache of their own (``cluster.cache_dir``): what the cluster computes is computed there,
not read from the cache of an in-process run of the same test. Ray keeps its sockets under a short
temporary folder (a unix socket path holds about 107 bytes; pytest's own folders are too deep).

Use from a test module:  from tests.support.ray_cluster import ray_cluster  # noqa: F401
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")
STARTED = "Ray runtime started."  # what `ray start` prints once its node runs
START_SECONDS = 180  # a node joins in ~10-30 s on this loaded 2-core machine
# Starting both nodes again once: `ray start` gives a node 30 s to register with the GCS (fixed in
# ray._private.node), and at the suite's busiest minute (every worker starting a server, Chromium
# or Ray) it once did not ("The current node timed out during startup"): all five tests of the
# Ray file errored. Alone, and in a rerun of the same files, it started.
START_ATTEMPTS = 2


@dataclass
class Cluster:
    address: str  # HOST:PORT of the head's GCS: what RAY_ADDRESS (and so `--on ray`) takes
    client: str  # ray://HOST:PORT, its Ray Client server: what `--on ray://...` takes
    cache_dir: Path  # the workers' negviz cache (their score cache)
    temp_dir: Path  # Ray's session folders, sockets and logs

    def logs(self) -> str:
        """For a failing test's message: the tail of each node's `ray start` output, and of the Ray
        Client server's log (which says why a `ray://` driver was refused)."""
        logs = [
            *sorted(self.temp_dir.glob("node-*.log")),
            *self.temp_dir.glob("session_latest/logs/ray_client_server.err"),
        ]
        return "\n".join(f"{p.name}: {p.read_text(errors='replace')[-2000:]}" for p in logs)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_started(process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if STARTED in log.read_text():
            return
        if process.poll() is not None:
            raise RuntimeError(f"ray start exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        time.sleep(0.5)
    raise RuntimeError(f"ray start did not start in {START_SECONDS} s:\n{log.read_text()[-3000:]}")


def _node_ports() -> list[str]:
    """Free ports for what a node would otherwise bind at a fixed default (52365, 10001, ...): two
    nodes on one machine, and another session's cluster, never collide."""
    return [
        f"--dashboard-agent-listen-port={_free_port()}",
        f"--dashboard-agent-grpc-port={_free_port()}",
        f"--runtime-env-agent-port={_free_port()}",
        f"--metrics-export-port={_free_port()}",
    ]


def _start_node(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("w") as out:  # the child keeps its own descriptor
        process = subprocess.Popen(
            [str(RAY), "start", "--block", "--disable-usage-stats", *_node_ports(), *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the node's daemons, stopped together
        )
    return process


def _stop(process: subprocess.Popen) -> None:
    """`ray start --block` stops its node's processes on SIGTERM; the group is killed after that
    (a daemon that outlived it), all of them processes this session started."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        pass


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Cluster]:
    """A running two-node local Ray cluster (2 CPUs, one on each node, the state API on); the test process is not
    connected to it (the code under test connects, through its address)."""
    pytest.importorskip("ray", reason="ray is not installed (requirements.txt)")
    for attempt in range(1, START_ATTEMPTS + 1):
        stack = ExitStack()
        try:
            cluster = stack.enter_context(local_cluster())
        except RuntimeError as failed:  # a node that did not start (its log is in the message)
            stack.close()
            if attempt == START_ATTEMPTS:
                raise
            warnings.warn(f"Ray cluster start {attempt} of {START_ATTEMPTS} failed, starting again: {failed}")
            continue
        with stack:
            yield cluster
        return


@contextmanager
def local_cluster(head_cpus: int = 1, worker_cpus: int = 1) -> Iterator[Cluster]:
    """A head node with ``head_cpus`` and, unless ``worker_cpus`` is 0, a second node with
    ``worker_cpus``, both on this machine; stopped on exit."""
    temp_dir = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))
    cache_dir = temp_dir / "negviz-cache"
    # Without RAY_AUTH_MODE, `ray start --head` turns token authentication on whenever
    # ~/.ray/auth_token exists (a local `ray.init()` on this machine writes one), and the worker
    # node's `ray start --address` was refused ("InvalidAuthToken"): every test of the module
    # errored. Off, for the nodes and, while the cluster runs, for this process and the drivers and
    # jobs it starts (they copy its environment).
    auth = {"RAY_AUTH_MODE": "disabled"}
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "HF_HUB_OFFLINE": "1",
        "NEGVIZ_CACHE_DIR": str(cache_dir),
        "RAY_USAGE_STATS_ENABLED": "0",
        # Ray starts its workers 15 nicer than the raylet, which is right on a node of their own; on
        # this shared machine they would wait behind every other process (the suite's other pytest
        # worker, a benchmark's in-process side): here they run at the caller's priority.
        "RAY_worker_niceness": "0",
        **auth,
    }
    saved = {name: os.environ.get(name) for name in auth}
    os.environ.update(auth)
    port, dashboard, client = _free_port(), _free_port(), _free_port()
    address = f"127.0.0.1:{port}"
    nodes: list[subprocess.Popen] = []
    try:
        head_log = temp_dir / "node-head.log"
        nodes.append(
            _start_node(
                [
                    "--head",
                    f"--temp-dir={temp_dir}",
                    f"--port={port}",
                    "--node-ip-address=127.0.0.1",
                    f"--num-cpus={head_cpus}",
                    "--num-gpus=0",
                    "--include-dashboard=true",  # the state API (list_tasks, list_workers) is served there
                    "--dashboard-host=127.0.0.1",
                    f"--dashboard-port={dashboard}",
                    f"--ray-client-server-port={client}",
                ],
                env,
                head_log,
            )
        )
        _wait_started(nodes[0], head_log)
        if worker_cpus:
            worker_log = temp_dir / "node-worker.log"
            nodes.append(
                _start_node(
                    [
                        f"--address={address}",
                        "--node-ip-address=127.0.0.1",
                        f"--num-cpus={worker_cpus}",
                        "--num-gpus=0",
                    ],
                    env,
                    worker_log,
                )
            )
            _wait_started(nodes[1], worker_log)
        yield Cluster(address=address, client=f"ray://127.0.0.1:{client}", cache_dir=cache_dir, temp_dir=temp_dir)
    finally:
        _disconnect()
        for process in reversed(nodes):
            _stop(process)
        shutil.rmtree(temp_dir, ignore_errors=True)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _disconnect() -> None:
    """The test process's own connection (made by the code under test), closed before the nodes
    stop, so it does not wait on a head that is gone."""
    if "ray" in sys.modules:
        import ray

        if ray.is_initialized():
            ray.shutdown()
