"""Evaluations in the background (negviz.evaluation.eval_jobs) as real `negviz eval` child processes on a
real store: a job's progress, its stored run and JSON result; the same request joining the job
that runs it; a model that cannot be loaded reported with the CLI's message; cancel ending the
child with nothing stored; the store's password kept out of the child's command and files.
Cheap mistakes refused before any child starts: tests/evaluation/test_eval_jobs.py."""

from __future__ import annotations

from negviz.evaluation import eval_jobs, jobs
from negviz.store import Store
from tests.evaluation.test_eval_jobs import env, wait_done  # noqa: F401  (env: a fixture)
from tests.support.pg import pg_url, store_url  # noqa: F401  (fixtures)
from tests.support.waiting import wait_for


def test_a_job_stores_its_run_once_and_the_same_request_joins_it(env):
    store, folder = env
    first = eval_jobs.start("tfidf", "nevir", "test", store=store, limit=30, jobs_dir=folder)
    again = eval_jobs.start("tfidf", "nevir", "test", store=store, limit=30, jobs_dir=folder)
    assert again.joined and again.job_id == first.job_id  # the child takes seconds to start
    assert [j.job_id for j in eval_jobs.running(folder)] == [first.job_id]
    job = wait_done(first.job_id, folder)
    assert job.state == eval_jobs.COMPLETE, job.error
    r = job.result
    assert (r["model"], r["dataset"], r["split"], r["n"], r["reused_stored_run"]) == (
        "tfidf",
        "nevir",
        "test",
        30,
        False,
    )
    runs = store.runs(dataset="nevir")
    assert runs["run_id"].tolist() == [r["run_id"]] and runs["n"].tolist() == [30]
    assert store.get_run(r["run_id"]).summary["paired_accuracy"] == r["paired_accuracy"]
    progress = job.progress  # the child's last progress record: every item counted
    assert progress["done"] == progress["total"] > 0 and job.fraction == 1.0
    assert eval_jobs.running(folder) == []
    eval_jobs.cancel(job.job_id, folder)  # a Cancel that comes too late: the stored run is still reported
    assert eval_jobs.poll(job.job_id, folder).state == eval_jobs.COMPLETE
    # A new request for the stored run reuses it: no second run.
    reused = wait_done(eval_jobs.start("tfidf", "nevir", "test", store=store, limit=30, jobs_dir=folder).job_id, folder)
    assert reused.result["reused_stored_run"] and reused.result["run_id"] == r["run_id"]
    assert len(store.runs(dataset="nevir")) == 1


def test_a_model_that_cannot_load_fails_with_the_cli_message(env):
    store, folder = env
    job = eval_jobs.start(
        "no-such-org/no-such-model[family=bi-encoder]", "nevir", "test", store=store, limit=5, jobs_dir=folder
    )
    job = wait_done(job.job_id, folder)
    assert job.state == eval_jobs.FAILED
    assert "no-such-org/no-such-model" in job.error and "cannot be loaded" in job.error
    assert "Traceback" not in job.error
    assert store.runs().empty


def test_cancel_ends_the_child_and_stores_nothing(env):
    store, folder = env
    job = eval_jobs.start("all-MiniLM-L6-v2", "nevir", "test", store=store, jobs_dir=folder)
    paths = jobs.job_paths(folder, job.job_id)
    wait_for(  # the model is loaded and scoring has begun (or the job ended, which fails below)
        lambda: paths["progress.json"].exists() or eval_jobs.poll(job.job_id, folder).done, "scoring to begin"
    )
    running = eval_jobs.poll(job.job_id, folder)
    assert running.state == eval_jobs.RUNNING and 0 <= running.fraction < 1 and "/" in running.line()
    eval_jobs.cancel(job.job_id, folder)
    ended = wait_done(job.job_id, folder)
    assert ended.state == eval_jobs.CANCELLED
    # Ended mid-way: its last progress record counts fewer texts than the run has.
    assert ended.progress["done"] < ended.progress["total"], ended.progress
    assert store.runs().empty


def test_a_job_on_each_backend_keeps_the_password_out_of_its_command_and_files(
    store_url,
    tmp_path,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "jobs"
    with Store(store_url) as store:
        job = eval_jobs.start("tfidf", "nevir", "test", store=store, limit=10, jobs_dir=folder)
        password = store.engine.url.password
        paths = jobs.job_paths(folder, job.job_id)
        record = jobs.read_json(paths["job.json"])
        try:  # the running process's own command line (it may be gone already on a fast machine)
            command = open(f"/proc/{record['pid']}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            command = ""
        command += " ".join(record["command"])
        job = wait_done(job.job_id, folder)
        assert job.state == eval_jobs.COMPLETE, job.error
        assert store.runs(dataset="nevir")["run_id"].tolist() == [job.result["run_id"]]
    if password:  # PostgreSQL: the child got the URL from its environment only
        assert password not in command
        assert not [p.name for p in folder.iterdir() if password in p.read_text(errors="replace")]
