"""Evaluations in the background (negviz.evaluation.eval_jobs): cheap mistakes are refused before any child
starts. The jobs themselves, as real `negviz eval` children (progress, joining, a model that cannot
load, cancel, the password kept out): tests/processes/test_eval_job_processes.py. The Evaluate
page's side (AppTest): tests/pages/test_evaluate_page.py."""

from __future__ import annotations

import pytest

from negviz.core.errors import NegvizError
from negviz.evaluation import eval_jobs
from negviz.store import Store
from tests.support.waiting import wait_for

TIMEOUT = 180


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))  # the child scores afresh
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield store, tmp_path / "jobs"
    store.close()


def wait_done(job_id, folder, timeout=TIMEOUT) -> eval_jobs.EvalJob:
    return wait_for(lambda: (job := eval_jobs.poll(job_id, folder)).done and job, f"job {job_id} to end", timeout)


@pytest.mark.parametrize(
    "model,dataset,split,message",
    [
        ("no-such-model", "nevir", "test", "family"),  # outside the catalog without [family=...]
        ("bm25[k1=-3]", "nevir", "test", "k1"),  # an option out of range
        ("negminilm", "cannot", "test", "held-out split"),  # trained on part of CANNOT
    ],
)
def test_cheap_mistakes_are_refused_before_any_child_starts(env, model, dataset, split, message):
    store, folder = env
    with pytest.raises((NegvizError, ValueError, KeyError), match=message):
        eval_jobs.start(model, dataset, split, store=store, jobs_dir=folder)
    assert not folder.exists() or not list(folder.glob("*.job.json"))


def test_a_job_whose_run_is_stored_is_complete_even_if_a_late_cancel_ended_its_process(tmp_path):
    """The CLI prints its JSON once the run is stored; a Cancel then may still end the process
    (SIGTERM) before it exits by itself. The run is stored: the job is complete, not cancelled
    (seen under load: a Cancel clicked as the job ended reported 'cancelled' for a stored run)."""
    import json
    import signal
    import subprocess
    import sys

    from negviz.evaluation import jobs

    job_id, folder = f"{eval_jobs.PREFIX}late-cancel", tmp_path / "jobs"
    folder.mkdir()
    paths = jobs.job_paths(folder, job_id)
    child = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"])
    child.wait()
    assert child.returncode == -signal.SIGTERM
    jobs._PROCS[job_id] = child  # this process's own child, ended by the Cancel's SIGTERM
    paths["job.json"].write_text(json.dumps({"job_id": job_id, "label": "tfidf · nevir", "pid": child.pid}))
    paths["out"].write_text(json.dumps({"run_id": "r1", "model": "tfidf", "n": 30}))
    paths["cancel"].touch()
    try:
        job = eval_jobs.poll(job_id, folder)
    finally:
        jobs._PROCS.pop(job_id, None)
    assert job.state == eval_jobs.COMPLETE and job.result["run_id"] == "r1"
