"""Fill plans on a real local Ray cluster (tests/support/ray_cluster.py: a head and a worker node on
this machine, started once for the module): the numbers of a local run, a worker killed mid-shard,
a driver killed mid-plan, two drivers at once; SQLite for a local Ray (the killed driver),
PostgreSQL for a cluster (the store every driver of a team shares: the two drivers). What ran where
is asked of Ray's state API.

The store side of a killed driver and of two drivers at once runs on both backends in
tests/evaluation/test_commit.py and test_executor.py (fast, no Ray); here each Ray case runs on the
backend it stands for, once: a second backend only repeated the same Ray path (~100 s a case)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from negviz.core.paths import DATA_DIR
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill import on_ray
from negviz.evaluation.fill.executor import run_plan
from negviz.evaluation.fill.planning import make_plan
from negviz.store import Store
from negviz.store.portable import read_scores
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)
from tests.support.ray_cluster import ROOT, ray_cluster  # noqa: F401  (fixture)

MODEL = "all-MiniLM-L6-v2"
CELL = f"of {MODEL} on nevir:test"  # the end of each of its tasks' names (on_ray.task_name)
SHIPPED = DATA_DIR / "runs" / f"nevir__{MODEL}.parquet"  # the local run of the spec, shipped
# A shard's texts are batched (padded) with other texts than in a whole run, so a score may move in
# float32's last bits (measured: at most 3.8e-7 against the shipped run); no verdict moves.
FLOAT32_BITS = 1e-6
SECONDS = 900  # what a test waits at most for a plan on this loaded machine; never a measurement

# A driver in a process of its own, killed or run twice at once by the tests.
DRIVER = """
import sys
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill.executor import run_plan
from negviz.evaluation.fill.planning import make_plan
from negviz.store import Store

url, limit, shards, cache = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with Store(url) as store:
    plan = make_plan(store, [("all-MiniLM-L6-v2", DatasetSpec.make("nevir", limit=limit), "NevIR")], shards=shards)
    print(run_plan(plan, store, on="ray", cache_dir=cache).text(), flush=True)
"""


@pytest.fixture
def on_cluster(ray_cluster, monkeypatch):  # noqa: F811
    """`--on ray` here means this cluster (ray.init reads RAY_ADDRESS), in this process and its children."""
    monkeypatch.setenv("RAY_ADDRESS", ray_cluster.address)
    return ray_cluster


def _plan(store, limit: int | None, shards: int):
    return make_plan(store, [(MODEL, DatasetSpec.make("nevir", limit=limit), "NevIR")], shards=shards)


def _assert_the_local_scores(stored, n: int) -> None:
    """Every (pair, slot) once, each the local run's score."""
    assert len(stored) == 4 * n and not stored.duplicated(["item_id", "slot"]).any()
    both = stored.merge(read_scores(SHIPPED), on=["item_id", "slot"], suffixes=("", "_local"), validate="one_to_one")
    assert len(both) == 4 * n
    np.testing.assert_allclose(both["score"], both["score_local"], rtol=0, atol=FLOAT32_BITS)


def _tasks(**equal):
    """This cluster's tasks (Ray's state API), of the cell's shards, filtered on equal fields."""
    from ray.util.state import list_tasks

    found = list_tasks(filters=[(k, "=", v) for k, v in equal.items()], limit=10_000, raise_on_missing_output=False)
    return [t for t in found if (t.name or "").endswith(CELL)]


def _settled(read, done, seconds: float = 60):
    """``read()`` once ``done`` says it is what the test waits for, else its last value after
    ``seconds``: Ray's state API hears of task events asynchronously, so a task that has just
    finished may show as running for a moment."""
    deadline = time.monotonic() + seconds
    value = read()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(1)
        value = read()
    return value


def _driver(store_url: str, limit: int, shards: int, cache: Path) -> subprocess.Popen:  # noqa: F811
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, store_url, str(limit), str(shards), str(cache)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_until(check, what: str):
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    pytest.fail(f"waited {SECONDS} s for {what}")


def test_four_shards_on_ray_give_the_local_run(on_cluster, tmp_path):
    """MiniLM on all of NevIR in 4 Ray tasks: the local run's 98/1,383, score for score."""
    with Store(str(tmp_path / "results.sqlite")) as results:
        plan = _plan(results, None, 4)
        report = run_plan(plan, results, on="ray")
        assert not report.failed and not report.cancelled, report.text()
        (run,) = [c.record for c in report.stored]
        assert run.n == 1383 and round(run.summary["paired_accuracy"] * run.n) == 98
        _assert_the_local_scores(results.scores(run.run_id), 1383)
        assert results.kept_shards(run.spec_key, 4) == []  # the shards' rows go once the run is in
    job = on_ray.connect("ray").get_runtime_context().get_job_id()
    want = {f"shard {i}/4 {CELL}" for i in (1, 2, 3, 4)}
    names = _settled(
        lambda: {t.name for t in _tasks(job_id=job, state="FINISHED") if t.name.endswith(f"/4 {CELL}")}, want.__eq__
    )
    assert names == want  # each shard a Ray task of its own


