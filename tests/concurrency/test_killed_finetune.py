"""A `negviz finetune` started from a shell and killed with SIGKILL after storing epoch 0 (SQLite and
PostgreSQL, real child processes on a tiny model): reported interrupted once its heartbeat is older
than the timeout, and not before; discarded, resumed under its id, or trained anew."""

from __future__ import annotations

import signal
import uuid

import pytest

from negviz import cli
from negviz.evaluation import jobs
from negviz.finetune import jobs as ft_jobs
from negviz.store import RunNotFoundError
from tests.jobs.test_interrupted_jobs import STALE_ENV, shell_finetune, spec, stored_epochs
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)
from tests.support.waiting import wait_for


def test_a_killed_finetune_is_interrupted_then_discarded_resumed_or_trained_anew(
    store, tiny_model_dir, tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv(STALE_ENV, raising=False)
    url, model = jobs.store_url(store), tiny_model_dir("bi-encoder")
    kw = dict(jobs_dir=tmp_path / "jobs", save_dir=tmp_path / "ckpt", threads=1)
    a, c = spec(model, 1), spec(model, 2)
    ids = {"a": uuid.uuid4().hex, "c": uuid.uuid4().hex}
    procs = {name: shell_finetune(s, url, ids[name], tmp_path) for name, s in (("a", a), ("c", c))}
    try:
        for name, run_id in ids.items():
            wait_for(lambda: stored_epochs(store, run_id), f"epoch 0 of run {name}")
        # Alive (a fresh heartbeat): running, and the same spec reuses it.
        alive = ft_jobs.poll(ids["a"], store, kw["jobs_dir"])
        assert alive.state == "running" and "running elsewhere" in alive.line()
        reused = ft_jobs.start(a, store, **kw)
        assert reused.reused and reused.run_id == ids["a"]
        epoch0 = store.epochs(ids["c"]).iloc[0]
    finally:
        for proc in procs.values():
            proc.send_signal(signal.SIGKILL)  # the children this test started
            proc.wait()
    assert procs["a"].returncode == -signal.SIGKILL

    # Dead, but the heartbeat is younger than the timeout: still taken as running.
    assert ft_jobs.poll(ids["a"], store, kw["jobs_dir"]).state == "running"
    monkeypatch.setenv(STALE_ENV, "1")  # a one-second timeout: the test need not wait two minutes
    for run_id in ids.values():
        wait_for(
            lambda: ft_jobs.poll(run_id, store, kw["jobs_dir"]).state == "interrupted",
            "the interrupted state",
            timeout=60,
        )
    status = ft_jobs.poll(ids["a"], store, kw["jobs_dir"])
    assert not status.done and status.line().startswith("interrupted: no sign of life for ")
    assert f"{len(stored_epochs(store, ids['a']))} of 101 measurements stored" in status.line()
    assert store.get_run(ids["a"]).status == "running", "the store is not rewritten: a run that beats again lives"

    # The CLI lists both as interrupted, with what to do.
    assert cli.main(["--db", url, "jobs"]) == 0
    out = capsys.readouterr().out
    assert all(f"{run_id}  interrupted" in out for run_id in ids.values()) and "--resume RUN_ID" in out

    # The same spec started again trains a new run instead of "reusing" the dead one.
    b = ft_jobs.start(a, store, **kw)
    assert not b.reused and b.run_id != ids["a"]
    # Resume trains the interrupted run again under its id, from epoch 0.
    resumed = ft_jobs.resume(ids["c"], store, **kw)
    assert resumed.run_id == ids["c"] and not resumed.done
    with pytest.raises(ValueError, match="only an interrupted run can be resumed"):
        ft_jobs.resume(ids["c"], store, **kw)  # its child is alive now
    try:
        for run_id in (b.run_id, ids["c"]):
            wait_for(
                lambda: (
                    len(stored_epochs(store, run_id)) >= 2
                    and ft_jobs.poll(run_id, store, kw["jobs_dir"]).state == "running"
                ),
                f"run {run_id[:8]} training",
            )
        again = store.epochs(ids["c"]).iloc[0]
        assert again["cos_mean"] == pytest.approx(epoch0["cos_mean"]), "epoch 0 measured again, the same"

        # Discard deletes the interrupted run, and nothing else; a live run is not discarded.
        before = set(store.runs(status=None)["run_id"])
        ft_jobs.discard(ids["a"], store, jobs_dir=kw["jobs_dir"], save_dir=kw["save_dir"])
        with pytest.raises(RunNotFoundError):
            store.get_run(ids["a"])
        assert set(store.runs(status=None)["run_id"]) == before - {ids["a"]}
        assert len(stored_epochs(store, b.run_id)) >= 2 and len(stored_epochs(store, ids["c"])) >= 2
        with pytest.raises(ValueError, match="is running .cancel it first.; only an interrupted run can be discarded"):
            ft_jobs.discard(b.run_id, store, jobs_dir=kw["jobs_dir"])
    finally:
        for run_id in (b.run_id, ids["c"]):
            ft_jobs.cancel(run_id, kw["jobs_dir"])
    for run_id in (b.run_id, ids["c"]):
        done = wait_for(lambda: (s := ft_jobs.poll(run_id, store, kw["jobs_dir"])).done and s, "the cancel")
        assert done.state == "cancelled"
