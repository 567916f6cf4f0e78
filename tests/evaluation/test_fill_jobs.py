"""Fill plans in the background (negviz.evaluation.fill.fill_jobs): mistakes refused before any child
starts; a real `negviz board --fill` child storing its cell once, the same request joining it, a
child that fails said in its own words; each cell's line with its time left. The Evaluate page's
side (AppTest, with Cancel): tests/pages/test_evaluate_fill_page.py."""

from __future__ import annotations

import pytest

from negviz.core.errors import NegvizError
from negviz.evaluation import jobs
from negviz.evaluation.fill import fill_jobs
from negviz.store import Store
from tests.support.waiting import wait_for


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("NEGVIZ_RAY_ADDRESS", raising=False)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield store, tmp_path / "jobs"
    store.close()


def wait_done(job_id, folder, timeout=180) -> fill_jobs.FillJob:
    return wait_for(lambda: (job := fill_jobs.poll(job_id, folder)).done and job, f"plan {job_id} to end", timeout)


@pytest.mark.parametrize(
    "options,message",
    [
        ({"on": "ray://head"}, "ray://HOST:PORT"),  # no port
        ({"on": "ray://head:70000"}, "ray://HOST:PORT"),  # no such port
        ({"on": "ray://-oProxyCommand=x:1"}, "ray://HOST:PORT"),  # not a host name
        ({"on": "http://head:10001"}, "ray://HOST:PORT"),
        ({"shards": 0}, "number of shards"),
        ({"limit": 0}, "1 or more"),
    ],
)
def test_mistakes_are_refused_before_any_child_starts(env, options, message):
    store, folder = env
    with pytest.raises(NegvizError, match=message):
        fill_jobs.start(store=store, models=["tfidf"], benchmarks=["nevir"], jobs_dir=folder, **options)
    assert not folder.exists() or not list(folder.glob("*.job.json"))


def test_a_plan_stores_its_cell_once_and_the_same_request_joins_it(env):
    store, folder = env
    first = fill_jobs.start(store=store, models=["tfidf"], benchmarks=["nevir"], limit=20, jobs_dir=folder)
    again = fill_jobs.start(store=store, models=["tfidf"], benchmarks=["nevir"], limit=20, jobs_dir=folder)
    assert again.joined and again.job_id == first.job_id and first.label == "tfidf × nevir, first 20 items, here"
    assert [j.job_id for j in fill_jobs.running(folder)] == [first.job_id]
    job = wait_done(first.job_id, folder)
    assert job.state == fill_jobs.COMPLETE, (job.error, jobs.tail(jobs.job_paths(folder, job.job_id)["log"]))
    assert job.cell_lines() == ["tfidf on nevir (first 20 items): stored"]
    assert job.progress["done"] == job.progress["total"] == 20 and job.fraction == 1.0
    runs = store.runs(kind="eval")
    assert runs[["model_name", "n"]].values.tolist() == [["tfidf", 20]]
    assert "1 of 1 cell stored" in job.report
    assert fill_jobs.running(folder) == []
    # Started again: nothing left to fill, and still one run.
    again = wait_done(
        fill_jobs.start(store=store, models=["tfidf"], benchmarks=["nevir"], limit=20, jobs_dir=folder).job_id, folder
    )
    assert again.state == fill_jobs.COMPLETE and again.cell_lines() == [] and "Nothing to fill" in again.report
    assert len(store.runs()) == 1


def test_a_plan_that_fails_says_why_in_the_cli_words(env):
    store, folder = env
    job = wait_done(
        fill_jobs.start(store=store, models=["tfidf"], benchmarks=["no-such-benchmark"], jobs_dir=folder).job_id, folder
    )
    assert job.state == fill_jobs.FAILED and "no benchmark no-such-benchmark on the board" in job.error
    assert "Traceback" not in job.error and store.runs().empty


def cell(name, state, done, shards, items_done, items):
    return {
        "cell": name,
        "state": state,
        "shards_done": done,
        "shards": shards,
        "items_done": items_done,
        "items": items,
        "error": None,
    }


def test_each_cell_is_done_once_its_items_and_those_before_it_are():
    """Shards run in the plan's order: a cell's time left is its share, with the cells before it,
    of the plan's time left."""
    progress = {
        "done": 150,
        "total": 450,
        "desc": "shards 3/8",
        "left": 300.0,  # 300 items left: one second each
        "cells": [
            cell("a on nevir", "stored", 2, 2, 50, 50),
            cell("b on nevir", "running", 1, 4, 100, 200),
            cell("c on demetr", "running", 0, 2, 0, 200),
        ],
    }
    lines = fill_jobs.FillJob("fill-x", fill_jobs.RUNNING, "label", progress).cell_lines()
    assert lines[0] == "a on nevir: stored"
    assert lines[1] == "b on nevir: 1/4 shards, 100/200 items · about 2 min left"  # its 100 items
    assert lines[2] == "c on demetr: 0/2 shards, 0/200 items · about 5 min left"  # b's 100, then its 200
    ended = fill_jobs.FillJob("fill-x", fill_jobs.CANCELLED, "label", progress).cell_lines()
    assert ended[1] == "b on nevir: 1/4 shards, 100/200 items"  # no time left said once it ended


def test_where_a_plan_runs_in_words():
    assert fill_jobs.where_text(None) == fill_jobs.where_text("here") == "here"
    assert fill_jobs.where_text("ray") == "on a Ray on the server's machine"
    assert fill_jobs.where_text("ray://head:10001") == "on the Ray cluster at ray://head:10001"
