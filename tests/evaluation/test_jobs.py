"""negviz.evaluation.jobs: the pieces every background job shares: the one liveness rule, the heartbeat
thread, atomic job files and the throttled progress file. Jobs as real child processes:
tests/evaluation/test_eval_jobs.py and tests/jobs/."""

import json
import os
from datetime import datetime, timezone

import pytest

from negviz.evaluation import jobs
from tests.support.waiting import wait_for

STALE_ENV = jobs.STALE_ENV


def test_the_liveness_rule_on_both_sides_of_the_timeout(monkeypatch):
    monkeypatch.delenv(STALE_ENV, raising=False)
    t, limit = 1_000_000.0, jobs.STALE_AFTER
    assert jobs.is_alive(None, t, now=t + limit - 1) and not jobs.is_alive(None, t, now=t + limit + 1)
    assert not jobs.is_alive(None, None, now=t), "a job that never gave a sign of life is not alive"
    # Where this machine sees the process, that decides, whatever the heartbeat says.
    assert jobs.is_alive(True, t, now=t + 10 * limit) and not jobs.is_alive(False, t, now=t)
    assert jobs.beat_every() == limit / jobs.BEATS and STALE_ENV == "NEGVIZ_JOB_STALE_SECONDS"
    monkeypatch.setenv(STALE_ENV, "30")
    assert jobs.is_alive(None, t, now=t + 29) and not jobs.is_alive(None, t, now=t + 31)
    monkeypatch.setenv(STALE_ENV, "soon")
    with pytest.raises(ValueError, match="NEGVIZ_JOB_STALE_SECONDS='soon' is not a number of seconds"):
        jobs.stale_after()


def test_stale_before_is_the_liveness_cut_off_as_a_time(monkeypatch):
    monkeypatch.setenv(STALE_ENV, "30")
    assert jobs.stale_before(now=1_000_030.0) == datetime.fromtimestamp(1_000_000.0, timezone.utc)


def test_job_files_are_written_whole_and_read_back(tmp_path):
    paths = jobs.job_paths(tmp_path, "j1")
    assert paths["job.json"] == tmp_path / "j1.job.json" and set(paths) == set(jobs.KINDS)
    jobs.write_json(paths["job.json"], {"pid": 12, "when": datetime(2025, 1, 1)})
    assert jobs.read_json(paths["job.json"]) == {"pid": 12, "when": "2025-01-01 00:00:00"}
    assert not paths["job.json"].with_name("j1.job.json.tmp").exists()  # replaced, not left behind
    paths["progress.json"].write_text("{half a rec")
    assert jobs.read_json(paths["progress.json"]) == {} and jobs.read_json(tmp_path / "none.json") == {}
    paths["log"].write_bytes(b"x" * 2000 + b"the end\n")
    assert jobs.tail(paths["log"]) == "x" * (jobs.LOG_TAIL - 8) + "the end"  # the last 1,500 bytes, stripped
    assert jobs.tail(tmp_path / "missing.log") == ""


def test_file_beat_is_the_time_of_the_last_touch(tmp_path):
    beat = tmp_path / "j1.beat"
    assert jobs.file_beat(beat, default=5.0) == 5.0  # never touched
    assert jobs.touch(beat) is True
    os.utime(beat, (1_000.0, 1_000.0))
    assert jobs.file_beat(beat) == 1_000.0


def test_heartbeat_beats_until_the_claim_is_lost():
    answers = [True, RuntimeError("store busy"), True, False, True]
    calls = []

    def beat():
        calls.append(len(calls))
        answer = answers[len(calls) - 1]
        if isinstance(answer, Exception):
            raise answer  # a missed beat: tried again at the next one
        return answer

    with jobs.Heartbeat(beat, every=0.01) as heart:
        wait_for(lambda: heart.lost, "the heartbeat to stop at the lost claim", timeout=30, every=0.01)
    assert len(calls) == 4  # stopped at the first False


def test_progress_file_writes_at_a_stage_change_and_at_the_end_only(tmp_path):
    path = tmp_path / "j1.progress.json"
    progress = jobs.ProgressFile(path, every=3600)  # within a stage, nothing more for an hour
    progress({"done": 1}, stage="load")
    progress({"done": 2}, stage="load")
    assert json.loads(path.read_text())["done"] == 1
    progress({"done": 3}, stage="score")
    assert json.loads(path.read_text())["done"] == 3
    progress({"done": 4}, stage="score", last=True)
    record = json.loads(path.read_text())
    assert record["done"] == 4 and record["pid"] == os.getpid()
    jobs.ProgressFile(None)({"done": 1})  # no file: nothing to do


def test_a_job_of_another_host_cannot_be_seen_from_here():
    assert jobs.alive("j-other", {"pid": os.getpid(), "host": "elsewhere"}) == (None, None)
    assert jobs.alive("j-none", {}) == (None, None)


def test_a_progress_file_that_is_a_store_or_a_folder_is_refused_before_any_write(tmp_path):
    from negviz.core.output_files import UnwritableTargetError
    from negviz.evaluation.jobs import ProgressFile
    from negviz.store import Store

    db = tmp_path / "results.sqlite"
    with Store(str(db)):
        pass
    before = db.read_bytes()
    for hostile in (db, tmp_path, "/dev/full"):
        with pytest.raises(UnwritableTargetError):
            ProgressFile(hostile)
    assert db.read_bytes() == before  # the store is untouched


def test_a_silent_job_is_said_with_its_silence_host_and_what_is_kept():
    import time

    from negviz.evaluation.jobs import silent_error

    text = silent_error({"host": "replica-2"}, time.time() - 125, "the fill plan", "finished shards are kept")
    assert text == (
        "no sign of life for about 2 min from the fill plan on replica-2: its process was killed or its "
        "machine stopped; finished shards are kept"
    )
