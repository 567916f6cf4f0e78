"""The app server (`python -m negviz.ui.serve`, a real child process) stops when told: SIGTERM, as
container platforms send it, or Ctrl-C's SIGINT, at any moment of its start, ends it with status 0
and leaves no process of its group behind. A stop during the warm-up once hung 22 minutes (a
`Table.to_pandas` in a daemon thread deadlocked pyarrow's thread-pool shutdown at interpreter exit).
The moments with a page open in Chromium: tests/browser/test_server_stop.py."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.support.browser import healthy, spawn_server, stop_and_check
from tests.support.waiting import wait_for

SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT}
REPEATS = 2


def importing_streamlit(pid: int) -> bool:
    """Whether process ``pid`` has loaded protobuf's extension (its /proc maps): the server is
    importing Streamlit, seconds before Streamlit's own signal handlers exist."""
    try:
        return "/_message.abi3.so" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def started(tmp_path: Path, name: str):
    proc, url = spawn_server(tmp_path, name=name)
    return proc, url, tmp_path / f"{name}.log"


@pytest.mark.parametrize("repeat", range(REPEATS))
@pytest.mark.parametrize("sig", SIGNALS, ids=list(SIGNALS))
def test_a_signal_as_the_server_starts_ends_it_with_status_0(tmp_path, sig, repeat):
    """While the server imports Streamlit, its first second: old code died of SIGTERM (status -15)
    and printed a KeyboardInterrupt on SIGINT."""
    proc, _, log = started(tmp_path, f"start-{repeat}")
    try:
        wait_for(lambda: importing_streamlit(proc.pid), "the server to import Streamlit", 60, every=0.01)
        stop_and_check(proc, SIGNALS[sig], log)
    finally:
        proc.kill()


@pytest.mark.parametrize("repeat", range(REPEATS))
@pytest.mark.parametrize("sig", SIGNALS, ids=list(SIGNALS))
def test_a_signal_during_the_warm_up_ends_the_server_with_status_0(tmp_path, sig, repeat):
    """The moment the server answers, its warm-up starts: importing the first page's modules, then
    recording the shipped runs and copying their scores in (pyarrow) in a background thread."""
    proc, url, log = started(tmp_path, f"warm-{repeat}")
    try:
        wait_for(lambda: healthy(url), "the server to answer", 90, every=0.1, detail=lambda: log.read_text()[-2000:])
        stop_and_check(proc, SIGNALS[sig], log)
    finally:
        proc.kill()


def test_a_signal_while_the_shipped_scores_are_copied_in_ends_the_server_with_status_0(tmp_path):
    """The stop the issue saw: the background copy of the shipped runs' scores under way (runs
    recorded, some scores still pending) when SIGTERM comes."""
    import sqlite3

    proc, url, log = started(tmp_path, "copying")
    store = tmp_path / "results.sqlite"

    def copying() -> bool:
        try:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as conn:
                pending = conn.execute("select count(*) from pending_scores").fetchone()[0]
                copied = conn.execute("select count(distinct run_id) from item_scores").fetchone()[0]
        except sqlite3.Error:  # not created yet, or busy
            return False
        return pending > 0 and copied > 0

    try:
        wait_for(copying, "the shipped scores being copied in", 120, every=0.05, detail=lambda: log.read_text()[-2000:])
        stop_and_check(proc, signal.SIGTERM, log)
    finally:
        proc.kill()


JOB_STARTING = """
import json, sys, time
from pathlib import Path
from negviz.evaluation import eval_jobs, jobs
from negviz.store import Store
from negviz.ui import shutdown

store_url, jobs_dir = sys.argv[1], Path(sys.argv[2])
job = eval_jobs.start("all-MiniLM-L6-v2", "demetr", "test", store=Store(store_url), jobs_dir=jobs_dir, threads=1)
paths = jobs.job_paths(jobs_dir, job.job_id)
pid = jobs.read_json(paths["job.json"])["pid"]
deadline = time.monotonic() + 120
while not paths["beat"].exists() and time.monotonic() < deadline:  # the job's Python is running
    time.sleep(0.1)
print(json.dumps({"pid": pid, "running": jobs.alive(job.job_id, {})[0]}), flush=True)
shutdown.finish(0)
"""


def test_a_stop_while_a_job_starts_ends_the_job_too(tmp_path):
    """The server's stop ends the jobs it started (a 35,000-item DEMETR evaluation just begun):
    before, `finish` left them running as orphans of their own session."""
    import json
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", JOB_STARTING, f"sqlite:///{tmp_path / 'store.sqlite'}", str(tmp_path / "jobs")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = json.loads(done.stdout.splitlines()[0])
    try:
        assert done.returncode == 0 and said["running"], done.stderr[-2000:]
        with pytest.raises(ProcessLookupError):  # neither the job nor anything of its group is left
            os.killpg(said["pid"], 0)
    finally:
        try:
            os.killpg(said["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
