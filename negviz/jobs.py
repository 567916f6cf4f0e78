"""Child processes for work a page must not wait on (fine-tuning, evaluation).

A job is a `negviz` CLI command run as a child process at a lower CPU priority: it survives
page reruns, a crash in it cannot take the app down, and it runs outside the server's GIL, so the
other people using the server stay responsive while it works. Each job keeps, in a jobs folder:

- ``<id>.job.json``: what was started (command, pid, host, start time, the caller's fields);
- ``<id>.progress.json``: the latest progress record, rewritten atomically (ProgressFile);
- ``<id>.log``: the child's output (its stderr; stdout too unless it goes to ``<id>.out``);
- ``<id>.cancel``: created to ask the job to stop.

negviz.finetune.jobs and negviz.eval_jobs build on these pieces.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from negviz.paths import ROOT

NICE = 5  # a job yields the CPU to the app's own work
COMPLETE, FAILED, CANCELLED = "complete", "failed", "cancelled"
ENDED = (COMPLETE, FAILED, CANCELLED)
LOG_TAIL = 1500
KINDS = ("job.json", "progress.json", "cancel", "log", "out")

# Children started by this process (the app's server), by job id: exit codes and no zombies.
_PROCS: dict[str, subprocess.Popen] = {}


class JobState:
    """What both kinds of job status share: a state, and whether it has ended."""

    state: str

    @property
    def done(self) -> bool:
        return self.state in ENDED


def default_jobs_dir() -> Path:
    from negviz.cache import default_cache_dir

    return default_cache_dir() / "jobs"


def store_url(store) -> str:
    """The store's full URL, for a child's environment (never for a command line or a job file)."""
    return store.engine.url.render_as_string(hide_password=False)


def job_paths(jobs_dir: str | Path | None, job_id: str) -> dict[str, Path]:
    folder = Path(jobs_dir) if jobs_dir else default_jobs_dir()
    return {k: folder / f"{job_id}.{k}" for k in KINDS}


def launch(cmd: Sequence[str], job_id: str, *, jobs_dir: str | Path | None = None, fields: dict | None = None,
           threads: int | None = None, env: dict[str, str] | None = None, stdout_to_file: bool = False,
           python: str = sys.executable) -> subprocess.Popen:
    """Start ``python -m negviz <cmd>`` as job ``job_id`` and write its job record.
    ``threads`` caps the child's CPU threads (OMP_NUM_THREADS); ``stdout_to_file`` keeps the
    command's stdout (say, its JSON result) apart from its log, in ``<id>.out``."""
    paths = job_paths(jobs_dir, job_id)
    paths["log"].parent.mkdir(parents=True, exist_ok=True)
    full = [python, "-m", "negviz", *cmd]
    if shutil.which("nice"):  # nice execs: the pid stays the job's
        full = ["nice", "-n", str(NICE), *full]
    child_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    if threads:
        child_env["OMP_NUM_THREADS"] = str(int(threads))
    with open(paths["log"], "wb") as log, open(paths["out"] if stdout_to_file else os.devnull, "wb") as out:
        proc = subprocess.Popen(full, cwd=ROOT, env=child_env, stdout=out if stdout_to_file else log,
                                stderr=subprocess.STDOUT if not stdout_to_file else log,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    _PROCS[job_id] = proc
    record = {"job_id": job_id, "pid": proc.pid, "host": socket.gethostname(), "started_at": time.time(),
              "command": full, **(fields or {})}
    write_json(paths["job.json"], record)
    return proc


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def write_json(path: Path, record: dict[str, Any]) -> None:
    """Atomically (a reader never sees half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, default=str))
    os.replace(tmp, path)


def alive(job_id: str, job: dict[str, Any]) -> tuple[bool | None, int | None]:
    """(alive, exit code): None when this machine cannot tell (a job of another host)."""
    proc = _PROCS.get(job_id)
    if proc is not None:
        code = proc.poll()
        return code is None, code
    pid = job.get("pid")
    if not pid or job.get("host") != socket.gethostname():
        return None, None
    if Path("/proc/self").exists():  # Linux: the pid must still be our job, not a reused pid
        try:
            return job_id in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"), None
        except OSError:
            return False, None
    try:
        os.kill(int(pid), 0)
        return True, None
    except OSError:
        return False, None


def tail(path: Path) -> str:
    try:
        return path.read_bytes()[-LOG_TAIL:].decode(errors="replace").strip()
    except OSError:
        return ""


def terminate(job_id: str, job: dict[str, Any]) -> None:
    """End a job of this machine now (SIGTERM to its process group)."""
    import signal

    if alive(job_id, job)[0]:
        try:
            os.killpg(int(job["pid"]), signal.SIGTERM)
        except (OSError, KeyError, ValueError):
            pass


class ProgressFile:
    """A job's progress record: a small JSON file rewritten atomically, at most every ``every``
    seconds within one stage, and always when the stage changes or ends."""

    def __init__(self, path: str | Path | None, every: float = 0.5):
        self.path, self.every, self.last, self.stage = (Path(path) if path else None), every, 0.0, None

    def __call__(self, record: dict[str, Any], stage: Any = None, last: bool = False) -> None:
        now = time.time()
        if self.path is None or (now - self.last < self.every and stage == self.stage and not last):
            return
        self.last, self.stage = now, stage
        write_json(self.path, {**record, "updated_at": now, "pid": os.getpid()})
