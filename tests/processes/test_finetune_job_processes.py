"""Background fine-tuning jobs as real child processes on a tiny model (negviz.finetune.jobs):
live progress, cancel (finished epochs kept), a killed child reported as failed (epochs kept),
and a second start of the same spec reusing the stored run. A bad spec refused in the caller:
tests/finetune/test_jobs.py."""

from __future__ import annotations

import json
import os
import signal

import pytest

from negviz import finetune as ft
from negviz.finetune import jobs
from negviz.store import Store
from tests.finetune.test_jobs import spec
from tests.support.waiting import wait_for


@pytest.fixture(scope="module")
def started(tiny_model_dir, tmp_path_factory):
    """Three jobs started at once (their start-up overlaps): one to cancel, one to kill, one to finish."""
    tmp = tmp_path_factory.mktemp("jobs")
    store = Store(f"sqlite:///{tmp / 'runs.sqlite'}")
    kw = dict(jobs_dir=tmp / "jobs", save_dir=tmp / "ckpt", threads=1)
    model = tiny_model_dir("bi-encoder")
    specs = {
        "cancel": spec(model, epochs=50, limit_train=120, seed=1),  # long: it must still run when cancelled
        "crash": spec(model, epochs=30, limit_train=40, seed=2),
        "finish": spec(model, epochs=1, limit_train=6, seed=3),
    }
    jobs_ = {name: jobs.start(s, store, **kw) for name, s in specs.items()}
    # Started again at once: the child has not even registered its run yet, and is reused all the same.
    jobs_["finish-again"] = jobs.start(specs["finish"], store, **kw)
    yield store, kw, specs, jobs_
    for job in jobs_.values():  # stop whatever a failed test left running
        jobs.cancel(job.run_id, kw["jobs_dir"])
    store.close()


def poll(store, kw, run_id):  # noqa: D103
    return jobs.poll(run_id, store, kw["jobs_dir"])


def test_a_killed_job_is_reported_failed_with_its_epochs(started):
    store, kw, _, started_jobs = started
    job = started_jobs["crash"]
    wait_for(
        lambda: poll(store, kw, job.run_id).state == "running" and not ft.epochs(store, job.run_id).empty,
        "epoch 0 of the job",
    )
    pid = json.loads((kw["jobs_dir"] / f"{job.run_id}.job.json").read_text())["pid"]
    os.kill(pid, signal.SIGKILL)  # the child this test module started
    failed = wait_for(lambda: (s := poll(store, kw, job.run_id)).done and s, "the crash")
    assert failed.state == "failed" and "exit code -9" in failed.error
    run = store.get_run(job.run_id)
    assert run.status == "failed" and "without finishing" in run.error
    assert ft.epochs(store, job.run_id)["epoch"].iloc[0] == 0


def test_live_progress_then_cancel_keeps_the_finished_epochs(started):
    store, kw, _, started_jobs = started
    job = started_jobs["cancel"]
    assert job.state == "starting" and not job.reused
    seen = []  # every progress record polled: live progress of steps and phases

    def epoch_two():
        s = poll(store, kw, job.run_id)
        seen.append(s.progress)
        return s.progress.get("epoch", 0) >= 2 and s

    status = wait_for(epoch_two, "progress into epoch 2 (epoch 1 measured and stored)")
    assert status.state == "running" and status.local and 0 < status.fraction < 1
    assert status.line().startswith(f"epoch {status.progress['epoch']}/50: ")
    assert {"eval", "train"} & {p.get("phase") for p in seen}
    jobs.cancel(job.run_id, kw["jobs_dir"])
    assert poll(store, kw, job.run_id).cancel_requested
    done = wait_for(lambda: (s := poll(store, kw, job.run_id)).done and s, "the cancel")
    assert done.state == "cancelled" and store.get_run(job.run_id).status == "cancelled"
    kept = ft.epochs(store, job.run_id)["epoch"].tolist()
    assert kept[:2] == [0, 1] and len(kept) < 51


def test_a_second_start_of_the_same_spec_reuses_the_run(started):
    store, kw, specs, started_jobs = started
    first, at_once = started_jobs["finish"], started_jobs["finish-again"]
    assert at_once.reused and at_once.run_id == first.run_id
    done = wait_for(lambda: (x := poll(store, kw, first.run_id)).done and x, "the job")
    assert done.state == "complete", done.error
    assert done.fraction == 1.0
    again = jobs.start(specs["finish"], store, **kw)
    assert again.reused and again.run_id == first.run_id and again.state == "complete"
    assert ft.epochs(store, first.run_id)["epoch"].tolist() == [0, 1]
    assert (store.runs(kind="finetune", status=None)["spec_key"] == store.get_run(first.run_id).spec_key).sum() == 1