def test_a_worker_killed_mid_shard_is_retried_and_no_row_is_doubled(on_cluster, tmp_path):
    """The worker process running a shard (found through the state API) is killed: Ray runs the
    shard again, the run completes, every score once."""
    ray = on_ray.connect("ray")
    job = ray.get_runtime_context().get_job_id()
    killed = []

    def kill_one_running_shard():
        running = _wait_until(lambda: _tasks(job_id=job, state="RUNNING"), "a running shard")
        os.kill(running[0].worker_pid, signal.SIGKILL)  # a worker process of this test's own cluster
        killed.append(running[0])

    killer = threading.Thread(target=kill_one_running_shard, daemon=True)
    killer.start()
    with Store(str(tmp_path / "results.sqlite")) as results:
        plan = _plan(results, 120, 2)
        report = run_plan(plan, results, on="ray", cache_dir=str(tmp_path / "cache"))  # nothing cached
        killer.join(60)
        assert killed, "no shard was found running"
        assert not report.failed and not report.cancelled, report.text()
        (run,) = [c.record for c in report.stored]
        _assert_the_local_scores(results.scores(run.run_id), 120)

    # Ray retried it, and the retry finished (the state API hears of task events a little late)
    def retried(attempts):
        return (0, "FAILED") in attempts and any(n >= 1 and state == "FINISHED" for n, state in attempts)

    attempts = _settled(lambda: {(a.attempt_number, a.state) for a in _tasks(task_id=killed[0].task_id)}, retried)
    assert retried(attempts), attempts


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)  # a local Ray's store
def test_a_driver_killed_mid_plan_leaves_shards_the_next_one_reuses(on_cluster, store, store_url, tmp_path):  # noqa: F811
    """A driver killed after its first shard was kept; a second driver computes only the others."""
    # 6 shards on 2 CPUs: when the first is kept, at least 4 are still to run (20 pairs each: a
    # shard takes seconds after its worker has the model, the driver is killed within 0.2 s)
    limit, shards = 120, 6
    key = _plan(store, limit, shards).cells[0].key
    first = _driver(store_url, limit, shards, tmp_path / "cache")
    try:
        _wait_until(lambda: store.kept_shards(key, shards) or first.poll() is not None, "a kept shard")
    finally:
        first.kill()
        out, _ = first.communicate(timeout=60)
    kept = store.kept_shards(key, shards)
    assert 0 < len(kept) < shards, f"kept {kept} when the driver was killed:\n{out}"
    assert store.find_run(key) is None

    plan = _plan(store, limit, shards)
    assert plan.cells[0].done == set(kept)  # the plan says what is reused
    job = on_ray.connect("ray").get_runtime_context().get_job_id()
    earlier = {t.task_id for t in _tasks(job_id=job)}  # this process's tasks of earlier tests
    report = run_plan(plan, store, on="ray", cache_dir=str(tmp_path / "cache"))
    assert not report.failed and not report.cancelled, report.text()
    (run,) = [c.record for c in report.stored]
    _assert_the_local_scores(store.scores(run.run_id), limit)
    want = {f"shard {i + 1}/{shards} {CELL}" for i in range(shards) if i not in kept}
    ran = _settled(
        lambda: {t.name for t in _tasks(job_id=job, state="FINISHED") if t.task_id not in earlier}, want.__eq__
    )
    assert ran == want


@pytest.mark.parametrize("store_url", ["postgres"], indirect=True)  # a cluster's store, shared by a team
def test_two_drivers_at_once_store_one_run(on_cluster, store, store_url, tmp_path):  # noqa: F811
    """Two drivers fill the same cell at once: both finish, one run is stored, no shard row is left."""
    limit, shards = 60, 2
    key = _plan(store, limit, shards).cells[0].key
    drivers = [_driver(store_url, limit, shards, tmp_path / "cache") for _ in range(2)]
    outs = [d.communicate(timeout=SECONDS)[0] for d in drivers]
    assert [d.returncode for d in drivers] == [0, 0], outs
    runs = store.runs(kind="eval")
    assert list(runs["spec_key"]) == [key], runs
    assert store.kept_shards(key, shards) == []
    _assert_the_local_scores(store.scores(store.find_run(key).run_id), limit)


def test_a_fill_the_evaluate_page_starts_on_a_ray_address_runs_there(ray_cluster, tmp_path, monkeypatch):  # noqa: F811
    """The page's background job (negviz.evaluation.fill.fill_jobs) given the cluster's Ray Client
    address, as typed on the page: its shards are Ray tasks there, its cell stored once."""
    from negviz.evaluation.fill import fill_jobs

    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    folder = tmp_path / "jobs"
    with Store(f"sqlite:///{tmp_path / 'results.sqlite'}") as results:
        job = fill_jobs.start(
            store=results, models=["tfidf"], benchmarks=["nevir"], limit=20, on=ray_cluster.client, jobs_dir=folder
        )
        assert job.label == f"tfidf × nevir, first 20 items, on the Ray cluster at {ray_cluster.client}"
        job = _wait_until(lambda: (j := fill_jobs.poll(job.job_id, folder)).done and j, "the fill job to end")
        assert job.state == fill_jobs.COMPLETE, (job.error, ray_cluster.logs())
        assert job.cell_lines() == ["tfidf on nevir (first 20 items): stored"]
        assert results.runs(kind="eval")[["model_name", "n"]].values.tolist() == [["tfidf", 20]]
    from ray.util.state import list_tasks

    on_ray.connect(ray_cluster.client)
    names = _settled(
        lambda: {
            t.name
            for t in list_tasks(
                # named: without RAY_ADDRESS the state API looks for running clusters, and found two
                # when another Ray ran on the machine ("Found multiple active Ray instances")
                address=ray_cluster.address,
                filters=[("state", "=", "FINISHED")],
                limit=10_000,
                raise_on_missing_output=False,
            )
            if (t.name or "").endswith("of tfidf on nevir:test")
        },
        lambda found: len(found) == 4,
    )
    assert names == {f"shard {i}/4 of tfidf on nevir:test" for i in (1, 2, 3, 4)}
